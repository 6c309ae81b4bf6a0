"""An informer's indexes after any sequence of creates, label changes, status writes, binds and
deletes equal indexes built afresh from the cache (an update that keeps an object's index values
leaves the index untouched; one that changes them moves the object), and an indexer that fails on
an object is reported once per reading, as before."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.apiserver import ApiServer
from volcano.apiserver.errors import ApiError
from volcano.informers import InformerFactory
from volcano.sim import RandomStreams, SimClock

_NAMES = ["a", "b", "c"]
_OPS = st.lists(st.tuples(st.sampled_from(["create", "label", "status", "bind", "delete"]),
                          st.sampled_from(_NAMES), st.sampled_from(["x", "y", ""])), max_size=25)


def _pod(name: str, app: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {"app": app} if app else {}},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}


def _apply(server: ApiServer, op: str, name: str, value: str) -> None:
    try:
        if op == "create":
            server.create(_pod(name, value))
        elif op == "label":
            server.patch("Pod", name, {"metadata": {"labels": {"app": value or None}}}, "default")
        elif op == "status":
            server.patch("Pod", name, {"status": {"message": value}}, "default", subresource="status")
        elif op == "bind":
            server.bind(name, "default", f"n{value or '0'}")
        else:
            server.delete("Pod", name, "default")
    except ApiError:
        pass


def _by_app(obj: Any) -> list[str]:
    return [obj["metadata"].get("labels", {}).get("app", "")]


def _by_node(obj: Any) -> list[str]:
    node = obj["spec"].get("nodeName")
    return [node] if node else []


@settings(max_examples=60, deadline=None)
@given(_OPS)
def test_indexes_match_a_fresh_build(ops: list[tuple[str, str, str]]) -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    inf = InformerFactory(server, clock).informer("Pod")
    inf.add_index("app", _by_app)
    inf.add_index("node", _by_node)
    for op in ops:
        _apply(server, *op)
        clock.run()
    for name, fn in (("app", _by_app), ("node", _by_node)):
        fresh: dict[str, list[str]] = {}
        for obj in inf.list():
            for value in fn(obj):
                fresh.setdefault(value, []).append(obj["metadata"]["name"])
        assert inf.index_values(name) == sorted(fresh)
        for value, names in fresh.items():
            assert [o["metadata"]["name"] for o in inf.by_index(name, value)] == sorted(names)


def test_an_update_that_keeps_the_values_reads_each_version_once() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    inf = InformerFactory(server, clock).informer("Pod")
    seen: list[str] = []

    def by_app(obj: Any) -> list[str]:
        seen.append(obj["metadata"]["resourceVersion"])
        return _by_app(obj)
    inf.add_index("app", by_app)
    server.create(_pod("a", "x"))
    clock.run()
    seen.clear()
    server.patch("Pod", "a", {"status": {"message": "m"}}, "default", subresource="status")
    clock.run()
    old_rv, new_rv = str(int(server.resource_version) - 1), server.resource_version
    assert seen == [old_rv, new_rv]
    assert [o["metadata"]["resourceVersion"] for o in inf.by_index("app", "x")] == [new_rv]
