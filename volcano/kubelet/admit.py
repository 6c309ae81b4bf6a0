"""Pure admission rules of the simulated kubelet: does a pod fit its node, and when
does the node lifecycle evict a pod from an unreachable node."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.api.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Resources
from volcano.kubelet.state import NodeState
from volcano.kubelet.status import TAINT_UNREACHABLE

__all__ = ["eviction_delay_ms", "fit_failure"]

_FIT_ORDER = (CPU, MEMORY, EPHEMERAL_STORAGE)


def _insufficient(name: str, requested: int, used: int, capacity: int) -> tuple[str, str]:
    return (f"OutOf{name}", f"Node didn't have enough resource: {name}, requested: {requested}, "
                            f"used: {used}, capacity: {capacity}")


def fit_failure(node: NodeState, requests: Resources) -> tuple[str, str] | None:
    """``(reason, message)`` when a pod requesting ``requests`` does not fit ``node``
    next to the pods already admitted there, else None.

    Checks, as Kubernetes' fit does: pod count, then cpu, memory,
    ephemeral-storage, then the other requested resources by name. Numbers in the
    message are milli-cores for cpu and whole units otherwise. A node with no
    allocatable at all (unknown capacity) admits everything.
    """
    alloc = node.allocatable
    if not alloc:
        return None
    pods_cap = alloc.get(PODS) // 1000
    if len(node.pods) + 1 > pods_cap:
        return _insufficient(PODS, 1, len(node.pods), pods_cap)
    others = sorted(name for name in requests if name not in _FIT_ORDER and name != PODS)
    for name in (*_FIT_ORDER, *others):
        want = requests.get(name)
        if want <= 0:
            continue
        used, cap = node.used.get(name), alloc.get(name)
        if want > cap - used:
            if name == CPU:
                return _insufficient(name, want, used, cap)
            return _insufficient(name, -(-want // 1000), -(-used // 1000), -(-cap // 1000))
    return None


def eviction_delay_ms(pod: Mapping[str, Any], default_ms: int) -> int | None:
    """How long ``pod`` stays on an unreachable node before eviction: its matching
    ``NoExecute`` toleration's ``tolerationSeconds``, None (never) when it tolerates
    the taint without a limit, else ``default_ms``."""
    for tol in (pod.get("spec") or {}).get("tolerations") or ():
        if tol.get("effect") not in (None, "", "NoExecute"):
            continue
        key, op = tol.get("key"), tol.get("operator", "Equal")
        if (op == "Exists" and key in (None, "", TAINT_UNREACHABLE)) or key == TAINT_UNREACHABLE:
            seconds = tol.get("tolerationSeconds")
            if seconds is None:
                return None
            return max(0, int(seconds)) * 1000
    return default_ms
