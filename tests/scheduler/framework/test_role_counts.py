"""JobInfo's per-role readiness checks, kept from counts updated per status change, agree with
counting the job's tasks one by one (the O(tasks) definition), whatever the moves."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scheduler.harness import pg, pod, res
from volcano.scheduler.framework.model import JobInfo, TaskInfo, TaskSpec, TaskStatus
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.task import READY_STATUSES, VALID_STATUSES

S = TaskStatus
ROLES = ("ps", "worker", "")


def _recount(job: JobInfo, statuses: frozenset[TaskStatus], pending_be: bool, skip_zero: bool) -> bool:
    if not job.min_task_member or job.min_available < sum(job.min_task_member.values()):
        return True
    for role, minimum in sorted(job.min_task_member.items()):
        if skip_zero and minimum == 0:
            continue
        n = sum(1 for t in job.tasks.values() if t.spec.role == role and (
            t.status in statuses or (pending_be and t.status == S.Pending and t.best_effort)))
        if n < minimum:
            return False
    return True


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(ROLES), st.booleans(), st.sampled_from(list(S))), min_size=1, max_size=8),
       st.lists(st.tuples(st.integers(0, 7), st.sampled_from(list(S))), max_size=20),
       st.dictionaries(st.sampled_from(ROLES[:2]), st.integers(0, 3)), st.integers(0, 6))
def test_role_checks_match_a_recount(tasks: list[tuple[str, bool, TaskStatus]], moves: list[tuple[int, TaskStatus]],
                                     task_min: dict[str, int], min_member: int) -> None:
    space = ResourceSpace()
    job = JobInfo(pg("j", "ns", "q", min_member, task_min=task_min), "default", 0, space)
    infos = []
    for i, (role, best_effort, status) in enumerate(tasks):
        ann = {"volcano.sh/task-spec": role} if role else {}
        spec = TaskSpec(pod("ns", f"t-{i}", group="j", req=None if best_effort else res(1), annotations=ann))
        info = TaskInfo(spec, spec.vec(space), status)
        job.add_task(info)
        infos.append(info)
    for index, status in [(None, None), *moves]:
        if index is not None:
            job.set_status(infos[index % len(infos)], status)
        assert job.check_task_valid() == _recount(job, VALID_STATUSES, False, True)
        assert job.check_task_ready() == _recount(job, READY_STATUSES, True, False)
        assert job.check_task_pipelined() == _recount(job, READY_STATUSES | {S.Pipelined}, True, False)
