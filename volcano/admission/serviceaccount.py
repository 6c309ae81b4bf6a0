"""Kubernetes' ServiceAccount admission plugin, the part a pod's spec shows
(``plugin/pkg/admission/serviceaccount``).

On pod create a pod that names no service account runs as ``default``:
``spec.serviceAccountName`` is set, from the deprecated ``spec.serviceAccount`` when only that
is given (as the v1 conversion reads it), and ``spec.serviceAccount`` mirrors the name (as the v1
conversion writes it). Mirror pods (annotation ``kubernetes.io/config.mirror``) are left alone, as
the plugin leaves them. Updates and subresources are not touched.

Not done (see the deliberate differences in docs/architecture.md): no ServiceAccount objects are
served, so a pod naming one that does not exist is not refused, and no projected token volume
(``kube-api-access-<suffix>``) or its mounts are added.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DEFAULT_SERVICE_ACCOUNT", "MIRROR_POD_ANNOTATION", "admit_service_account"]

DEFAULT_SERVICE_ACCOUNT = "default"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"


def admit_service_account(pod: dict[str, Any]) -> None:
    """Give a pod being created its service account, in place (see the module docstring)."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return
    annotations = (pod.get("metadata") or {}).get("annotations")
    if isinstance(annotations, dict) and MIRROR_POD_ANNOTATION in annotations:
        return
    name = spec.get("serviceAccountName") or spec.get("serviceAccount") or DEFAULT_SERVICE_ACCOUNT
    spec["serviceAccountName"] = name
    spec["serviceAccount"] = name
