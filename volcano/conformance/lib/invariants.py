"""Invariants every conformance case must keep, whatever it did.

They are checked after each test by replaying everything the backend's
watches recorded (Pods, PodGroups, Nodes, Queues), in order. State is
evaluated at the end of each instant of cluster time; on a real cluster a
gang's binds spread over a short window, given as ``gang_window``.

1. No gang is bound below its ``minMember`` by a scheduling decision: when a
   scheduler binds a pod of a gang at time t, the gang's pods bound and alive
   at the end of instant t, together with those bound later within
   ``gang_window``, reach ``minMember`` (a pod that fails or is deleted after
   its bind, inside the window, still counted: it was placed with its gang). Not checked when the
   scheduler's configuration has no gang plugin (nothing then holds a gang together).
2. No node's bound, non-terminated pods exceed its allocatable in any resource.
3. No pod is bound to a NotReady or unschedulable node.
4. No queue's running pods exceed its ``capability``.
5. Every PodGroup phase change is one the scheduler may make.
6. A pod evicted for ``preempt`` has a preemptor in its own queue: some unbound pod nominated to
   the victim's node belongs to the victim's queue (preemption never crosses queues).
7. A pod evicted for ``reclaim`` has a reclaimer in another queue that stays within its fair
   share: some unbound pod nominated to the victim's node belongs to another queue whose bound
   pods plus that pod fit an upper bound of its proportion share (no reclaim by a queue at or
   above its share). Checked only where that bound holds: the scheduler's configuration uses
   proportion (not capacity) and no queue has a guarantee.
8. No Job's ``status.retryCount`` exceeds its ``spec.maxRetry`` (3 when unset).

6 and 7 read the scheduler's ``Evict`` events on pods (``Pod is evicted, because of <reason>``)
and pods' ``status.nominatedNodeName`` (where the scheduler pipelines a preemptor); an eviction
whose node has no nominated pod yet is not judged. The share bound is what proportion's
water-filling guarantees whatever its rounds (reference §5.4.2): each other queue j gets at least
``min(total * weight_j / W, capability_j, request_j)`` per resource, so a queue R gets at most
``total`` minus those, where ``total`` is every node's allocatable and ``W`` the weights of the
queues with PodGroups (plus ``default``); a reclaiming task must fit ``allocated_R + task <=
deserved_R`` on the resources it asks for.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from volcano.api.resources import Resources, node_allocatable, pod_requests

__all__ = ["FORBIDDEN_PHASE_CHANGES", "check_invariants"]

Obj = dict[str, Any]
GROUP = "scheduling.k8s.io/group-name"
TERMINAL = ("Succeeded", "Failed")
EVICT_PREFIX = "Pod is evicted, because of "
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
DEFAULT_MAX_RETRY = 3

# Reference: the scheduler's PodGroup phase rules (Inqueue is sticky; nothing returns to Inqueue).
FORBIDDEN_PHASE_CHANGES = frozenset({
    ("Inqueue", "Pending"),
    ("Running", "Inqueue"), ("Unknown", "Inqueue"), ("Completed", "Inqueue"),
})


def _key(obj: Obj) -> tuple[str, str]:
    meta = obj["metadata"]
    return meta.get("namespace", ""), meta["name"]


def _tolerates_cordon(pod: Obj) -> bool:
    """The pod tolerates ``node.kubernetes.io/unschedulable:NoSchedule`` (Kubernetes' NodeUnschedulable
    filter then lets it onto a cordoned node)."""
    for tol in pod.get("spec", {}).get("tolerations") or []:
        key_ok = tol.get("key") == UNSCHEDULABLE_TAINT or (not tol.get("key") and tol.get("operator") == "Exists")
        value_ok = tol.get("operator") == "Exists" or not tol.get("value")
        if key_ok and value_ok and tol.get("effect") in (None, "", "NoSchedule"):
            return True
    return False


def _node_usable(node: Obj | None, pod: Obj) -> bool:
    if node is None or (node.get("spec", {}).get("unschedulable") and not _tolerates_cordon(pod)):
        return False
    conds = node.get("status", {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conds)


def _live(p: Obj) -> bool:
    return p.get("status", {}).get("phase") not in TERMINAL and not p["metadata"].get("deletionTimestamp")


@dataclass
class _Eviction:
    """A scheduler eviction waiting to be judged (after the backend's window, when the
    preemptor's nomination has been recorded too)."""

    time: float
    reason: str
    victim: Obj
    queue: str


class _State:
    def __init__(self) -> None:
        self.pods: dict[tuple[str, str], Obj] = {}
        self.nodes: dict[str, Obj] = {}
        self.groups: dict[tuple[str, str], Obj] = {}
        self.queues: dict[str, Obj] = {}

    def live_bound(self) -> list[Obj]:
        return [p for p in self.pods.values() if p.get("spec", {}).get("nodeName")
                and p.get("status", {}).get("phase") not in TERMINAL]

    def queue_of(self, pod: Obj) -> str | None:
        """The queue of the pod's PodGroup (None without one)."""
        group = (pod["metadata"].get("annotations") or {}).get(GROUP)
        pg = self.groups.get((pod["metadata"].get("namespace", ""), group or ""))
        return None if pg is None else str(pg.get("spec", {}).get("queue") or "default")


def check_invariants(history: list[tuple[float, str, str, Obj]], gang_window: float = 0.0,
                     proportion: bool = True, gang: bool = True) -> list[str]:
    """Replay ``history`` (time, kind, event type, object) and return every violation found.
    ``proportion``: the scheduler shares queues with the proportion plugin (enables check 7);
    ``gang``: the scheduler's configuration has the gang plugin (enables check 1)."""
    state = _State()
    violations: list[str] = []
    pg_phase: dict[str, str] = {}
    # Each pending check: [bind time, group, pods counted for it (None until the end of its instant)].
    pending_gang_checks: list[list[Any]] = []
    evictions: list[_Eviction] = []
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
        for ev in [e for e in evictions if e.time + gang_window <= now]:
            evictions.remove(ev)
            _check_eviction(state, ev, proportion, violations)

    for i, (_, (t, kind, etype, obj)) in enumerate(events):
        if kind == "Pod":
            _on_pod(state, t, etype, obj, pending_gang_checks if gang else [], violations)
        elif kind == "Node":
            name = obj["metadata"]["name"]
            if etype == "DELETED":
                state.nodes.pop(name, None)
            else:
                state.nodes[name] = obj
        elif kind == "PodGroup":
            _on_podgroup(state, t, etype, obj, pg_phase, violations)
        elif kind == "Queue":
            if etype == "DELETED":
                state.queues.pop(obj["metadata"]["name"], None)
            else:
                state.queues[obj["metadata"]["name"]] = obj
        elif kind == "Event" and etype == "ADDED":
            ev = _eviction_of(state, t, obj)
            if ev is not None:
                evictions.append(ev)
        elif kind == "Job" and etype != "DELETED":
            _check_retries(t, obj, violations)
        next_t = events[i + 1][1][0] if i + 1 < len(events) else None
        if next_t is None or next_t > t:
            end_of_instant(t)
    for t, group, counted in pending_gang_checks:
        _check_gang(state, group, t, counted if counted is not None else _alive_bound(state, group), violations)
    for ev in evictions:
        _check_eviction(state, ev, proportion, violations)
    return violations


def _on_pod(state: _State, t: float, etype: str, obj: Obj, pending_gang_checks: list[list[Any]],
            violations: list[str]) -> None:
    key = _key(obj)
    old = state.pods.get(key)
    if etype == "DELETED":
        state.pods.pop(key, None)
        return
    state.pods[key] = obj
    node = obj.get("spec", {}).get("nodeName")
    newly_bound = node and old is not None and not old.get("spec", {}).get("nodeName")
    if newly_bound and obj["spec"].get("schedulerName", "default-scheduler") != "default-scheduler":
        if not _node_usable(state.nodes.get(node), obj):
            violations.append(f"t={t:.3f}s pod {key[0]}/{key[1]} bound to unusable node {node}")
        group = (obj["metadata"].get("annotations") or {}).get(GROUP)
        for check in pending_gang_checks:
            if check[1] == (key[0], group) and check[2] is not None:
                check[2].add(key[1])  # bound within the window of an earlier bind
        if group and not any(c[0] == t and c[1] == (key[0], group) for c in pending_gang_checks):
            pending_gang_checks.append([t, (key[0], group), None])


def _on_podgroup(state: _State, t: float, etype: str, obj: Obj, pg_phase: dict[str, str],
                 violations: list[str]) -> None:
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


def _check_retries(t: float, job: Obj, violations: list[str]) -> None:
    retries = int((job.get("status") or {}).get("retryCount") or 0)
    limit = int((job.get("spec") or {}).get("maxRetry") or 0) or DEFAULT_MAX_RETRY
    if retries > limit:
        ns, name = _key(job)
        violations.append(f"t={t:.3f}s job {ns}/{name} retryCount {retries} > maxRetry {limit}")


def _eviction_of(state: _State, t: float, event: Obj) -> _Eviction | None:
    """A preempt/reclaim eviction announced by the scheduler's Warning ``Evict`` event on a pod."""
    involved = event.get("involvedObject") or {}
    message = str(event.get("message") or "")
    if event.get("reason") != "Evict" or involved.get("kind") != "Pod" or not message.startswith(EVICT_PREFIX):
        return None
    reason = message[len(EVICT_PREFIX):]
    victim = state.pods.get((involved.get("namespace") or event["metadata"].get("namespace", ""),
                             involved.get("name", "")))
    if reason not in ("preempt", "reclaim") or victim is None or not victim.get("spec", {}).get("nodeName"):
        return None
    queue = state.queue_of(victim)
    return None if queue is None else _Eviction(t, reason, victim, queue)


def _check_eviction(state: _State, ev: _Eviction, proportion: bool, violations: list[str]) -> None:
    node = ev.victim["spec"]["nodeName"]
    victim_key = _key(ev.victim)
    nominated = [p for k, p in sorted(state.pods.items()) if k != victim_key and _live(p)
                 and not p.get("spec", {}).get("nodeName") and p.get("status", {}).get("nominatedNodeName") == node]
    queues = {p_key: state.queue_of(p) for p_key, p in ((_key(p), p) for p in nominated)}
    if not nominated:
        return  # nothing to attribute the eviction to (yet)
    where = f"t={ev.time:.3f}s pod {victim_key[0]}/{victim_key[1]} of queue {ev.queue} evicted for {ev.reason}"
    if ev.reason == "preempt":
        if ev.queue not in queues.values():
            violations.append(f"{where}, but the pods nominated to {node} are of queues "
                              f"{sorted(q or '?' for q in set(queues.values()))}")
        return
    others = [p for p in nominated if queues[_key(p)] not in (None, ev.queue)]
    if not others:
        violations.append(f"{where}, but every pod nominated to {node} is of the same queue")
        return
    if not proportion or any((q.get("spec") or {}).get("guarantee") for q in state.queues.values()):
        return
    bounds = _share_bounds(state)
    allocated = _queue_usage(state, bound_only=True)
    if not any(_within_share(allocated.get(str(queues[_key(p)]), Resources()), pod_requests(p),
                             bounds.get(str(queues[_key(p)]), {})) for p in others):
        violations.append(f"{where}, but every other queue nominated to {node} "
                          f"({sorted({str(queues[_key(p)]) for p in others})}) is at or above its share")


def _queue_usage(state: _State, *, bound_only: bool) -> dict[str, Resources]:
    """Requests of live pods per queue: the bound ones, or (``bound_only`` False) bound and unbound
    ones without scheduling gates, as proportion counts a queue's allocation and request."""
    out: dict[str, Resources] = defaultdict(Resources)
    for p in state.pods.values():
        if not _live(p) or (bound_only and not p.get("spec", {}).get("nodeName")):
            continue
        if p.get("spec", {}).get("schedulingGates"):
            continue
        q = state.queue_of(p)
        if q is not None:
            out[q] = out[q] + pod_requests(p)
    return out


def _share_bounds(state: _State) -> dict[str, dict[str, Fraction]]:
    """Per queue with PodGroups, an upper bound of its proportion deserved share per resource."""
    total = Resources()
    for node in state.nodes.values():
        total = total + node_allocatable(node)
    names = sorted({str(pg.get("spec", {}).get("queue") or "default") for pg in state.groups.values()} | {"default"})
    weight = {q: int((state.queues.get(q, {}).get("spec") or {}).get("weight") or 1) for q in names}
    weights = sum(weight.values())
    requested = _queue_usage(state, bound_only=False)
    floor: dict[str, dict[str, Fraction]] = {}
    for q in names:
        cap = Resources.from_k8s((state.queues.get(q, {}).get("spec") or {}).get("capability"))
        floor[q] = {}
        for r in total.names():
            low = min(Fraction(total.get(r) * weight[q], weights), Fraction(requested.get(q, Resources()).get(r)))
            floor[q][r] = min(low, Fraction(cap.get(r))) if r in cap else low
    out: dict[str, dict[str, Fraction]] = {}
    for q in names:
        cap = Resources.from_k8s((state.queues.get(q, {}).get("spec") or {}).get("capability"))
        out[q] = {}
        for r in total.names():
            top = Fraction(total.get(r)) - sum((floor[o][r] for o in names if o != q), Fraction(0))
            out[q][r] = min(top, Fraction(cap.get(r))) if r in cap else top
    return out


def _within_share(allocated: Resources, request: Resources, bound: dict[str, Fraction]) -> bool:
    """``allocated + request <= bound`` on every resource the request asks for (``pods`` aside)."""
    return all(allocated.get(r) + request.get(r) <= bound.get(r, Fraction(0)) + 1
               for r in request.names() if r != "pods" and request.get(r) > 0)


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
