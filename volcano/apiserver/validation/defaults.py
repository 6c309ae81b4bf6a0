"""Kubernetes' built-in defaulting (``pkg/apis/*/v1/defaults.go``) of the fields the testbed reads.

A real API server applies these when it decodes the request, before any
admission plugin runs. Pods: ``schedulerName`` ``default-scheduler``, ``restartPolicy``
``Always``, ``dnsPolicy`` ``ClusterFirst``, ``terminationGracePeriodSeconds``
30, ``enableServiceLinks`` true, per container ``imagePullPolicy``
(``Always`` for ``:latest`` or untagged images, else ``IfNotPresent``),
``terminationMessagePath`` / ``terminationMessagePolicy``, ``protocol``
``TCP`` on container ports, and resource requests copied from limits where a
container sets a limit but no request; the same for the pod template of a
workload (ReplicaSet, Deployment, StatefulSet, ReplicationController,
batch/v1 Job). PriorityClasses: ``preemptionPolicy``
``PreemptLowerPriority``. Secrets: ``type`` ``Opaque``, and ``stringData`` merged
into ``data`` (each value base64 of its UTF-8 bytes, a ``stringData`` key winning
over the same ``data`` key) and dropped, as the v1-to-internal conversion does: the
stored Secret never holds ``stringData``.
"""

from __future__ import annotations

import base64
from typing import Any

__all__ = ["DEFAULT_PREEMPTION_POLICY", "default_pod", "default_pod_template", "default_priority_class",
           "default_secret"]

DEFAULT_PREEMPTION_POLICY = "PreemptLowerPriority"
"""A PriorityClass's ``preemptionPolicy`` when none is given."""


def _pull_policy(image: str) -> str:
    if "@" in image:
        return "IfNotPresent"
    last = image.rsplit("/", 1)[-1]
    tag = last.rsplit(":", 1)[1] if ":" in last else ""
    return "Always" if tag in ("", "latest") else "IfNotPresent"


def _default_container(container: Any) -> None:
    if not isinstance(container, dict):
        return
    image = container.get("image")
    if isinstance(image, str) and image and not container.get("imagePullPolicy"):
        container["imagePullPolicy"] = _pull_policy(image)
    container.setdefault("terminationMessagePath", "/dev/termination-log")
    container.setdefault("terminationMessagePolicy", "File")
    ports = container.get("ports")
    for port in ports if isinstance(ports, list) else ():
        if isinstance(port, dict) and not port.get("protocol"):
            port["protocol"] = "TCP"
    resources = container.get("resources")
    if isinstance(resources, dict) and isinstance(resources.get("limits"), dict) and resources["limits"]:
        requests = resources.get("requests")
        if requests is None:
            requests = resources["requests"] = {}
        if isinstance(requests, dict):
            for name, quantity in resources["limits"].items():
                requests.setdefault(name, quantity)


def default_pod(pod: dict[str, Any]) -> None:
    """Apply Kubernetes' Pod defaults to ``pod`` in place (only fields that are absent or empty)."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return
    for key, value in (("schedulerName", "default-scheduler"), ("restartPolicy", "Always"),
                       ("dnsPolicy", "ClusterFirst")):
        if not spec.get(key):
            spec[key] = value
    if spec.get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = 30
    if spec.get("enableServiceLinks") is None:
        spec["enableServiceLinks"] = True
    for group in ("initContainers", "containers"):
        for container in spec.get(group) or []:
            _default_container(container)


def default_priority_class(pc: dict[str, Any]) -> None:
    """Apply Kubernetes' PriorityClass defaults to ``pc`` in place (``SetDefaults_PriorityClass``: a nil
    ``preemptionPolicy`` only; an empty one stays for validation to refuse). ``value`` is a plain ``int32``
    without ``omitempty``: absent or null it decodes as 0 and is written back as 0."""
    if pc.get("value") is None:
        pc["value"] = 0
    if pc.get("preemptionPolicy") is None:
        pc["preemptionPolicy"] = DEFAULT_PREEMPTION_POLICY


def default_pod_template(obj: dict[str, Any]) -> None:
    """Apply the Pod defaults to ``spec.template`` of a workload (ReplicaSet, Deployment, batch Job, ...),
    as Kubernetes defaults every embedded PodTemplateSpec."""
    spec = obj.get("spec")
    template = spec.get("template") if isinstance(spec, dict) else None
    if isinstance(template, dict):
        default_pod(template)


def default_secret(secret: dict[str, Any]) -> None:
    """Apply Kubernetes' Secret defaults and ``stringData`` conversion to ``secret`` in place (see the
    module docstring). Called after decoding, so every ``stringData`` value is a string or null."""
    string_data = secret.pop("stringData", None)
    if isinstance(string_data, dict) and string_data:
        data = secret.get("data")
        merged = dict(data) if isinstance(data, dict) else {}
        for key, value in string_data.items():
            merged[key] = base64.b64encode((value or "").encode()).decode()
        secret["data"] = merged
    if not secret.get("type"):
        secret["type"] = "Opaque"
