"""What the Pod create strategy writes into a new Pod's status after admission.

Kubernetes' pod strategy (``PrepareForCreate``) resets the status to ``phase: Pending`` with the
pod's QoS class, then, when the pod has scheduling gates, adds the ``PodScheduled`` condition
``False``/``SchedulingGated`` (kubectl's STATUS column reads it as ``SchedulingGated``). It runs
after the mutating admission webhooks, on the defaulted object, so the class sees the requests
that defaulting copied from limits.

``qos_class`` follows the kubelet's ``GetPodQOS`` (pod-level resources, an alpha feature that
is off by default, are not read): only ``cpu`` and ``memory`` count, and only positive amounts;
no request and no limit in any container or init container is ``BestEffort``; a cpu and memory
limit in every container, equal to the summed request where there is one, and as many limited as
requested resources, is ``Guaranteed``; anything else is ``Burstable``.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from volcano.api.quantity import parse_quantity

SCHEDULING_GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"
"""The message of the condition a gated pod is created with."""

_QOS_RESOURCES = ("cpu", "memory")


def _positive(amounts: Any) -> dict[str, Fraction]:
    """The positive ``cpu`` and ``memory`` amounts of a requests or limits map (others ignored)."""
    found: dict[str, Fraction] = {}
    if isinstance(amounts, Mapping):
        for name in _QOS_RESOURCES:
            value = amounts.get(name)
            if value is not None:
                amount = parse_quantity(value)
                if amount > 0:
                    found[name] = amount
    return found


def qos_class(spec: Mapping[str, Any]) -> str:
    """The QoS class (``BestEffort``, ``Burstable`` or ``Guaranteed``) of a pod with ``spec`` (its
    quantities already validated)."""
    requests: dict[str, Fraction] = {}
    limits: dict[str, Fraction] = {}
    guaranteed = True
    for field in ("containers", "initContainers"):
        for container in spec.get(field) or ():
            resources = (container.get("resources") or {}) if isinstance(container, Mapping) else {}
            for name, amount in _positive(resources.get("requests")).items():
                requests[name] = requests.get(name, Fraction(0)) + amount
            limited = _positive(resources.get("limits"))
            for name, amount in limited.items():
                limits[name] = limits.get(name, Fraction(0)) + amount
            if len(limited) < len(_QOS_RESOURCES):
                guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and all(limits.get(name) == amount for name, amount in requests.items()) \
            and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"


def prepare_pod_status(pod: dict[str, Any], now: str) -> None:
    """Write a new pod's ``status.qosClass`` and, when its spec has scheduling gates and its status
    no ``PodScheduled`` condition, the ``SchedulingGated`` condition at ``now`` (RFC 3339)."""
    status = pod.get("status")
    if not isinstance(status, dict):
        status = pod["status"] = {"phase": "Pending"}
    spec = pod.get("spec")
    if not isinstance(spec, Mapping):
        return
    status["qosClass"] = qos_class(spec)
    if not spec.get("schedulingGates"):
        return
    conditions = status.get("conditions")
    if isinstance(conditions, list) and any(isinstance(c, Mapping) and c.get("type") == "PodScheduled"
                                             for c in conditions):
        return
    status["conditions"] = [*(conditions if isinstance(conditions, list) else ()), {
        "type": "PodScheduled", "status": "False", "lastProbeTime": None, "lastTransitionTime": now,
        "reason": "SchedulingGated", "message": SCHEDULING_GATED_MESSAGE}]
