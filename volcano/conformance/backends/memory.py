"""The ``memory`` backend: a FakeCluster on simulated time.

Waiting advances the simulated clock, so a five-minute upstream timeout costs
milliseconds of wall time, and every run with the same seed is identical.

With ``faults`` the components reach the server through the testbed's
fault-injecting client (a ``FaultPlan`` injecting nothing at random, so only
``fail_writes`` fails anything), while the case's own requests go to the
server itself. ``scheduler_metrics`` reads the scheduler's own registry.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from volcano.conformance.backends.base import Cluster, ClusterShape, ConditionNotMet, MetricSample, Obj
from volcano.conformance.lib.metrics import registry_samples
from volcano.testbed import FakeCluster, FaultPlan

__all__ = ["MemoryCluster"]

CONTROL_PLANE_TAINT = {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}


class MemoryCluster(Cluster):
    """A conformance cluster backed by ``volcano.testbed.FakeCluster``."""

    backend = "memory"

    def __init__(self, shape: ClusterShape, *, seed: int = 0, scheduler_conf: str | None = None,
                 namespace: str = "conformance", faults: bool = False) -> None:
        super().__init__(namespace)
        self.fake = FakeCluster(seed=seed, scheduler_conf=scheduler_conf, faults=FaultPlan() if faults else None)
        if shape.control_plane:
            self.fake.add_node("control-plane", cpu="4", memory="16Gi", taints=[CONTROL_PLANE_TAINT],
                               labels={"node-role.kubernetes.io/control-plane": ""})
        node = shape.node
        for i in range(shape.workers):
            self.fake.add_node(f"worker-{i}", cpu=node.cpu, memory=node.memory, pods=node.pods, gpu=node.gpu,
                               labels=dict(node.labels))
        self.fake.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
        # From resourceVersion "0": the history starts with every existing object (nodes, queues).
        self._watches = [self.fake.server.watch(kind, self._recorder_for(kind), resource_version="0")
                         for kind in self.recorder.KINDS]

    def _recorder_for(self, kind: str) -> Callable[[Any], None]:
        def handler(event: Any) -> None:
            self.recorder.record(self.fake.now, kind, event.type, event.object)
        return handler

    def _ns(self, namespace: str | None) -> str:
        return self.namespace if namespace is None else namespace

    def apply(self, source: str | Obj | list[Obj]) -> builtins.list[Obj]:
        """Create or update; objects without a namespace land in the test namespace."""
        objs = source if isinstance(source, list) else [source] if isinstance(source, dict) else None
        if objs is not None:
            objs = [self._with_namespace(o) for o in objs]
            return self.fake.apply(objs)
        from volcano.api.manifest import load_manifests

        return self.fake.apply([self._with_namespace(o) for o in load_manifests(source)])

    def _with_namespace(self, obj: Obj) -> Obj:
        meta = obj.get("metadata") or {}
        if meta.get("namespace"):
            return obj
        return {**obj, "metadata": {**meta, "namespace": self.namespace}}

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj:
        return self.fake.get(kind, name, self._ns(namespace))

    def list(self, kind: str, namespace: str | None = None, label_selector: str | None = None) -> builtins.list[Obj]:
        ns = self._ns(namespace)
        return self.fake.list(kind, None if ns == "*" else ns, label_selector)

    def delete(self, kind: str, name: str, namespace: str | None = None,
               propagation_policy: str | None = None, *, dry_run: bool = False) -> None:
        with self._dry(dry_run):
            self.fake.server.delete(kind, name, self._ns(namespace), propagation_policy=propagation_policy)

    def patch(self, kind: str, name: str, patch: Obj | builtins.list[Obj], namespace: str | None = None,
              subresource: str | None = None, *, patch_type: str = "merge", field_manager: str | None = None,
              force: bool | None = None, dry_run: bool = False) -> Obj:
        with self._dry(dry_run):
            return self.fake.server.patch(kind, name, patch, self._ns(namespace), subresource=subresource,
                                          patch_type=patch_type, field_manager=field_manager, force=force)

    def _dry(self, dry_run: bool) -> AbstractContextManager[None]:
        return self.fake.server.dry_run() if dry_run else nullcontext()

    def create(self, obj: Obj, *, dry_run: bool = False) -> Obj:
        with self._dry(dry_run):
            return self.fake.server.create(self._with_namespace(obj))

    def list_page(self, kind: str, namespace: str | None = None, *, label_selector: str | None = None,
                  field_selector: str | None = None, limit: int | None = None,
                  continue_: str | None = None) -> Obj:
        ns = self._ns(namespace)
        return self.fake.server.list(kind, None if ns == "*" else ns, label_selector=label_selector,
                                     field_selector=field_selector, limit=limit, continue_=continue_)

    def scale(self, kind: str, name: str, namespace: str | None = None, *, replicas: int | None = None) -> Obj:
        return self.fake.scale(kind, name, self._ns(namespace), replicas)

    def pod_log(self, pod: str, namespace: str | None = None, *, container: str | None = None,
                tail_lines: int | None = None, timestamps: bool = False, previous: bool = False,
                limit_bytes: int | None = None) -> str:
        return self.fake.logs(pod, self._ns(namespace), container=container, tail_lines=tail_lines,
                              timestamps=timestamps, previous=previous, limit_bytes=limit_bytes)

    def evict(self, pod: str, namespace: str | None = None) -> None:
        self.fake.evict(pod, self._ns(namespace))

    def events(self, kind: str | None = None, name: str | None = None,
               namespace: str | None = None) -> builtins.list[Obj]:
        return self.fake.events(kind=kind, name=name, namespace=self._ns(namespace))

    def worker_nodes(self) -> builtins.list[Obj]:
        return [n for n in self.fake.list("Node")
                if not n.get("spec", {}).get("taints") and not n.get("spec", {}).get("unschedulable")]

    def fail_node(self, name: str) -> None:
        self.fake.fail_node(name)

    def recover_node(self, name: str) -> None:
        self.fake.recover_node(name)

    def fail_writes(self, verb: str, kind: str, name: str, namespace: str | None = None, *, times: int = 1,
                    code: int = 409) -> None:
        faults = self.fake.faults
        if faults is None:
            raise RuntimeError("fail_writes needs a cluster built with faults (mark the case @pytest.mark.faults)")
        faults.fail_next(verb, kind, name, self._namespaced(kind, namespace), times=times, code=code)

    def _namespaced(self, kind: str, namespace: str | None) -> str:
        """The namespace of an object of ``kind`` named with ``namespace`` ("" for a cluster-scoped kind)."""
        from volcano.api.kinds import resolve_kind

        return self._ns(namespace) if resolve_kind(kind).namespaced else ""

    def scheduler_metrics(self) -> builtins.list[MetricSample]:
        return registry_samples(self.fake.scheduler.metrics.registry)

    def now(self) -> float:
        return self.fake.now

    def wait_until(self, predicate: Callable[[], bool], timeout: float = 300.0, what: str = "") -> float:
        start = self.fake.now
        try:
            self.fake.run_until(lambda _c: predicate(), timeout=timeout)
        except TimeoutError:
            raise ConditionNotMet(f"timed out after {timeout:g}s waiting for {what or predicate!r}") from None
        return self.fake.now - start

    def hold(self, predicate: Callable[[], bool], seconds: float = 30.0, what: str = "") -> None:
        if not predicate():
            raise ConditionNotMet(f"{what or predicate!r} does not hold at the start of the window")
        try:
            self.fake.run_until(lambda _c: not predicate(), timeout=seconds)
        except TimeoutError:
            return
        raise ConditionNotMet(f"{what or predicate!r} stopped holding at t={self.fake.now:.3f}s")

    def sleep(self, seconds: float) -> None:
        self.fake.run(seconds)

    def close(self) -> None:
        for w in self._watches:
            w.stop()
