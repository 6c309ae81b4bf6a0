"""Gang limits at the boundary: ``minMember`` and ``minTaskMember`` themselves and one on each
side, with more pods than either (reference §5.2: a job is ready when ready + allocated tasks
reach minMember and every role reaches its minTaskMember; the role check is skipped when
minMember < Σ minTaskMember)."""

from __future__ import annotations

import pytest

from tests.scheduler.harness import conf, node, opt, pg, pod, queue, res, run

CONF = conf(["allocate"], [opt("priority", "jobOrder", "taskOrder"),
                           opt("gang", "jobOrder", "jobReady", "jobPipelined"),
                           opt("predicates", "predicate")])
ROLE = "volcano.sh/task-spec"


def _run(room: int, min_member: int, task_min: dict[str, int] | None, workers: int = 4) -> dict[str, str]:
    """A running ``ps`` pod on n0 and ``workers`` pending worker pods of 1 CPU; n1 has ``room`` CPUs."""
    pods = [pod("ns", "ps-0", group="j", node_name="n0", phase="Running", req=res(1), labels={ROLE: "ps"})]
    pods += [pod("ns", f"worker-{i}", group="j", req=res(1), labels={ROLE: "worker"}) for i in range(workers)]
    nodes = [node("n0", res(1)), node("n1", res(room))]
    r = run(CONF, nodes=nodes, pods=pods, podgroups=[pg("j", "ns", "default", min_member, task_min=task_min)],
            queues=[queue("default")])
    return r.binds


@pytest.mark.parametrize(("room", "bound"), [(1, 0), (2, 2), (3, 3), (4, 4)])
def test_min_member_counts_the_running_pod(room: int, bound: int) -> None:
    """minMember 3 with the ps pod running: 2 workers complete the gang, 1 does not."""
    assert len(_run(room, 3, None)) == bound


@pytest.mark.parametrize(("room", "bound"), [(1, 0), (2, 2), (3, 3)])
def test_min_task_member_binds_at_the_role_minimum(room: int, bound: int) -> None:
    """minMember 2 (met by ps + 1 worker) but minTaskMember worker 2: one worker is not enough."""
    assert len(_run(room, 2, {"ps": 0, "worker": 2})) == bound


@pytest.mark.parametrize(("room", "bound"), [(1, 1), (2, 2)])
def test_min_task_member_is_skipped_above_min_member(room: int, bound: int) -> None:
    """minMember 2 < Σ minTaskMember 4: only minMember counts, so one worker beside ps suffices."""
    assert len(_run(room, 2, {"ps": 1, "worker": 3})) == bound
