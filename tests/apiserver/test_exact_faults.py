"""Exact behaviour of the fault-injection tooling (``volcano.apiserver.faults``): each injected error's
Status, the plan's validation messages, which writes fail with which code, what a 504 stores, dropped
watches and compaction, and ``inject_stored_object``'s server fields."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.client import WatchEvent
from volcano.apiserver.faults import FaultPlan, FaultyClient, inject_stored_object, injected_error
from volcano.sim import RandomStreams, SimClock

RETRY = "please apply your changes to the latest version and try again"


@pytest.mark.parametrize(("code", "status"), [
    (409, ("Conflict", f'Operation cannot be fulfilled on pods "p": the object has been modified; {RETRY}',
           {"name": "p", "kind": "pods"})),
    (429, ("TooManyRequests", "the server has received too many requests and has asked us to try again later",
           {"retryAfterSeconds": 1})),
    (500, ("InternalError", 'Internal error occurred: update pods "p": injected fault',
           {"causes": [{"message": 'update pods "p": injected fault'}]})),
    (504, ("Timeout", "the server was unable to return a response in the time allotted, but may still be "
                      "processing the request", None)),
])
def test_injected_error(code: int, status: tuple[str, str, Any]) -> None:
    err = injected_error(code, "update", 'pods "p"')
    assert (err.code, err.reason, err.message, err.details or None) == (code, *status)


@pytest.mark.parametrize(("plan", "message"), [
    ({"write_failure_rate": 1.5}, "write_failure_rate must be within [0, 1], got 1.5"),
    ({"write_failure_rate": -0.1}, "write_failure_rate must be within [0, 1], got -0.1"),
    ({"write_failure_rate": "x"}, "write_failure_rate must be within [0, 1], got 'x'"),
    ({"write_failure_codes": (404,)}, "write_failure_codes must be among (409, 429, 500, 504), got (404,)"),
    ({"write_failure_codes": ()}, "write_failure_codes must be among (409, 429, 500, 504), got ()"),
    ({"watch_drop_every_ms": 0}, "watch_drop_every_ms must be a positive integer (ms) or None, got 0"),
    ({"compact_every_ms": True}, "compact_every_ms must be a positive integer (ms) or None, got True"),
    ({"compact_every_ms": 1.5}, "compact_every_ms must be a positive integer (ms) or None, got 1.5"),
])
def test_plan_validation(plan: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as err:
        FaultPlan(**plan)
    assert str(err.value) == message


def _setup(**plan: Any) -> tuple[SimClock, ApiServer, FaultyClient]:
    clock = SimClock()
    streams = RandomStreams(3)
    server = ApiServer(clock, streams)
    return clock, server, FaultyClient(server, FaultPlan(**plan), clock, streams)


def _cm(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}


@pytest.mark.parametrize("code", [429, 500])
def test_a_failed_write_stores_nothing(code: int) -> None:
    _clock, server, client = _setup(write_failure_rate=1.0, write_failure_codes=(code,))
    with pytest.raises(ApiError) as err:
        client.create(_cm("a"))
    assert err.value.code == code
    assert server.list("ConfigMap", "default")["items"] == []
    assert (client.stats.writes, client.stats.failed_writes, client.stats.injected) == (1, {code: 1}, 1)


def test_a_timeout_stores_the_write() -> None:
    _clock, server, client = _setup(write_failure_rate=1.0, write_failure_codes=(504,))
    with pytest.raises(ApiError) as err:
        client.create(_cm("a"))
    assert (err.value.code, err.value.reason) == (504, "Timeout")
    assert server.get("ConfigMap", "a", "default")["data"] == {"k": "v"}
    with pytest.raises(ApiError) as err:
        client.delete("ConfigMap", "a", "default")
    assert err.value.code == 504
    assert server.list("ConfigMap", "default")["items"] == []


def test_only_updates_conflict() -> None:
    _clock, server, client = _setup(write_failure_rate=1.0, write_failure_codes=(409, 500))
    server.create(_cm("a"))
    for _ in range(5):
        with pytest.raises(ApiError) as err:
            client.patch("ConfigMap", "a", {"data": {"k": "w"}}, "default")
        assert err.value.code == 500  # a patch carries no resourceVersion
    codes = set()
    for _ in range(20):
        with pytest.raises(ApiError) as err:
            client.update(dict(server.get("ConfigMap", "a", "default")))
        codes.add(err.value.code)
    assert codes == {409, 500}
    _clock, server, client = _setup(write_failure_rate=1.0, write_failure_codes=(409,))
    with pytest.raises(ApiError) as err:
        client.create(_cm("b"))
    assert err.value.message == (f'Operation cannot be fulfilled on configmaps "b": the object has been modified; '
                                 f"{RETRY}")


def test_disabled_or_zero_rate_passes_every_write() -> None:
    _clock, server, client = _setup(write_failure_rate=1.0)
    client.enabled = False
    client.create(_cm("a"))
    _clock, server2, client2 = _setup()
    client2.create(_cm("a"))
    assert server.get("ConfigMap", "a", "default") is not None and server2.get("ConfigMap", "a", "default")
    assert (client.stats.writes, client.stats.injected, client2.stats.writes) == (1, 0, 1)


def test_dropped_watch_gets_one_error_event() -> None:
    clock, server, client = _setup(watch_drop_every_ms=1000)
    events: list[WatchEvent] = []
    client.watch("ConfigMap", events.append)
    server.create(_cm("a"))
    clock.run(1000)
    server.create(_cm("b"))  # after the drop: not delivered
    assert [ev.type for ev in events] == ["ADDED", "ERROR"]
    assert (events[1].object["code"], events[1].object["reason"], events[1].object["message"]) == (
        500, "InternalError", "watch connection dropped (injected fault)")
    clock.run(3000)
    assert client.stats.watches_dropped == 1


def test_compaction_is_counted() -> None:
    clock, _server, client = _setup(compact_every_ms=500)
    clock.run(1600)
    assert client.stats.compactions == 3
    client.enabled = False
    client.compact()
    assert client.stats.compactions == 3


@pytest.mark.parametrize(("obj", "namespace", "generation"), [
    ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "generation": 7}, "data": {"k": 1}},
     "default", None),
    ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "team"}, "spec": "not a spec"},
     "team", 1),
    ({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "namespace": "x"}}, None, None),
])
def test_inject_stored_object(obj: dict[str, Any], namespace: str | None, generation: int | None) -> None:
    clock = SimClock()
    clock.run(5000)
    server = ApiServer(clock, RandomStreams(0))
    stored = inject_stored_object(server, obj)
    meta = stored["metadata"]
    assert meta.get("namespace") == namespace
    assert meta.get("generation") == generation
    assert meta["creationTimestamp"] == clock.timestamp(5000)
    assert meta["uid"] and meta["resourceVersion"]
    assert {k: v for k, v in stored.items() if k != "metadata"} == {k: v for k, v in obj.items() if k != "metadata"}
    assert server.get(obj["kind"], obj["metadata"]["name"], namespace) == stored
