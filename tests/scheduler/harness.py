"""Table-test harness for the scheduler (the shape of Volcano's uthelper).

Builders mirror upstream's ``util/test_utils.go``; ``run`` opens a session over
the objects (no API server), runs actions, closes it, and returns binds,
evictions, pipelined tasks and the status writes.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from volcano.scheduler.actions import default_actions
from volcano.scheduler.config import load_scheduler_conf
from volcano.scheduler.framework.action import ActionRegistry
from volcano.scheduler.framework.conf import ENABLE_FLAGS, PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.metrics import NO_METRICS, MetricsSink
from volcano.scheduler.framework.model import NodeSpec, QueueInfo, TaskSpec, TaskStatus
from volcano.scheduler.framework.plugin import Arguments, PluginRegistry
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.session import Session, Snapshot
from volcano.scheduler.framework.status import SessionOutcome, close_session
from volcano.scheduler.plugins import default_registry

__all__ = [
    "HIGH_MID_LOW",
    "PRE_F",
    "PRE_T",
    "Result",
    "conf",
    "derived_conf",
    "derived_conf_text",
    "node",
    "opt",
    "pc",
    "pg",
    "pod",
    "queue",
    "res",
    "run",
    "table_pod",
]

Obj = dict[str, Any]
POINT_FLAGS = {
    "jobOrder": "enableJobOrder", "jobReady": "enableJobReady", "jobPipelined": "enableJobPipelined",
    "taskOrder": "enableTaskOrder", "preemptable": "enablePreemptable", "reclaimable": "enableReclaimable",
    "preemptive": "enablePreemptive", "queueOrder": "enableQueueOrder", "predicate": "enablePredicate",
    "nodeOrder": "enableNodeOrder", "jobEnqueued": "enableJobEnqueued", "jobStarving": "enableJobStarving",
    "overused": "enabledOverused", "allocatable": "enabledAllocatable", "bestNode": "enableBestNode",
    "hierarchy": "enableHierarchy",
}


def res(cpu: str | int | None = None, mem: str | int | None = None, **scalars: Any) -> dict[str, str]:
    """A ResourceList: ``res(2, "4Gi", pods=10, **{"nvidia.com/gpu": 1})``."""
    out: dict[str, str] = {}
    if cpu is not None:
        out["cpu"] = str(cpu)
    if mem is not None:
        out["memory"] = str(mem)
    for k, v in scalars.items():
        out[k.replace("__", "/")] = str(v)
    return out


def node(name: str, alloc: Mapping[str, str], labels: Mapping[str, str] | None = None, **spec: Any) -> Obj:
    """A Node (pods default 110; hostname label added)."""
    a = dict(alloc)
    a.setdefault("pods", "110")
    lab = {"kubernetes.io/hostname": name, **(labels or {})}
    return {"kind": "Node", "metadata": {"name": name, "labels": lab}, "spec": dict(spec),
            "status": {"allocatable": a, "capacity": a}}


def random_node(rng: random.Random, name: str, *, pod_caps: tuple[int, ...] = (4, 110),
                zones: tuple[str, ...] = ()) -> Obj:
    """A Node for property tests: 4, 8 or 16 CPUs, 8 or 32 GiB, a pod cap from ``pod_caps``, 0 or
    8 GPUs (8 twice as likely), a ``zone`` label from ``zones`` (none when empty), and now and
    then cordoned or tainted ``dedicated=x:NoSchedule``."""
    extra: Obj = {}
    if rng.random() < 0.08:
        extra["unschedulable"] = True
    if rng.random() < 0.08:
        extra["taints"] = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
    alloc = res(rng.choice([4, 8, 16]), rng.choice(["8Gi", "32Gi"]), pods=rng.choice(pod_caps),
                **{"nvidia__com/gpu": rng.choice([0, 8, 8])})
    labels = {"zone": rng.choice(zones)} if zones else None
    return node(name, alloc, labels, **extra)


def pod(ns: str, name: str, *, group: str, node_name: str = "", phase: str = "Pending",
        req: Mapping[str, str] | None = None, labels: Mapping[str, str] | None = None,
        selector: Mapping[str, str] | None = None, priority: int | None = None,
        annotations: Mapping[str, str] | None = None, policy: str | None = None, deleting: bool = False,
        affinity: Mapping[str, Any] | None = None, priority_class: str | None = None) -> Obj:
    """A Pod like upstream's BuildPod (uid ``ns-name``, the ``group`` annotation, one container
    requesting ``req``); Pending and unbound unless ``phase``/``node_name`` say otherwise."""
    ann = {"scheduling.k8s.io/group-name": group, **(annotations or {})}
    meta: Obj = {"name": name, "namespace": ns, "uid": f"{ns}-{name}", "labels": dict(labels or {}),
                 "annotations": ann}
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    container: Obj = {"name": "c", "resources": {"requests": dict(req)} if req else {}}
    optional = {"nodeName": node_name, "nodeSelector": dict(selector or {}), "priority": priority,
                "preemptionPolicy": policy, "affinity": dict(affinity or {}), "priorityClassName": priority_class}
    spec: Obj = {"containers": [container], "schedulerName": "volcano",
                 **{k: v for k, v in optional.items() if v or (k == "priority" and v is not None)}}
    return {"kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": phase}}


PRE_T = {"volcano.sh/preemptable": "true"}
"""Labels of a pod that may be preempted."""
PRE_F = {"volcano.sh/preemptable": "false"}
"""Labels of a pod that may not be preempted."""


def table_pod(name: str, node_name: str, phase: str, req: Mapping[str, str] | None, group: str,
              labels: Mapping[str, str] | None = None, **kwargs: Any) -> Obj:
    """A pod of namespace ``c1`` with its columns in the order of upstream's preempt and
    reclaim tables (``BuildPod(c1, name, node, phase, req, group, labels, ...)``), for rows
    that mirror those tables."""
    return pod("c1", name, node_name=node_name, phase=phase, req=req, group=group, labels=labels, **kwargs)


def pg(name: str, ns: str, queue_name: str, min_member: int, phase: str = "Inqueue", *,
       task_min: Mapping[str, int] | None = None, pc_name: str = "",
       min_resources: Mapping[str, str] | None = None) -> Obj:
    """A PodGroup like upstream's BuildPodGroup*."""
    spec: Obj = {"queue": queue_name, "minMember": min_member}
    if task_min:
        spec["minTaskMember"] = dict(task_min)
    if pc_name:
        spec["priorityClassName"] = pc_name
    if min_resources is not None:
        spec["minResources"] = dict(min_resources)
    return {"kind": "PodGroup", "metadata": {"name": name, "namespace": ns}, "spec": spec,
            "status": {"phase": phase}}


def queue(name: str, weight: int = 1, capability: Mapping[str, str] | None = None, *, state: str = "Open",
          priority: int = 0, deserved: Mapping[str, str] | None = None, reclaimable: bool | None = None) -> Obj:
    """A Queue (state Open unless given)."""
    spec: Obj = {"weight": weight, "priority": priority}
    if capability:
        spec["capability"] = dict(capability)
    if deserved:
        spec["deserved"] = dict(deserved)
    if reclaimable is not None:
        spec["reclaimable"] = reclaimable
    return {"kind": "Queue", "metadata": {"name": name}, "spec": spec, "status": {"state": state}}


def pc(name: str, value: int, global_default: bool = False) -> Obj:
    """A PriorityClass."""
    return {"kind": "PriorityClass", "metadata": {"name": name}, "value": value, "globalDefault": global_default}


HIGH_MID_LOW = [pc("high", 100), pc("mid", 50), pc("low", 10)]
"""Priority classes high (100), mid (50) and low (10), as the gang-eviction tests use them."""


def opt(name: str, *points: str, **arguments: Any) -> PluginOption:
    """A plugin entry with only the named points enabled (upstream tests leave the rest nil = off)."""
    on = {POINT_FLAGS[p] for p in points}
    return PluginOption(name, {f: f in on for f in ENABLE_FLAGS}, dict(arguments))


def conf(actions: Iterable[str], *tiers: Iterable[PluginOption]) -> SchedulerConf:
    """A configuration from tiers of plugin entries."""
    return SchedulerConf(tuple(actions), tuple(Tier(tuple(t)) for t in tiers))


def derived_conf_text(text: str, *, actions: str, keep: Iterable[str] | None = None,
                      configurations: Iterable[Mapping[str, Any]] = ()) -> str:
    """One of the product's configurations (``DEFAULT_SCHEDULER_CONF_TEXT``,
    ``HELM_SCHEDULER_CONF_TEXT``) as YAML, with other ``actions``, only the plugins
    named in ``keep`` (all when None; entries keep their flags), and ``configurations``."""
    data = yaml.safe_load(text)
    data["actions"] = actions
    if keep is not None:
        wanted = set(keep)
        for tier in data["tiers"]:
            tier["plugins"] = [p for p in tier["plugins"] if p["name"] in wanted]
    if configurations:
        data["configurations"] = [dict(c) for c in configurations]
    return str(yaml.safe_dump(data, sort_keys=False))


def derived_conf(text: str, *, actions: str, keep: Iterable[str] | None = None,
                 configurations: Iterable[Mapping[str, Any]] = ()) -> SchedulerConf:
    """``derived_conf_text``, loaded."""
    return load_scheduler_conf(derived_conf_text(text, actions=actions, keep=keep, configurations=configurations))


@dataclass
class Result:
    """What a run produced."""

    session: Session
    outcome: SessionOutcome
    binds: dict[str, str]
    evicted: list[str]

    def pipelined(self, job: str) -> list[str]:
        """Nodes of the pipelined tasks of job ``ns/pg``."""
        j = self.session.jobs[job]
        return [t.node_name for t in j.tasks.values() if t.status == TaskStatus.Pipelined]

    def statuses(self, job: str) -> dict[str, int]:
        """Task status counts of job ``ns/pg``."""
        j = self.session.jobs[job]
        return {s.name: c for s, c in j.status_counts.items() if c}

    def phase(self, job: str) -> str:
        """The PodGroup phase computed at close."""
        return str(self.outcome.statuses[job]["phase"])


def run(configuration: SchedulerConf, *, nodes: Iterable[Obj] = (), pods: Iterable[Obj] = (),
        podgroups: Iterable[Obj] = (), queues: Iterable[Obj] = (), pcs: Iterable[Obj] = (),
        registry: PluginRegistry | None = None, actions: Iterable[str] | None = None,
        metrics: MetricsSink = NO_METRICS, action_registry: ActionRegistry | None = None) -> Result:
    """One cycle over the objects; returns binds, evictions and the close outcome."""
    space = ResourceSpace()
    classes = {p["metadata"]["name"]: int(p["value"]) for p in pcs}
    default = next((int(p["value"]) for p in pcs if p.get("globalDefault")), 0)
    groups: list[tuple[Mapping[str, Any], int]] = []
    for g in podgroups:
        name = g["spec"].get("priorityClassName") or ""
        groups.append((g, classes.get(name, default)))
    snap = Snapshot(space, [NodeSpec(n) for n in nodes], groups, [TaskSpec(p) for p in pods],
                    [QueueInfo(q) for q in queues], priority_classes=classes)
    ssn = Session(snap, configuration, registry or default_registry(), uid="session-1", metrics=metrics)
    registered = action_registry if action_registry is not None else default_actions()
    for name in actions if actions is not None else configuration.actions:
        cls = registered.get(name)
        assert cls is not None, name
        cls(Arguments(configuration.action_arguments(name))).execute(ssn)
    outcome = close_session(ssn)
    binds = {t.key: n for t, n in ssn.binds}
    evicted = [t.key for t, _ in ssn.evictions]
    return Result(ssn, outcome, binds, evicted)


def allocated(objects: tuple[list[Obj], list[Obj], list[Obj], list[Obj]], configuration: SchedulerConf,
              reuse: bool) -> Session:
    """A session (uid ``session-1``, ``reuse`` as given) over ``(nodes, queues, podgroups, pods)``,
    its PodGroups of priority 0, after one allocate (not closed)."""
    nodes, queues, groups, pods = objects
    podgroups: list[tuple[Mapping[str, Any], int]] = [(g, 0) for g in groups]
    snap = Snapshot(ResourceSpace(), [NodeSpec(n) for n in nodes], podgroups, [TaskSpec(p) for p in pods],
                    [QueueInfo(q) for q in queues])
    ssn = Session(snap, configuration, default_registry(), uid="session-1", reuse=reuse)
    action = default_actions().get("allocate")
    assert action is not None
    action(Arguments({})).execute(ssn)
    return ssn
