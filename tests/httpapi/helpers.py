"""Helpers for the HTTP front-end tests: a raw HTTP client over loopback, manifests."""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlparse


class Http:
    """A keep-alive HTTP/1.1 client for one server: ``request`` returns (status, headers, body)."""

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        parsed = urlparse(url)
        self.host, self.port = parsed.hostname or "127.0.0.1", parsed.port or 80
        self.timeout = timeout
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
                ) -> tuple[int, dict[str, str], bytes]:
        """Send one request; a dict or list body is sent as JSON."""
        hdrs = dict(headers or {})
        data: bytes | None
        if isinstance(body, dict | list):
            data = json.dumps(body).encode()
            hdrs.setdefault("Content-Type", "application/json")
        elif isinstance(body, str):
            data = body.encode()
        else:
            data = body
        self.conn.request(method, path, body=data, headers=hdrs)
        resp = self.conn.getresponse()
        payload = resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, payload

    def json(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
             ) -> tuple[int, Any]:
        """``request`` with the body decoded as JSON."""
        status, _h, payload = self.request(method, path, body, headers)
        return status, json.loads(payload) if payload else None

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()





def job(name: str, *, replicas: int = 1, duration: str | None = None) -> dict[str, Any]:
    """A minimal Volcano Job manifest."""
    annotations = {"sim.volcano.sh/duration": duration} if duration else {}
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": name},
            "spec": {"minAvailable": replicas, "schedulerName": "volcano", "queue": "default",
                     "tasks": [{"name": "t", "replicas": replicas, "template": {
                         "metadata": {"annotations": annotations},
                         "spec": {"restartPolicy": "Never", "containers": [{
                             "name": "c", "image": "busybox",
                             "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}}]}}


def pod(name: str, **labels: str) -> dict[str, Any]:
    """A minimal Pod manifest."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": dict(labels)},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
