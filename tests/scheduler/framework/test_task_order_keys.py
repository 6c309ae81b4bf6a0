"""``Session.sort_tasks`` by keys (every task-order callback declares one, every task has a
pod-name index) gives exactly the pairwise-comparison order, on random tasks; a callback
without a key, or a task without an index, keeps the pairwise path."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.scheduler.framework.conf import PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.model import QueueInfo, TaskInfo, TaskSpec
from volcano.scheduler.framework.plugin import Plugin, PluginRegistry
from volcano.scheduler.framework.points import TASK_ORDER, VICTIM_QUEUE_ORDER
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.session import Session, Snapshot
from volcano.scheduler.plugins import default_registry

_TASK = st.tuples(st.integers(-2, 2), st.one_of(st.none(), st.integers(0, 5)), st.integers(0, 3),
                  st.sampled_from(["a", "b", "c", "d"]))


def _pod(i: int, priority: int, index: int | None, created: int, uid: str) -> TaskSpec:
    name = f"job-w-{index}" if index is not None else f"solo{i}"
    return TaskSpec({"metadata": {"name": name, "namespace": "ns", "uid": f"{uid}{i}",
                                  "creationTimestamp": f"2024-01-01T00:00:0{created}Z"},
                     "spec": {"priority": priority, "containers": [{"name": "c"}]}, "status": {"phase": "Pending"}})


def _session(plugins: tuple[str, ...], reuse: bool, registry: PluginRegistry | None = None) -> Session:
    conf = SchedulerConf(actions=("allocate",), tiers=tuple(Tier((PluginOption(p, {}),)) for p in plugins))
    snap = Snapshot(space=ResourceSpace(), nodes=[], podgroups=[], tasks=[],
                    queues=[QueueInfo({"metadata": {"name": "default"}, "spec": {"weight": 1}})])
    return Session(snap, conf, registry or default_registry(), reuse=reuse)


@settings(max_examples=200, deadline=None)
@given(st.lists(_TASK, max_size=12))
def test_key_sort_matches_pairwise_sort(rows: list[tuple[int, int | None, int, str]]) -> None:
    space = ResourceSpace()
    tasks = [TaskInfo(spec, spec.vec(space)) for spec in (_pod(i, *r) for i, r in enumerate(rows))]
    fast, slow = _session(("priority", "gang"), True), _session(("priority", "gang"), False)
    assert [t.uid for t in fast.sort_tasks(tasks)] == [t.uid for t in slow.sort_tasks(tasks)]


class _Reverse(Plugin):
    """A task order without a key: names descending."""

    name = "reverse"

    def open(self, ssn: Session) -> None:
        ssn.add_fn(TASK_ORDER, lambda a, b: (a.name < b.name) - (a.name > b.name))


def test_a_callback_without_a_key_keeps_the_pairwise_order() -> None:
    registry = default_registry()
    registry.register(_Reverse)
    space = ResourceSpace()
    tasks = [TaskInfo(s, s.vec(space)) for s in (_pod(i, 0, i, 0, "u") for i in range(4))]
    ssn = _session(("priority", "reverse"), True, registry)
    assert [t.spec.index for t in ssn.sort_tasks(tasks)] == [3, 2, 1, 0]


def test_a_key_is_refused_outside_task_job_and_queue_order() -> None:
    class _Bad(Plugin):
        name = "bad"

        def open(self, ssn: Session) -> None:
            ssn.add_fn(VICTIM_QUEUE_ORDER, lambda a, b, p: 0, key=lambda spec: 0)

    registry = default_registry()
    registry.register(_Bad)
    with pytest.raises(ValueError, match="key is only valid"):
        _session(("bad",), True, registry)

