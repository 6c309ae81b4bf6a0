"""``ApiServer.update_status_fields_many`` (the scheduler's condition writes of one session close, in
one call) is ``update_status_fields`` of each write, one after another: on random pods (some with
managedFields, some being deleted, some absent), random (valid and invalid) fields, with Volcano's
admission or a hook that edits the status, and in a dry run, both ways give the same answers and
errors, the same stored objects (types and key order included), the same resourceVersion sequence,
the same watch log (status changes included), the same garbage-collector tracker calls and the
same handler calls of an informer that watches the pods."""

from __future__ import annotations

import json
from contextlib import nullcontext
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from tests.apiserver.conftest import typed_shape
from tests.apiserver.test_fast_status_write import _stamp
from tests.apiserver.test_fast_write_status_fields import _BEFORE, _build, _draw_fields
from volcano.admission.install import install_admission
from volcano.api.frozen import FrozenDict
from volcano.apiserver.errors import ApiError
from volcano.apiserver.server import ApiServer
from volcano.informers.informer import Informer
from volcano.sim.clock import SimClock
from volcano.sim.rand import RandomStreams

_NAMES = ("p-0", "p-1", "p-2")


def _pod(name: str, deleting: bool) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": {"a": "b"}}
    if deleting:
        meta["finalizers"] = ["example.com/keep"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "image": "i"}]}}


class _World:
    """A server holding the drawn pods, with a recording tracker and a pod informer."""

    def __init__(self, pods: list[tuple[str, dict[str, Any], bool, bool]], hooks: str) -> None:
        self.clock = SimClock()
        self.server = server = ApiServer(self.clock, RandomStreams(3))
        if hooks == "volcano":
            install_admission(server)
        elif hooks == "stamp":
            server.admission.register_mutating("Pod", ("UPDATE",), _stamp, "stamp")
        for name, before, managed, deleting in pods:
            server.create(_pod(name, deleting), field_manager="kubectl" if managed else None)
            try:
                server.patch("Pod", name, {"status": before}, "default", subresource="status")
            except ApiError:
                event("an initial status rejected")
            if deleting:
                server.delete("Pod", name, "default", grace_period_seconds=0)
        self.tracked: list[Any] = []
        gc_track = server.store.tracker

        def track(old: Any, new: Any) -> None:
            self.tracked.append((_shown(old), _shown(new)))
            if gc_track is not None:
                gc_track(old, new)
        server.store.tracker = track
        self.informer = Informer(server, self.clock, "Pod")
        self.calls: list[Any] = []
        self.informer.add_handler(self._on_pod)
        self.clock.run()

    def _on_pod(self, etype: str, obj: Any, old: Any) -> None:
        change = self.informer.change
        self.calls.append((etype, _shown(obj), _shown(old), sorted(change) if change is not None else None))

    def history(self) -> Any:
        """Everything the writes can have left: objects, counter, log, tracker and handler calls."""
        self.clock.run()
        events = [(etype, _shown(obj), _shown(old), sorted(change) if change is not None else None)
                  for etype, obj, old, change in self.server._hub.log("Pod").events]
        return (self.server.resource_version, typed_shape(self.server.snapshot()), events, self.tracked,
                self.calls)


def _shown(obj: Any) -> Any:
    return None if obj is None else json.dumps(obj, default=str)


def _answer(result: Any) -> Any:
    if isinstance(result, ApiError):
        return ("error", result.code, result.reason, result.message,
                json.dumps(result.details, sort_keys=True, default=str))
    assert type(result) is FrozenDict
    return ("stored", typed_shape(result), json.dumps(result, default=str))


def _writes(world: _World, targets: list[str], plans: list[Any]) -> list[tuple[str, str | None, dict[str, Any]]]:
    """The writes to ``targets`` (an absent pod's a phase), built before any is written, over the
    server's objects as they are (as the scheduler builds them); the namespace alternately named
    and left to the default."""
    return [(name, namespace, {"phase": "Running"} if plan is None
             else _build(plan, world.server.get("Pod", name, "default")))
            for name, plan, namespace in zip(targets, plans, ["default", None] * len(targets))]


_POD = st.tuples(_BEFORE, st.booleans(), st.booleans())


@settings(max_examples=120, deadline=None)
@given(st.lists(_POD, min_size=1, max_size=3), st.data(), st.sampled_from(["none", "none", "volcano", "stamp"]),
       st.sampled_from([False, False, False, True]))
def test_a_batch_is_the_writes_one_by_one(pods: list[tuple[dict[str, Any], bool, bool]], data: st.DataObject,
                                          hooks: str, dry: bool) -> None:
    drawn = [(name, before, managed, deleting) for name, (before, managed, deleting) in zip(_NAMES, pods)]
    many, each = _World(drawn, hooks), _World(drawn, hooks)
    for step in range(data.draw(st.integers(1, 2), "batches")):
        targets = data.draw(st.lists(st.sampled_from([*_NAMES, "absent"]), min_size=1, max_size=5), "targets")
        plans = [None if name == "absent" or many.server.store.lookup(many.informer.kind_info, "default", name)
                 is None else _draw_fields(data, many.server.get("Pod", name, "default")) for name in targets]

        batch, single = (_writes(world, targets, plans) for world in (many, each))
        with many.server.dry_run() if dry else nullcontext():
            a = [_answer(r) for r in many.server.update_status_fields_many("Pod", batch)]
        b = []
        with each.server.dry_run() if dry else nullcontext():
            for name, namespace, fields in single:
                try:
                    b.append(_answer(each.server.update_status_fields("Pod", name, namespace, fields)))
                except ApiError as exc:
                    b.append(_answer(exc))
        event(f"answers {sorted({x[0] for x in a})}")
        assert a == b, step
        assert many.history() == each.history(), step


def test_kind_level_errors_are_answered_per_write() -> None:
    server = ApiServer(SimClock(), RandomStreams(3))
    server.create(_pod("p-0", False))
    answers = server.update_status_fields_many("Nope", [("p-0", "default", {"phase": "Running"})] * 2)
    assert [type(a) for a in answers] == [ApiError, ApiError] and answers[0] is not answers[1]
    assert all(isinstance(a, ApiError) and a.code == 404 for a in answers)
    pg = server.update_status_fields_many("ConfigMap", [("x", "default", {})])  # no status subresource
    assert isinstance(pg[0], ApiError) and pg[0].code == 404


def test_a_batch_skips_a_missing_pod_and_writes_the_rest_in_order() -> None:
    server = ApiServer(SimClock(), RandomStreams(3))
    for name in ("a", "b"):
        server.create(_pod(name, False))
    rv = int(server.resource_version)
    cond = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/1 nodes"}
    answers = server.update_status_fields_many("Pod", [("b", "default", {"conditions": [dict(cond)]}),
                                                       ("gone", "default", {"conditions": [dict(cond)]}),
                                                       ("a", None, {"conditions": [dict(cond)]})])
    assert isinstance(answers[1], ApiError) and answers[1].code == 404
    b, a = answers[0], answers[2]
    assert isinstance(a, FrozenDict) and isinstance(b, FrozenDict)
    assert (b["metadata"]["resourceVersion"], a["metadata"]["resourceVersion"]) == (str(rv + 1), str(rv + 2))
    assert a["status"]["conditions"][0] is b["status"]["conditions"][0]  # one frozen copy per content
