"""Admission conformance: Volcano's PodGroup and Job webhook rules a user meets less often.

* ``validatepodgroup`` (controllers reference §8.5, ``validate_podgroup.go``): a PodGroup's queue must
  exist and be ``Open``; ``networkTopology`` may not set both ``highestTierAllowed`` and
  ``highestTierName``, nor may a ``subGroupPolicy``'s. The topology errors are joined by a space, the
  parts (queue, topology) by ``"; "``.
* ``validatejob`` (§8.1, ``admit_job.go``): the queue must exist, be Open and be a leaf (not ``root``,
  no children: their number is named); an unknown plugin; a volume
  naming both ``volumeClaim`` and ``volumeClaimName``, or a claim name that is not a DNS subdomain;
  task dependencies that form a cycle. Messages are concatenated in the webhook's order and trimmed.
* ``validatequeue`` (§8.4): a queue with children may not lower its capability below its descendants'.

Every denial is 403 with ``admission webhook "<name>" denied the request: <message>`` and nothing is
stored. Queues are cluster-scoped: each case deletes the ones it made.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import queue_command
from volcano.conformance.test_admission import (
    JOB_WEBHOOK,
    PODGROUP_WEBHOOK,
    QUEUE_WEBHOOK,
    base_job,
    denial,
    outcome,
    own_queue,
    pod_template,
    queue_manifest,
    wait_queue_open,
    webhook_message,
)

__all__: list[str] = []

Obj = dict[str, Any]
BOTH = "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously."
TIERS = {"mode": "hard", "highestTierAllowed": 1, "highestTierName": "zone"}


def _pg(name: str, queue: str, **spec: Any) -> Obj:
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": name},
            "spec": {"minMember": 1, "queue": queue, **spec}}


def _closed_queue(cluster: Cluster, request: pytest.FixtureRequest, name: str) -> None:
    own_queue(request, cluster, name)
    cluster.apply(queue_manifest(name, {"weight": 1}))
    wait_queue_open(cluster, name)
    cluster.apply(queue_command(cluster.get("Queue", name), "CloseQueue"))

    def closed() -> bool:
        return (cluster.get("Queue", name).get("status") or {}).get("state") == "Closed"

    cluster.wait_until(closed, 60, f"queue {name} Closed")


@pytest.mark.admission
def test_podgroup_queue_must_exist_and_be_open(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """A PodGroup naming a queue that does not exist is refused with the lister's NotFound text; in a
    Closed queue it is refused naming the state, with a topology error joined by ``"; "``."""
    assert outcome(cluster, _pg("pg-nowhere", "cov-absent-queue"), PODGROUP_WEBHOOK) == (
        'unable to find queue: queue.scheduling.volcano.sh "cov-absent-queue" not found')
    _closed_queue(cluster, request, "cov-closed-pg")
    assert outcome(cluster, _pg("pg-closed", "cov-closed-pg"), PODGROUP_WEBHOOK) == (
        "can only submit PodGroup to queue with state `Open`, queue `cov-closed-pg` status is `Closed`.")
    assert outcome(cluster, _pg("pg-closed-tiers", "cov-closed-pg", networkTopology=TIERS), PODGROUP_WEBHOOK) == (
        "can only submit PodGroup to queue with state `Open`, queue `cov-closed-pg` status is `Closed`.; " + BOTH)
    job = base_job("job-closed")
    job["spec"]["queue"] = "cov-closed-pg"
    assert outcome(cluster, job, JOB_WEBHOOK) == (
        "can only submit job to queue with state `Open`, queue `cov-closed-pg` status is `Closed`;")


@pytest.mark.admission
def test_podgroup_network_topology_tiers(cluster: Cluster) -> None:
    """Both tier fields on the PodGroup and in a sub-group policy: two errors joined by a space; a
    sub-group policy giving only one of them, or a PodGroup giving one, is admitted."""
    sub = [{"name": "sg-ok", "networkTopology": {"mode": "hard", "highestTierName": "zone"}},
           {"name": "sg-both", "networkTopology": TIERS}]
    assert outcome(cluster, _pg("pg-tiers", "default", networkTopology=TIERS, subGroupPolicy=sub),
                   PODGROUP_WEBHOOK) == f"{BOTH} in subGroupPolicy 'sg-both': {BOTH}"
    assert outcome(cluster, _pg("pg-sub-tiers", "default", subGroupPolicy=sub), PODGROUP_WEBHOOK) == (
        f"in subGroupPolicy 'sg-both': {BOTH}")
    made = outcome(cluster, _pg("pg-one-tier", "default", networkTopology={"mode": "soft", "highestTierAllowed": 2},
                                subGroupPolicy=sub[:1]), PODGROUP_WEBHOOK)
    assert isinstance(made, dict) and made["spec"]["networkTopology"]["highestTierAllowed"] == 2


@pytest.mark.admission
def test_job_may_not_use_the_root_queue(cluster: Cluster) -> None:
    """``root`` is Open but takes no job: ``can not submit job to root queue``."""
    job = base_job("job-root")
    job["spec"]["queue"] = "root"
    assert outcome(cluster, job, JOB_WEBHOOK) == "can not submit job to root queue;"


@pytest.mark.admission
def test_job_plugin_and_volume_rules(cluster: Cluster) -> None:
    """An unknown plugin, then the first volume error (a claim both named and described): the two
    messages in the webhook's order; a claim name that is not a DNS subdomain names its errors."""
    job = base_job("job-plugin-volume")
    job["spec"]["plugins"] = {"cov-nosuch": []}
    job["spec"]["volumes"] = [{"mountPath": "/data", "volumeClaimName": "claim",
                               "volumeClaim": {"accessModes": ["ReadWriteOnce"],
                                               "resources": {"requests": {"storage": "1Gi"}}}}]
    assert outcome(cluster, job, JOB_WEBHOOK) == (
        "unable to find job plugin: cov-nosuch;conflict: If you want to use an existing PVC, just specify "
        "VolumeClaimName.If you want to create a new PVC, you do not need to specify VolumeClaimName")
    job = base_job("job-claim-name")
    job["spec"]["volumes"] = [{"mountPath": "/a", "volumeClaimName": "ok-claim"},
                              {"mountPath": "/b", "volumeClaimName": "Bad_Claim"}]
    assert outcome(cluster, job, JOB_WEBHOOK) == (
        "invalid VolumeClaimName Bad_Claim : [a lowercase RFC 1123 subdomain must consist of lower case "
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*"
        "[a-z0-9])?)*')]")


def _task(name: str, depends: list[str] | None = None) -> Obj:
    task: Obj = {"name": name, "replicas": 1, "template": pod_template()}
    if depends is not None:
        task["dependsOn"] = {"name": depends}
    return task


@pytest.mark.admission
def test_job_task_dependencies_must_be_acyclic(cluster: Cluster) -> None:
    """Tasks that depend on each other in a cycle (or on a task that does not exist) are refused; a
    chain is admitted (dry run: nothing runs)."""
    job = base_job("job-dag")
    for tasks in ([_task("a", ["c"]), _task("b", ["a"]), _task("c", ["b"])], [_task("a"), _task("b", ["z"])]):
        job["spec"]["tasks"] = tasks
        assert outcome(cluster, job, JOB_WEBHOOK) == (
            "job has dependencies between tasks, but doesn't form a directed acyclic graph(DAG);")
    job["spec"]["tasks"] = [_task("a"), _task("b", ["a"]), _task("c", ["a", "b"])]
    made = cluster.create(job, dry_run=True)
    assert [t["name"] for t in made["spec"]["tasks"]] == ["a", "b", "c"]
    assert cluster.try_get("Job", "job-dag") is None


@pytest.mark.admission
def test_parent_capability_not_below_its_descendants(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """``validatequeue`` on an update of a queue with children (``validateHierarchicalQueue``): its
    capability may not drop below the largest capability among its descendants; the limit itself is
    admitted."""
    own_queue(request, cluster, "cov-parent")
    own_queue(request, cluster, "cov-child")
    cluster.apply(queue_manifest("cov-parent", {"weight": 1, "capability": {"cpu": "8"}}))
    cluster.apply(queue_manifest("cov-child", {"weight": 1, "parent": "cov-parent", "capability": {"cpu": "6"}}))
    d = denial(lambda: cluster.patch("Queue", "cov-parent", {"spec": {"capability": {"cpu": "4"}}}))
    assert webhook_message(d, QUEUE_WEBHOOK) == (
        "queue cov-parent capability[cpu]=4 is smaller than its descendants' max capability=6")
    assert cluster.get("Queue", "cov-parent")["spec"]["capability"] == {"cpu": "8"}
    assert cluster.patch("Queue", "cov-parent", {"spec": {"capability": {"cpu": "6"}}})["spec"]["capability"] == {
        "cpu": "6"}


@pytest.mark.admission
def test_job_queue_must_exist_and_be_a_leaf(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """A job naming a queue that does not exist: the lister's NotFound text; naming an Open queue with two
    children: ``can only submit job to leaf queue`` with the number of children."""
    job = base_job("job-no-queue")
    job["spec"]["queue"] = "cov-absent-jq"
    assert outcome(cluster, job, JOB_WEBHOOK) == (
        'unable to find job queue: queue.scheduling.volcano.sh "cov-absent-jq" not found;')
    own_queue(request, cluster, "cov-nl")
    cluster.apply(queue_manifest("cov-nl", {"weight": 1}))
    wait_queue_open(cluster, "cov-nl")
    for child in ("cov-nl-a", "cov-nl-b"):
        own_queue(request, cluster, child)
        cluster.apply(queue_manifest(child, {"weight": 1, "parent": "cov-nl"}))
    job = base_job("job-non-leaf")
    job["spec"]["queue"] = "cov-nl"
    assert outcome(cluster, job, JOB_WEBHOOK) == "can only submit job to leaf queue, queue `cov-nl` has 2 child queues;"
