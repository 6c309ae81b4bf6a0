"""The Controller base: watches as data, the work queue, an idempotent start, shared indexes."""

from __future__ import annotations

import doctest
from types import MappingProxyType

from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.client import Obj
from volcano.controllers import base
from volcano.controllers.base import Controller
from volcano.informers import InformerFactory
from volcano.sim import RandomStreams, SimClock, Trace


def _node_index(obj: Obj) -> list[str]:
    return [obj["metadata"]["name"][:1]]


class _Nodes(Controller[str]):
    COMPONENT = "nodes-test"
    INDEXES = (("Node", "first-letter", _node_index),)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.seen: list[tuple[str, str]] = []
        self.fail_once: set[str] = set()

    def _on_node(self, event: str, node: Obj, old: Obj | None) -> None:
        self.seen.append((event, node["metadata"]["name"]))
        self.queue.add(node["metadata"]["name"])

    WATCHES = MappingProxyType({"Node": _on_node, "Namespace": None})

    def process(self, key: str) -> None:
        if key in self.fail_once:
            self.fail_once.discard(key)
            raise ApiError(409, "Conflict", "try again")
        self.record("Processed", key)


def _env() -> tuple[SimClock, ApiServer, InformerFactory, Trace]:
    clock = SimClock()
    trace = Trace()
    server = ApiServer(clock, RandomStreams(0))
    return clock, server, InformerFactory(server, clock), trace


def _node(server: ApiServer, name: str) -> None:
    server.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})


def test_start_is_idempotent_and_registers_each_watch_once() -> None:
    clock, server, informers, trace = _env()
    c = _Nodes(server, informers, clock, trace=trace)
    c.start()
    c.start()
    _node(server, "a1")
    clock.run(until_ms=1)
    assert c.seen == [("ADDED", "a1")]
    assert [(r.event, r.object) for r in trace.records("nodes-test")] == [("Processed", "a1")]
    assert set(informers.started()) >= {"Node", "Namespace"}  # a None watch is read-only, still informed


def test_an_api_error_is_retried_from_the_queue() -> None:
    clock, server, informers, trace = _env()
    c = _Nodes(server, informers, clock, trace=trace)
    c.fail_once = {"b1"}
    c.start()
    _node(server, "b1")
    clock.run(until_ms=1000)
    assert [(r.event, r.object) for r in trace.records("nodes-test")] == [("Processed", "b1")]
    assert c.queue.processed == 2


def test_two_instances_share_the_index() -> None:
    clock, server, informers, _ = _env()
    first, second = _Nodes(server, informers, clock), _Nodes(server, informers, clock)
    first.start()
    second.start()  # the index exists already: reused, not an error
    _node(server, "c1")
    _node(server, "d1")
    clock.run(until_ms=1)
    assert [n["metadata"]["name"] for n in informers.informer("Node").by_index("first-letter", "c")] == ["c1"]
    assert first.seen == second.seen == [("ADDED", "c1"), ("ADDED", "d1")]


def test_the_module_example_runs() -> None:
    assert doctest.testmod(base).failed == 0
