"""A controller test environment: an API server on a simulated clock with the ``default``
namespace, some objects created first, then the controllers under test started."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable
from typing import Any

from volcano.apiserver import ApiError, ApiServer, EventRecorder
from volcano.informers import InformerFactory
from volcano.sim import RandomStreams, SimClock, Trace

__all__ = ["ControllerEnv", "assert_made_from_template", "given"]

Obj = dict[str, Any]


class ControllerEnv:
    """``ControllerEnv(QueueController, objects=[...], recorder="vc-controller-manager")``:
    ``controllers`` are built as every cluster builds them (``X(server, informers, clock,
    streams=, trace=, recorder=, **options)``) and started; ``controller`` is the first."""

    def __init__(self, *controllers: type, seed: int = 0, objects: Iterable[Obj] = (), recorder: str | None = None,
                 server_cls: type[ApiServer] = ApiServer, **options: Any) -> None:
        self.clock = SimClock()
        self.streams = RandomStreams(seed)
        self.trace = Trace()
        self.server = server_cls(self.clock, self.streams, trace=self.trace)
        self.informers = InformerFactory(self.server, self.clock)
        with contextlib.suppress(ApiError):
            self.server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}})
        for obj in objects:
            self.server.create(obj)
        self.recorder = EventRecorder(self.server, self.clock, recorder) if recorder else None
        self.controllers = [cls(self.server, self.informers, self.clock, streams=self.streams, trace=self.trace,
                                recorder=self.recorder, **options) for cls in controllers]
        for c in self.controllers:
            c.start()
        self.controller = self.controllers[0] if self.controllers else None

    def settle(self, ms: int = 100) -> None:
        """Run the clock ``ms`` further."""
        self.clock.run(self.clock.now_ms + ms)

    def make(self, obj: Obj) -> tuple[Obj, list[Obj]]:
        """Create ``obj``, let the controllers work a while; the stored object and the pods
        of ``default`` then."""
        created = self.server.create(obj)
        self.settle()
        return created, self.items("Pod")

    def items(self, kind: str, namespace: str | None = "default") -> list[Obj]:
        """Every stored object of ``kind`` (in ``namespace``)."""
        return list(self.server.list(kind, namespace)["items"])

    def set_phase(self, kind: str, name: str, phase: str, namespace: str = "default") -> None:
        """Write ``status.phase`` of an object (as its kubelet or controller would)."""
        obj = self.server.get(kind, name, namespace)
        self.server.update_status({**obj, "status": {**(obj.get("status") or {}), "phase": phase}})


def assert_made_from_template(pods: Iterable[Obj], owner: Obj, api_version: str, kind: str) -> None:
    """Every pod is named ``<owner>-<5 generateName characters>``, asks for the ``volcano``
    scheduler, and has exactly one ownerReference: the controller reference to ``owner``."""
    name, uid = owner["metadata"]["name"], owner["metadata"]["uid"]
    for pod in pods:
        assert re.fullmatch(rf"{name}-[bcdfghjklmnpqrstvwxz2456789]{{5}}", pod["metadata"]["name"])
        assert pod["spec"]["schedulerName"] == "volcano"
        assert pod["metadata"]["ownerReferences"] == [{"apiVersion": api_version, "kind": kind, "name": name,
                                                       "uid": uid, "controller": True, "blockOwnerDeletion": True}]


def given(**fields: Any) -> dict[str, Any]:
    """The ``fields`` that are not None (optional fields of a manifest being built)."""
    return {k: v for k, v in fields.items() if v is not None}
