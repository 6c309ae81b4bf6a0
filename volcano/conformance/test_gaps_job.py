"""Job controller conformance: what a CompleteJob keeps when retries remain, and the pod volumes of a
Job's claims.

Volcano's Running state answers CompleteJob with ``KillJob(PodRetainPhaseSoft)`` and the phase
Completing: pods already Succeeded or Failed are kept, every other pod is deleted. (On a Job's last
retry, ``retryCount >= maxRetry - 1``, ``killJob`` keeps Succeeded and Failed pods whatever the state
asked, so only a Job with retries left shows the state's own choice.)

Each pod of a Job with ``volumes`` gets one volume per distinct claim, named ``<job>-<12 random
characters of [0-9a-z]>`` (``GenRandomStr(12)``, drawn anew for every pod) and mounted in every container.

Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

import re

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job, plain
from volcano.conformance.lib.waits import wait_job_phase

__all__: list[str] = []

NO_REQUESTS: dict[str, str] = {}


@pytest.mark.job_lifecycle
def test_complete_job_with_retries_left_keeps_the_succeeded_pod(cluster: Cluster) -> None:
    """A Job (``maxRetry: 3``, no retry used) of a long-running task and a task whose pod succeeds
    after 1s with ``TaskCompleted -> CompleteJob``: the Job ends Completed, the long-running pod is
    deleted and the succeeded pod is kept, Succeeded and not being deleted."""
    running = Task(name="running-task", rep=1, min=1, req=NO_REQUESTS, duration="1000s", restart_policy="Never")
    done = Task(name="done-task", rep=1, min=1, req=NO_REQUESTS, duration="1s", restart_policy="Never",
                policies=[{"event": "TaskCompleted", "action": "CompleteJob"}])
    cluster.apply(job("gaps-complete", [running, done], min=2, max_retry=3))
    wait_job_phase(cluster, "gaps-complete", "Completed", 300)
    assert (cluster.get("Job", "gaps-complete")["status"].get("retryCount") or 0) == 0
    cluster.wait_until(lambda: cluster.try_get("Pod", "gaps-complete-running-task-0") is None, 300,
                       "the running pod is gone")
    kept = cluster.try_get("Pod", "gaps-complete-done-task-0")
    assert kept is not None, "the succeeded pod should be kept"
    assert not kept["metadata"].get("deletionTimestamp"), "the succeeded pod should not be deleted"
    assert kept["status"]["phase"] == "Succeeded"


@pytest.mark.job_lifecycle
def test_each_pod_gets_its_own_random_volume_name_for_a_claim(cluster: Cluster) -> None:
    """A Job of two pods mounting claim ``gaps-data`` at ``/data``: each pod has one volume for the claim,
    named ``gaps-vol-`` and 12 characters of ``[0-9a-z]``, mounted at ``/data``; the two pods' names differ."""
    cluster.create({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "gaps-data"},
                    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}})
    manifest = job("gaps-vol", [Task(name="t", rep=2, min=1, req=NO_REQUESTS)])
    manifest["spec"]["volumes"] = [{"mountPath": "/data", "volumeClaimName": "gaps-data"}]
    cluster.apply(manifest)
    cluster.wait_until(lambda: len(cluster.job_pods("gaps-vol")) == 2, 120, "both pods created")
    names = []
    for pod in cluster.job_pods("gaps-vol"):
        spec = plain(pod)["spec"]
        claims = [v for v in spec.get("volumes") or [] if (v.get("persistentVolumeClaim") or {}).get("claimName")
                  == "gaps-data"]
        assert len(claims) == 1, spec.get("volumes")
        name = claims[0]["name"]
        assert re.fullmatch(r"gaps-vol-[0-9a-z]{12}", name), name
        mounts = [m for m in spec["containers"][0].get("volumeMounts") or [] if m["name"] == name]
        assert [m["mountPath"] for m in mounts] == ["/data"], spec["containers"][0].get("volumeMounts")
        names.append(name)
    assert names[0] != names[1], names
