"""Invariants every conformance case must keep, whatever it did.

They are checked after each test by replaying everything the backend's
watches recorded (Pods, PodGroups, Nodes, Queues), in order. State is
evaluated at the end of each instant of cluster time; on a real cluster a
gang's binds spread over a short window, given as ``gang_window``.

1. No gang is bound below its ``minMember`` by a scheduling decision: when a
   scheduler binds a pod of a gang at time t, the gang's pods bound and alive
   at the end of instant t, together with those bound later within
   ``gang_window``, reach ``minMember`` (a pod that fails or is deleted after
   its bind, inside the window, still counted: it was placed with its gang).
2. No node's bound, non-terminated pods exceed its allocatable in any resource.
3. No pod is bound to a NotReady or unschedulable node.
4. No queue's running pods exceed its ``capability``.
5. Every PodGroup phase change is one the scheduler may make.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from volcano.api.resources import Resources, node_allocatable, pod_requests

__all__ = ["FORBIDDEN_PHASE_CHANGES", "check_invariants"]

Obj = dict[str, Any]
GROUP = "scheduling.k8s.io/group-name"
TERMINAL = ("Succeeded", "Failed")

# Reference: the scheduler's PodGroup phase rules (Inqueue is sticky; nothing returns to Inqueue).
FORBIDDEN_PHASE_CHANGES = frozenset({
    ("Inqueue", "Pending"),
    ("Running", "Inqueue"), ("Unknown", "Inqueue"), ("Completed", "Inqueue"),
})


def _key(obj: Obj) -> tuple[str, str]:
    meta = obj["metadata"]
    return meta.get("namespace", ""), meta["name"]


def _node_usable(node: Obj | None) -> bool:
    if node is None or node.get("spec", {}).get("unschedulable"):
        return False
    conds = node.get("status", {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conds)


class _State:
    def __init__(self) -> None:
        self.pods: dict[tuple[str, str], Obj] = {}
        self.nodes: dict[str, Obj] = {}
        self.groups: dict[tuple[str, str], Obj] = {}
        self.queues: dict[str, Obj] = {}

    def live_bound(self) -> list[Obj]:
        return [p for p in self.pods.values() if p.get("spec", {}).get("nodeName")
                and p.get("status", {}).get("phase") not in TERMINAL]


def check_invariants(history: list[tuple[float, str, str, Obj]], gang_window: float = 0.0) -> list[str]:
    """Replay ``history`` (time, kind, event type, object) and return every violation found."""
    state = _State()
    violations: list[str] = []
    pg_phase: dict[str, str] = {}
    # Each pending check: [bind time, group, pods counted for it (None until the end of its instant)].
    pending_gang_checks: list[list[Any]] = []
    events = sorted(enumerate(history), key=lambda e: (e[1][0], e[0]))

    def end_of_instant(now: float) -> None:
        _check_nodes(state, now, violations)
        _check_queues(state, now, violations)
        for check in pending_gang_checks:
            if check[2] is None:
                check[2] = _alive_bound(state, check[1])
        due = [c for c in pending_gang_checks if c[0] + gang_window <= now]
        for check in due:
            pending_gang_checks.remove(check)
            _check_gang(state, check[1], check[0], check[2], violations)

    for i, (_, (t, kind, etype, obj)) in enumerate(events):
        if kind == "Pod":
            key = _key(obj)
            old = state.pods.get(key)
            if etype == "DELETED":
                state.pods.pop(key, None)
            else:
                state.pods[key] = obj
                node = obj.get("spec", {}).get("nodeName")
                newly_bound = node and old is not None and not old.get("spec", {}).get("nodeName")
                if newly_bound and obj["spec"].get("schedulerName", "default-scheduler") != "default-scheduler":
                    if not _node_usable(state.nodes.get(node)):
                        violations.append(f"t={t:.3f}s pod {key[0]}/{key[1]} bound to unusable node {node}")
                    group = (obj["metadata"].get("annotations") or {}).get(GROUP)
                    for check in pending_gang_checks:
                        if check[1] == (key[0], group) and check[2] is not None:
                            check[2].add(key[1])  # bound within the window of an earlier bind
                    if group and not any(c[0] == t and c[1] == (key[0], group) for c in pending_gang_checks):
                        pending_gang_checks.append([t, (key[0], group), None])
        elif kind == "Node":
            name = obj["metadata"]["name"]
            if etype == "DELETED":
                state.nodes.pop(name, None)
            else:
                state.nodes[name] = obj
        elif kind == "PodGroup":
            key = _key(obj)
            uid = obj["metadata"].get("uid", f"{key}")
            phase = obj.get("status", {}).get("phase", "")
            before = pg_phase.get(uid, "")
            if phase != before and (before, phase) in FORBIDDEN_PHASE_CHANGES:
                violations.append(f"t={t:.3f}s podgroup {key[0]}/{key[1]} phase {before} -> {phase} is not allowed")
            pg_phase[uid] = phase
            if etype == "DELETED":
                state.groups.pop(key, None)
            else:
                state.groups[key] = obj
        elif kind == "Queue":
            if etype == "DELETED":
                state.queues.pop(obj["metadata"]["name"], None)
            else:
                state.queues[obj["metadata"]["name"]] = obj
        next_t = events[i + 1][1][0] if i + 1 < len(events) else None
        if next_t is None or next_t > t:
            end_of_instant(t)
    for t, group, counted in pending_gang_checks:
        _check_gang(state, group, t, counted if counted is not None else _alive_bound(state, group), violations)
    return violations


def _alive_bound(state: _State, group: tuple[str, str]) -> set[str]:
    """Names of the gang's pods bound now, neither Failed nor being deleted."""
    return {name for (ns, name), p in state.pods.items()
            if ns == group[0] and (p["metadata"].get("annotations") or {}).get(GROUP) == group[1]
            and p.get("spec", {}).get("nodeName") and p.get("status", {}).get("phase") != "Failed"
            and not p["metadata"].get("deletionTimestamp")}


def _check_gang(state: _State, group: tuple[str, str], t: float, counted: set[str], violations: list[str]) -> None:
    pg = state.groups.get(group)
    if pg is None:
        return
    need = int(pg.get("spec", {}).get("minMember", 0) or 0)
    if len(counted) < need:
        violations.append(f"t={t:.3f}s gang {group[0]}/{group[1]} has {len(counted)} pods bound, "
                          f"below minMember {need}")


def _check_nodes(state: _State, t: float, violations: list[str]) -> None:
    used: dict[str, Resources] = defaultdict(Resources)
    count: dict[str, int] = defaultdict(int)
    for p in state.live_bound():
        node = p["spec"]["nodeName"]
        used[node] = used[node] + pod_requests(p)
        count[node] += 1
    for node, total in sorted(used.items()):
        obj = state.nodes.get(node)
        if obj is None:
            continue
        alloc = node_allocatable(obj)
        if not total.fits_in(alloc):
            violations.append(f"t={t:.3f}s node {node} over-committed: requests {total.to_k8s()} > "
                              f"allocatable {alloc.to_k8s()}")
        max_pods = alloc.get("pods") // 1000 if alloc.get("pods") else None
        if max_pods is not None and count[node] > max_pods:
            violations.append(f"t={t:.3f}s node {node} runs {count[node]} pods > {max_pods}")


def _check_queues(state: _State, t: float, violations: list[str]) -> None:
    capped = {name: Resources.from_k8s(q["spec"]["capability"]) for name, q in state.queues.items()
              if q.get("spec", {}).get("capability")}
    if not capped:
        return
    used: dict[str, Resources] = defaultdict(Resources)
    for p in state.live_bound():
        if p["metadata"].get("deletionTimestamp"):
            continue
        group = (p["metadata"].get("annotations") or {}).get(GROUP)
        pg = state.groups.get((p["metadata"].get("namespace", ""), group or ""))
        if pg is None:
            continue
        q = pg.get("spec", {}).get("queue", "default")
        if q in capped:
            used[q] = used[q] + pod_requests(p)
    for q, total in sorted(used.items()):
        cap = capped[q]
        over = [r for r in cap.names() if total.get(r) > cap.get(r)]
        if over:
            violations.append(f"t={t:.3f}s queue {q} above capability in {over}: {total.to_k8s()} > {cap.to_k8s()}")
