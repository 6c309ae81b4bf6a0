"""The scheduler cache takes the echo of its own condition write in place (``expect_echo``).

Over random pod histories with the scheduler's expectations (``expect``) and snapshots among
them, a cache that takes expected conditions-only versions in place holds, after every step,
``TaskSpec``\\ s equal field by field to a fresh parse of the informer's pod (and reading that very
pod), in the same groups and order as a cache that is never told of an echo; and every snapshot
marks changed at least the jobs whose tasks the other cache replaced, but for the tasks taken in
place. The scheduler-level equivalence (reuse on against the reference path, which never expects
an echo) is ``test_reuse_equivalence``'s.
"""

from __future__ import annotations

import importlib
import json
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.informers.test_echo_index import NAMES, OPS, apply_op, create_owners
from tests.scheduler.test_cache_echo import _fields
from volcano.apiserver import ApiServer
from volcano.informers import InformerFactory
from volcano.replay import ReplayConfig, SyntheticSpec, replay, synthetic_trace
from volcano.scheduler.cache import cache as cache_module
from volcano.scheduler.cache.cache import SchedulerCache, conditions_echo
from volcano.scheduler.framework.model import TaskSpec
from volcano.sim import RandomStreams, SimClock

replay_module = importlib.import_module("volcano.replay.replay")

_STEPS = [*OPS, "expect", "expect", "expect", "snapshot"]
steps = st.lists(st.tuples(st.sampled_from(_STEPS), st.sampled_from(NAMES), st.integers(0, 4)), max_size=30)


def _groups(cache: SchedulerCache) -> dict[str, list[dict[str, Any]]]:
    return {job: [_fields(t) for t in group] for job, group in sorted(cache._groups.items())}


@settings(max_examples=100, deadline=None)
@given(steps)
def test_expected_echoes_keep_the_cache_a_fresh_parse(history: list[tuple[str, str, int]]) -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    informers = InformerFactory(server, clock)
    told = SchedulerCache(informers)
    plain = SchedulerCache(InformerFactory(server, clock))
    pods = informers.informer("Pod")
    refs = create_owners(server)
    clock.run()
    for op, name, variant in history:
        if op == "expect":
            told.expect_echo(f"default/{name}")
            continue
        if op == "snapshot":
            before = {key: told.pods[key] for key in told.pods}
            ours, theirs = told.snapshot(), plain.snapshot()
            if ours.delta is not None and theirs.delta is not None:
                assert set(ours.delta.jobs) <= set(theirs.delta.jobs)
            assert told.pods == before  # a snapshot changes no task
            continue
        kept = dict(told.pods)
        apply_op(server, refs, op, name, variant)
        clock.run()
        for key, task in told.pods.items():
            ns, _, pod_name = key.partition("/")
            pod = pods.get(pod_name, ns)
            assert pod is not None and task.pod is pod
            assert _fields(task) == _fields(TaskSpec(pod)), key
            if kept.get(key) is task and op != "cond":
                assert _fields(task) == _fields(plain.pods[key])
        assert _groups(told) == _groups(plain)
        assert told.binding == plain.binding and told.releasing == plain.releasing


def _pending(server: ApiServer, clock: SimClock) -> None:
    server.create({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": "a", "namespace": "default",
                                "annotations": {"scheduling.k8s.io/group-name": "pg"}},
                   "spec": {"schedulerName": "volcano", "containers": [
                       {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}})
    clock.run()


def _condition(server: ApiServer, message: str) -> None:
    server.update_status_fields("Pod", "a", "default", {"conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message}]})


def test_an_expected_condition_echo_keeps_the_task_and_its_job_unchanged() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    cache = SchedulerCache(InformerFactory(server, clock))
    _pending(server, clock)
    cache.snapshot()
    task = cache.pods["default/a"]
    generation = cache.generation
    cache.expect_echo("default/a")
    _condition(server, "0/3 nodes are available")
    clock.run()
    assert cache.pods["default/a"] is task  # taken in place: the very TaskSpec, reading the new pod
    assert task.pod["status"]["conditions"][0]["message"] == "0/3 nodes are available"
    assert cache.generation == generation + 1  # still a change a snapshot sees
    delta = cache.snapshot().delta
    assert delta is not None and not delta.jobs  # the job is not marked changed
    _condition(server, "0/4 nodes are available")  # not expected since the snapshot: the general path
    clock.run()
    assert cache.pods["default/a"] is not task
    delta = cache.snapshot().delta
    assert delta is not None and list(delta.jobs) == ["default/pg"]


def test_an_expected_pod_changed_in_more_than_its_conditions_is_parsed_again() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    cache = SchedulerCache(InformerFactory(server, clock))
    _pending(server, clock)
    task = cache.pods["default/a"]
    cache.expect_echo("default/a")
    server.update_status_fields("Pod", "a", "default", {"nominatedNodeName": "n1"})
    clock.run()
    assert cache.pods["default/a"] is not task and cache.pods["default/a"].nominated_node == "n1"


def test_conditions_echo_sees_only_a_conditions_change() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    _pending(server, clock)
    old = server.get("Pod", "a", "default")
    _condition(server, "x")
    new = server.get("Pod", "a", "default")
    assert conditions_echo(old, new) and conditions_echo(new, new)
    server.update_status_fields("Pod", "a", "default", {"phase": "Running"})
    assert not conditions_echo(new, server.get("Pod", "a", "default"))
    relabelled = server.patch("Pod", "a", {"metadata": {"labels": {"x": "y"}}}, "default")
    assert not conditions_echo(old, relabelled)


def _history(seed: int, reuse: bool) -> tuple[list[str], int]:
    """Every Pod, PodGroup, Queue and Event watch event of a small replay (with ``reuse`` on or off),
    and how many echoes the scheduler cache took in place."""
    seen: list[str] = []
    taken = [0]
    real, stated = cache_module.conditions_echo, cache_module.stated_echo

    def spy(old: Any, new: Any) -> bool:
        answer = real(old, new)
        taken[0] += answer
        return answer

    def stated_spy(change: Any, new: Any) -> bool:  # the echo told by the server's status change
        answer = stated(change, new)
        taken[0] += answer
        return answer

    class Watched(replay_module.FakeCluster):  # type: ignore[misc,name-defined]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            for kind in ("Pod", "PodGroup", "Queue", "Event"):
                self.client.watch(kind, lambda ev, kind=kind: seen.append(
                    json.dumps([ev.type, kind, ev.object], sort_keys=True, default=str)))

    trace = synthetic_trace(seed, SyntheticSpec(nodes=6, hours=0.25, jobs=30, duration_median_s=120))
    config = ReplayConfig(nodes=6, seed=seed, seconds=900, queue_weights={"prod": 4, "dev": 2}, reuse=reuse)
    with mock.patch.object(replay_module, "FakeCluster", Watched), \
            mock.patch.object(cache_module, "conditions_echo", spy), \
            mock.patch.object(cache_module, "stated_echo", stated_spy):
        replay(trace, config)
    return seen, taken[0]


@settings(max_examples=3, deadline=None)
@given(st.integers(0, 1000))
def test_a_replay_writes_the_same_history_with_echoes_taken_in_place(seed: int) -> None:
    """The whole watch history (every object version, every Event) of a replay whose waiting gangs
    get new condition messages is the same with reuse (expected echoes taken in place) as on the
    reference path, which expects none."""
    fast, _ = _history(seed, True)
    slow, untaken = _history(seed, False)
    assert fast == slow
    assert untaken == 0


def test_the_replay_history_test_takes_echoes_in_place() -> None:
    """Not vacuous: the replay above takes echoes in place."""
    assert _history(3, True)[1] > 0
