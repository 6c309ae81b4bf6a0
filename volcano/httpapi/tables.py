"""``meta.k8s.io/v1 Table`` responses: the columns ``kubectl get`` prints on a real cluster.

kubectl asks for a Table (``Accept: application/json;as=Table;v=v1;g=meta.k8s.io``) and
prints its cells verbatim, so the server computes them:

* Volcano's custom resources use their CRDs' ``additionalPrinterColumns`` (Job: STATUS,
  minAvailable, RUNNINGS, AGE, QUEUE; PodGroup: STATUS, minMember, RUNNINGS, AGE, QUEUE; Queue:
  PARENT), after the implicit NAME column; a value the object lacks is a null cell.
* Built-in kinds use kube-apiserver's printers: pods (READY, STATUS, RESTARTS, AGE, and IP,
  NODE, NOMINATED NODE, READINESS GATES with ``-o wide``), nodes (STATUS, ROLES, AGE, VERSION),
  namespaces, deployments, replica sets, services, config maps, events, priority classes.
  Any other kind gets NAME and AGE.
* Ages are formatted as apimachinery's ``HumanDuration`` does, from the clock's time.

Each row carries the object's metadata as ``PartialObjectMetadata`` (the default
``includeObject=Metadata``), so ``-A`` fills NAMESPACE and ``--show-labels`` LABELS.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from volcano.api.kinds import KindInfo
from volcano.sim.clock import Clock

__all__ = ["human_duration", "to_table", "wants_table"]

_Cell = Callable[[Any, int], Any]
"""``fn(object, now_ms) -> cell``."""


def wants_table(accept: str) -> bool:
    """Whether an ``Accept`` header asks for a ``meta.k8s.io`` Table."""
    return "as=Table" in accept and "g=meta.k8s.io" in accept


def human_duration(seconds: float) -> str:
    """A duration as kubectl's AGE column shows it (apimachinery ``duration.HumanDuration``)."""
    secs = int(seconds)
    if secs < -1:
        return "<invalid>"
    if secs < 0:
        return "0s"
    if secs < 120:
        return f"{secs}s"
    minutes = secs // 60
    if minutes < 10:
        rest = secs % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = secs // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d{rest}h" if rest else f"{hours // 24}d"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = (hours // 24) % 365
        return f"{hours // 24 // 365}y{days}d" if days else f"{hours // 24 // 365}y"
    return f"{hours // 24 // 365}y"


class _Column:
    __slots__ = ("cell", "definition")

    def __init__(self, name: str, cell: _Cell, *, type_: str = "string", fmt: str = "", priority: int = 0,
                 description: str = "") -> None:
        self.definition = {"name": name, "type": type_, "format": fmt, "description": description,
                           "priority": priority}
        self.cell = cell


def _path(obj: Any, path: str) -> Any:
    """The value at a simple JSONPath (``.status.state.phase``), or None."""
    cur = obj
    for part in path.strip(".").split("."):
        if not isinstance(cur, dict):
            return None
        cur = cur.get(part)
    return cur


def _none(value: Any) -> str:
    return "<none>" if value in (None, "", []) else str(value)


class _Ages:
    """Formats ``.metadata.creationTimestamp``-style fields as ages on one clock."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock

    def of(self, text: Any, now_ms: int) -> str | None:
        when = self._clock.parse_timestamp(text)
        return None if when is None else human_duration((now_ms - when) / 1000)

    def column(self, name: str = "Age", path: str = ".metadata.creationTimestamp", priority: int = 0) -> _Column:
        return _Column(name, lambda o, now: self.of(_path(o, path), now), priority=priority,
                       description="CreationTimestamp is a timestamp representing the server time when this "
                                   "object was created.")


# -- Volcano's CRD printer columns: (name, type, jsonPath, priority) -----------------------------------------
_CRD_COLUMNS: dict[str, tuple[tuple[str, str, str, int], ...]] = {
    "Job.batch.volcano.sh": (("STATUS", "string", ".status.state.phase", 0),
                             ("minAvailable", "integer", ".status.minAvailable", 0),
                             ("RUNNINGS", "integer", ".status.running", 0),
                             ("AGE", "date", ".metadata.creationTimestamp", 0),
                             ("QUEUE", "string", ".spec.queue", 1)),
    "PodGroup.scheduling.volcano.sh": (("STATUS", "string", ".status.phase", 0),
                                       ("minMember", "integer", ".spec.minMember", 0),
                                       ("RUNNINGS", "integer", ".status.running", 0),
                                       ("AGE", "date", ".metadata.creationTimestamp", 0),
                                       ("QUEUE", "string", ".spec.queue", 1)),
    "Queue.scheduling.volcano.sh": (("PARENT", "string", ".spec.parent", 0),),
}

_NAME = _Column("Name", lambda o, now: o["metadata"]["name"], fmt="name",
                description="Name must be unique within a namespace.")


def _crd_columns(specs: Iterable[tuple[str, str, str, int]], ages: _Ages) -> list[_Column]:
    def value(path: str) -> _Cell:
        return lambda o, now: _path(o, path)

    def age(path: str) -> _Cell:
        return lambda o, now: ages.of(_path(o, path), now)

    out = [_NAME]
    for name, type_, path, priority in specs:
        if type_ == "date":
            out.append(_Column(name, age(path), type_="date", priority=priority))
        else:
            out.append(_Column(name, value(path), type_=type_, priority=priority,
                               description=f"Custom resource definition column (in JSONPath format): {path}"))
    return out


# -- pods ------------------------------------------------------------------------------------------------
def _pod_status(pod: Any) -> str:
    """The STATUS cell of a pod, by kube-apiserver's rules (phase, reason, container states, deletion)."""
    status = pod.get("status") or {}
    reason = status.get("reason") or status.get("phase") or "Unknown"
    for cond in status.get("conditions") or ():
        if cond.get("type") == "PodScheduled" and cond.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"
    running = False
    for cs in reversed(status.get("containerStatuses") or ()):
        state = cs.get("state") or {}
        waiting, terminated = state.get("waiting"), state.get("terminated")
        if waiting and waiting.get("reason"):
            reason = waiting["reason"]
        elif terminated and terminated.get("reason"):
            reason = terminated["reason"]
        elif terminated:
            signal = terminated.get("signal")
            reason = f"Signal:{signal}" if signal else f"ExitCode:{terminated.get('exitCode', 0)}"
        elif cs.get("ready") and state.get("running"):
            running = True
    if reason == "Completed" and running:
        ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or ())
        reason = "Running" if ready else "NotReady"
    if pod["metadata"].get("deletionTimestamp"):
        reason = "Unknown" if status.get("reason") == "NodeLost" else "Terminating"
    return str(reason)


def _pod_columns(ages: _Ages) -> list[_Column]:
    def ready(pod: Any, now: int) -> str:
        statuses = (pod.get("status") or {}).get("containerStatuses") or ()
        total = len((pod.get("spec") or {}).get("containers") or ())
        return f"{sum(1 for c in statuses if c.get('ready'))}/{total}"

    def restarts(pod: Any, now: int) -> str:
        statuses = (pod.get("status") or {}).get("containerStatuses") or ()
        count = sum(int(c.get("restartCount") or 0) for c in statuses)
        last = [ages.of(((c.get("lastState") or {}).get("terminated") or {}).get("finishedAt"), now)
                for c in statuses]
        last = [x for x in last if x]
        return f"{count} ({last[-1]} ago)" if count and last else str(count)

    status = lambda o: o.get("status") or {}  # noqa: E731
    spec = lambda o: o.get("spec") or {}  # noqa: E731
    return [_NAME, _Column("Ready", ready), _Column("Status", lambda o, now: _pod_status(o)),
            _Column("Restarts", restarts), ages.column(),
            _Column("IP", lambda o, now: _none(status(o).get("podIP")), priority=1),
            _Column("Node", lambda o, now: _none(spec(o).get("nodeName")), priority=1),
            _Column("Nominated Node", lambda o, now: _none(status(o).get("nominatedNodeName")), priority=1),
            _Column("Readiness Gates", lambda o, now: _none(spec(o).get("readinessGates")), priority=1)]


def _node_columns(ages: _Ages) -> list[_Column]:
    def status(node: Any, now: int) -> str:
        conds = {c.get("type"): c.get("status") for c in (node.get("status") or {}).get("conditions") or ()}
        out = "Unknown" if "Ready" not in conds else "Ready" if conds["Ready"] == "True" else "NotReady"
        return out + (",SchedulingDisabled" if (node.get("spec") or {}).get("unschedulable") else "")

    def roles(node: Any, now: int) -> str:
        labels = node["metadata"].get("labels") or {}
        found = {k.split("/", 1)[1] for k in labels if k.startswith("node-role.kubernetes.io/") and "/" in k}
        if labels.get("kubernetes.io/role"):
            found.add(labels["kubernetes.io/role"])
        return ",".join(sorted(r for r in found if r)) or "<none>"

    def address(kind: str) -> _Cell:
        return lambda n, now: _none(next((a.get("address") for a in (n.get("status") or {}).get("addresses") or ()
                                          if a.get("type") == kind), None))

    info = lambda n, key: _none(((n.get("status") or {}).get("nodeInfo") or {}).get(key))  # noqa: E731
    return [_NAME, _Column("Status", status), _Column("Roles", roles), ages.column(),
            _Column("Version", lambda n, now: info(n, "kubeletVersion")),
            _Column("Internal-IP", address("InternalIP"), priority=1),
            _Column("External-IP", address("ExternalIP"), priority=1),
            _Column("OS-Image", lambda n, now: info(n, "osImage"), priority=1),
            _Column("Kernel-Version", lambda n, now: info(n, "kernelVersion"), priority=1),
            _Column("Container-Runtime", lambda n, now: info(n, "containerRuntimeVersion"), priority=1)]


_ACCESS_MODES = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
                 ("ReadWriteOncePod", "RWOP"))
_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def _claim_columns(ages: _Ages) -> list[_Column]:
    """kube-apiserver's PersistentVolumeClaim columns: the capacity and access modes are the bound
    volume's (blank until ``spec.volumeName`` is set), the class the beta annotation's before
    ``spec.storageClassName``, a claim being deleted is Terminating."""
    def phase(o: Any, now: int) -> str:
        return "Terminating" if _path(o, ".metadata.deletionTimestamp") else str(_path(o, ".status.phase") or "")

    def bound(o: Any) -> bool:
        return bool(_path(o, ".spec.volumeName"))

    def capacity(o: Any, now: int) -> str:
        return str(_path(o, ".status.capacity.storage") or "") if bound(o) else ""

    def modes(o: Any, now: int) -> str:
        held = _path(o, ".status.accessModes") or () if bound(o) else ()
        return ",".join(short for mode, short in _ACCESS_MODES if mode in held)

    def storage_class(o: Any, now: int) -> str:
        notes = _path(o, ".metadata.annotations") or {}
        if _CLASS_ANNOTATION in notes:
            return str(notes[_CLASS_ANNOTATION])
        return str(_path(o, ".spec.storageClassName") or "")

    def unset(path: str) -> _Cell:
        def cell(o: Any, now: int) -> str:
            value = _path(o, path)
            return "<unset>" if value is None else str(value)
        return cell

    return [_NAME, _Column("Status", phase), _Column("Volume", lambda o, now: str(_path(o, ".spec.volumeName") or "")),
            _Column("Capacity", capacity), _Column("Access Modes", modes), _Column("StorageClass", storage_class),
            _Column("VolumeAttributesClass", unset(".spec.volumeAttributesClassName")), ages.column(),
            _Column("VolumeMode", unset(".spec.volumeMode"), priority=1)]


def _builtin_columns(key: str, ages: _Ages) -> list[_Column] | None:
    get = _path
    if key == "Pod":
        return _pod_columns(ages)
    if key == "Node":
        return _node_columns(ages)
    if key == "Namespace":
        return [_NAME, _Column("Status", lambda o, now: get(o, ".status.phase")), ages.column()]
    if key == "Deployment.apps":
        return [_NAME, _Column("Ready", lambda o, now: f"{get(o, '.status.readyReplicas') or 0}/"
                                                       f"{get(o, '.spec.replicas') or 0}"),
                _Column("Up-to-date", lambda o, now: get(o, ".status.updatedReplicas") or 0, type_="integer"),
                _Column("Available", lambda o, now: get(o, ".status.availableReplicas") or 0, type_="integer"),
                ages.column()]
    if key in ("ReplicaSet.apps", "ReplicationController"):
        return [_NAME, _Column("Desired", lambda o, now: get(o, ".spec.replicas") or 0, type_="integer"),
                _Column("Current", lambda o, now: get(o, ".status.replicas") or 0, type_="integer"),
                _Column("Ready", lambda o, now: get(o, ".status.readyReplicas") or 0, type_="integer"),
                ages.column()]
    if key == "Service":
        def ports(o: Any, now: int) -> str:
            items = [f"{p.get('port')}/{p.get('protocol') or 'TCP'}" for p in get(o, ".spec.ports") or ()]
            return ",".join(items) or "<none>"
        return [_NAME, _Column("Type", lambda o, now: get(o, ".spec.type") or "ClusterIP"),
                _Column("Cluster-IP", lambda o, now: _none(get(o, ".spec.clusterIP"))),
                _Column("External-IP", lambda o, now: "<none>"), _Column("Port(s)", ports), ages.column()]
    if key == "PersistentVolumeClaim":
        return _claim_columns(ages)
    if key in ("ConfigMap", "Secret"):
        return [_NAME, _Column("Data", lambda o, now: len(o.get("data") or {}) + len(o.get("binaryData") or {}),
                               type_="integer"), ages.column()]
    if key == "PriorityClass.scheduling.k8s.io":
        return [_NAME, _Column("Value", lambda o, now: o.get("value"), type_="integer"),
                _Column("Global-Default", lambda o, now: bool(o.get("globalDefault")), type_="boolean"),
                ages.column(), _Column("Preemption-Policy", lambda o, now: o.get("preemptionPolicy")
                                       or "PreemptLowerPriority")]
    if key in ("MutatingWebhookConfiguration.admissionregistration.k8s.io",
               "ValidatingWebhookConfiguration.admissionregistration.k8s.io"):
        return [_NAME, _Column("Webhooks", lambda o, now: len(o.get("webhooks") or ()), type_="integer"),
                ages.column()]
    if key == "Event":
        def involved(o: Any, now: int) -> str:
            inv = o.get("involvedObject") or {}
            return f"{str(inv.get('kind', '')).lower()}/{inv.get('name', '')}"
        return [_Column("Last Seen", lambda o, now: ages.of(o.get("lastTimestamp") or o.get("eventTime")
                                                            or get(o, ".metadata.creationTimestamp"), now)),
                _Column("Type", lambda o, now: o.get("type")), _Column("Reason", lambda o, now: o.get("reason")),
                _Column("Object", involved), _Column("Message", lambda o, now: o.get("message")),
                _Column("First Seen", lambda o, now: ages.of(o.get("firstTimestamp"), now), priority=1),
                _Column("Count", lambda o, now: o.get("count") or 1, type_="integer", priority=1),
                _Column("Name", lambda o, now: o["metadata"]["name"], priority=1)]
    return None


def _columns(info: KindInfo, clock: Clock) -> list[_Column]:
    ages = _Ages(clock)
    crd = _CRD_COLUMNS.get(info.key)
    if crd is not None:
        return _crd_columns(crd, ages)
    return _builtin_columns(info.key, ages) or [_NAME, ages.column()]


def _row_object(obj: Any, include: str) -> Any:
    if include == "None":
        return None
    if include == "Object":
        return obj
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj["metadata"]}


def to_table(info: KindInfo, objects: Sequence[Any], clock: Clock, *, metadata: dict[str, Any] | None = None,
             include_object: str = "Metadata") -> dict[str, Any]:
    """A ``meta.k8s.io/v1`` Table of ``objects`` (all of kind ``info``) as kubectl prints them."""
    columns = _columns(info, clock)
    now = clock.now_ms
    rows = []
    for obj in objects:
        row: dict[str, Any] = {"cells": [col.cell(obj, now) for col in columns]}
        ref = _row_object(obj, include_object)
        if ref is not None:
            row["object"] = ref
        rows.append(row)
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": metadata or {},
            "columnDefinitions": [col.definition for col in columns], "rows": rows}
