"""Helpers shared by the scheduling conformance modules (``test_scheduling_*``, ``test_gang_*``).

This module holds no test. It adds, on top of ``conformance.lib``, what upstream's scheduling
suites use: the scheduler configurations they run with, queue and priority-class setup as
``InitTestContext`` does it, readiness counts, negative ("never reaches") windows, PodGroup
statistics per queue, taints and scheduling gates. Everything goes through the backend-neutral
``cluster`` fixture and plain Kubernetes objects.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import plain, priority_class, queue
from volcano.conformance.lib.waits import READY_PHASES, bound, count_phase, pg_name

__all__ = [
    "C05",
    "C1",
    "C2",
    "C3",
    "C4",
    "CI_CONF",
    "CI_CONF_NO_ENQUEUE",
    "GANG_EVICT_CONF",
    "ONE_CPU",
    "PREEMPTABLE",
    "TAINT",
    "api_error",
    "conf_with",
    "hold_not_ready",
    "job_nodes",
    "make_priority_classes",
    "make_queues",
    "pg_count",
    "pg_events",
    "plain",
    "ready",
    "ready_by_label",
    "remove_gates",
    "set_queue_reclaimable",
    "simple_queue",
    "taint_all_nodes",
    "untaint_all_nodes",
    "wait_pg_count",
]

Obj = dict[str, Any]

# Request sizes as upstream's suites name them (oneCPU, halfCPU, CPU1Mem1, ...).
ONE_CPU = {"cpu": "1"}
# The label upstream's preempt and reclaim cases put on every victim pod.
PREEMPTABLE = {"volcano.sh/preemptable": "true"}
C05 = {"cpu": "500m", "memory": "512Mi"}
C1 = {"cpu": "1", "memory": "1024Mi"}
C2 = {"cpu": "2", "memory": "2048Mi"}
C3 = {"cpu": "3", "memory": "3072Mi"}
C4 = {"cpu": "4", "memory": "4096Mi"}

# Upstream's CI scheduler configuration (catalogue §2.3), as the YAML a real cluster is given (the
# suite sees only Kubernetes objects, so it carries its configurations as text; the tiers are
# the Helm chart's, which the scheduler package also carries), minus what this product leaves out on
# purpose: the ``sla`` plugin (no case of these suites sets an SLA annotation, so it never
# decides anything here), ``network-topology-aware`` (no HyperNode exists) and the DRA argument
# of ``predicates`` (no ResourceClaim exists).
CI_CONF = """\
actions: "enqueue, allocate, backfill, reclaim, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
"""

CI_CONF_NO_ENQUEUE = CI_CONF.replace('"enqueue, allocate', '"allocate')

def conf_with(base: str, *, old: str, new: str) -> str:
    """``base`` with one line replaced (as upstream's ``ConfigMapCase`` modifiers do); fails
    loudly when ``old`` is absent, so a modifier can never silently do nothing."""
    assert old in base, f"{old!r} not in the scheduler configuration"
    return base.replace(old, new)


# The gangevict suite's configuration (catalogue §3.10), with the same omissions as CI_CONF: its
# actions, and capacity (hierarchy off) in the first tier instead of proportion in the second.
GANG_EVICT_CONF = CI_CONF
for _old, _new in (
        ('"enqueue, allocate, backfill, reclaim, preempt"', '"allocate, backfill, gangreclaim, gangpreempt"'),
        ("  - name: conformance\n", "  - name: conformance\n  - name: capacity\n    enableHierarchy: false\n"),
        ("  - name: proportion\n", "")):
    GANG_EVICT_CONF = conf_with(GANG_EVICT_CONF, old=_old, new=_new)

TAINT = {"key": "test-taint-key", "value": "test-taint-val", "effect": "NoSchedule"}


def api_error(fn: Any, *args: Any, **kwargs: Any) -> Exception:
    """Call ``fn`` and return the API error it raised; fail when it succeeds."""
    try:
        fn(*args, **kwargs)
    except Exception as err:
        code = getattr(err, "code", getattr(err, "status", None))
        assert isinstance(code, int) and code >= 400, f"expected an API error, got {err!r}"
        return err
    raise AssertionError(f"expected {getattr(fn, '__name__', fn)} to be rejected, it succeeded")


def make_priority_classes(cluster: Cluster, classes: dict[str, int]) -> None:
    """Create PriorityClasses ``{name: value}`` (``globalDefault: false``)."""
    cluster.apply([priority_class(name, value) for name, value in sorted(classes.items())])


def make_queues(cluster: Cluster, *queues: Obj, timeout: float = 30) -> None:
    """Create queues (``builders.queue`` manifests) and wait until each is Open
    (upstream sleeps 3 s and hopes; here the state is checked)."""
    cluster.apply(list(queues))
    names = [q["metadata"]["name"] for q in queues]

    def all_open() -> bool:
        for name in names:
            obj = cluster.try_get("Queue", name)
            if obj is None or obj.get("status", {}).get("state") != "Open":
                return False
        return True

    cluster.wait_until(all_open, timeout, f"queues {names} Open")


def simple_queue(name: str, **kw: Any) -> Obj:
    """A queue as upstream's ``InitTestContext`` creates it (weight 1 unless told)."""
    return queue(name, **kw)


def set_queue_reclaimable(cluster: Cluster, names: Iterable[str], reclaimable: bool) -> None:
    """Upstream ``SetQueueReclaimable``."""
    for name in names:
        cluster.patch("Queue", name, {"spec": {"reclaimable": reclaimable}})


def ready(cluster: Cluster, job: str) -> int:
    """Pods of ``job`` Running or Succeeded (and not being deleted)."""
    return count_phase(cluster.job_pods(job), READY_PHASES)


def ready_by_label(cluster: Cluster, job: str, label: str) -> dict[str, int]:
    """Ready pods of ``job`` counted by the value of one pod label (e.g. task-spec)."""
    out: dict[str, int] = {}
    for p in cluster.job_pods(job):
        if p.get("status", {}).get("phase") in READY_PHASES and not p["metadata"].get("deletionTimestamp"):
            key = (p["metadata"].get("labels") or {}).get(label, "")
            out[key] = out.get(key, 0) + 1
    return out


def job_nodes(cluster: Cluster, job: str) -> list[str]:
    """Nodes of the bound, live pods of ``job`` (sorted, with repeats)."""
    return sorted(p["spec"]["nodeName"] for p in cluster.job_pods(job)
                  if bound(p) and not p["metadata"].get("deletionTimestamp")
                  and p.get("status", {}).get("phase") not in ("Succeeded", "Failed"))


def hold_not_ready(cluster: Cluster, job: str, n: int, seconds: float = 60) -> None:
    """``job`` never reaches ``n`` ready pods during the window (upstream ``waitTasksNotReady``)."""
    cluster.hold(lambda: ready(cluster, job) < n, seconds, f"job {job} stays below {n} ready pods")


def pg_count(cluster: Cluster, queue_name: str, phase: str) -> int:
    """PodGroups of the test namespace in ``queue_name`` with ``phase`` (upstream
    ``GetPodGroupStatistics``)."""
    return sum(1 for pg in cluster.list("PodGroup")
               if pg.get("spec", {}).get("queue", "default") == queue_name
               and pg.get("status", {}).get("phase") == phase)


def wait_pg_count(cluster: Cluster, queue_name: str, phase: str, n: int, timeout: float = 600) -> None:
    """Exactly ``n`` PodGroups of ``queue_name`` in ``phase`` (upstream ``CheckPodGroupStatistics``)."""
    cluster.wait_until(lambda: pg_count(cluster, queue_name, phase) == n, timeout,
                       f"{n} podgroups of queue {queue_name} in phase {phase}")


def _set_taints(cluster: Cluster, name: str, taints: list[Obj]) -> None:
    cluster.patch("Node", name, {"spec": {"taints": taints or None}}, namespace="")


def taint_all_nodes(cluster: Cluster, taint: Obj = TAINT) -> None:
    """Upstream ``TaintAllNodes``: add ``taint`` to every node, control plane included."""
    for node in cluster.list("Node", "*"):
        taints = [dict(t) for t in node.get("spec", {}).get("taints") or [] if t.get("key") != taint["key"]]
        _set_taints(cluster, node["metadata"]["name"], [*taints, dict(taint)])


def untaint_all_nodes(cluster: Cluster, key: str = TAINT["key"]) -> None:
    """Upstream ``RemoveTaintsFromAllNodes``: drop taints with ``key`` from every node."""
    for node in cluster.list("Node", "*"):
        taints = [dict(t) for t in node.get("spec", {}).get("taints") or [] if t.get("key") != key]
        _set_taints(cluster, node["metadata"]["name"], taints)


def remove_gates(cluster: Cluster, pods: Iterable[Obj]) -> None:
    """Upstream ``RemovePodSchGates``: clear ``spec.schedulingGates`` on each pod."""
    for p in pods:
        if p.get("spec", {}).get("schedulingGates"):
            cluster.patch("Pod", p["metadata"]["name"], {"spec": {"schedulingGates": None}})


def pg_events(cluster: Cluster, job: str, reason: str) -> list[Obj]:
    """Events with ``reason`` on the PodGroup of a Volcano Job."""
    name = pg_name(cluster, job)
    return [e for e in cluster.events() if e.get("reason") == reason
            and (e.get("involvedObject") or {}).get("name", "").startswith(name)]
