"""The PodGroup a Volcano Job gets, and its ``minResources``.

``podgroup_name(job)`` is ``<job>-<job uid>``. ``build_podgroup`` returns the
PodGroup Volcano's job controller creates: labels and annotations copied from
the Job, a controller ownerReference to it, ``minMember`` = ``spec.minAvailable``,
``minTaskMember`` per task (task minAvailable, else minPartitions x
partitionSize, else replicas), queue, priorityClassName, networkTopology,
subGroupPolicy for partitioned tasks, and ``minResources``.

``min_resources`` follows Volcano: the per-pod usage of a task is the
Kubernetes ResourceQuota usage of a pod built from the template
(``count/pods``, ``pods``, ``cpu``/``requests.cpu``/``limits.cpu``, the same for
``memory`` and ``ephemeral-storage``, ``hugepages-*`` and ``requests.hugepages-*``,
and for extended resources such as ``nvidia.com/gpu`` both ``requests.<name>``
and ``<name>``); tasks are taken highest PriorityClass first (stable on task
order) and the first ``minAvailable`` pods are summed as Volcano sums them.
Quantities are written in canonical Kubernetes form, binary (``Mi``/``Gi``)
when the template wrote that resource with a binary suffix.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from volcano.api.frozen import freeze
from volcano.api.quantity import format_milli
from volcano.api.resources import pod_limits, pod_requests
from volcano.api.well_known import TASK_SPEC
from volcano.controllers.job.constants import JOB_API_VERSION, JOB_KIND, LABEL_PARTITION_ID

__all__ = [
    "DesiredSpecCache",
    "build_podgroup",
    "job_owner_reference",
    "min_resources",
    "min_task_member",
    "pod_quota_usage",
    "podgroup_name",
    "podgroup_spec_update",
]

PriorityOf = Callable[[str], int]
_NATIVE_TRACKED = ("cpu", "memory", "ephemeral-storage")
_BINARY = re.compile(r"^[+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?\s*[KMGTPE]i$")


def podgroup_name(job: Mapping[str, Any]) -> str:
    """``<job name>-<job uid>``, the name Volcano gives a Job's PodGroup."""
    meta = job["metadata"]
    return f"{meta['name']}-{meta.get('uid', '')}"


def job_owner_reference(job: Mapping[str, Any]) -> dict[str, Any]:
    """A controller ownerReference to ``job``."""
    meta = job["metadata"]
    return {"apiVersion": JOB_API_VERSION, "kind": JOB_KIND, "name": meta["name"], "uid": meta.get("uid", ""),
            "controller": True, "blockOwnerDeletion": True}


def _is_extended(name: str) -> bool:
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def pod_quota_usage(pod: Mapping[str, Any]) -> dict[str, int]:
    """Volcano's per-pod quota usage (resource name -> milli-units) of a pod built from a task
    template: requests are counted as written, never defaulted from limits (the template is not
    API-defaulted), so a container with only limits yields ``limits.cpu`` but no ``cpu``."""
    requests, limits = pod_requests(pod, default_from_limits=False), pod_limits(pod)
    usage: dict[str, int] = {"count/pods": 1000, "pods": 1000}
    req_names = set(requests.names())
    lim_names = set(limits.names())
    for name in _NATIVE_TRACKED:
        if name in req_names:
            usage[name] = usage[f"requests.{name}"] = requests.get(name)
        if name in lim_names:
            usage[f"limits.{name}"] = limits.get(name)
    for name in sorted(req_names):
        if name.startswith("hugepages-") or _is_extended(name):
            usage[name] = usage[f"requests.{name}"] = requests.get(name)
    return usage


def _add(total: dict[str, int], usage: Mapping[str, int], count: int) -> None:
    if count <= 0:
        return
    for name, value in usage.items():
        total[name] = total.get(name, 0) + value * count


def _binary_names(job: Mapping[str, Any]) -> set[str]:
    """Resource names a template first wrote with a binary suffix (``Mi``, ``Gi``...)."""
    first: dict[str, bool] = {}
    for task in (job.get("spec") or {}).get("tasks") or []:
        pod_spec = ((task.get("template") or {}).get("spec") or {})
        for c in list(pod_spec.get("containers") or []) + list(pod_spec.get("initContainers") or []):
            res = c.get("resources") or {}
            for section in ("requests", "limits"):
                for name, q in (res.get(section) or {}).items():
                    first.setdefault(name, isinstance(q, str) and bool(_BINARY.match(q.strip())))
    return {name for name, binary in first.items() if binary}


def _task_pod(task: Mapping[str, Any]) -> dict[str, Any]:
    return {"spec": (task.get("template") or {}).get("spec") or {}}


def min_resources(job: Mapping[str, Any], priority_of: PriorityOf | None = None) -> dict[str, str]:
    """``spec.minResources`` of the Job's PodGroup (resource name -> quantity string)."""
    spec = job.get("spec") or {}
    tasks = list(spec.get("tasks") or [])
    prio = priority_of or (lambda _name: 0)
    order = sorted(range(len(tasks)), key=lambda i: (
        -prio(str(((tasks[i].get("template") or {}).get("spec") or {}).get("priorityClassName") or "")), i))
    ordered = [tasks[i] for i in order]
    usages = [pod_quota_usage(_task_pod(t)) for t in ordered]
    job_min = int(spec.get("minAvailable") or 0)
    total_min = sum(int(t.get("replicas") or 0) if t.get("minAvailable") is None else int(t["minAvailable"])
                    for t in tasks)
    total: dict[str, int] = {}
    if job_min < total_min:
        count = job_min
        for task, usage in zip(ordered, usages):
            replicas = int(task.get("replicas") or 0)
            if count <= replicas:
                _add(total, usage, count)
                break
            _add(total, usage, replicas)
            count -= replicas
    else:
        pods = 0
        for task, usage in zip(ordered, usages):
            if task.get("minAvailable") is None:
                continue
            valid = min(int(task["minAvailable"]), job_min - pods)
            _add(total, usage, valid)
            pods += valid
            if pods >= job_min:
                break
        left_count = job_min - pods
        if left_count > 0:
            for task, usage in zip(ordered, usages):
                replicas = int(task.get("replicas") or 0)
                left = replicas
                if task.get("minAvailable") is not None:
                    if int(task["minAvailable"]) == replicas:
                        continue
                    left = replicas - int(task["minAvailable"])
                take = min(left, left_count)
                _add(total, usage, take)
                left_count -= take
                if left_count <= 0:
                    break
    binary = _binary_names(job)

    def base(name: str) -> str:
        for prefix in ("requests.", "limits."):
            if name.startswith(prefix):
                return name[len(prefix):]
        return name

    return {name: format_milli(total[name], binary=base(name) in binary) for name in sorted(total)}


def min_task_member(job: Mapping[str, Any]) -> dict[str, int]:
    """``spec.minTaskMember``: per task minAvailable, else minPartitions x partitionSize, else replicas."""
    out: dict[str, int] = {}
    for task in (job.get("spec") or {}).get("tasks") or []:
        name = str(task.get("name", ""))
        if task.get("minAvailable") is not None:
            out[name] = int(task["minAvailable"])
            continue
        pp = task.get("partitionPolicy") or {}
        min_parts, size = int(pp.get("minPartitions") or 0), int(pp.get("partitionSize") or 0)
        out[name] = min_parts * size if min_parts and size else int(task.get("replicas") or 0)
    return out


def _network_topology(nt: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not nt:
        return None
    out: dict[str, Any] = {"mode": nt.get("mode") or "hard"}
    if nt.get("highestTierAllowed") is not None:
        out["highestTierAllowed"] = nt["highestTierAllowed"]
    elif nt.get("highestTierName"):
        out["highestTierName"] = nt["highestTierName"]
    return out


def _sub_group_policy(job: Mapping[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for task in (job.get("spec") or {}).get("tasks") or []:
        pp = task.get("partitionPolicy")
        if not pp:
            continue
        entry: dict[str, Any] = {
            "name": task.get("name", ""),
            "subGroupSize": int(pp.get("partitionSize") or 0),
            "minSubGroups": int(pp.get("minPartitions") or 0),
            "labelSelector": {"matchLabels": {TASK_SPEC: task.get("name", "")}},
            "matchLabelKeys": [LABEL_PARTITION_ID],
        }
        nt = _network_topology(pp.get("networkTopology"))
        if nt is not None:
            entry["networkTopology"] = nt
        out.append(entry)
    return out


def _desired_spec(job: Mapping[str, Any], priority_of: PriorityOf | None) -> dict[str, Any]:
    spec = job.get("spec") or {}
    out: dict[str, Any] = {
        "minMember": int(spec.get("minAvailable") or 0),
        "minTaskMember": min_task_member(job),
        "queue": spec.get("queue") or "default",
        "minResources": min_resources(job, priority_of),
    }
    if spec.get("priorityClassName"):
        out["priorityClassName"] = spec["priorityClassName"]
    nt = _network_topology(spec.get("networkTopology"))
    if nt is not None:
        out["networkTopology"] = nt
    sgp = _sub_group_policy(job)
    if sgp:
        out["subGroupPolicy"] = sgp
    return out


class DesiredSpecCache:
    """The PodGroup spec a Job wants, remembered per Job uid.

    Computing ``minResources`` builds a quota usage per task template, which is
    most of a Job sync's cost; a Job's spec rarely changes between syncs (its
    status does). An entry is reused while the Job's ``spec`` is equal to the
    one it was computed from and the tasks' PriorityClass values are the same;
    the returned spec is frozen (read-only, shared). ``forget`` drops a Job's
    entry (call it when the Job is deleted)."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[Mapping[str, Any], tuple[int, ...], Mapping[str, Any]]] = {}

    def get(self, job: Mapping[str, Any], priority_of: PriorityOf | None) -> Mapping[str, Any]:
        """``job``'s desired PodGroup spec (see ``build_podgroup``)."""
        spec = job.get("spec") or {}
        prio = priority_of or (lambda _name: 0)
        prios = tuple(prio(str(((t.get("template") or {}).get("spec") or {}).get("priorityClassName") or ""))
                      for t in spec.get("tasks") or [])
        uid = str((job.get("metadata") or {}).get("uid") or "")
        hit = self._entries.get(uid) if uid else None
        if hit is not None and hit[1] == prios and (hit[0] is spec or hit[0] == spec):
            return hit[2]
        want: Mapping[str, Any] = freeze(_desired_spec(job, priority_of))
        if uid:
            self._entries[uid] = (spec, prios, want)
        return want

    def forget(self, uid: str) -> None:
        """Drop the entry of the Job with ``uid`` (no-op when there is none)."""
        self._entries.pop(uid, None)


def build_podgroup(job: Mapping[str, Any], priority_of: PriorityOf | None = None,
                   cache: DesiredSpecCache | None = None) -> dict[str, Any]:
    """The PodGroup object (plain dict, no status) Volcano creates for ``job``;
    with ``cache`` the spec is shared (frozen) and remembered per Job."""
    meta = job["metadata"]
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {
            "name": podgroup_name(job),
            "namespace": meta.get("namespace", "default"),
            "labels": dict(meta.get("labels") or {}),
            "annotations": dict(meta.get("annotations") or {}),
            "ownerReferences": [job_owner_reference(job)],
        },
        "spec": cache.get(job, priority_of) if cache is not None else _desired_spec(job, priority_of),
    }


def podgroup_spec_update(pg: Mapping[str, Any], job: Mapping[str, Any],
                         priority_of: PriorityOf | None = None,
                         cache: DesiredSpecCache | None = None) -> dict[str, Any] | None:
    """The new ``spec`` for an existing PodGroup, or None when nothing Volcano syncs differs.

    Synced: priorityClassName, minMember, minResources, minTaskMember entries
    (added or changed, never removed) and subGroupPolicy. Queue, labels and
    annotations are never updated.
    """
    cur = dict(pg.get("spec") or {})
    want = cache.get(job, priority_of) if cache is not None else _desired_spec(job, priority_of)
    new = {k: v for k, v in cur.items()}
    changed = False
    if (cur.get("priorityClassName") or "") != (want.get("priorityClassName") or ""):
        new["priorityClassName"] = want.get("priorityClassName", "")
        changed = True
    if int(cur.get("minMember") or 0) != want["minMember"]:
        new["minMember"] = want["minMember"]
        changed = True
    if dict(cur.get("minResources") or {}) != want["minResources"]:
        new["minResources"] = want["minResources"]
        changed = True
    members = dict(cur.get("minTaskMember") or {})
    for task, n in want["minTaskMember"].items():
        if members.get(task) != n:
            members[task] = n
            changed = True
    new["minTaskMember"] = members
    if list(cur.get("subGroupPolicy") or []) != want.get("subGroupPolicy", []):
        new["subGroupPolicy"] = want.get("subGroupPolicy", [])
        changed = True
    return new if changed else None
