"""Volcano's admission services as the webhook manager serves them: one per path.

Each ``AdmissionService`` names the HTTPS path, the webhook (``mutatejob.volcano.sh``), whether it
mutates, and the rule it registers (API group, version, resource, operations), as upstream's
``router.AdmissionService`` values do. ``webhook_configurations`` turns the enabled services into the
``MutatingWebhookConfiguration`` / ``ValidatingWebhookConfiguration`` objects the manager registers:
one object per path, named ``<service-name>-<path with dashes>`` (``volcano-admission-service-jobs-mutate``),
each webhook with the given client configuration and CA bundle, ``failurePolicy: Fail``,
``sideEffects: None``, ``admissionReviewVersions: [v1]``, and a namespace selector leaving out the
excluded namespaces (the webhook's own and ``kube-system``).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_ENABLED", "SERVICES", "AdmissionService", "client_config", "config_name", "parse_enabled",
           "webhook_configurations"]


@dataclass(frozen=True, slots=True)
class AdmissionService:
    """One webhook path: what it is called, what it admits, and whether it mutates."""

    path: str
    webhook: str
    mutating: bool
    group: str
    version: str
    resource: str
    operations: tuple[str, ...]

    def rule(self) -> dict[str, Any]:
        """The ``RuleWithOperations`` this service registers."""
        return {"operations": list(self.operations), "apiGroups": [self.group], "apiVersions": [self.version],
                "resources": [self.resource]}


_BATCH = ("batch.volcano.sh", "v1alpha1")
_SCHED = ("scheduling.volcano.sh", "v1beta1")
_CORE = ("", "v1")

SERVICES: tuple[AdmissionService, ...] = (
    AdmissionService("/jobs/mutate", "mutatejob.volcano.sh", True, *_BATCH, "jobs", ("CREATE",)),
    AdmissionService("/jobs/validate", "validatejob.volcano.sh", False, *_BATCH, "jobs", ("CREATE", "UPDATE")),
    AdmissionService("/podgroups/mutate", "mutatepodgroup.volcano.sh", True, *_SCHED, "podgroups", ("CREATE",)),
    AdmissionService("/podgroups/validate", "validatepodgroup.volcano.sh", False, *_SCHED, "podgroups",
                     ("CREATE",)),
    AdmissionService("/pods/mutate", "mutatepod.volcano.sh", True, *_CORE, "pods", ("CREATE",)),
    AdmissionService("/pods/validate", "validatepod.volcano.sh", False, *_CORE, "pods", ("CREATE",)),
    AdmissionService("/queues/mutate", "mutatequeue.volcano.sh", True, *_SCHED, "queues", ("CREATE",)),
    AdmissionService("/queues/validate", "validatequeue.volcano.sh", False, *_SCHED, "queues",
                     ("CREATE", "UPDATE", "DELETE")),
)
"""Every path this package serves, in upstream's order."""

DEFAULT_ENABLED = "/jobs/mutate,/jobs/validate,/podgroups/mutate,/pods/validate,/pods/mutate,/queues/mutate," \
                  "/queues/validate"
"""``--enabled-admission``'s default, as upstream's webhook manager has it."""

_BY_PATH = {s.path: s for s in SERVICES}


def parse_enabled(value: str) -> tuple[AdmissionService, ...]:
    """The services a comma-separated ``--enabled-admission`` value names, in ``SERVICES`` order.

    Raises ``ValueError`` naming the unknown paths."""
    paths = [p.strip() for p in value.split(",") if p.strip()]
    unknown = sorted(p for p in paths if p not in _BY_PATH)
    if unknown:
        raise ValueError(f"--enabled-admission: unknown admission paths {unknown}; known: {sorted(_BY_PATH)}")
    return tuple(s for s in SERVICES if s.path in paths)


def config_name(service_name: str, path: str) -> str:
    """The configuration object's name: ``<service_name or "webhook">-<path>``, slashes as dashes, runs of
    dashes collapsed (upstream's ``webhookConfigName``)."""
    raw = f"{service_name or 'webhook'}-{path.replace('/', '-')}"
    return re.sub(r"-+", "-", raw)


def client_config(path: str, ca_bundle: bytes, *, url: str | None = None, service_name: str | None = None,
                  service_namespace: str | None = None, service_port: int | None = None) -> dict[str, Any]:
    """A ``WebhookClientConfig``: ``url + path`` when ``url`` is given, else a service reference (both when
    both are given, as upstream builds it; the API server then prefers neither and refuses, so callers pass
    one)."""
    config: dict[str, Any] = {"caBundle": base64.b64encode(ca_bundle).decode("ascii")}
    if url:
        config["url"] = url.rstrip("/") + path
    if service_name and service_namespace:
        ref: dict[str, Any] = {"name": service_name, "namespace": service_namespace, "path": path}
        if service_port is not None:
            ref["port"] = service_port
        config["service"] = ref
    if "url" not in config and "service" not in config:
        raise ValueError("a webhook needs --webhook-url or both --webhook-service-name and --webhook-namespace")
    return config


def webhook_configurations(services: Iterable[AdmissionService], clients: Mapping[str, dict[str, Any]], *,
                           service_name: str, excluded_namespaces: Iterable[str],
                           timeout_seconds: int = 10) -> list[dict[str, Any]]:
    """One configuration object per service (mutating or validating), ``clients[path]`` its client config."""
    excluded = sorted(set(excluded_namespaces))
    out: list[dict[str, Any]] = []
    for svc in services:
        hook: dict[str, Any] = {
            "name": svc.webhook, "admissionReviewVersions": ["v1"], "clientConfig": clients[svc.path],
            "rules": [svc.rule()], "failurePolicy": "Fail", "sideEffects": "None", "matchPolicy": "Equivalent",
            "timeoutSeconds": timeout_seconds, "objectSelector": {},
            "namespaceSelector": {"matchExpressions": [
                {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": excluded}]} if excluded else {},
        }
        if svc.mutating:
            hook["reinvocationPolicy"] = "Never"
        kind = "MutatingWebhookConfiguration" if svc.mutating else "ValidatingWebhookConfiguration"
        out.append({"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
                    "metadata": {"name": config_name(service_name, svc.path)}, "webhooks": [hook]})
    return out
