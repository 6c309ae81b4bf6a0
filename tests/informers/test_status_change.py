"""The store's status change (``volcano.apiserver.changes``) and what informers skip with it.

Over random pod histories (creates, the scheduler's condition writes, phase and nominated-node
writes, a phase rewritten with an equal value, binds, label, owner and finalizer changes,
deletions):

* every watch entry that carries a status change is what the statement says: the previous
  version's very parts but for the resourceVersion and the status properties named;
* an informer over the in-process server (status changes known) and one over a plain client
  (nothing known, every handler called) hold the same cache and indexes after every step, call a
  handler that ignores nothing with the same events, and skip for a handler that ignores
  ``conditions`` exactly the events whose object differs from the one before only in
  ``status.conditions`` and the resourceVersion, when the write replaced nothing else;
* the scheduler cache (told of its echoes, ``expect_echo``) keeps the same tasks, groups and
  deltas, taking the same echoes in place;
* a replay's recorder (which ignores status writes that leave the phase) records the same.
"""

from __future__ import annotations

import importlib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.informers.plain import PlainClient
from tests.informers.test_echo_index import NAMES, OPS, apply_op, create_owners
from tests.scheduler.test_cache_echo import _fields
from volcano.api.frozen import FrozenDict, thaw
from volcano.apiserver import ApiServer
from volcano.apiserver.errors import ApiError
from volcano.controllers.builtin._common import controller_uid_index
from volcano.controllers.podgroup import PodGroupController
from volcano.informers import Informer, InformerFactory
from volcano.kubelet import kubelet
from volcano.replay import ReplayConfig, SyntheticSpec, replay, synthetic_trace
from volcano.scheduler.cache.cache import SchedulerCache
from volcano.scheduler.scheduler import shared_conditions
from volcano.sim import RandomStreams, SimClock

replay_module = importlib.import_module("volcano.replay.replay")


_MORE = ["fields", "fields", "fields", "fields_phase", "same_phase", "general"]
steps = st.lists(st.tuples(st.sampled_from([*OPS, *_MORE, "expect", "expect", "snapshot"]), st.sampled_from(NAMES),
                           st.integers(0, 4)), max_size=30)
"""A random pod history: the shared operations, the scheduler's own status writes, expectations
and snapshots (the last two only for a scheduler cache)."""


def _apply(server: ApiServer, refs: dict[str, Any], op: str, name: str, variant: int) -> None:
    """``apply_op`` and the status writes the scheduler and others make through the fast paths."""
    if op not in _MORE:
        apply_op(server, refs, op, name, variant)
        return
    try:
        stored = server.get("Pod", name, "default")
        status = stored.get("status") or {}
        cond = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                "message": f"0/{variant} nodes are available"}
        conditions = shared_conditions(status.get("conditions") or [], cond, server.timestamp())
        if op == "fields":
            server.update_status_fields("Pod", name, "default", {"conditions": conditions})
        elif op == "fields_phase":  # with the phase as it is but a copy (equal, not the stored object)
            phase = str(status.get("phase"))
            server.update_status_fields("Pod", name, "default", {"conditions": conditions,
                                                                 "phase": phase[:1] + phase[1:]})
        elif op == "same_phase":  # an equal value alone: no write
            phase = str(status.get("phase"))
            server.update_status_fields("Pod", name, "default", {"phase": phase[:1] + phase[1:]})
        else:  # the general status update (the whole status sent back, thawed)
            server.update_status({**stored, "status": {**thaw(status), "conditions": thaw(conditions)}})
    except ApiError:
        pass


def _conditions_only(old: Any, new: Any) -> bool:
    """By value: ``new`` is ``old`` but for ``status.conditions`` and the resourceVersion."""
    def strip(obj: Any) -> Any:
        out = thaw(obj)
        out["metadata"].pop("resourceVersion", None)
        (out.get("status") or {}).pop("conditions", None)
        return out
    return bool(strip(old) == strip(new))


@settings(max_examples=80, deadline=None)
@given(steps)
def test_every_stated_status_change_is_true(history: list[tuple[str, str, int]]) -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    refs = create_owners(server)
    for op, name, variant in history:
        _apply(server, refs, op, name, variant)
    stated = 0
    for etype, new, old, change in server._hub.log("Pod").events:
        if change is None:
            continue
        stated += 1
        assert etype == "MODIFIED" and type(old) is FrozenDict and type(new) is FrozenDict
        assert list(new) == list(old)
        assert all(new[k] is old[k] for k in old if k not in ("metadata", "status"))
        meta, old_meta = new["metadata"], old["metadata"]
        assert type(meta) is FrozenDict and type(old_meta) is FrozenDict
        assert list(meta) == list(old_meta)
        assert all(meta[k] is old_meta[k] for k in old_meta if k != "resourceVersion")
        assert old.get("spec") is None or type(old["spec"]) is FrozenDict
        status, before = new["status"], old["status"]
        assert type(status) is FrozenDict and type(before) is FrozenDict
        for key in {*status, *before} - change:
            assert (key in status) == (key in before) and status.get(key) is before.get(key)
        assert all(status.get(key, change) is not before.get(key, change) for key in change)


def test_a_condition_write_states_its_one_property() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    refs = create_owners(server)
    for op in [("create", "a", 0), ("fields", "a", 1), ("fields_phase", "a", 2), ("same_phase", "a", 0),
               ("label", "a", 1)]:
        _apply(server, refs, *op)
    changes = [entry[3] for entry in server._hub.log("Pod").events]
    assert changes == [None, {"conditions"}, {"conditions", "phase"}, None]


def _indexed(inf: Informer) -> None:
    for name, fn in (("builtin", controller_uid_index), ("podgroup", PodGroupController.INDEXES[0][2]),
                     ("kubelet", kubelet._NODE_OF_POD)):
        inf.add_index(name, fn)


def _indexes(inf: Informer) -> dict[str, dict[str, list[str]]]:
    return {name: {value: [o["metadata"]["name"] for o in inf.by_index(name, value)]
                   for value in inf.index_values(name)} for name in ("builtin", "podgroup", "kubelet")}


@settings(max_examples=100, deadline=None)
@given(steps)
def test_an_informer_skips_exactly_what_a_handler_ignores(history: list[tuple[str, str, int]]) -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    told = InformerFactory(server, clock).informer("Pod")
    plain = InformerFactory(PlainClient(server), clock).informer("Pod")
    _indexed(told)
    _indexed(plain)
    seen: dict[str, list[tuple[str, Any, Any]]] = {"all": [], "ignoring": [], "plain": []}
    told.add_handler(lambda e, o, old: seen["all"].append((e, o, old)))
    told.add_handler(lambda e, o, old: seen["ignoring"].append((e, o, old)), ignores=frozenset({"conditions"}))
    plain.add_handler(lambda e, o, old: seen["plain"].append((e, o, old)))
    refs = create_owners(server)
    clock.run()
    for op, name, variant in history:
        if op in ("expect", "snapshot"):
            continue
        _apply(server, refs, op, name, variant)
        clock.run()
        assert told.list() == plain.list() and all(a is b for a, b in zip(told.list(), plain.list(), strict=True))
        assert _indexes(told) == _indexes(plain)
        assert told.change is None  # only while handlers run
    assert [(e, o["metadata"]["resourceVersion"]) for e, o, _ in seen["all"]] \
        == [(e, o["metadata"]["resourceVersion"]) for e, o, _ in seen["plain"]]
    expected = []
    changes = {entry[1]["metadata"]["resourceVersion"]: entry[3] for entry in server._hub.log("Pod").events}
    for etype, obj, old in seen["plain"]:
        change = changes.get(obj["metadata"]["resourceVersion"])
        if etype == "MODIFIED" and change is not None and change <= {"conditions"}:
            assert old is not None and _conditions_only(old, obj)  # a skip is sound
            continue
        expected.append((etype, obj, old))
    assert seen["ignoring"] == expected


def _skips_a_condition_write() -> bool:
    """Not vacuous: a scheduler condition write is skipped for a handler ignoring conditions."""
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    inf = InformerFactory(server, clock).informer("Pod")
    got: list[str] = []
    inf.add_handler(lambda e, o, old: got.append(e), ignores=frozenset({"conditions"}))
    refs = create_owners(server)
    for op in [("create", "a", 0), ("fields", "a", 1), ("fields", "a", 2), ("fields_phase", "a", 3)]:
        _apply(server, refs, *op)
        clock.run()
    return got == ["ADDED", "MODIFIED"]  # the two condition writes skipped, the phase write not


def test_a_condition_write_is_skipped() -> None:
    assert _skips_a_condition_write()


def _cache_run(history: list[tuple[str, str, int]], told: bool) -> list[Any]:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    client: Any = server if told else PlainClient(server)
    informers = InformerFactory(client, clock)
    cache = SchedulerCache(informers)
    refs = create_owners(server)
    clock.run()
    states: list[Any] = []
    for op, name, variant in history:
        if op == "expect":
            cache.expect_echo(f"default/{name}")
            continue
        if op == "snapshot":
            delta = cache.snapshot().delta
            states.append(None if delta is None else sorted(delta.jobs))
            continue
        before = dict(cache.pods)
        _apply(server, refs, op, name, variant)
        clock.run()
        states.append((sorted((key, _fields(task), before.get(key) is task) for key, task in cache.pods.items()),
                       {job: [t.name for t in group] for job, group in sorted(cache._groups.items())},
                       cache.generation, sorted(cache.binding.items()), sorted(cache.releasing)))
    return states


@settings(max_examples=100, deadline=None)
@given(steps)
def test_the_scheduler_cache_takes_the_same_echoes(history: list[tuple[str, str, int]]) -> None:
    assert _cache_run(history, True) == _cache_run(history, False)


def _recorded(seed: int, plain: bool) -> Any:
    class Cluster(replay_module.FakeCluster):  # type: ignore[misc,name-defined]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            if plain:  # the components keep the server; the recorder, made after, sees a plain client
                self.client = PlainClient(self.server)

    trace = synthetic_trace(seed, SyntheticSpec(nodes=6, hours=0.25, jobs=30, duration_median_s=120))
    config = ReplayConfig(nodes=6, seed=seed, seconds=900, queue_weights={"prod": 4, "dev": 2})
    original = replay_module.FakeCluster
    replay_module.FakeCluster = Cluster
    try:
        result = replay(trace, config)
    finally:
        replay_module.FakeCluster = original
    return [(r.submit_ms, r.start_ms, r.finish_ms) for r in result.records], result.gpu_changes


@settings(max_examples=3, deadline=None)
@given(st.integers(0, 1000))
def test_the_replay_recorder_records_the_same(seed: int) -> None:
    told, plain = _recorded(seed, False), _recorded(seed, True)
    assert told == plain and told[1]
