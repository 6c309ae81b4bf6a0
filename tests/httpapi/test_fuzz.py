"""Garbage over loopback never crashes or hangs the server (seeded, bounded in count and time).

Requests are built from a seeded stream: real and invented paths, methods, query parameters,
content types, and bodies that are random bytes, truncated or mutated manifests, deep nesting
and wrong types. Every answer must be a ``metav1.Status`` (or a document) with a code below 500
and no traceback; raw garbage on the socket must be answered or closed within a deadline; the
server must keep serving throughout.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import socket
import time
from typing import Any

import pytest

from tests.httpapi.helpers import Http, job, pod
from volcano.httpapi import Limits
from volcano.serve import ServedCluster

pytestmark = pytest.mark.kube_api(speed=5, nodes=2)

COUNT = int(os.environ.get("HTTP_FUZZ_COUNT", "1500"))
BUDGET_S = 60.0

_PATHS = ["/api/v1/namespaces/default/pods", "/api/v1/namespaces/default/pods/p0", "/api/v1/pods",
          "/api/v1/namespaces/default/pods/p0/status", "/api/v1/namespaces/default/pods/p0/binding",
          "/api/v1/namespaces/default/pods/p0/eviction", "/api/v1/namespaces/default/pods/p0/log",
          "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs",
          "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs/j0",
          "/apis/scheduling.volcano.sh/v1beta1/queues", "/apis/scheduling.volcano.sh/v1beta1/queues/default/status",
          "/apis/apps/v1/namespaces/default/deployments/d/scale", "/api/v1/namespaces/x", "/api/v1/nodes/node-0",
          "/api", "/apis", "/api/v1", "/openapi/v3", "/version", "/healthz", "/", "/apis/x/y/z/w/v/u",
          "/api/v1/namespaces//pods", "/api/v1/namespaces/default/pods/%00", "/apis/batch.volcano.sh"]
_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "FOO"]
_TYPES = ["application/json", "application/merge-patch+json", "application/strategic-merge-patch+json",
          "application/json-patch+json", "application/apply-patch+yaml", "application/yaml", "text/plain",
          "application/vnd.kubernetes.protobuf", "", "application/json; charset=utf-8"]
_QUERIES = ["", "watch=true&timeoutSeconds=0", "limit=-1", "limit=abc", "continue=%%%", "labelSelector=a%20in%20(",
            "fieldSelector=metadata.name%3D%3D%3D", "resourceVersion=-5", "dryRun=All", "dryRun=x",
            "gracePeriodSeconds=zz", "propagationPolicy=Nope", "watch=maybe",
            "resourceVersionMatch=Exact&resourceVersion=1",
            "timeoutSeconds=1&watch=1&resourceVersion=999999999999999999999"]


def _mutate(rng: random.Random, value: Any, depth: int = 0) -> Any:
    """A randomly damaged copy of a JSON value."""
    if depth > 6:
        return value
    choice = rng.random()
    if isinstance(value, dict):
        out = {k: _mutate(rng, v, depth + 1) for k, v in value.items() if rng.random() > 0.1}
        if choice < 0.2:
            out[rng.choice(["metadata", "spec", "status", "kind", "x"])] = rng.choice([None, 7, "s", [], {}, True])
        return out
    if isinstance(value, list):
        return [_mutate(rng, v, depth + 1) for v in value] + ([rng.choice([None, 1, {}])] if choice < 0.2 else [])
    if choice < 0.15:
        return rng.choice([None, -1, 2**70, "", "x" * 300, [], {}, True, 1.5, "\u0000\udcff"[:1]])
    return value


def _body(rng: random.Random) -> bytes:
    kind = rng.randrange(7)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
    if kind == 1:
        text = json.dumps(rng.choice([pod("p0"), job("j0")]))
        return text[: rng.randrange(len(text))].encode()
    if kind == 2:
        depth = rng.randrange(50, 3000)
        return b"[" * depth + b"]" * depth
    if kind == 3:
        return json.dumps([{"op": rng.choice(["add", "remove", "move", "x"]), "path": "/metadata/labels/a",
                            "value": rng.choice([1, "v", None])}]).encode()
    if kind == 4:
        return b"a: [\n  - {b: !!python/object:os.system 'x'}\n"
    return json.dumps(_mutate(rng, rng.choice([pod("p0"), job("j0"), {"spec": {"replicas": 3}},
                                                {"kind": "DeleteOptions", "propagationPolicy": "Orphan"}]))).encode()


def test_garbage_requests_never_crash_or_hang(kube_api: ServedCluster) -> None:
    rng = random.Random(20261124)
    setup = Http(kube_api.url)
    setup.json("POST", "/api/v1/namespaces/default/pods", pod("p0"))
    setup.json("POST", "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs", job("j0"))
    setup.close()
    client = Http(kube_api.url, timeout=10)
    started = time.monotonic()
    codes: dict[int, int] = {}
    for i in range(COUNT):
        assert time.monotonic() - started < BUDGET_S, f"fuzzing exceeded {BUDGET_S}s after {i} requests"
        path = rng.choice(_PATHS)
        query = rng.choice(_QUERIES)
        method = rng.choice(_METHODS)
        headers = {"Content-Type": rng.choice(_TYPES)}
        if rng.random() < 0.2:
            headers["Accept"] = rng.choice(["application/json;as=Table;v=v1;g=meta.k8s.io", "*/*", "text/html",
                                            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"])
        body = _body(rng) if method in ("POST", "PUT", "PATCH", "DELETE") else None
        try:
            status, hdrs, payload = client.request(method, f"{path}?{query}" if query else path, body, headers)
        except (http.client.HTTPException, ConnectionError, TimeoutError) as err:
            raise AssertionError(f"request {i} {method} {path}?{query} got no answer: {err!r}") from None
        codes[status] = codes.get(status, 0) + 1
        assert status < 500, f"request {i} {method} {path}?{query}: {status} {payload[:300]!r}"
        assert b"Traceback" not in payload
        if payload and status >= 400 and method != "HEAD":
            if hdrs.get("content-type") == "application/json":
                assert json.loads(payload)["kind"] == "Status"
            else:  # refused by the HTTP parser before the API (an invalid method or request line)
                assert status == 400 and b"Invalid HTTP request" in payload
    client.close()
    assert len(codes) > 4  # the stream reached many different answers
    check = Http(kube_api.url)
    assert check.json("GET", "/version")[0] == 200
    assert check.json("GET", "/api/v1/namespaces/default/pods")[0] == 200
    check.close()


def test_raw_socket_garbage_is_answered_or_closed(kube_api: ServedCluster) -> None:
    rng = random.Random(7)
    host, port = kube_api.url.split("//", 1)[1].split(":")
    samples = [b"\x00\xff" * 50 + b"\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"GET /version HTTP/1.1\r\nHost: x\r\n"
               b"Content-Length: -1\r\n\r\n", b"POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\n"
               b"Transfer-Encoding: chunked\r\n\r\nzz\r\n", b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\n\r\n",
               b"GET /version HTTP/1.1\r\n" + b"X-H: v\r\n" * 5000 + b"\r\n"]
    samples += [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400))) for _ in range(40)]
    for data in samples:
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            try:
                sock.sendall(data)
                sock.shutdown(socket.SHUT_WR)
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:
                    if not sock.recv(65536):
                        break
                else:
                    raise AssertionError(f"connection neither answered nor closed: {data[:40]!r}")
            except (ConnectionResetError, BrokenPipeError):
                pass
    check = Http(kube_api.url)
    assert check.json("GET", "/version")[0] == 200
    check.close()


@pytest.mark.kube_api(speed=0, nodes=0, limits=Limits(header_timeout=1.0, body_timeout=1.0))
def test_slow_clients_are_cut_off(kube_api: ServedCluster) -> None:
    """A connection that never completes its headers is closed; a body that never arrives is 408."""
    host, port = kube_api.url.split("//", 1)[1].split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\n")
        started = time.monotonic()
        assert sock.recv(1024) == b""
        assert 0.9 <= time.monotonic() - started < 10
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(b"POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n"
                     b"Content-Type: application/json\r\n\r\n{")
        answer = sock.recv(4096)
        assert answer.startswith(b"HTTP/1.1 408") and b'"reason":"Timeout"' in answer
