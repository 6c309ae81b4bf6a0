"""``ClientView`` keeps the PriorityClass list between pods and lists again after any PriorityClass
write: on random sequences of PriorityClass writes (create, value-preserving update, delete, dry
runs) interleaved with reads, every answer equals a fresh list from the server."""

from __future__ import annotations

import contextlib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.admission.lookup import ClientView
from volcano.api.frozen import thaw
from volcano.apiserver import ApiServer
from volcano.apiserver.errors import ApiError
from volcano.sim import SimClock
from volcano.sim.rand import RandomStreams

_PC = "PriorityClass.scheduling.k8s.io"
_ops = st.tuples(st.sampled_from(["create", "label", "delete", "dry-create", "read"]),
                 st.sampled_from(["a", "b", "c"]), st.booleans())


def _write(server: ApiServer, op: str, name: str, default: bool) -> None:
    if op in ("create", "dry-create"):
        obj: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                               "metadata": {"name": name}, "value": len(name), "globalDefault": default}
        if op == "create":
            server.create(obj)
        else:
            with server.dry_run():
                server.create(obj)
    elif op == "label":
        current = thaw(server.get(_PC, name))
        current["metadata"]["labels"] = {"round": str(default)}
        server.update(current)
    elif op == "delete":
        server.delete(_PC, name)


@settings(max_examples=100, deadline=None)
@given(st.lists(_ops, max_size=15))
def test_the_kept_list_is_always_a_fresh_list(ops: list[tuple[str, str, bool]]) -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    view = ClientView(server)
    for op, name, default in ops:
        with contextlib.suppress(ApiError):
            _write(server, op, name, default)
        assert view.priority_classes() == list(server.list(_PC)["items"])


def test_a_client_without_revisions_is_listed_every_time() -> None:
    calls: list[str] = []

    class Lister:
        def list(self, kind: str) -> dict[str, Any]:
            calls.append(kind)
            return {"items": []}

    view = ClientView(Lister())  # type: ignore[arg-type]
    view.priority_classes()
    view.priority_classes()
    assert calls == [_PC, _PC]


def test_a_returned_list_is_the_callers() -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    view = ClientView(server)
    first = view.priority_classes()
    first.clear()
    assert view.priority_classes() == list(server.list(_PC)["items"]) != []
