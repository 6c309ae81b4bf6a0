"""Builders and readers for the ``test_kinds_*`` scheduler tests: small clusters, the
scheduler's whole decision trace, its whole Event list, its whole metrics registry, and a
client that refuses chosen writes (a failing fake standing where the API server would)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from prometheus_client import CollectorRegistry

from volcano.apiserver import ApiError
from volcano.scheduler.actions import default_actions
from volcano.scheduler.framework.conf import SchedulerConf
from volcano.scheduler.framework.plugin import Arguments
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.status import close_session
from volcano.testbed import FakeCluster

__all__ = [
    "SCHED_COMPONENTS",
    "RefusingClient",
    "Sample",
    "TraceRecord",
    "bound",
    "counter_samples",
    "decide",
    "enqueued",
    "events_of",
    "families",
    "gang",
    "podgroup",
    "pods",
    "priority_class",
    "queue",
    "samples",
    "sched_trace",
]

SCHED_COMPONENTS = ("volcano", "default-scheduler")
"""The trace components of the two schedulers a ``FakeCluster`` runs."""

Obj = dict[str, Any]
Sample = tuple[str, tuple[tuple[str, str], ...], float]
"""One metric sample: name, sorted labels, value."""
TraceRecord = tuple[int, str, str, str, str]
"""One decision-trace record: time (ms), component, event, object, detail."""


def podgroup(fc: FakeCluster, name: str, min_member: int, *, queue_name: str = "default",
             min_resources: Mapping[str, str] | None = None, priority_class: str = "") -> None:
    """Create a PodGroup in ``default``."""
    spec: Obj = {"minMember": min_member, "queue": queue_name}
    if min_resources is not None:
        spec["minResources"] = dict(min_resources)
    if priority_class:
        spec["priorityClassName"] = priority_class
    fc.apply({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
              "metadata": {"name": name, "namespace": "default"}, "spec": spec})


def pods(fc: FakeCluster, group: str, count: int, cpu: str | None, *, scheduler: str = "volcano",
         priority_class: str = "", labels: Mapping[str, str] | None = None,
         tolerations: Iterable[Mapping[str, Any]] = (), start: int = 0, memory: str | None = None) -> None:
    """Create ``count`` pods ``<group>-<i>`` of the group (none when ``group`` is ""), each one
    container requesting ``cpu`` (and ``memory``; nothing when both are None)."""
    for i in range(start, start + count):
        requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
        spec: Obj = {"schedulerName": scheduler, "containers": [{
            "name": "c", "image": "nginx", "resources": {"requests": requests} if requests else {}}]}
        if priority_class:
            spec["priorityClassName"] = priority_class
        if tolerations:
            spec["tolerations"] = [dict(t) for t in tolerations]
        meta: Obj = {"name": f"{group or 'solo'}-{i}", "namespace": "default", "labels": dict(labels or {})}
        if group:
            meta["annotations"] = {"scheduling.k8s.io/group-name": group}
        fc.apply({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})


def gang(fc: FakeCluster, name: str, min_member: int, count: int, cpu: str, *, queue_name: str = "default",
         priority_class: str = "") -> None:
    """Create PodGroup ``name`` (``min_member``, in ``queue_name``) and ``count`` pods of it, each requesting
    ``cpu``; ``priority_class`` names the class of the group and of its pods."""
    podgroup(fc, name, min_member, queue_name=queue_name, priority_class=priority_class)
    pods(fc, name, count, cpu, priority_class=priority_class)


def queue(fc: FakeCluster, name: str, *, weight: int = 1, capability: Mapping[str, str] | None = None,
          parent: str = "", reclaimable: bool = True, deserved: Mapping[str, str] | None = None) -> None:
    """Create a Queue."""
    spec: Obj = {"weight": weight, "reclaimable": reclaimable}
    if capability is not None:
        spec["capability"] = dict(capability)
    if deserved is not None:
        spec["deserved"] = dict(deserved)
    if parent:
        spec["parent"] = parent
    fc.apply({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name},
              "spec": spec})


def priority_class(fc: FakeCluster, name: str, value: int) -> None:
    """Create a PriorityClass."""
    fc.apply({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
              "value": value})


def sched_trace(fc: FakeCluster, components: Iterable[str] = SCHED_COMPONENTS) -> list[tuple[int, str, str, str, str]]:
    """Every decision-trace record of the given components, whole, in order."""
    wanted = set(components)
    return [tuple(r) for r in fc.trace if r.component in wanted]  # type: ignore[misc]


def enqueued(ms: int, group: str, queue_name: str = "default") -> TraceRecord:
    """The Volcano scheduler's record of enqueuing PodGroup ``default/<group>`` into ``queue_name`` at ``ms``."""
    return (ms, "volcano", "Enqueue", f"default/{group}", queue_name)


def bound(ms: int, pod: str, node: str, component: str = "volcano") -> TraceRecord:
    """``component``'s record of binding pod ``default/<pod>`` to ``node`` at ``ms``."""
    return (ms, component, "Bind", f"default/{pod}", node)


def events_of(fc: FakeCluster, component: str) -> list[tuple[str, str, str, str, str, int]]:
    """Every Event ``component`` recorded: (involved kind, involved name, type, reason, message, count),
    oldest first."""
    out = []
    for e in fc.events():
        if (e.get("source") or {}).get("component") != component:
            continue
        inv = e.get("involvedObject") or {}
        out.append((str(inv.get("kind")), str(inv.get("name")), str(e.get("type")), str(e.get("reason")),
                    str(e.get("message")), int(e.get("count") or 0)))
    return out


def families(registry: CollectorRegistry) -> list[tuple[str, str, str]]:
    """Every metric family of ``registry``: (name, type, help text), in registration order."""
    return [(m.name, m.type, m.documentation) for m in registry.collect()]


def samples(registry: CollectorRegistry, *, buckets: bool = False) -> list[Sample]:
    """Every sample of ``registry`` but the wall-clock ``_created`` ones: (name, sorted labels, value),
    sorted; histogram buckets only when ``buckets`` (their counts and sums always)."""
    out: list[Sample] = []
    for metric in registry.collect():
        for s in metric.samples:
            if s.name.endswith("_created") or (s.name.endswith("_bucket") and not buckets):
                continue
            out.append((s.name, tuple(sorted(s.labels.items())), float(s.value)))
    return sorted(out)


def counter_samples(*, evictions: Mapping[str, float] | None = None, retries: Mapping[str, float] | None = None,
                    victims: float = 0, attempts: float = 0, unscheduled_jobs: float = 0,
                    unscheduled_tasks: Mapping[str, float] | None = None) -> list[Sample]:
    """The scheduler registry's counter and gauge samples, sorted: an eviction-transaction count per action in
    ``evictions``, a retry count per job in ``retries``, the preemption victims and attempts, the unscheduled
    job count and an unscheduled-task count per job in ``unscheduled_tasks`` (no others)."""
    out: list[Sample] = [
        ("volcano_pod_preemption_victims", (), float(victims)),
        ("volcano_total_preemption_attempts_total", (), float(attempts)),
        ("volcano_unschedule_job_count", (), float(unscheduled_jobs))]
    for name, label, values in (("volcano_eviction_transactions_total", "action", evictions),
                                ("volcano_job_retry_counts_total", "job_id", retries),
                                ("volcano_unschedule_task_count", "job_id", unscheduled_tasks)):
        out += [(name, ((label, key),), float(value)) for key, value in (values or {}).items()]
    return sorted(out)


def decide(ssn: Session, configuration: SchedulerConf) -> None:
    """Execute every action of ``configuration`` on ``ssn`` in order, then close the session."""
    actions = default_actions()
    for name in configuration.actions:
        cls = actions.get(name)
        assert cls is not None
        cls(Arguments(configuration.action_arguments(name))).execute(ssn)
    close_session(ssn)


class RefusingClient:
    """A client that forwards everything to ``inner`` but answers the writes ``refuse`` selects
    with ``error`` (``refuse(verb, args)``: the verb name and its positional arguments)."""

    def __init__(self, inner: Any, refuse: Callable[[str, tuple[Any, ...]], bool],
                 error: ApiError | None = None) -> None:
        self.inner = inner
        self.refuse = refuse
        self.error = error or ApiError(500, "InternalError", "Internal error occurred: refused by the test")
        self.refused: list[tuple[str, tuple[Any, ...]]] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if name not in ("create", "update", "update_status", "patch", "delete", "bind", "evict"):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            if self.refuse(name, args):
                self.refused.append((name, args))
                raise self.error
            return attr(*args, **kwargs)

        return call
