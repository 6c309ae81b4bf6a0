"""Volcano's Job admission: the mutating webhook's defaults and the validating webhook's checks.

Pure functions over plain dicts:

* ``mutate_job(job)``: defaults as ``mutatejob.volcano.sh`` sets them on CREATE
  (queue, schedulerName, maxRetry, task names / minAvailable / maxRetry,
  job minAvailable, svc/ssh plugins for distributed frameworks).
* ``validate_job_create(job, view)``: the denial message of
  ``validatejob.volcano.sh`` on CREATE ("" when admitted); fragments are
  concatenated in upstream order and the result trimmed.
* ``validate_job_update(old, new)``: the first immutability error on UPDATE.

Volcano prints the valid event / action sets from Go maps (random order);
here they are listed in a fixed order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from volcano.admission.lookup import ClusterView, queue_parent
from volcano.api.frozen import thaw
from volcano.api.quantity import QuantityError, to_milli
from volcano.apiserver.validation.defaults import default_pod
from volcano.apiserver.validation.field import go_value
from volcano.apiserver.validation.names import dns1123_subdomain_errors, go_list, qualified_name_errors
from volcano.apiserver.validation.pod import pod_template_errors

__all__ = [
    "KNOWN_PLUGINS",
    "VALID_ACTIONS",
    "VALID_EVENTS",
    "mutate_job",
    "validate_job_create",
    "validate_job_update",
    "validate_policies",
]

VALID_EVENTS = ("*", "PodFailed", "PodEvicted", "PodPending", "Unknown", "TaskCompleted", "TaskFailed",
                "JobUpdated")
"""Events a user may name in a lifecycle policy."""

VALID_ACTIONS = ("AbortJob", "RestartJob", "RestartTask", "RestartPod", "RestartPartition", "TerminateJob",
                 "CompleteJob", "ResumeJob")
"""Actions a user may name in an event-based lifecycle policy."""

KNOWN_PLUGINS = ("env", "svc", "ssh", "pytorch", "tensorflow", "mpi", "hcclrank", "ray")
"""Job plugins registered in Volcano's controller."""

_FRAMEWORKS_NEEDING_SVC = ("tensorflow", "mpi", "pytorch", "ray")
_TIER_BOTH = "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously"


def _int(value: Any, default: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return value


def _tasks(job: Mapping[str, Any]) -> list[Any]:
    tasks = (job.get("spec") or {}).get("tasks")
    return list(tasks) if isinstance(tasks, list | tuple) else []


# -- mutating ------------------------------------------------------------------------------------

def mutate_job(job: dict[str, Any], *, scheduler_name: str = "volcano") -> None:
    """Apply ``mutatejob.volcano.sh``'s CREATE defaults to ``job`` in place."""
    spec = job.get("spec")
    if not isinstance(spec, dict):
        return
    if not spec.get("queue"):
        spec["queue"] = "default"
    if not spec.get("schedulerName"):
        spec["schedulerName"] = scheduler_name
    if not _int(spec.get("maxRetry")):
        spec["maxRetry"] = 3
    total_min = 0
    for index, task in enumerate(spec.get("tasks") or []):
        if not isinstance(task, dict):
            continue
        if not task.get("name"):
            task["name"] = f"default{index}"
        template = task.get("template")
        pod_spec = template.get("spec") if isinstance(template, dict) else None
        if isinstance(pod_spec, dict) and pod_spec.get("hostNetwork") and not pod_spec.get("dnsPolicy"):
            pod_spec["dnsPolicy"] = "ClusterFirstWithHostNet"
        if task.get("minAvailable") is None:
            partition = task.get("partitionPolicy")
            min_parts = _int(partition.get("minPartitions")) if isinstance(partition, Mapping) else 0
            if isinstance(partition, Mapping) and min_parts > 0:
                task["minAvailable"] = min_parts * _int(partition.get("partitionSize"))
            else:
                task["minAvailable"] = _int(task.get("replicas"))
        if not _int(task.get("maxRetry")):
            task["maxRetry"] = 3
        total_min += _int(task.get("minAvailable"))
    if not _int(spec.get("minAvailable")):
        spec["minAvailable"] = total_min
    plugins = spec.get("plugins")
    if isinstance(plugins, dict):
        if "svc" not in plugins and any(name in plugins for name in _FRAMEWORKS_NEEDING_SVC):
            plugins["svc"] = []
        if "mpi" in plugins and "ssh" not in plugins:
            plugins["ssh"] = []


# -- policies ------------------------------------------------------------------------------------

def _multierror(errors: list[str]) -> str:
    if len(errors) == 1:
        return f"1 error occurred:\n\t* {errors[0]}\n\n"
    points = "\n\t".join(f"* {e}" for e in errors)
    return f"{len(errors)} errors occurred:\n\t{points}\n\n"


def _policy_events(policy: Mapping[str, Any]) -> list[str]:
    events = [str(e) for e in (policy.get("events") or [])]
    if policy.get("event"):
        events.append(str(policy["event"]))
    out: list[str] = []
    for e in events:
        if e not in out:
            out.append(e)
    return out


def validate_policies(policies: Sequence[Any] | None, path: str) -> str:
    """The go-multierror text of what is wrong with ``policies`` ("" when valid); stops at the first
    bad policy, then adds the ``*`` exclusivity rule."""
    errors: list[str] = []
    seen_events: list[str] = []
    seen_codes: set[int] = set()
    for policy in policies or []:
        if not isinstance(policy, Mapping):
            errors.append(f"{path}: Invalid value: {go_value(str(policy))}: policy must be an object")
            break
        has_event = bool(policy.get("event")) or bool(policy.get("events"))
        exit_code = policy.get("exitCode")
        if has_event and exit_code is not None:
            errors.append("must not specify event and exitCode simultaneously")
            break
        if not has_event and exit_code is None:
            errors.append("either event and exitCode should be specified")
            break
        if has_event:
            bad = False
            action = str(policy.get("action") or "")
            for event in _policy_events(policy):
                if event not in VALID_EVENTS:
                    errors.append(f"{path}: Invalid value: {go_value(event)}: invalid policy event")
                    bad = True
                    break
                if action not in VALID_ACTIONS:
                    errors.append(f"{path}: Invalid value: {go_value(action)}: invalid policy action")
                    bad = True
                    break
                if event in seen_events:
                    errors.append(f"duplicate event {event}  across different policy")
                    bad = True
                    break
                seen_events.append(event)
            if bad:
                break
        else:
            code = _int(exit_code, default=-1) if not isinstance(exit_code, bool) else -1
            if code == 0:
                errors.append("0 is not a valid error code")
                break
            if code in seen_codes:
                errors.append(f"duplicate exitCode {code}")
                break
            seen_codes.add(code)
    if "*" in seen_events and len(seen_events) > 1:
        errors.append("if there's * here, no other policy should be here")
    return _multierror(errors) if errors else ""


def _valid_lists() -> str:
    return f" valid events are {go_list(list(VALID_EVENTS))}, valid actions are {go_list(list(VALID_ACTIONS))};"


# -- create --------------------------------------------------------------------------------------

def _plugin_arg(args: Any, flag: str, default: str) -> str:
    items = [str(a) for a in args] if isinstance(args, list | tuple) else []
    value = default
    for i, arg in enumerate(items):
        if arg.startswith(f"--{flag}="):
            value = arg.split("=", 1)[1]
        elif arg == f"--{flag}" and i + 1 < len(items):
            value = items[i + 1]
    return value


def _cpu_is_integer(container: Mapping[str, Any]) -> bool:
    res = container.get("resources") or {}
    requests = res.get("requests") or res.get("limits") or {}
    try:
        milli = to_milli(requests.get("cpu", 0))
    except (QuantityError, TypeError, ValueError):
        return False
    return milli > 0 and milli % 1000 == 0


def _template_errors(template: Any) -> list[str]:
    """Kubernetes' validation of a task's pod template after Kubernetes' defaults, as the webhook runs it."""
    copy = thaw(template) if isinstance(template, Mapping) else template
    if isinstance(copy, dict) and isinstance(copy.get("spec"), dict):
        default_pod(copy)
    return [str(e) for e in pod_template_errors(copy)]


def _task_errors(task: Mapping[str, Any], index: int, job_name: str) -> str:
    msg = ""
    errs = _template_errors(task.get("template"))
    if errs:
        return f"spec.task[{index}]." + "".join(f"{e}. " for e in errs)
    policy = str(task.get("topologyPolicy") or "")
    if policy and policy != "none":
        spec = (task.get("template") or {}).get("spec") or {}
        containers = list(spec.get("containers") or []) + list(spec.get("initContainers") or [])
        for cid, container in enumerate(containers):
            if not _cpu_is_integer(container):
                return f"the cpu request isn't an integer in spec.task[{index}] container[{cid}]."
    return msg


def _partition_errors(task: Mapping[str, Any], job_name: str) -> str:
    """Upstream's ``validatePartitionPolicy``: the first arithmetic error of the task's partition policy
    (no leading space, no ``;``), then, whatever that was, the partition's networkTopology check appended
    with no separator."""
    pp = task.get("partitionPolicy")
    if not isinstance(pp, Mapping):
        return ""
    where = f"in task: {task.get('name', '')}, job: {job_name}"
    total, size = _int(pp.get("totalPartitions")), _int(pp.get("partitionSize"))
    min_parts = _int(pp.get("minPartitions"))
    msg = ""
    if total <= 0:
        msg = f"'TotalPartitions' must be greater than 0 {where}"
    elif size <= 0:
        msg = f"'PartitionSize' must be greater than 0 {where}"
    elif _int(task.get("replicas")) != total * size:
        msg = f"'Replicas' are not equal to TotalPartitions*PartitionSize {where}"
    elif task.get("minAvailable") is not None and min_parts > 0 and min_parts * size != _int(task["minAvailable"]):
        msg = f"'MinAvailable' is not equal to MinPartitions*PartitionSize {where}"
    nt = pp.get("networkTopology")
    if isinstance(nt, Mapping) and nt.get("highestTierAllowed") is not None and nt.get("highestTierName"):
        msg += _TIER_BOTH
    return msg


def _volume_error(volumes: Any) -> str:
    seen: set[str] = set()
    for volume in volumes or []:
        if not isinstance(volume, Mapping):
            return " volume must be an object;"
        mount = str(volume.get("mountPath") or "")
        if not mount:
            return " mountPath is required;"
        if mount in seen:
            return f" duplicated mountPath: {mount};"
        claim, claim_name = volume.get("volumeClaim"), str(volume.get("volumeClaimName") or "")
        if claim is None and not claim_name:
            return " either VolumeClaim or VolumeClaimName must be specified;"
        if claim_name:
            if claim is not None:
                return ("conflict: If you want to use an existing PVC, just specify VolumeClaimName."
                        "If you want to create a new PVC, you do not need to specify VolumeClaimName")
            errs = dns1123_subdomain_errors(claim_name)
            if errs:
                return f"invalid VolumeClaimName {claim_name} : {go_list(errs)}"
        seen.add(mount)
    return ""


def _is_dag(tasks: list[Any]) -> bool:
    names = [str(t.get("name", "")) for t in tasks if isinstance(t, Mapping)]
    indegree = {n: 0 for n in names}
    edges: dict[str, list[str]] = {}
    for t in tasks:
        if not isinstance(t, Mapping) or not isinstance(t.get("dependsOn"), Mapping):
            continue
        for dep in t["dependsOn"].get("name") or []:
            edges.setdefault(str(dep), []).append(str(t.get("name", "")))
            indegree[str(t.get("name", ""))] = indegree.get(str(t.get("name", "")), 0) + 1
    ready = [n for n in names if indegree.get(n, 0) == 0]
    done = 0
    while ready:
        node = ready.pop()
        done += 1
        for nxt in edges.get(node, []):
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                ready.append(nxt)
    return done == len(names)


def _queue_error(queue_name: str, view: ClusterView) -> str:
    queue = view.queue(queue_name)
    if queue is None:
        return f' unable to find job queue: queue.scheduling.volcano.sh "{queue_name}" not found;'
    msg = ""
    state = str((queue.get("status") or {}).get("state") or "")
    if state != "Open":
        msg += f" can only submit job to queue with state `Open`, queue `{queue_name}` status is `{state}`;"
    if queue_name == "root":
        msg += " can not submit job to root queue;"
    else:
        children = [q for q in view.queues() if queue_parent(q) == queue_name]
        if children:
            msg += f" can only submit job to leaf queue, queue `{queue_name}` has {len(children)} child queues;"
    return msg


def validate_job_create(job: Mapping[str, Any], view: ClusterView) -> str:
    """The denial message ``validatejob.volcano.sh`` gives for creating ``job`` ("" when admitted)."""
    spec = job.get("spec") or {}
    name = str((job.get("metadata") or {}).get("name") or "")
    tasks = _tasks(job)
    if not tasks:
        return "No task specified in job spec"
    raw_plugins = spec.get("plugins")
    plugins: Mapping[str, Any] = raw_plugins if isinstance(raw_plugins, Mapping) else {}
    if "mpi" in plugins:
        master = _plugin_arg(plugins["mpi"], "master", "master")
        if all(not isinstance(t, Mapping) or t.get("name") != master for t in tasks):
            return "The specified mpi master task was not found"
    msg = ""
    nt = spec.get("networkTopology")
    if isinstance(nt, Mapping) and nt.get("highestTierAllowed") is not None and nt.get("highestTierName"):
        msg += _TIER_BOTH  # upstream writes this one bare: no leading space, no ";"
    names: set[str] = set()
    total = 0
    depends = False
    for index, task in enumerate(tasks):
        if not isinstance(task, Mapping):
            msg += f" spec.tasks[{index}] must be an object;"
            continue
        tname = str(task.get("name") or "")
        replicas = _int(task.get("replicas"))
        if task.get("dependsOn") is not None:
            depends = True
        if task.get("minAvailable") is not None and _int(task["minAvailable"]) > replicas:
            msg += f" 'minAvailable' is greater than 'replicas' in task: {tname}, job: {name};"
        total += replicas
        if tname in names:
            msg += f" duplicated task name {tname};"
            break
        names.add(tname)
        perr = validate_policies(task.get("policies"), "spec.tasks.policies")
        if perr:
            msg += perr + _valid_lists()
        pod_name = f"{name}-{tname}-{index}"
        errs = qualified_name_errors(pod_name)
        if errs:
            msg += f"create pod with name {pod_name} validate failed {go_list(errs)};"
        msg += _task_errors(task, index, name)
        msg += _partition_errors(task, name)
    errs = qualified_name_errors(name)
    if errs:
        msg += f"create job with name {name} validate failed {go_list(errs)}"
    if total < _int(spec.get("minAvailable")):
        msg += " job 'minAvailable' should not be greater than total replicas in tasks;"
    perr = validate_policies(spec.get("policies"), "spec.policies")
    if perr:
        msg += perr + _valid_lists()
    for plugin in sorted(plugins):
        if plugin not in KNOWN_PLUGINS:
            msg += f" unable to find job plugin: {plugin};"
    msg += _volume_error(spec.get("volumes"))
    msg += _queue_error(str(spec.get("queue") or ""), view)
    if depends and not _is_dag(tasks):
        msg += " job has dependencies between tasks, but doesn't form a directed acyclic graph(DAG);"
    return msg.strip()


# -- update --------------------------------------------------------------------------------------

_POINTERS: dict[str, frozenset[str]] = {
    "spec": frozenset({"ttlSecondsAfterFinished", "minSuccess", "networkTopology"}),
    "tasks": frozenset({"dependsOn", "partitionPolicy"}),
    "policies": frozenset({"exitCode", "timeout"}),
    "networkTopology": frozenset({"highestTierAllowed"}),
}
"""Fields of the Job's Go types that are pointers, by the field holding them: set to a zero value they
still differ from absent (``apiequality.Semantic.DeepEqual`` compares nil with ``&0`` as different)."""


def _normalized(value: Any, where: str = "") -> Any:
    """``value`` with Go zero values dropped, so that absent, null, 0, "" and [] compare equal, except a
    pointer field (``_POINTERS``) that is set: it is kept, marked, whatever its value."""
    if isinstance(value, Mapping):
        pointers = _POINTERS.get(where, frozenset())
        out: dict[str, Any] = {}
        for k, v in value.items():
            inner = _normalized(v, k)
            if k in pointers and v is not None:
                out[k] = ("set", inner)
            elif inner not in (None, "", 0, False, [], {}):
                out[k] = inner
        return out
    if isinstance(value, list | tuple):
        return [_normalized(v, where) for v in value]
    return value


def validate_job_update(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """The first reason ``validatejob.volcano.sh`` denies updating ``old`` to ``new`` ("" when allowed)."""
    spec = new.get("spec") or {}
    old_spec = old.get("spec") or {}
    tasks = _tasks(new)
    total = 0
    for task in tasks:
        if not isinstance(task, Mapping):
            return "each task must be an object"
        tname = task.get("name", "")
        replicas = _int(task.get("replicas"))
        if replicas < 0:
            return f"'replicas' must be >= 0 in task: {tname}"
        if task.get("minAvailable") is not None:
            if _int(task["minAvailable"]) < 0:
                return f"'minAvailable' must be >= 0 in task: {tname}"
            if _int(task["minAvailable"]) > replicas:
                return f"'minAvailable' must be <= 'replicas' in task: {tname}"
        perr = _partition_errors(task, str((new.get("metadata") or {}).get("name") or ""))
        if perr:
            return perr
        total += replicas
    min_available = _int(spec.get("minAvailable"))
    if min_available > total:
        return "job 'minAvailable' must not be greater than total replicas"
    if min_available < 0:
        return "job 'minAvailable' must be >= 0"
    nt = spec.get("networkTopology")
    if isinstance(nt, Mapping) and nt.get("highestTierAllowed") is not None and nt.get("highestTierName"):
        return _TIER_BOTH
    if len(tasks) != len(_tasks(old)):
        return "job updates may not add or remove tasks"
    a, b = thaw(old_spec), thaw(spec)
    for s in (a, b):
        for key in ("minAvailable", "priorityClassName"):
            s.pop(key, None)
        for task in s.get("tasks") or []:
            if isinstance(task, dict):
                task.pop("replicas", None)
                task.pop("minAvailable", None)
        for volume in s.get("volumes") or []:
            if isinstance(volume, dict) and volume.get("volumeClaim") is not None:
                volume.pop("volumeClaimName", None)
    if _normalized(a, "spec") != _normalized(b, "spec"):
        return ("job updates may not change fields other than `minAvailable`, `tasks[*].replicas under spec` "
                "and `PriorityClassName`")
    return ""
