"""client-go's flow control in ``KubeClient``: the token bucket, Retry-After retries, refused
connections, and a watch stream's bookmarks and errors (fake transports and clocks: no sleeping)."""

from __future__ import annotations

import socket
from typing import Any

import orjson
import pytest

pytest.importorskip("kubernetes", reason="needs the 'kubernetes' package")

from kubernetes import client as k8s

from volcano.api.kinds import resolve_kind
from volcano.apiserver import ApiError
from volcano.apiserver.client import WatchEvent
from volcano.kube import Backoff, KubeClient, TokenBucket
from volcano.kube.watch import WatchStream


class FakeTime:
    """A wall clock that moves only when someone sleeps."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def wall(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds


def test_token_bucket_allows_the_burst_then_paces_at_qps() -> None:
    t = FakeTime()
    bucket = TokenBucket(5.0, 3, wall=t.wall, sleep=t.sleep)
    waits = [bucket.wait() for _ in range(6)]
    assert waits[:3] == [0.0, 0.0, 0.0]
    assert [round(w, 6) for w in waits[3:]] == [0.2, 0.2, 0.2]
    t.now += 10  # idle: the bucket refills, but never beyond the burst
    assert [bucket.wait() for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.wait() > 0


def test_token_bucket_off_and_bad_settings() -> None:
    t = FakeTime()
    assert all(TokenBucket(0, 0, wall=t.wall, sleep=t.sleep).wait() == 0 for _ in range(100))
    with pytest.raises(ValueError, match="burst must be >= 1"):
        TokenBucket(10, 0)


def test_backoff_doubles_to_the_cap_and_resets() -> None:
    b = Backoff(0.8, 5.0)
    assert [b.next_delay() for _ in range(5)] == [0.8, 1.6, 3.2, 5.0, 5.0]
    b.reset()
    assert b.next_delay() == 0.8
    b.stop.set()
    assert b.wait() is False


class FakeResponse:
    def __init__(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.data = b"" if body is None else orjson.dumps(body)
        self.headers = headers or {}

    def read(self) -> bytes:
        return self.data


class FakePool:
    """Answers requests from a script; records (method, url) of each."""

    def __init__(self, answers: list[Any]) -> None:
        self.answers = answers
        self.sent: list[tuple[str, str]] = []

    def request(self, method: str, url: str, **kwargs: Any) -> Any:
        self.sent.append((method, url))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def clear(self) -> None:
        pass


def _client(answers: list[Any], t: FakeTime, **kwargs: Any) -> tuple[KubeClient, FakePool]:
    config = k8s.Configuration()
    config.host = "http://127.0.0.1:1"
    api = k8s.ApiClient(config)
    pool = FakePool(answers)
    api.rest_client.pool_manager = pool
    return KubeClient(api, dispatch=lambda fn, *a: fn(*a), wall=t.wall, sleep=t.sleep, **kwargs), pool


_CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "default"}}
_STATUS_429 = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "TooManyRequests",
               "message": "slow down", "code": 429}


def test_retry_after_is_honoured_then_the_answer_returned() -> None:
    t = FakeTime()
    c, pool = _client([FakeResponse(429, _STATUS_429, {"Retry-After": "2"}),
                       FakeResponse(503, None, {"Retry-After": "1"}), FakeResponse(200, _CM)], t, qps=0, burst=0)
    assert c.get("ConfigMap", "a")["metadata"]["name"] == "a"
    assert t.sleeps == [2.0, 1.0] and c.retries == 2 and len(pool.sent) == 3
    assert pool.sent[0] == ("GET", "http://127.0.0.1:1/api/v1/namespaces/default/configmaps/a")


def test_429_without_retry_after_is_the_callers_error() -> None:
    t = FakeTime()
    c, _ = _client([FakeResponse(429, _STATUS_429)], t, qps=0, burst=0)
    with pytest.raises(ApiError) as info:
        c.get("ConfigMap", "a")
    assert (info.value.code, info.value.reason, info.value.message) == (429, "TooManyRequests", "slow down")
    assert t.sleeps == []


def test_retries_run_out() -> None:
    t = FakeTime()
    answers = [FakeResponse(500, None, {"Retry-After": "1"}) for _ in range(4)]
    c, pool = _client(answers, t, qps=0, burst=0, max_retries=3)
    with pytest.raises(ApiError) as info:
        c.create(_CM)
    assert info.value.code == 500 and len(pool.sent) == 4


def test_requests_are_throttled_by_qps() -> None:
    t = FakeTime()
    c, _ = _client([FakeResponse(200, _CM) for _ in range(5)], t, qps=10, burst=2)
    for _ in range(5):
        c.get("ConfigMap", "a")
    assert t.sleeps == [0.1, 0.1, 0.1]


def test_a_server_that_refuses_connections_is_a_503_after_the_retries() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends: nothing listens there
    config = k8s.Configuration()
    config.host = f"http://127.0.0.1:{port}"
    t = FakeTime()
    c = KubeClient(k8s.ApiClient(config), dispatch=lambda fn, *a: fn(*a), qps=0, burst=0, max_retries=2,
                   wall=t.wall, sleep=t.sleep)
    with pytest.raises(ApiError) as info:
        c.create(_CM)
    assert info.value.code == 503 and "did not answer" in info.value.message
    assert len(t.sleeps) == 2  # a refused POST is retried: the request never reached the server


def test_watch_lines_bookmarks_move_the_resource_version_and_are_not_delivered() -> None:
    delivered: list[WatchEvent] = []
    stream = WatchStream.__new__(WatchStream)  # drive the line handling without a thread
    stream.info = resolve_kind("Pod")
    stream.resource_version = "5"
    stream.bookmarks = 0
    stream._dispatch = lambda fn, *args: fn(*args)
    stream._handler = delivered.append
    import threading

    stream._stopped, stream._done = threading.Event(), threading.Event()
    pod = {"metadata": {"name": "p", "namespace": "default", "resourceVersion": "7"}}
    assert stream._line(orjson.dumps({"type": "ADDED", "object": pod}))
    assert stream._line(orjson.dumps({"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "9"}}}))
    assert stream.resource_version == "9" and stream.bookmarks == 1
    assert [(e.type, e.object["kind"], e.object["apiVersion"]) for e in delivered] == [("ADDED", "Pod", "v1")]
    gone = {"kind": "Status", "code": 410, "reason": "Expired", "message": "too old resource version: 1 (9)"}
    assert stream._line(orjson.dumps({"type": "ERROR", "object": gone})) is False
    assert delivered[-1].type == "ERROR" and delivered[-1].object["code"] == 410 and stream.stopped
    with pytest.raises(ApiError):  # another ERROR ends this request; the thread watches again
        stream._line(orjson.dumps({"type": "ERROR", "object": {"code": 500, "message": "x"}}))


def test_a_stopping_process_gives_up_retrying_at_once() -> None:
    import threading

    t = FakeTime()
    stop = threading.Event()
    c, pool = _client([FakeResponse(503, None, {"Retry-After": "30"}) for _ in range(3)], t, qps=0, burst=0)
    c._stop = stop
    stop.set()
    with pytest.raises(ApiError) as info:
        c.get("ConfigMap", "a")
    assert info.value.code == 503 and "the process is stopping" in info.value.message
    assert len(pool.sent) == 1 and t.sleeps == []
