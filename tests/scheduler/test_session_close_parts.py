"""The session's open and close shortcuts give what the plain readings give.

* a job's Pending requests summed once per shared requests object (``quota_state``) equal
  the task-by-task sum, key order included;
* ``JobInfo.fit_error``'s Pending reasons counted without a call per plain Pending task equal
  the message of the plain count;
* the task sort key made for none, one or two task-order keys orders as the general key;
* the session close's per-task conditions (``status._changed_conditions``, the fit message from
  the gang plugin's close) are compared with the plain reading at every session of random clusters
  and a replay by ``test_status_close``; here a waiting gang's second close, whose pods carry their
  conditions already, writes none and sorts nothing.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.api.resources import Resources
from volcano.conformance.lib.builders import pod, pod_group
from volcano.scheduler.framework import quota_state
from volcano.scheduler.framework.job import JobInfo, scheduling_reason
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.session import _task_sort_key
from volcano.scheduler.framework.task import TaskInfo, TaskSpec, TaskStatus
from volcano.testbed import FakeCluster

S = TaskStatus
_STATUSES = [S.Pending, S.Pending, S.Running, S.Allocated, S.Pipelined, S.Succeeded]
_REQS = [{"cpu": "1"}, {"cpu": "2", "memory": "1Gi"}, {"memory": "3Gi", "nvidia.com/gpu": "1"}, {"cpu": "500m"}]

_tasks = st.lists(st.tuples(st.integers(0, len(_REQS) - 1), st.sampled_from(_STATUSES), st.booleans(),
                            st.sampled_from([None, S.Allocated, S.Pipelined, S.Pending, S.Running])),
                  min_size=0, max_size=12)


def _job(tasks: list[tuple[int, TaskStatus, bool, TaskStatus | None]]) -> JobInfo:
    """A job of ``tasks`` (request choice, status, whether it shares the first parse's requests
    object of its choice, last transaction status)."""
    space = ResourceSpace()
    specs = [TaskSpec(pod(f"p-{i}", req=_REQS[choice], group="pg")) for i, (choice, *_) in enumerate(tasks)]
    for spec in specs:  # every name registered before the job's vectors are sized
        spec.vec(space)
    job = JobInfo(pod_group("pg", min_member=2), "default", 0, space)
    shared: dict[int, Resources] = {}
    for spec, (choice, status, share, txn) in zip(specs, tasks, strict=True):
        if share:
            spec.requests = shared.setdefault(choice, spec.requests)
        task = TaskInfo(spec, space.fit(spec.vec(space)), status)
        task.last_txn = None if txn is None else (txn, "n0")
        job.add_task(task)
    return job


@settings(max_examples=200, deadline=None)
@given(_tasks)
def test_pending_requests_summed_per_shared_object_equal_the_task_by_task_sum(
        tasks: list[tuple[int, TaskStatus, bool, TaskStatus | None]]) -> None:
    job = _job(tasks)
    fast, slow = quota_state._pending_requests(job), quota_state._pending_one_by_one(job)
    assert list(fast.items()) == list(slow.items())
    assert all(type(v) is int for v in fast.values())


def _reference_fit_error(job: JobInfo) -> str:
    """``JobInfo.fit_error()`` as written before, counting each Pending task's reason."""
    head = "pod group is ready" if job.is_ready() else "pod group is not ready"
    parts = [f"{c} {s.name}" for s, c in job.status_counts.items() if c > 0]
    parts.append(f"{job.min_available} minAvailable")
    msg = head + ", " + ", ".join(sorted(parts))
    reasons: Counter[str] = Counter()
    for t in job.tasks.values():
        if t.status == S.Pending:
            reasons[scheduling_reason(t)] += 1
    if reasons:
        msg += "; Pending: " + ", ".join(sorted(f"{c} {r}" for r, c in reasons.items()))
    return msg


@settings(max_examples=200, deadline=None)
@given(_tasks)
def test_the_fit_message_counts_pending_reasons_as_the_plain_count(
        tasks: list[tuple[int, TaskStatus, bool, TaskStatus | None]]) -> None:
    job = _job(tasks)
    assert job.fit_error() == _reference_fit_error(job)


_spec_keys = [lambda s: -s.priority, lambda s: s.name[-1], lambda s: len(s.uid) % 3]


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 3), st.lists(st.tuples(st.integers(0, 5), st.integers(-2, 2)), min_size=0, max_size=10))
def test_the_task_sort_key_for_few_keys_is_the_general_one(n: int, tasks: list[tuple[int, int]]) -> None:
    space = ResourceSpace()
    items = []
    for i, (index, prio) in enumerate(tasks):
        spec = TaskSpec(pod(f"t-{index}", req={"cpu": "1"}))
        spec.priority = prio
        spec.uid = f"u{i}"
        items.append(TaskInfo(spec, space.fit(spec.vec(space))))
    flat = _spec_keys[:n]

    def general(t: TaskInfo) -> tuple[Any, ...]:
        return (*(k(t.spec) for k in flat), t.spec.index, t.spec.creation, t.spec.uid)

    made = _task_sort_key(list(flat))
    assert [made(t) for t in items] == [general(t) for t in items]
    assert sorted(items, key=made) == sorted(items, key=general)


def test_a_waiting_gang_whose_pods_carry_their_conditions_writes_none_again() -> None:
    """A gang that cannot fit waits: its first close writes each pod's PodScheduled condition; a
    later cycle with nothing changed finds them written (``_condition_differs``) and writes none."""
    cluster = FakeCluster(seed=1)
    cluster.add_nodes(1, cpu="2", memory="8Gi")
    cluster.apply([pod_group("big", min_member=3)])
    cluster.apply([pod(f"big-{i}", req={"cpu": "2"}, group="big") for i in range(3)])
    cluster.clock.run(cluster.clock.now_ms + 3000)
    pods = [cluster.client.get("Pod", f"big-{i}", "default") for i in range(3)]
    conds = [[c for c in p["status"].get("conditions", []) if c["type"] == "PodScheduled"] for p in pods]
    assert all(len(c) == 1 and c[0]["status"] == "False" for c in conds)
    versions = [p["metadata"]["resourceVersion"] for p in pods]
    cluster.clock.run(cluster.clock.now_ms + 5000)
    again = [cluster.client.get("Pod", f"big-{i}", "default")["metadata"]["resourceVersion"] for i in range(3)]
    assert again == versions
