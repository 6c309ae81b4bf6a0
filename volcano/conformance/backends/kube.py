"""The ``kubeconfig`` backend: a real cluster (for example kind) with Volcano installed.

Uses the official ``kubernetes`` client (``pip install 'volcano[kube]'``).
Waiting polls the API every 100 ms of wall time, as upstream's e2e helpers do;
each test runs in a namespace of its own, deleted afterwards. The cluster
shape a test asks for is checked, not built: a test needing more workers
than the cluster has is skipped with the reason.

``time_scale`` is the cluster's pace in cluster seconds per wall second: 1 on a
real cluster, ``--speed`` for ``volcano serve``. Cluster time (``now``, waits,
hold windows, sleeps) is wall time multiplied by it, and polls come more often
so that a poll still spans at most half a cluster second.
"""

from __future__ import annotations

import builtins
import contextlib
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from volcano.api.kinds import kind_for_object, resolve_kind
from volcano.conformance.backends.base import Cluster, ClusterShape, ConditionNotMet, Obj

__all__ = ["KubeCluster", "kube_unavailable_reason"]

_POLL_S = 0.1

_PATCH_MEDIA_TYPES = {"merge": "application/merge-patch+json", "json": "application/json-patch+json",
                      "strategic": "application/strategic-merge-patch+json", "apply": "application/apply-patch+yaml"}
"""The PATCH Content-Type of each patch type the ``Cluster`` interface names."""


def _dry(dry_run: bool) -> dict[str, Any]:
    return {"dry_run": "All"} if dry_run else {}


def kube_unavailable_reason(kubeconfig: str | None) -> str | None:
    """Why the kubeconfig backend cannot run here, or None when it can."""
    try:
        import kubernetes  # noqa: F401
    except ImportError:
        return "the kubeconfig backend needs the 'kubernetes' package: pip install 'volcano[kube]'"
    from kubernetes import client, config

    try:
        config.load_kube_config(config_file=kubeconfig)
        client.VersionApi().get_code(_request_timeout=5)
    except Exception as err:
        return f"no reachable Kubernetes cluster from kubeconfig {kubeconfig or '~/.kube/config'}: {err}"
    return None


class KubeCluster(Cluster):
    """A conformance cluster backed by a real API server."""

    backend = "kubeconfig"
    gang_window = 2.0

    def __init__(self, shape: ClusterShape, *, kubeconfig: str | None = None, time_scale: float = 1.0,
                 discovery_cache: str | None = None) -> None:
        from kubernetes import client, config, dynamic

        config.load_kube_config(config_file=kubeconfig)
        super().__init__("conformance-" + secrets.token_hex(4))
        self._scale = float(time_scale)
        self._poll_s = min(_POLL_S, 0.5 / self._scale)
        self._api = client.ApiClient()
        self._dyn = dynamic.DynamicClient(self._api, cache_file=discovery_cache)
        self._resources: dict[str, Any] = {}
        self._core = client.CoreV1Api(self._api)
        self._t0 = time.monotonic()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=self.namespace)))
        if len(self.worker_nodes()) < shape.workers:
            import pytest

            pytest.skip(f"test needs {shape.workers} untainted workers; the cluster has {len(self.worker_nodes())}")
        for kind in self.recorder.KINDS:
            t = threading.Thread(target=self._watch, args=(kind, self._list_for_watch(kind)), daemon=True)
            t.start()
            self._threads.append(t)

    # -- plumbing ----------------------------------------------------------------------------
    def _resource(self, kind: str) -> Any:
        """The dynamic client's resource for ``kind``, looked up in discovery once per kind (a kind not
        served yet, such as a custom resource before its definition, is looked up again next time)."""
        res = self._resources.get(kind)
        if res is None:
            info = resolve_kind(kind)
            res = self._resources[kind] = self._dyn.resources.get(api_version=info.api_version, kind=info.kind)
        return res

    def _ns_for(self, kind: str, namespace: str | None) -> str | None:
        res = self._resource(kind)
        if not res.namespaced:
            return None
        return self.namespace if namespace is None else namespace

    def _list_for_watch(self, kind: str) -> str | None:
        """Record every object of ``kind`` there is now as ADDED and return the list's resourceVersion,
        for the watch to start from (an informer's list, then watch): the recording then holds every
        change after the cluster object was made, however late the watch thread gets connected."""
        listed = self._resource(kind).get().to_dict()
        for obj in listed.get("items") or []:
            self.recorder.record(self._event_time(obj), kind, "ADDED", obj)
        return str((listed.get("metadata") or {}).get("resourceVersion") or "") or None

    def _watch(self, kind: str, rv: str | None) -> None:
        """Record every change of ``kind`` after ``rv``: watch, and resume from the last resourceVersion
        seen (a fresh watch, with every object ADDED again, only after 410 Expired)."""
        res = self._resource(kind)
        while not self._stop.is_set():
            try:
                for ev in res.watch(timeout=5, resource_version=rv):
                    obj = ev["raw_object"]
                    if ev["type"] == "ERROR":
                        rv = None if obj.get("code") == 410 else rv
                        break
                    self.recorder.record(self._event_time(obj), kind, ev["type"], obj)
                    rv = obj.get("metadata", {}).get("resourceVersion") or rv
                    if self._stop.is_set():
                        return
            except Exception:
                time.sleep(self._poll_s)

    def _event_time(self, obj: Obj) -> float:
        """The cluster time a watched change is recorded at: when this client read it."""
        return self.now()

    # -- Cluster ------------------------------------------------------------------------------
    def apply(self, source: str | Obj | list[Obj]) -> builtins.list[Obj]:
        from volcano.api.manifest import load_manifests

        out = []
        for obj in load_manifests(source):
            kind = kind_for_object(obj).key
            res = self._resource(kind)
            ns = self._ns_for(kind, obj.get("metadata", {}).get("namespace"))
            existing = self.try_get(kind, obj["metadata"]["name"], ns) if obj["metadata"].get("name") else None
            if existing is None:
                out.append(res.create(body=obj, namespace=ns).to_dict())
            else:
                obj = {**obj, "metadata": {**obj["metadata"],
                                           "resourceVersion": existing["metadata"]["resourceVersion"]}}
                out.append(res.replace(body=obj, namespace=ns).to_dict())
        return out

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj:
        result: Obj = self._resource(kind).get(name=name, namespace=self._ns_for(kind, namespace)).to_dict()
        return result

    def list(self, kind: str, namespace: str | None = None, label_selector: str | None = None) -> builtins.list[Obj]:
        ns = None if namespace == "*" else self._ns_for(kind, namespace)
        items = self._resource(kind).get(namespace=ns, label_selector=label_selector).to_dict()["items"]
        return sorted(items, key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))

    def delete(self, kind: str, name: str, namespace: str | None = None,
               propagation_policy: str | None = None, *, dry_run: bool = False) -> None:
        body = {"propagationPolicy": propagation_policy} if propagation_policy else None
        self._resource(kind).delete(name=name, namespace=self._ns_for(kind, namespace), body=body,
                                    **_dry(dry_run))

    def patch(self, kind: str, name: str, patch: Obj | builtins.list[Obj], namespace: str | None = None,
              subresource: str | None = None, *, patch_type: str = "merge", field_manager: str | None = None,
              force: bool | None = None, dry_run: bool = False) -> Obj:
        res = self._resource(kind)
        if subresource:
            res = res.subresources[subresource]
        options: dict[str, Any] = _dry(dry_run)
        if field_manager is not None:
            options["field_manager"] = field_manager
        if force is not None:
            options["force_conflicts"] = force
        result: Obj = res.patch(name=name, namespace=self._ns_for(kind, namespace), body=patch,
                                content_type=_PATCH_MEDIA_TYPES[patch_type], **options).to_dict()
        return result

    def create(self, obj: Obj, *, dry_run: bool = False) -> Obj:
        kind = kind_for_object(obj).key
        ns = self._ns_for(kind, (obj.get("metadata") or {}).get("namespace"))
        result: Obj = self._resource(kind).create(body=obj, namespace=ns, **_dry(dry_run)).to_dict()
        return result

    def list_page(self, kind: str, namespace: str | None = None, *, label_selector: str | None = None,
                  field_selector: str | None = None, limit: int | None = None,
                  continue_: str | None = None) -> Obj:
        ns = None if namespace == "*" else self._ns_for(kind, namespace)
        options: dict[str, Any] = {"label_selector": label_selector, "field_selector": field_selector,
                                   "limit": limit, "_continue": continue_}
        result: Obj = self._resource(kind).get(namespace=ns, **{k: v for k, v in options.items()
                                                                if v is not None}).to_dict()
        return result

    def scale(self, kind: str, name: str, namespace: str | None = None, *, replicas: int | None = None) -> Obj:
        res = self._resource(kind).subresources["scale"]
        ns = self._ns_for(kind, namespace)
        if replicas is None:
            result: Obj = res.get(name=name, namespace=ns).to_dict()
        else:
            result = res.patch(name=name, namespace=ns, body={"spec": {"replicas": replicas}},
                               content_type=_PATCH_MEDIA_TYPES["merge"]).to_dict()
        return result

    def pod_log(self, pod: str, namespace: str | None = None, *, container: str | None = None,
                tail_lines: int | None = None, timestamps: bool = False, previous: bool = False,
                limit_bytes: int | None = None) -> str:
        options: dict[str, Any] = {"container": container, "tail_lines": tail_lines, "limit_bytes": limit_bytes}
        text: str = self._core.read_namespaced_pod_log(
            pod, self.namespace if namespace is None else namespace, timestamps=timestamps, previous=previous,
            **{k: v for k, v in options.items() if v is not None})
        return text

    def evict(self, pod: str, namespace: str | None = None) -> None:
        ns = self.namespace if namespace is None else namespace
        from kubernetes import client

        self._core.create_namespaced_pod_eviction(
            pod, ns, client.V1Eviction(metadata=client.V1ObjectMeta(name=pod, namespace=ns)),
            _preload_content=False)

    def events(self, kind: str | None = None, name: str | None = None,
               namespace: str | None = None) -> builtins.list[Obj]:
        return [e for e in self.list("Event", namespace)
                if (kind is None or e["involvedObject"].get("kind") == kind)
                and (name is None or e["involvedObject"].get("name") == name)]

    def worker_nodes(self) -> builtins.list[Obj]:
        return [n for n in self.list("Node") if not n.get("spec", {}).get("taints")
                and not n.get("spec", {}).get("unschedulable")]

    def fail_node(self, name: str) -> None:
        import pytest

        pytest.skip("failing a node needs infrastructure access; not available on the kubeconfig backend")

    def recover_node(self, name: str) -> None:
        self.fail_node(name)

    def now(self) -> float:
        return (time.monotonic() - self._t0) * self._scale

    def wait_until(self, predicate: Callable[[], bool], timeout: float = 300.0, what: str = "") -> float:
        start = self.now()
        while True:
            if predicate():
                return self.now() - start
            if self.now() - start > timeout:
                raise ConditionNotMet(f"timed out after {timeout:g}s waiting for {what or predicate!r}")
            time.sleep(self._poll_s)

    def hold(self, predicate: Callable[[], bool], seconds: float = 30.0, what: str = "") -> None:
        start = self.now()
        while self.now() - start < seconds:
            if not predicate():
                raise ConditionNotMet(f"{what or predicate!r} stopped holding after "
                                      f"{self.now() - start:.1f}s")
            time.sleep(self._poll_s)

    def sleep(self, seconds: float) -> None:
        end = self.now() + seconds
        while self.now() < end:
            time.sleep(min(self._poll_s, max(0.0, (end - self.now()) / self._scale)))

    def close(self) -> None:
        self._stop.set()
        with contextlib.suppress(Exception):
            self._core.delete_namespace(self.namespace, propagation_policy="Foreground")
