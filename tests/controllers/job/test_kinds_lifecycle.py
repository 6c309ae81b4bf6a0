"""Kinds pinned whole: a Volcano Job's life through the whole cluster, as the Job controller and the
scheduler record it: every decision-trace record of both, every Event on the Jobs, and each Job's
final status, for a Job that runs to completion beside one too big for any node (with ``reuse``
on and off in the scheduler)."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.testbed import FakeCluster


def _job(name: str, replicas: int, cpu: str) -> dict[str, Any]:
    task = {"name": "w", "replicas": replicas, "template": {
        "metadata": {"annotations": {"sim.volcano.sh/duration": "30s"}},
        "spec": {"restartPolicy": "Never", "containers": [
            {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": cpu}}}]}}}
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": name},
            "spec": {"minAvailable": replicas, "schedulerName": "volcano", "tasks": [task]}}


@pytest.mark.parametrize("reuse", [True, False], ids=["reuse", "reference"])
def test_a_job_completes_beside_one_that_never_fits(reuse: bool) -> None:
    """Two 4-cpu nodes: ``ok`` (two 1-cpu pods, 30 s each) is enqueued at 1 s, bound at 2 s, Running at 3 s
    and Completed at 33 s (its PodGroup deleted); ``big`` (one 5-cpu pod) is enqueued but fits no node: one
    PodGroupPending Warning on the Job with the scheduler's reason, and the Job stays Pending."""
    fc = FakeCluster(seed=3)
    fc.scheduler.reuse = reuse
    fc.add_nodes(2, cpu="4", memory="8Gi")
    fc.apply(_job("ok", 2, "1"))
    fc.apply(_job("big", 1, "5"))
    fc.run(40)
    ok = f"ok-{fc.get('Job', 'ok')['metadata']['uid']}"
    big = f"big-{fc.get('Job', 'big')['metadata']['uid']}"
    assert [tuple(r) for r in fc.trace if r.component in ("job-controller", "volcano")] == [
        (0, "job-controller", "JobPhase", "default/ok", "- -> Pending"),
        (0, "job-controller", "CreatePodGroup", "default/ok", ok),
        (0, "job-controller", "JobPhase", "default/big", "- -> Pending"),
        (0, "job-controller", "CreatePodGroup", "default/big", big),
        (1000, "volcano", "Enqueue", f"default/{big}", "default"),
        (1000, "volcano", "Enqueue", f"default/{ok}", "default"),
        (2000, "volcano", "Bind", "default/ok-w-0", "node-0"),
        (2000, "volcano", "Bind", "default/ok-w-1", "node-1"),
        (3000, "job-controller", "JobPhase", "default/ok", "Pending -> Running"),
        (33000, "job-controller", "JobPhase", "default/ok", "Running -> Completed"),
        (33000, "job-controller", "DeletePodGroup", "default/ok", ok),
    ]
    assert [(e["source"].get("component"), e["involvedObject"]["name"], e["type"], e["reason"], e["message"],
             e.get("count")) for e in fc.events() if e["involvedObject"]["kind"] == "Job"] == [
        ("vc-controller-manager", "big", "Warning", "PodGroupPending",
         "PodGroup default:big unschedulable, reason: 1/1 tasks in gang unschedulable: pod group is not ready, "
         "1 Pending, 1 minAvailable; Pending: 1 Unschedulable. Origin reason is big-w-0: 0/2 nodes are "
         "unavailable: 2 Insufficient cpu.", 1)]

    def t(s: int) -> str:
        return f"2024-01-01T00:00:{s:02d}Z"

    assert fc.get("Job", "ok")["status"] == {
        "state": {"phase": "Completed", "lastTransitionTime": t(33)}, "minAvailable": 2, "version": 2,
        "runningDuration": "33s",
        "conditions": [{"status": "Pending", "lastTransitionTime": t(1)},
                       {"status": "Running", "lastTransitionTime": t(3)},
                       {"status": "Completed", "lastTransitionTime": t(33)}]}
    # The sync that created big's pod at 1 s changed its status, so the phase's time moved too (a Volcano quirk).
    assert fc.get("Job", "big")["status"] == {
        "state": {"phase": "Pending", "lastTransitionTime": t(1)}, "minAvailable": 1, "pending": 1,
        "taskStatusCount": {"w": {"phase": {"Pending": 1}}}, "conditions": [{"status": "Pending",
                                                                             "lastTransitionTime": t(1)}]}
