"""vcctl's connection to a cluster and the Commands it creates.

``connect(master, kubeconfig)`` builds an ``ApiClient`` as client-go's default loading rules do: the
explicit ``--kubeconfig``, else ``KUBECONFIG``, else ``~/.kube/config``, else the in-cluster service
account; ``--master`` overrides the server. ``VcctlError`` carries the message vcctl prints after
``Failed to <command>:``; ``api_message`` turns an ``ApiException`` into the Status message a Go client
prints.

``create_command(api, target, action, namespace)`` creates a ``bus.volcano.sh/v1alpha1`` Command as
upstream's ``CreateJobCommand``/``createQueueCommand`` do: ``generateName: <target>-<action lowercased>-``,
a controller owner reference to the target (also the Command's ``target``) and ``action``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["COMMANDS", "JOBS", "PODGROUPS", "QUEUES", "VcctlError", "api_message", "connect", "controller_ref",
           "core_api", "create_command", "custom", "is_api_error"]

JOBS = ("batch.volcano.sh", "v1alpha1", "jobs")
QUEUES = ("scheduling.volcano.sh", "v1beta1", "queues")
PODGROUPS = ("scheduling.volcano.sh", "v1beta1", "podgroups")
COMMANDS = ("bus.volcano.sh", "v1alpha1", "commands")


class VcctlError(Exception):
    """A failure vcctl reports as ``Failed to <command>: <message>`` (exit status 255)."""


def _kubernetes() -> Any:
    try:
        import kubernetes
    except ImportError:  # pragma: no cover - a dependency of the kube extra
        raise VcctlError("the official Kubernetes client is needed: pip install 'volcano[kube]'") from None
    return kubernetes


def connect(master: str = "", kubeconfig: str = "") -> Any:
    """An ``ApiClient`` for the cluster (see the module docstring)."""
    k8s = _kubernetes()
    configuration = k8s.client.Configuration()
    path = kubeconfig or os.environ.get("KUBECONFIG", "").split(os.pathsep)[0]
    if not path and (Path.home() / ".kube" / "config").exists():
        path = str(Path.home() / ".kube" / "config")
    try:
        if path:
            k8s.config.load_kube_config(config_file=path, client_configuration=configuration)
        elif master:
            configuration.host = master
        else:
            k8s.config.load_incluster_config(client_configuration=configuration)
    except (k8s.config.ConfigException, OSError) as exc:
        raise VcctlError(f"invalid configuration: {exc}") from None
    if master:
        configuration.host = master
    return k8s.client.ApiClient(configuration)


def custom(api: Any) -> Any:
    """A ``CustomObjectsApi`` over ``api``."""
    return _kubernetes().client.CustomObjectsApi(api)


def core_api(api: Any) -> Any:
    """A ``CoreV1Api`` over ``api``."""
    return _kubernetes().client.CoreV1Api(api)


def api_message(exc: BaseException) -> str:
    """The message a Go client prints for an API error (the Status ``message``), or the error's text."""
    body = getattr(exc, "body", None)
    if body:
        try:
            status = json.loads(body)
        except (TypeError, ValueError):
            return str(body).strip()
        if isinstance(status, dict) and status.get("message"):
            return str(status["message"])
    reason = getattr(exc, "reason", None)
    return str(reason or exc)


def is_api_error(exc: BaseException) -> bool:
    """Whether ``exc`` came from the API (an ``ApiException``) or from reaching it."""
    k8s = _kubernetes()
    import urllib3

    return isinstance(exc, k8s.client.exceptions.ApiException | urllib3.exceptions.HTTPError)


def controller_ref(obj: Mapping[str, Any]) -> dict[str, Any]:
    """``metav1.NewControllerRef(obj)``: a controller owner reference that blocks owner deletion."""
    meta = obj["metadata"]
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": meta["name"], "uid": meta["uid"],
            "controller": True, "blockOwnerDeletion": True}


def create_command(api: Any, target: Mapping[str, Any], action: str, namespace: str) -> dict[str, Any]:
    """Create the Command asking for ``action`` on ``target`` in ``namespace`` (see the module docstring)."""
    ref = controller_ref(target)
    command = {"apiVersion": "bus.volcano.sh/v1alpha1", "kind": "Command",
               "metadata": {"generateName": f"{target['metadata']['name']}-{action.lower()}-",
                            "namespace": namespace, "ownerReferences": [ref]},
               "target": ref, "action": action}
    created: dict[str, Any] = custom(api).create_namespaced_custom_object(COMMANDS[0], COMMANDS[1], namespace,
                                                                           COMMANDS[2], command)
    return created
