"""The webhook manager's view of a real cluster, over the official ``kubernetes`` client.

``KubeView`` is the ``ClusterView`` Volcano's admission rules read (queues, namespaces, priority
classes), answered by GET and LIST requests; ``register_configurations`` creates or replaces the
webhook configuration objects, as upstream's manager does at start; ``api_client`` loads the client
configuration (``--kubeconfig``, ``KUBECONFIG``, in-cluster, in that order of preference).

The ``kubernetes`` package is imported when these are used, so the rest of the package works
without it; a missing package is a ``RuntimeError`` saying how to install it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["KubeView", "api_client", "register_configurations"]

_QUEUES = ("scheduling.volcano.sh", "v1beta1", "queues")


def _kubernetes() -> Any:
    try:
        import kubernetes
    except ImportError:  # pragma: no cover - the kube extra is installed in development
        raise RuntimeError("the official Kubernetes client is needed: pip install 'volcano[kube]'") from None
    return kubernetes


def api_client(kubeconfig: str | None = None, master: str | None = None) -> Any:
    """A ``kubernetes.client.ApiClient`` from ``kubeconfig`` (else ``KUBECONFIG``, else the in-cluster
    service account); ``master`` overrides the server address."""
    k8s = _kubernetes()
    path = kubeconfig or os.environ.get("KUBECONFIG")
    configuration = k8s.client.Configuration()
    if path:
        k8s.config.load_kube_config(config_file=path, client_configuration=configuration)
    else:
        try:
            k8s.config.load_incluster_config(client_configuration=configuration)
        except k8s.config.ConfigException as exc:
            raise RuntimeError(f"no --kubeconfig, no KUBECONFIG, and not in a cluster: {exc}") from None
    if master:
        configuration.host = master
    return k8s.client.ApiClient(configuration)


def _not_found(exc: BaseException) -> bool:
    return getattr(exc, "status", None) == 404


class KubeView:
    """A ``ClusterView`` answered by the API server behind ``client`` (an ``ApiClient``)."""

    def __init__(self, client: Any) -> None:
        k8s = _kubernetes()
        self._client = client
        self._custom = k8s.client.CustomObjectsApi(client)
        self._core = k8s.client.CoreV1Api(client)
        self._scheduling = k8s.client.SchedulingV1Api(client)
        self._api_exception = k8s.client.exceptions.ApiException

    def queue(self, name: str) -> Mapping[str, Any] | None:
        """The queue ``name``, or None."""
        if not name:
            return None
        try:
            found: Mapping[str, Any] = self._custom.get_cluster_custom_object(*_QUEUES, name)
        except self._api_exception as exc:
            if _not_found(exc):
                return None
            raise
        return found

    def queues(self) -> list[Mapping[str, Any]]:
        """Every queue, sorted by name."""
        items = self._custom.list_cluster_custom_object(*_QUEUES).get("items") or []
        return sorted(items, key=lambda q: str((q.get("metadata") or {}).get("name") or ""))

    def namespace(self, name: str) -> Mapping[str, Any] | None:
        """The namespace ``name``, or None."""
        if not name:
            return None
        try:
            model = self._core.read_namespace(name)
        except self._api_exception as exc:
            if _not_found(exc):
                return None
            raise
        found: Mapping[str, Any] = self._client.sanitize_for_serialization(model)
        return found

    def priority_classes(self) -> list[Mapping[str, Any]]:
        """Every PriorityClass, sorted by name."""
        listed = self._client.sanitize_for_serialization(self._scheduling.list_priority_class())
        items: list[Mapping[str, Any]] = listed.get("items") or []
        return sorted(items, key=lambda p: str((p.get("metadata") or {}).get("name") or ""))


def register_configurations(client: Any, configurations: Iterable[dict[str, Any]]) -> list[str]:
    """Create each configuration, or replace the webhooks of the one already there; return
    ``"<kind>/<name> created|configured"`` lines in order."""
    k8s = _kubernetes()
    api = k8s.client.AdmissionregistrationV1Api(client)
    done: list[str] = []
    for config in configurations:
        mutating = config["kind"] == "MutatingWebhookConfiguration"
        name = config["metadata"]["name"]
        read = api.read_mutating_webhook_configuration if mutating else api.read_validating_webhook_configuration
        try:
            existing = client.sanitize_for_serialization(read(name))
        except k8s.client.exceptions.ApiException as exc:
            if not _not_found(exc):
                raise
            existing = None
        if existing is None:
            (api.create_mutating_webhook_configuration if mutating
             else api.create_validating_webhook_configuration)(config)
            verb = "created"
        else:
            existing["webhooks"] = config["webhooks"]
            (api.replace_mutating_webhook_configuration if mutating
             else api.replace_validating_webhook_configuration)(name, existing)
            verb = "configured"
        done.append(f"{config['kind'].lower()}.admissionregistration.k8s.io/{name} {verb}")
    return done
