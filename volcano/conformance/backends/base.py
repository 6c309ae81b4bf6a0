"""The backend-neutral cluster interface every conformance test uses.

A backend gives a test a namespace of its own on a cluster of a known shape,
Kubernetes-level operations, and two kinds of waiting:

* ``wait_until(predicate, timeout)``: the condition must become true within
  ``timeout`` seconds of cluster time (simulated time on the memory backend,
  wall time on a real cluster);
* ``hold(predicate, seconds)``: the condition must stay true for a whole
  window ("stays Pending" means no node is assigned over a stable window, not
  one lucky poll).

Optional capabilities skip the case on a backend that lacks them (as
``fail_node`` does on a real cluster): ``fail_writes`` (and its shorthands
``fail_binds``, ``refuse_deletes``, ``fail_status_writes``) makes the
components' next writes of one object fail, on a cluster built for it (the
case carries ``@pytest.mark.faults``); ``scheduler_metrics`` reads the
scheduler's Prometheus samples.
"""

from __future__ import annotations

import abc
import builtins
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Cluster", "ClusterShape", "ConditionNotMet", "MetricSample", "NodeShape", "WatchRecorder"]

Obj = dict[str, Any]


class ConditionNotMet(AssertionError):
    """A waited-for condition did not hold in time (or stopped holding in a hold window)."""


@dataclass(frozen=True)
class NodeShape:
    """Schedulable capacity of one worker node."""

    cpu: str = "4"
    memory: str = "16Gi"
    pods: int = 110
    gpu: int = 0
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ClusterShape:
    """The worker nodes a test needs. The default mirrors upstream's kind
    setup: one tainted control plane and four untainted workers."""

    workers: int = 4
    node: NodeShape = NodeShape()
    control_plane: bool = True


@dataclass(frozen=True)
class MetricSample:
    """One sample of the scheduler's metrics as exposed: the sample name (a histogram's ``_bucket``,
    ``_count`` and ``_sum`` apart), its labels, its value and its family's type."""

    name: str
    labels: dict[str, str]
    value: float
    type: str


class WatchRecorder:
    """Collects every change to Pods, PodGroups, Nodes, Queues, Volcano Jobs and Events in order,
    as ``(time_seconds, kind, event_type, object)``, for the invariant checks."""

    KINDS = ("Pod", "PodGroup", "Node", "Queue", "Job", "Event")

    def __init__(self) -> None:
        self.history: list[tuple[float, str, str, Obj]] = []

    def record(self, time_s: float, kind: str, event_type: str, obj: Obj) -> None:
        """Append one observed change."""
        self.history.append((time_s, kind, event_type, obj))


class Cluster(abc.ABC):
    """What a conformance test may do with a cluster."""

    backend: str = "abstract"
    gang_window: float = 0.0
    """Cluster seconds over which a gang's binds may be observed apart (see ``lib.invariants``)."""

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self.recorder = WatchRecorder()

    # -- objects ---------------------------------------------------------------------------
    @abc.abstractmethod
    def apply(self, source: str | Obj | list[Obj]) -> builtins.list[Obj]:
        """Create (or update by name) the objects in ``source``; an object without a namespace
        goes to the test namespace. Rejections raise the backend's API error."""

    @abc.abstractmethod
    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj:
        """The object, or raise the backend's NotFound error."""

    def try_get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        """The object, or None when it does not exist."""
        try:
            return self.get(kind, name, namespace)
        except Exception as err:
            if getattr(err, "code", getattr(err, "status", None)) == 404:
                return None
            raise

    @abc.abstractmethod
    def list(self, kind: str, namespace: str | None = None, label_selector: str | None = None) -> builtins.list[Obj]:
        """Objects of ``kind`` (namespace None = the test namespace; ``"*"`` = all namespaces)."""

    @abc.abstractmethod
    def delete(self, kind: str, name: str, namespace: str | None = None,
               propagation_policy: str | None = None, *, dry_run: bool = False) -> None:
        """Delete an object (NotFound is an error); ``dry_run``: ``dryRun=All``, nothing is deleted."""

    @abc.abstractmethod
    def patch(self, kind: str, name: str, patch: Obj | builtins.list[Obj], namespace: str | None = None,
              subresource: str | None = None, *, patch_type: str = "merge", field_manager: str | None = None,
              force: bool | None = None, dry_run: bool = False) -> Obj:
        """Patch the object or one of its subresources (``status``). ``patch_type``: ``merge`` (JSON
        merge patch), ``json`` (RFC 6902 operations), ``strategic`` (strategic merge patch) or
        ``apply`` (server-side apply as ``field_manager``; ``force`` takes over conflicting fields;
        creates the object when absent). ``dry_run``: ``dryRun=All``, nothing is stored."""

    # -- the rest of the API a client meets (chunked lists, dry run, scale, logs) -------------
    @abc.abstractmethod
    def create(self, obj: Obj, *, dry_run: bool = False) -> Obj:
        """POST ``obj`` (no namespace: the test namespace); ``dry_run``: ``dryRun=All``."""

    @abc.abstractmethod
    def list_page(self, kind: str, namespace: str | None = None, *, label_selector: str | None = None,
                  field_selector: str | None = None, limit: int | None = None,
                  continue_: str | None = None) -> Obj:
        """The ``<Kind>List`` as served: ``items`` and the list ``metadata`` (``continue``,
        ``remainingItemCount``) of one chunk when ``limit`` or ``continue_`` is given."""

    @abc.abstractmethod
    def scale(self, kind: str, name: str, namespace: str | None = None, *, replicas: int | None = None) -> Obj:
        """The ``scale`` subresource (an ``autoscaling/v1 Scale``); with ``replicas``, a merge patch of
        its ``spec.replicas`` first (as ``kubectl scale``), returning the answer to it."""

    @abc.abstractmethod
    def pod_log(self, pod: str, namespace: str | None = None, *, container: str | None = None,
                tail_lines: int | None = None, timestamps: bool = False, previous: bool = False,
                limit_bytes: int | None = None) -> str:
        """``pods/log``: the text a container wrote, with the endpoint's query options."""

    @abc.abstractmethod
    def evict(self, pod: str, namespace: str | None = None) -> None:
        """Evict a pod through the ``pods/eviction`` subresource."""

    @abc.abstractmethod
    def events(self, kind: str | None = None, name: str | None = None,
               namespace: str | None = None) -> builtins.list[Obj]:
        """Event objects, filtered by involvedObject kind/name and namespace."""

    # -- nodes -----------------------------------------------------------------------------
    @abc.abstractmethod
    def worker_nodes(self) -> builtins.list[Obj]:
        """Untainted, schedulable nodes (what upstream's sizing helpers count)."""

    @abc.abstractmethod
    def fail_node(self, name: str) -> None:
        """Make a node NotReady (its pods are evicted after the eviction timeout)."""

    @abc.abstractmethod
    def recover_node(self, name: str) -> None:
        """Bring a failed node back."""

    # -- optional: faults and metrics (a backend without them skips the case) ---------------
    def fail_writes(self, verb: str, kind: str, name: str, namespace: str | None = None, *, times: int = 1,
                    code: int = 409) -> None:
        """The components' next ``times`` ``verb`` writes of the object fail with ``code`` (409
        Conflict, 429, 500 or 504; client-go retries 429, 500 and 504 up to 10 times by itself).
        ``verb``: ``create``, ``update``, ``patch``, ``delete``, ``bind``, ``evict`` or ``status`` (a
        status write: an update or patch of ``status``). A case's own requests are never failed.
        Needs a cluster built for it (``@pytest.mark.faults``); skipped elsewhere."""
        import pytest

        pytest.skip("injecting faults needs the control plane's traffic; not available on this backend")

    def fail_binds(self, pod: str, times: int = 1, namespace: str | None = None) -> None:
        """The scheduler's next ``times`` binds of ``pod`` fail (409 Conflict)."""
        self.fail_writes("bind", "Pod", pod, namespace, times=times)

    def refuse_deletes(self, kind: str, name: str, times: int = 1, namespace: str | None = None) -> None:
        """The components' next ``times`` deletes of the object are refused (409 Conflict)."""
        self.fail_writes("delete", kind, name, namespace, times=times)

    def fail_status_writes(self, kind: str, name: str, times: int = 1, namespace: str | None = None) -> None:
        """The components' next ``times`` status writes of the object fail (409 Conflict)."""
        self.fail_writes("status", kind, name, namespace, times=times)

    def scheduler_metrics(self) -> builtins.list[MetricSample]:
        """Every sample the scheduler's metrics registry exposes now (what its ``/metrics`` endpoint
        serves). Skipped on a backend that cannot read them."""
        import pytest

        pytest.skip("reading the scheduler's metrics needs its metrics endpoint; not available on this backend")

    # -- time ------------------------------------------------------------------------------
    @abc.abstractmethod
    def now(self) -> float:
        """Cluster time in seconds."""

    @abc.abstractmethod
    def wait_until(self, predicate: Callable[[], bool], timeout: float = 300.0, what: str = "") -> float:
        """Wait until ``predicate()`` holds; return the time it took. Raise ConditionNotMet."""

    @abc.abstractmethod
    def hold(self, predicate: Callable[[], bool], seconds: float = 30.0, what: str = "") -> None:
        """Assert ``predicate()`` holds continuously for ``seconds``. Raise ConditionNotMet."""

    @abc.abstractmethod
    def sleep(self, seconds: float) -> None:
        """Let cluster time pass (the memory backend advances its simulated clock)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release the backend's resources (stop watches, delete the test namespace)."""

    def recorded_history(self) -> builtins.list[tuple[float, str, str, Obj]]:
        """What the recorder holds once it has every change the cluster committed so far (the time,
        kind, event type and object of each). A backend whose watches lag behind its commits waits
        for them; here the recorder is fed as the changes happen."""
        return self.recorder.history

    # -- convenience -----------------------------------------------------------------------
    def pods(self, label_selector: str | None = None, namespace: str | None = None) -> builtins.list[Obj]:
        """Pods in the test namespace."""
        return self.list("Pod", namespace, label_selector)

    def job_pods(self, job: str, namespace: str | None = None) -> builtins.list[Obj]:
        """Pods of a Volcano Job (label ``volcano.sh/job-name``)."""
        return self.pods(f"volcano.sh/job-name={job}", namespace)

    def names(self, objs: Iterable[Obj]) -> builtins.list[str]:
        """Sorted names of objects."""
        return sorted(o["metadata"]["name"] for o in objs)
