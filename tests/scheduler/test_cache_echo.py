"""Status echoes (a pending pod's condition message rewritten, a phase or nominated node set) reach
the scheduler cache and the default scheduler through shortcuts; over random pod histories both
keep exactly the state the full path keeps: every cached ``TaskSpec`` equals a fresh parse of the
informer's pod (``rebound`` keeps the status only when the phase and node stayed), and the default
scheduler's attention set, arrival order and request memo answers equal those of a run with its
``_same_for_scan`` shortcut off, over a client that states no status change (so the informer
delivers every condition write the default scheduler ignores over the in-process server)."""

from __future__ import annotations

from typing import Any
from unittest import mock

import numpy as np
from hypothesis import given, settings

from tests.informers.plain import PlainClient
from tests.informers.test_echo_index import ops, run_ops
from volcano.apiserver import ApiServer
from volcano.informers import InformerFactory
from volcano.scheduler import default_scheduler
from volcano.scheduler.cache.cache import SchedulerCache
from volcano.scheduler.default_scheduler import DefaultScheduler
from volcano.scheduler.framework.model import TaskSpec
from volcano.sim import RandomStreams, SimClock


def _fields(task: TaskSpec) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for slot in TaskSpec.__slots__:
        if slot in ("seq", "_vec", "_vec_key"):  # the cache's order; a lazily built vector
            continue
        value = getattr(task, slot)
        out[slot] = value.tolist() if isinstance(value, np.ndarray) else value
    return out


def _default_scheduler_states(history: list[tuple[str, str, int]], shortcut: bool, told: bool = True) -> list[Any]:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    client: Any = server if told else PlainClient(server)
    sched = DefaultScheduler(client, InformerFactory(client, clock), clock)
    states: list[Any] = []

    def record() -> None:
        pods = sched._pods.list()
        states.append((sorted(sched._attention), sorted(sched._arrival.items()),
                       [(p["metadata"]["name"], sched._requests(p)) for p in pods if p["spec"].get("nodeName")]))
    if shortcut:
        run_ops(server, clock, history, record)
    else:
        with mock.patch.object(default_scheduler, "_same_for_scan", lambda pod, old: False):
            run_ops(server, clock, history, record)
    return states


@settings(max_examples=80, deadline=None)
@given(ops)
def test_cached_tasks_equal_a_fresh_parse(history: list[tuple[str, str, int]]) -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    informers = InformerFactory(server, clock)
    cache = SchedulerCache(informers)
    pods = informers.informer("Pod")

    def check() -> None:
        for key, task in cache.pods.items():
            ns, _, name = key.partition("/")
            pod = pods.get(name, ns)
            assert pod is not None and task.pod is pod
            assert _fields(task) == _fields(TaskSpec(pod)), key
    run_ops(server, clock, history, check)


@settings(max_examples=60, deadline=None)
@given(ops)
def test_default_scheduler_state_equals_the_full_path(history: list[tuple[str, str, int]]) -> None:
    assert _default_scheduler_states(history, True) == _default_scheduler_states(history, False, told=False)
    assert _default_scheduler_states(history, True, told=False) == _default_scheduler_states(history, True)


def test_a_condition_echo_takes_the_shortcut() -> None:
    calls: list[bool] = []
    real = default_scheduler._same_for_scan

    def spy(pod: Any, old: Any) -> bool:
        calls.append(real(pod, old))
        return calls[-1]
    history = [("create", "a", 1), ("cond", "a", 1), ("cond", "a", 2), ("phase", "a", 1)]
    with mock.patch.object(default_scheduler, "_same_for_scan", spy):
        _default_scheduler_states(history, True, told=False)
    assert calls == [True, True, False]  # two echoes; a phase change is scanned again
    calls.clear()
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    DefaultScheduler(server, InformerFactory(server, clock), clock)
    run_ops(server, clock, history[:1])
    with mock.patch.object(default_scheduler, "_same_for_scan", spy):
        for fields in ({"conditions": [{"type": "PodScheduled", "status": "False", "message": "0/1"}]},
                       {"conditions": [{"type": "PodScheduled", "status": "False", "message": "0/2"}]},
                       {"phase": "Running"}):
            server.update_status_fields("Pod", "a", "default", fields)
            clock.run()
    assert calls == [False]  # the scheduler's own condition writes are not even delivered
