"""Node objects as a simulated cluster registers them: one Ready node, capacity = allocatable.

``simulated_node`` builds the Node a kubelet would register for the given
resources, labels and taints (pure: the caller gives the sequence number that
picks its pod CIDR and host IP, and the timestamp of its conditions). Bad
arguments raise ``ValueError`` naming the argument and the value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from volcano.api.quantity import parse_quantity

__all__ = ["TAINT_EFFECTS", "parse_taint", "quantity_text", "simulated_node"]

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
"""The effects a taint may have."""


def parse_taint(taint: Any, index: int) -> dict[str, Any]:
    """A taint from a dict (``key``, ``value``, ``effect``) or ``key[=value]:Effect``."""
    where = f"taints[{index}]"
    if isinstance(taint, str):
        head, sep, effect = taint.rpartition(":")
        if not sep or not head:
            raise ValueError(f"{where}: invalid taint {taint!r}: expected 'key[=value]:Effect'")
        key, _, value = head.partition("=")
        out: dict[str, Any] = {"key": key, "effect": effect}
        if value:
            out["value"] = value
    elif isinstance(taint, Mapping):
        out = {k: v for k, v in taint.items()}
    else:
        raise ValueError(f"{where}: invalid taint {taint!r}: expected a mapping or 'key[=value]:Effect'")
    if not out.get("key") or not isinstance(out["key"], str):
        raise ValueError(f"{where}.key: required, got {out.get('key')!r}")
    if out.get("effect") not in TAINT_EFFECTS:
        raise ValueError(f"{where}.effect: invalid value {out.get('effect')!r}: expected one of "
                         f"{', '.join(TAINT_EFFECTS)}")
    return out


def quantity_text(value: Any, what: str) -> str:
    """``value`` as a quantity string; ValueError naming ``what`` for a malformed or negative one."""
    if isinstance(value, bool):
        raise ValueError(f"{what}: invalid quantity {value!r}")
    try:
        if parse_quantity(value) < 0:
            raise ValueError(f"{what}: must not be negative, got {value!r}")
    except ValueError as err:
        raise ValueError(f"{what}: {err}") from None
    return str(value)


def simulated_node(name: str, *, cpu: str | int | float = "4", memory: str | int = "8Gi", pods: int = 110,
                   gpu: int = 0, labels: Mapping[str, str] | None = None,
                   taints: Iterable[Mapping[str, Any] | str] | None = None,
                   ephemeral_storage: str | None = "100Gi", seq: int = 0, now: str = "") -> dict[str, Any]:
    """A Ready Node with capacity = allocatable = the given resources (``gpu`` > 0 adds
    ``nvidia.com/gpu``; ``ephemeral_storage`` None leaves it out); ``labels`` add to
    ``kubernetes.io/hostname`` and friends; ``taints`` are dicts or ``key[=value]:Effect``
    strings. ``seq`` picks the pod CIDR and host IP, ``now`` stamps the Ready condition."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"name: a node needs a non-empty name, got {name!r}")
    capacity = {"cpu": quantity_text(cpu, "cpu"), "memory": quantity_text(memory, "memory")}
    if isinstance(pods, bool) or not isinstance(pods, int) or pods < 0:
        raise ValueError(f"pods: must be an integer >= 0, got {pods!r}")
    capacity["pods"] = str(pods)
    if isinstance(gpu, bool) or not isinstance(gpu, int) or gpu < 0:
        raise ValueError(f"gpu: must be an integer >= 0, got {gpu!r}")
    if gpu:
        capacity["nvidia.com/gpu"] = str(gpu)
    if ephemeral_storage is not None:
        capacity["ephemeral-storage"] = quantity_text(ephemeral_storage, "ephemeral_storage")
    node_labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}
    for key, value in (labels or {}).items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise ValueError(f"labels: keys and values must be strings, got {key!r}: {value!r}")
        node_labels[key] = value
    spec: dict[str, Any] = {}
    if seq < 48 * 256:
        spec["podCIDR"] = f"10.{64 + seq // 256}.{seq % 256}.0/24"
        spec["podCIDRs"] = [spec["podCIDR"]]
    node_taints = [parse_taint(t, i) for i, t in enumerate(taints or ())]
    if node_taints:
        spec["taints"] = node_taints
    host_ip = f"172.{18 + (seq + 2) // 65536}.{((seq + 2) // 256) % 256}.{(seq + 2) % 256}"
    node = {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": node_labels},
        "spec": spec,
        "status": {
            "capacity": dict(capacity),
            "allocatable": dict(capacity),
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                            "message": "kubelet is posting ready status",
                            "lastHeartbeatTime": now, "lastTransitionTime": now}],
            "addresses": [{"type": "InternalIP", "address": host_ip}, {"type": "Hostname", "address": name}],
            "nodeInfo": {"kubeletVersion": "v1.32.0", "kubeProxyVersion": "v1.32.0", "operatingSystem": "linux",
                         "architecture": "amd64", "osImage": "volcano simulated node",
                         "containerRuntimeVersion": "sim://1.0", "kernelVersion": "", "machineID": "",
                         "systemUUID": "", "bootID": ""},
            "phase": "Running",
        },
    }
    return node
