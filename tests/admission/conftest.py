"""Shared builders for admission tests: the e2e suite's base job, queues, and a server with admission."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from volcano.admission import install_admission
from volcano.admission.lookup import StaticView
from volcano.api.frozen import thaw
from volcano.apiserver.server import ApiServer
from volcano.sim.clock import SimClock
from volcano.sim.rand import RandomStreams

BASE_JOB: dict[str, Any] = {
    "apiVersion": "batch.volcano.sh/v1alpha1",
    "kind": "Job",
    "metadata": {"name": "test-job", "namespace": "default"},
    "spec": {
        "minAvailable": 1,
        "queue": "default",
        "tasks": [{
            "name": "task-1",
            "replicas": 1,
            "template": {
                "metadata": {"labels": {"name": "test"}},
                "spec": {"containers": [{"name": "fake-name", "image": "busybox:1.24"}]},
            },
        }],
        "policies": [{"event": "PodEvicted", "action": "RestartTask"}],
    },
}


def base_job() -> dict[str, Any]:
    """A fresh copy of the e2e suite's ``createBaseJob`` job."""
    return copy.deepcopy(BASE_JOB)


def queue(name: str, state: str | None = "Open", **spec: Any) -> dict[str, Any]:
    """A Queue object (status given, as the queue controller would have written it)."""
    obj: dict[str, Any] = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                           "metadata": {"name": name}, "spec": dict(spec)}
    if state is not None:
        obj["status"] = {"state": state}
    return obj


def open_view(*extra: dict[str, Any]) -> StaticView:
    """A view with Open ``root`` and ``default`` queues plus ``extra`` queues."""
    return StaticView(queues=[queue("root"), queue("default"), *extra])


def open_queue(server: ApiServer, name: str, **spec: Any) -> None:
    """Create queue ``name`` and mark it Open through the status subresource."""
    server.create(queue(name, None, **spec))
    obj = thaw(server.get("Queue", name))
    obj["status"] = {"state": "Open"}
    server.update_status(obj)


@pytest.fixture
def job() -> dict[str, Any]:
    """A fresh copy of the e2e suite's base job."""
    return base_job()


@pytest.fixture
def view() -> StaticView:
    """Open ``root`` and ``default`` queues."""
    return open_view()


@pytest.fixture
def server() -> ApiServer:
    """An API server with every admission rule installed and Open ``root``/``default`` queues."""
    srv = ApiServer(SimClock(), RandomStreams(0))
    install_admission(srv)
    open_queue(srv, "root")
    open_queue(srv, "default")
    return srv
