"""A kube-scheduler-like baseline for pods of ``default-scheduler`` (or no schedulerName).

Every period, pending unbound pods are placed one at a time in priority, then
arrival order (when the scheduler first saw the pod, as kube-scheduler's active
queue orders by the time a pod was queued; ``creationTimestamp`` has only
second precision and cannot order pods created in the same second): filter nodes on unschedulable, taints
(NoSchedule/NoExecute), nodeSelector and required node affinity, and resource
fit (requests, including the pod slot, against allocatable minus every bound,
non-terminated pod); score least-allocated (mean over cpu and memory of free
fraction after placement); ties go to the first node by name. PodGroups are
ignored, which is exactly what lets gangs deadlock. An unplaceable pod gets
``PodScheduled=False`` reason ``Unschedulable`` (``0/<n> nodes are available``).

Pod events keep the set of pods a cycle would place or report (unbound pods of
this scheduler, unreadable pods); while it is empty a cycle returns at once
instead of scanning every pod (``reuse``; a property test compares both ways).

A cycle that binds and writes nothing is a no-op; while no Pod or Node event
arrives after one, the next cycle is the same no-op, and the scheduler lets the
clock skip it (``idle``/``skip``, as ``volcano.scheduler.scheduler`` does);
``cycles`` counts run and skipped cycles alike.
"""

from __future__ import annotations

from typing import Any

from volcano.api import accessors
from volcano.api.frozen import FrozenDict, thaw
from volcano.api.resources import PODS, Resources, node_allocatable, pod_requests
from volcano.apiserver.client import Client
from volcano.apiserver.errors import ApiError
from volcano.informers import InformerFactory
from volcano.informers.poison import DATA_ERRORS
from volcano.scheduler.framework.model import NodeSpec
from volcano.scheduler.framework.status import updated_conditions
from volcano.scheduler.plugins.predicates import UNSCHEDULABLE_TAINT, node_affinity_matches, tolerates
from volcano.sim.clock import Clock, Priority, TimerHandle
from volcano.sim.trace import Trace

__all__ = ["DefaultScheduler"]

Obj = dict[str, Any]
_ONE_POD = Resources({PODS: 1000})


def _requests(pod: Obj) -> Resources:
    base = pod_requests(pod)
    hit = _PLUS_ONE_POD.get(id(base))
    if hit is not None and hit[0] is base:
        return hit[1]
    out = base + _ONE_POD
    if len(_PLUS_ONE_POD) >= 1024:
        _PLUS_ONE_POD.clear()
    _PLUS_ONE_POD[id(base)] = (base, out)
    return out


_PLUS_ONE_POD: dict[int, tuple[Resources, Resources]] = {}
"""``_requests`` by the identity of the pod's ``pod_requests`` (which pods of one workload share:
it is remembered by their containers), so that the per-pod memo of a cluster of like pods holds
one ``Resources`` rather than one each. Resources are immutable values; bounded."""


_CONDITIONS = frozenset({"conditions"})


def _same_for_scan(pod: Obj, old: Obj) -> bool:
    """Whether ``_needs_scan`` gives ``pod`` what it gave ``old``, and ``_requests`` the same
    answer: the same frozen ``spec`` (``pod_requests`` reads only it), the same deletionTimestamp
    and the same ``status.phase`` (set, so no ``status.state`` fallback)."""
    spec = pod.get("spec")
    if spec is not old.get("spec") or type(spec) is not FrozenDict:
        return False
    status, old_status = pod.get("status"), old.get("status")
    if status is not old_status:
        if type(status) is not FrozenDict or type(old_status) is not FrozenDict:
            return False
        phase = status.get("phase")
        if phase is None or phase != old_status.get("phase"):
            return False
    return bool(pod["metadata"].get("deletionTimestamp") == old["metadata"].get("deletionTimestamp"))


class _RequestMemo:
    """``_requests`` per pod version: the informer's objects are immutable, so a pod seen again with
    the very same frozen ``spec`` (which a status write shares) has the same requests. A pod whose
    requests cannot be read is not remembered (it raises again on every call, as without the memo)."""

    def __init__(self) -> None:
        self._memo: dict[str, tuple[Any, Resources]] = {}
        self.enabled = True

    def __call__(self, pod: Obj) -> Resources:
        if not self.enabled:
            return _requests(pod)
        uid = pod["metadata"].get("uid", "")
        spec = pod.get("spec")
        hit = self._memo.get(uid)
        if hit is not None and hit[0] is spec and type(spec) is FrozenDict:
            return hit[1]
        out = _requests(pod)
        self._memo[uid] = (spec, out)
        return out

    def forget(self, uid: str) -> None:
        """Drop a deleted pod."""
        self._memo.pop(uid, None)


class DefaultScheduler:
    """See the module docstring."""

    def __init__(self, client: Client, informers: InformerFactory, clock: Clock, *,
                 trace: Trace | None = None, recorder: Any = None, period_ms: int = 1000) -> None:
        self.client, self.informers, self.clock = client, informers, clock
        self.trace, self.recorder = trace, recorder
        self.period_ms = period_ms
        self._pods = informers.informer("Pod")
        self._nodes = informers.informer("Node")
        self._timer: TimerHandle | None = None
        self._arrival: dict[str, int] = {}
        self._arrivals = 0
        self.cycles = 0
        """Cycles run or skipped."""
        self.skipped_cycles = 0
        self._writes = 0
        self._idle_at: tuple[str, str] | None = None
        self._requests = _RequestMemo()
        self._attention: set[tuple[str, str]] = set()
        """Pods (namespace, name) a cycle's scan would place or report: unbound pods of this
        scheduler, and pods it cannot read (see ``_needs_scan``)."""
        # A version that changes only the pod's conditions changes nothing ``_on_pod`` keeps: the
        # handler saw the version before it (so its uid is in ``_arrival``) and ``_needs_scan``
        # reads no condition (nor the resourceVersion): the informer need not deliver it.
        self._pods.add_handler(self._on_pod, ignores=_CONDITIONS)

    def _on_pod(self, event: str, pod: Obj, old: Obj | None) -> None:
        meta = pod["metadata"]
        uid = meta.get("uid", "")
        if event == "MODIFIED" and old is not None and _same_for_scan(pod, old) and uid in self._arrival:
            # A status write (most often a condition message): ``old`` was the last version this
            # handler saw of the pod, and ``_needs_scan`` reads nothing that differs between them.
            return
        key = (str(meta.get("namespace") or ""), str(meta.get("name") or ""))
        if event == "DELETED":
            self._arrival.pop(uid, None)
            self._requests.forget(uid)
            self._attention.discard(key)
            return
        if uid not in self._arrival:
            self._arrivals += 1
            self._arrival[uid] = self._arrivals
        if self._needs_scan(pod):
            self._attention.add(key)
        else:
            self._attention.discard(key)

    def _needs_scan(self, pod: Obj) -> bool:
        """Whether ``_cycle``'s scan would do anything with ``pod`` but count its requests on its
        node: place it (unbound, this scheduler's, without scheduling gates, not being deleted) or report it unreadable
        (any error reading what the scan reads)."""
        try:
            spec = pod.get("spec") or {}
            phase = accessors.phase(pod)
            if spec.get("nodeName"):
                if phase not in ("Succeeded", "Failed"):
                    self._requests(pod)
                return False
            return (spec.get("schedulerName") or "default-scheduler") == "default-scheduler" \
                and not spec.get("schedulingGates") and not accessors.meta(pod).get("deletionTimestamp")
        except Exception:  # the scan meets the same error and handles (or raises) it there
            return True

    @property
    def reuse(self) -> bool:
        """Whether each pod version's requests are remembered (``False``: recomputed every cycle,
        the reference path the property tests compare against; the decisions are the same)."""
        return self._requests.enabled

    @reuse.setter
    def reuse(self, value: bool) -> None:
        self._requests.enabled = value

    def start(self) -> None:
        """Run a cycle every period (idempotent)."""
        if self._timer is None:
            self._timer = self.clock.call_every(self.period_ms, self.run_once, priority=Priority.SCHEDULER)
            self._timer.idle = self

    def stop(self) -> None:
        """Stop cycling (idempotent)."""
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()

    def _inputs(self) -> tuple[str, str]:
        return self._pods.resource_version, self._nodes.resource_version

    def idle(self) -> bool:
        """The next cycle is a proven no-op: the last one was, and no Pod or Node changed since."""
        return self._idle_at is not None and self._idle_at == self._inputs()

    def skip(self, runs: int) -> None:
        """Account for ``runs`` no-op cycles the clock skipped."""
        self.cycles += runs
        self.skipped_cycles += runs

    def run_once(self) -> int:
        """Place what fits; returns the number of pods bound."""
        self.cycles += 1
        writes, skipped = self._writes, self.informers.unusable.skipped
        trace_len = len(self.trace) if self.trace is not None else 0
        bound = self._cycle()
        noop = bound == 0 and writes == self._writes and skipped == self.informers.unusable.skipped \
            and (self.trace is None or len(self.trace) == trace_len)
        self._idle_at = self._inputs() if noop else None
        return bound

    def _cycle(self) -> int:
        if self.reuse and not self._attention:
            # No pod to place or report: the scan below would find nothing pending and return
            # 0 without an effect (kept per pod by ``_on_pod``; ``reuse`` off scans every cycle).
            return 0
        pending: list[Obj] = []
        used: list[tuple[str, Resources]] = []  # (node, requests) of every bound, unfinished pod
        for pod in self._pods.list():
            try:
                spec = pod.get("spec") or {}
                phase = accessors.phase(pod)
                if spec.get("nodeName"):
                    if phase not in ("Succeeded", "Failed"):
                        used.append((spec["nodeName"], self._requests(pod)))
                elif (spec.get("schedulerName") or "default-scheduler") == "default-scheduler" and \
                        not spec.get("schedulingGates") and not accessors.meta(pod).get("deletionTimestamp"):
                    # a gated pod waits (kube-scheduler's SchedulingGates PreEnqueue) until its gates are removed
                    int(spec.get("priority") or 0)
                    self._requests(pod)
                    pending.append(pod)
            except DATA_ERRORS as exc:  # a pod this scheduler cannot read is left out
                self.informers.unusable.handle("default-scheduler", dict(pod), exc)
        if not pending:
            return 0  # nothing to place: the node table is read only for placing, so it is not built
        specs: list[NodeSpec] = []
        free: dict[str, Resources] = {}
        for n in sorted(self._nodes.list(), key=lambda n: n["metadata"]["name"]):
            try:
                allocatable, spec_n = node_allocatable(n), NodeSpec(n)
            except DATA_ERRORS as exc:  # a node this scheduler cannot read is left out
                self.informers.unusable.handle("default-scheduler", dict(n), exc)
                continue
            free[n["metadata"]["name"]] = allocatable
            specs.append(spec_n)
        for node_name, requests in used:
            if node_name in free:
                free[node_name] = free[node_name] - requests
        arrival = self._arrival
        pending.sort(key=lambda p: (-int((p.get("spec") or {}).get("priority") or 0),
                                    arrival.get(p["metadata"].get("uid", ""), 0)))
        bound = 0
        for pod in pending:
            node = self._place(pod, specs, free)
            meta = pod["metadata"]
            if node is None:
                self._unschedulable(pod, len(specs))
                continue
            self._writes += 1
            try:
                self.client.bind(meta["name"], meta.get("namespace") or "default", node)
            except ApiError:
                continue
            free[node] = free[node] - self._requests(pod)
            bound += 1
            if self.trace is not None:
                self.trace.record(self.clock.now_ms, "default-scheduler", "Bind",
                                  f"{meta.get('namespace')}/{meta['name']}", node)
            if self.recorder is not None:
                self.recorder.event(pod, "Normal", "Scheduled",
                                    f"Successfully assigned {meta.get('namespace')}/{meta['name']} to {node}")
        return bound

    def _place(self, pod: Obj, specs: list[NodeSpec], free: dict[str, Resources]) -> str | None:
        spec = pod.get("spec") or {}
        tols = list(spec.get("tolerations") or [])
        req = self._requests(pod)
        best, best_score = None, -1.0
        for node in specs:
            if node.unschedulable and not tolerates(tols, {"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule"}):
                continue
            if any(t.get("effect") in ("NoSchedule", "NoExecute") and not tolerates(tols, t) for t in node.taints):
                continue
            if not node_affinity_matches(spec, node):
                continue
            avail = free[node.name]
            if not req.fits_in(avail):
                continue
            score = 0.0
            for name in ("cpu", "memory"):
                cap = node.allocatable.get(name)
                score += (avail.get(name) - req.get(name)) / cap if cap else 0.0
            if score > best_score:
                best, best_score = node.name, score
        return best

    def _unschedulable(self, pod: Obj, n: int) -> None:
        msg = f"0/{n} nodes are available: insufficient resources or no matching node."
        conds = [c for c in accessors.status(pod).get("conditions") or [] if c.get("type") == "PodScheduled"]
        if conds and conds[0].get("message") == msg:
            return
        others = updated_conditions(thaw(accessors.status(pod).get("conditions") or []),
                                    {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                     "message": msg}, self.clock.timestamp())
        meta = pod["metadata"]
        self._writes += 1
        try:
            self.client.patch("Pod", meta["name"], {"status": {"conditions": others}},
                              meta.get("namespace") or "default", subresource="status")
        except ApiError:
            return
        if self.recorder is not None:
            self.recorder.event(pod, "Warning", "FailedScheduling", msg)
