"""Watch over HTTP: framing, initial events, resourceVersion, selectors, timeout, 410, disconnects."""

from __future__ import annotations

import json
import socket
import time
from typing import Any

import pytest

from tests.httpapi.helpers import Http, pod
from volcano.serve import ServedCluster

pytestmark = pytest.mark.kube_api(speed=0, nodes=0)

PODS = "/api/v1/namespaces/default/pods"


class LineReader:
    """Reads a chunked watch response line by line from a raw socket (deadline per read)."""

    def __init__(self, url: str, path: str, headers: str = "") -> None:
        host, port = url.split("//", 1)[1].split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=5)
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n{headers}\r\n".encode())
        self.buf = b""
        head = self._until(b"\r\n\r\n")
        self.status = int(head.split(b" ", 2)[1])
        self.chunked = b"transfer-encoding: chunked" in head.lower()
        self.closed = False

    def _fill(self) -> bool:
        data = self.sock.recv(65536)
        if not data:
            self.closed = True
            return False
        self.buf += data
        return True

    def _until(self, sep: bytes) -> bytes:
        while sep not in self.buf:
            if not self._fill():
                raise EOFError
        out, self.buf = self.buf.split(sep, 1)
        return out

    def _chunk(self) -> bytes:
        size = int(self._until(b"\r\n"), 16)
        while len(self.buf) < size + 2:
            if not self._fill():
                raise EOFError
        data, self.buf = self.buf[:size], self.buf[size + 2:]
        return data

    def events(self, count: int, deadline_s: float = 5.0) -> list[dict[str, Any]]:
        """The next ``count`` events (fails after ``deadline_s`` wall seconds)."""
        out: list[dict[str, Any]] = []
        pending = b""
        end = time.monotonic() + deadline_s
        while len(out) < count:
            assert time.monotonic() < end, f"only {len(out)} of {count} events in {deadline_s}s"
            chunk = self._chunk()
            if not chunk:
                raise EOFError
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                out.append(json.loads(line))
        return out

    def ended(self) -> bool:
        """Whether the stream ended with the terminating chunk."""
        try:
            return self._chunk() == b""
        except EOFError:
            return True

    def close(self) -> None:
        """Drop the connection (as a client abandoning the watch)."""
        self.sock.close()


def test_watch_sends_existing_objects_then_changes_as_they_commit(http: Http, kube_api: ServedCluster) -> None:
    http.json("POST", PODS, pod("a"))
    reader = LineReader(kube_api.url, f"{PODS}?watch=true")
    assert reader.status == 200 and reader.chunked
    first = reader.events(1)
    assert (first[0]["type"], first[0]["object"]["metadata"]["name"]) == ("ADDED", "a")
    started = time.monotonic()
    http.json("POST", PODS, pod("b"))  # the clock is paused: delivery may not wait for it
    http.json("PATCH", f"{PODS}/a", {"metadata": {"labels": {"x": "1"}}},
              headers={"Content-Type": "application/merge-patch+json"})
    got = reader.events(2)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in got] == [("ADDED", "b"), ("MODIFIED", "a")]
    assert time.monotonic() - started < 2.0
    reader.close()


def test_watch_from_a_resource_version_sees_only_later_changes(http: Http, kube_api: ServedCluster) -> None:
    _s, created = http.json("POST", PODS, pod("a"))
    rv = created["metadata"]["resourceVersion"]
    http.json("DELETE", f"{PODS}/a")
    reader = LineReader(kube_api.url, f"{PODS}?watch=1&resourceVersion={rv}")
    (ev,) = reader.events(1)
    assert ev["type"] == "DELETED" and int(ev["object"]["metadata"]["resourceVersion"]) > int(rv)
    reader.close()


def test_selectors_filter_events(http: Http, kube_api: ServedCluster) -> None:
    reader = LineReader(kube_api.url, f"{PODS}?watch=true&labelSelector=app%3Dweb")
    http.json("POST", PODS, pod("other", app="db"))
    http.json("POST", PODS, pod("web", app="web"))
    (ev,) = reader.events(1)
    assert ev["object"]["metadata"]["name"] == "web"
    reader.close()


def test_timeout_seconds_ends_the_stream_cleanly(kube_api: ServedCluster) -> None:
    reader = LineReader(kube_api.url, f"{PODS}?watch=true&timeoutSeconds=1")
    started = time.monotonic()
    assert reader.ended()
    assert 0.9 <= time.monotonic() - started < 5


def test_too_old_resource_version_is_one_410_expired_event(kube_api: ServedCluster) -> None:
    kube_api.call(lambda: kube_api.server._hub.log("Pod").__setattr__("compacted_rv", 50))
    reader = LineReader(kube_api.url, f"{PODS}?watch=true&resourceVersion=3")
    (ev,) = reader.events(1)
    assert reader.status == 200 and ev["type"] == "ERROR"
    assert (ev["object"]["code"], ev["object"]["reason"]) == (410, "Expired")
    assert reader.ended()


def test_bookmarks_and_initial_events_end(kube_api: ServedCluster, http: Http) -> None:
    http.json("POST", PODS, pod("a"))
    reader = LineReader(kube_api.url, f"{PODS}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true"
                                      "&resourceVersionMatch=NotOlderThan")
    added, mark = reader.events(2)
    assert added["type"] == "ADDED" and mark["type"] == "BOOKMARK"
    assert mark["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    reader.close()


def test_table_watch_sends_one_row_tables(http: Http, kube_api: ServedCluster) -> None:
    reader = LineReader(kube_api.url, f"{PODS}?watch=true",
                        "Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json\r\n")
    http.json("POST", PODS, pod("a"))
    (ev,) = reader.events(1)
    assert ev["object"]["kind"] == "Table" and ev["object"]["rows"][0]["cells"][0] == "a"
    reader.close()


def test_abandoned_watches_are_released(http: Http, kube_api: ServedCluster) -> None:
    for _ in range(20):
        LineReader(kube_api.url, f"{PODS}?watch=true").close()
    http.json("POST", PODS, pod("a"))
    deadline = time.monotonic() + 5
    while kube_api.call(lambda: kube_api.app.watches) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert kube_api.call(lambda: kube_api.app.watches) == 0
    assert http.json("GET", "/version")[0] == 200


@pytest.mark.kube_api(speed=0, nodes=0, limits=None)
def test_watch_limit_is_429(kube_api: ServedCluster) -> None:
    kube_api.app.limits.max_watches = 2
    readers = [LineReader(kube_api.url, f"{PODS}?watch=true") for _ in range(2)]
    deadline = time.monotonic() + 5
    while kube_api.call(lambda: kube_api.app.watches) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    third = Http(kube_api.url)
    status, err = third.json("GET", f"{PODS}?watch=true")
    assert status == 429 and err["reason"] == "TooManyRequests"
    for r in readers:
        r.close()
    third.close()
