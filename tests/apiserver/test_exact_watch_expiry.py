"""Exact 410 Expired answers of the watch history after compaction: a watch from a resourceVersion older
than the compacted one is refused naming it and the oldest one kept; a watcher still behind receives one
ERROR event with that Status and nothing after it; a watch from the compacted resourceVersion goes on."""

from __future__ import annotations

import pytest

from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.client import WatchEvent
from volcano.sim import RandomStreams, SimClock


def _server() -> tuple[SimClock, ApiServer, list[str]]:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    rvs = [server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": n}})["metadata"]
           ["resourceVersion"] for n in "abc"]
    return clock, server, rvs


def test_watch_from_before_the_compaction_is_expired() -> None:
    clock, server, rvs = _server()
    behind: list[WatchEvent] = []
    server.watch("ConfigMap", behind.append, resource_version=rvs[0])
    server.compact_watch_history()
    oldest = rvs[2]
    for rv in ("1", rvs[0]):
        with pytest.raises(ApiError) as err:
            server.watch("ConfigMap", lambda _e: None, resource_version=rv)
        assert (err.value.code, err.value.reason, err.value.message) == (
            410, "Expired", f"too old resource version: {rv} ({oldest})")
    fresh: list[WatchEvent] = []
    server.watch("ConfigMap", fresh.append, resource_version=rvs[1])
    clock.run(10)
    assert [(e.type, e.object["metadata"]["name"]) for e in fresh] == [("ADDED", "c")]
    assert len(behind) == 1 and behind[0].type == "ERROR"
    status = behind[0].object
    assert (status["code"], status["reason"], status["message"]) == (
        410, "Expired", f"too old resource version: {rvs[1]} ({oldest})")
    server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}})
    clock.run(20)
    assert len(behind) == 1  # the expired watch is over
    assert [e.object["metadata"]["name"] for e in fresh] == ["c", "d"]
