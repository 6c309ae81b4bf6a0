"""FakeCluster: every component of a Volcano cluster wired on one simulated clock.

``FakeCluster`` is the public facade tests and scenarios use. It speaks kubectl's verbs
(``apply``, ``get``, ``list``, ``update``, ``patch``, ``delete``, ``wait_for``) and moves
simulated time only when asked (``run``, ``run_until``, ``wait_for``):

>>> from volcano.testbed import FakeCluster
>>> c = FakeCluster(seed=0)
>>> nodes = c.add_nodes(2, cpu="8", memory="16Gi")
>>> job = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "demo"},
...        "spec": {"minAvailable": 2, "schedulerName": "volcano", "tasks": [{
...            "name": "worker", "replicas": 2, "template": {
...                "metadata": {"annotations": {"sim.volcano.sh/duration": "30s"}},
...                "spec": {"restartPolicy": "Never", "containers": [{
...                    "name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}}}]}}
>>> [created] = c.apply(job)
>>> c.podgroup_of("demo")["spec"]["minMember"]
2
>>> done = c.wait_for("vcjob", "demo", jsonpath="{.status.state.phase}=Completed", timeout=600)
>>> done["status"]["state"]["phase"], c.now
('Completed', 33.0)

It owns one ``SimClock``, one ``RandomStreams`` (from ``seed``), one ``Trace``,
the in-memory ``ApiServer`` (also exposed as ``client``), the shared
``InformerFactory`` and the ``SimKubelet``. A new cluster has namespace
``default`` and the queues ``root`` and ``default`` (weight 1, state Open),
as Volcano's scheduler creates them at start-up.

Kinds are named as kubectl names them: a bare ``Job`` is Volcano's
``batch.volcano.sh`` Job, ``Job.batch`` Kubernetes' batch/v1 Job. For
cluster-scoped kinds (Node, Queue, ...) the namespace argument is ignored.
Objects returned are the store's read-only objects (``volcano.api.frozen``).
"""

from __future__ import annotations

import linecache
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from volcano.admission import install_admission
from volcano.api.frozen import thaw
from volcano.api.jsonpath import wait_check
from volcano.api.kinds import KindInfo, UnknownKindError, kind_for_object, resolve_kind
from volcano.api.manifest import load_manifests
from volcano.api.nodes import simulated_node
from volcano.api.selectors import label_selector_from_dict
from volcano.apiserver import ApiError, ApiServer, EventRecorder
from volcano.apiserver.faults import FaultPlan, FaultyClient
from volcano.apiserver.leases import EVENT_TTL_S
from volcano.apiserver.patchmeta import is_custom_resource
from volcano.apiserver.podlog import pod_log
from volcano.apiserver.scale import get_scale, patch_scale
from volcano.apiserver.threeway import (
    LAST_APPLIED,
    ApplyPatchError,
    kubectl_apply_patch,
    last_applied_configuration,
)
from volcano.controllers import CONTROLLERS
from volcano.informers import InformerFactory
from volcano.informers.retry import RetryingClient
from volcano.kubelet import KubeletConfig, SimKubelet
from volcano.kubelet.annotation_check import install_sim_annotation_check
from volcano.scheduler import DefaultScheduler, Scheduler, load_scheduler_conf
from volcano.sim import RandomStreams, SimClock, Trace
from volcano.sim.collector import YOUNG_GC_THRESHOLD, fewer_collections

__all__ = ["YOUNG_GC_THRESHOLD", "FakeCluster", "FaultPlan"]

_Objects = list[dict[str, Any]]

def _ms(seconds: float, what: str) -> int:
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds != seconds or seconds < 0:
        raise ValueError(f"{what} must be a number of seconds >= 0, got {seconds!r}")
    return round(seconds * 1000)


def _predicate_name(predicate: Callable[..., Any]) -> str:
    """A readable name for a predicate: its qualified name, or a lambda's source line."""
    name = getattr(predicate, "__qualname__", None) or getattr(predicate, "__name__", None)
    if name and "<lambda>" not in name:
        return name
    code = getattr(predicate, "__code__", None)
    if code is None:
        return repr(predicate)
    try:
        line = linecache.getline(code.co_filename, code.co_firstlineno).strip()
    except Exception:
        line = ""
    start = line.find("lambda")
    where = f"{Path(code.co_filename).name}:{code.co_firstlineno}"
    return f"`{line[start:]}` ({where})" if start >= 0 else f"the lambda at {where}"


class FakeCluster:
    """A deterministic in-memory Volcano cluster (see the module docstring).

    ``scheduler_conf`` is Volcano scheduler-configuration YAML text or a path to
    it; None means Volcano's built-in default. ``kubelet`` tunes the simulated
    kubelet's timings. ``faults`` injects seeded faults between the components and
    the API server (``volcano.apiserver.faults``); ``self.faults.stats`` counts them.
    ``clock`` (default: a new ``SimClock`` at the simulation epoch) is for
    ``volcano serve``, whose clock is paced in real time. While ``apply``, ``run`` and
    friends run the cluster, the cyclic garbage collector's young threshold is raised to
    ``gc_threshold`` (``YOUNG_GC_THRESHOLD``; None leaves the collector alone), and restored after.
    ``event_ttl_s`` is the API server's ``--event-ttl`` (one hour; None keeps every Event).
    """

    def __init__(self, seed: int = 0, scheduler_conf: str | Path | None = None, *,
                 kubelet: KubeletConfig | None = None, faults: FaultPlan | None = None,
                 clock: SimClock | None = None, gc_threshold: int | None = YOUNG_GC_THRESHOLD,
                 event_ttl_s: int | None = EVENT_TTL_S) -> None:
        self.seed = int(seed)
        self.gc_threshold = gc_threshold
        self.scheduler_conf = scheduler_conf
        self.scheduler_config = None if scheduler_conf is None else load_scheduler_conf(scheduler_conf)
        self.clock = clock if clock is not None else SimClock()
        """The cluster's clock; ``volcano serve`` passes one whose epoch is its start time."""
        self.streams = RandomStreams(self.seed)
        self.trace = Trace()
        self.server = ApiServer(self.clock, self.streams, trace=self.trace, event_ttl_s=event_ttl_s)
        self.faults = None if faults is None else FaultyClient(self.server, faults, self.clock, self.streams)
        # With faults, components reach the server through client-go's own retries (RetryingClient).
        self.client = self.server if self.faults is None else RetryingClient(self.faults)
        self.informers = InformerFactory(self.client, self.clock)
        self.informers.unusable.reporter = self._report_unusable
        self._recorders: dict[str, EventRecorder] = {}
        self._node_seq = 0
        self._driving = False
        self._prefix_seq: dict[str, int] = {}
        self.kubelet = SimKubelet(self.client, self.informers, self.clock, self.streams, self.trace,
                                  kubelet or KubeletConfig(), recorder=self.recorder_for("kubelet"))
        self._start_components()

    # ------------------------------------------------------------------ wiring

    def _start_components(self) -> None:
        """Install and start every component, in this order (each may rely on the previous):

        1. admission rules (``volcano.admission.install_admission(self.server)``), so that
           every later write, including the bootstrap queues, is admitted;
        2. controllers (job, podgroup, queue, garbage collection...), each ``X(...).start()``;
        3. the simulated kubelet;
        4. the Volcano scheduler (``self.scheduler_conf``) and the default scheduler.

        The bootstrap queues are created (and opened) before the scheduler starts, so a new
        cluster has them in state Open at once.
        """
        install_admission(self.server)
        install_sim_annotation_check(self.server.admission)
        self.controllers = [cls(self.client, self.informers, self.clock, streams=self.streams, trace=self.trace,
                                recorder=self.recorder_for(component))
                            for cls, component in CONTROLLERS]
        for controller in self.controllers:
            controller.start()
        self.kubelet.start()
        self._bootstrap_queues()
        self.scheduler = Scheduler(self.client, self.informers, self.clock, conf=self.scheduler_config,
                                   streams=self.streams, trace=self.trace, recorder=self.recorder_for("volcano"))
        self.default_scheduler = DefaultScheduler(self.client, self.informers, self.clock, trace=self.trace,
                                                  recorder=self.recorder_for("default-scheduler"))
        self.scheduler.start()
        self.default_scheduler.start()

    def _bootstrap_queues(self) -> None:
        """Queues ``root`` and ``default`` in state Open, as Volcano's scheduler creates them
        (``root``: weight 1, not reclaimable, no parent; ``default``: weight 1, reclaimable)."""
        for name, reclaimable in (("root", False), ("default", True)):
            try:
                self.server.get("Queue", name)
                continue
            except ApiError as err:
                if err.code != 404:
                    raise
            self.server.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                                "metadata": {"name": name},
                                "spec": {"weight": 1, "reclaimable": reclaimable}})
            self.server.patch("Queue", name, {"status": {"state": "Open"}}, subresource="status")

    def _report_unusable(self, component: str, obj: Mapping[str, Any], message: str) -> None:
        """A component skipped an object it cannot use: a Warning Event on the object."""
        self.recorder_for(component).event(dict(obj), "Warning", "InvalidObject", message)

    def recorder_for(self, component: str) -> EventRecorder:
        """The event recorder of ``component`` (one per component, shared)."""
        recorder = self._recorders.get(component)
        if recorder is None:
            recorder = self._recorders[component] = EventRecorder(self.client, self.clock, component)
        return recorder

    # ------------------------------------------------------------------ nodes

    def add_node(self, name: str, cpu: str | int | float = "4", memory: str | int = "8Gi", pods: int = 110,
                 gpu: int = 0, labels: Mapping[str, str] | None = None,
                 taints: Iterable[Mapping[str, Any] | str] | None = None,
                 ephemeral_storage: str | None = "100Gi") -> dict[str, Any]:
        """Create a Ready node with capacity = allocatable = the given resources
        (``gpu`` > 0 adds ``nvidia.com/gpu``; every real node also reports
        ``ephemeral-storage``, None leaves it out). ``labels`` add to
        ``kubernetes.io/hostname`` and friends; ``taints`` are dicts or
        ``key[=value]:Effect`` strings. Returns the node."""
        node = simulated_node(name, cpu=cpu, memory=memory, pods=pods, gpu=gpu, labels=labels, taints=taints,
                              ephemeral_storage=ephemeral_storage, seq=self._node_seq, now=self.server.timestamp())
        created = self.server.create(node)
        self._node_seq += 1
        return created

    def add_nodes(self, count: int, prefix: str = "node-", **kwargs: Any) -> _Objects:
        """``count`` nodes named ``<prefix>0``, ``<prefix>1``, ... (numbering continues across
        calls with the same prefix); keywords as ``add_node``."""
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"count: must be an integer >= 0, got {count!r}")
        start = self._prefix_seq.get(prefix, 0)
        self._prefix_seq[prefix] = start + count
        return [self.add_node(f"{prefix}{i}", **kwargs) for i in range(start, start + count)]

    def fail_node(self, name: str) -> None:
        """The node stops responding: NotReady, unreachable taints; its pods are evicted later."""
        self.kubelet.fail_node(name)

    def recover_node(self, name: str) -> None:
        """The node responds again: Ready, taints removed, surviving pods resume."""
        self.kubelet.recover_node(name)

    # ------------------------------------------------------------------ objects

    def apply(self, source: Any) -> _Objects:
        """``kubectl apply`` every object of ``source`` (YAML text, a path, a dict or a list of
        dicts), in order; returns the stored objects.

        Every document is validated (structure and kind) before anything is stored. Documents
        are submitted one at a time, and after each the cluster reacts at the current instant
        (``settle``), in zero simulated time: a Queue and a Job in one
        file work, as the queue controller opens the queue before the Job's admission. An
        absent object is created with kubectl's ``last-applied-configuration`` annotation; a
        present one gets the three-way patch kubectl sends (``volcano.apiserver.threeway``), which
        keeps fields a webhook or the server defaulted and reverts changes made since to fields
        the manifest sets. Re-applying an unchanged manifest of a Volcano kind changes nothing
        (kubectl would send the Job's task list back without its defaults, and validatejob
        denies it: a deliberate difference, see docs/architecture.md); for a built-in kind the
        three-way patch of an unchanged manifest is empty anyway.
        A rejection raises ``ApiError`` (objects applied before it stay, as with kubectl).
        """
        out: _Objects = []
        with fewer_collections(self.gc_threshold):
            docs = load_manifests(source)  # validates structure and kind of every document first
            infos = [kind_for_object(doc) for doc in docs]
            for doc, info in zip(docs, infos):
                out.append(self._apply_one(doc, info))
                self._settle_now()  # settle() inside the collector settings this block already holds
        return out

    def _apply_one(self, doc: dict[str, Any], info: KindInfo) -> dict[str, Any]:
        # ``doc`` is load_manifests' plain copy, ours alone: it is edited and handed to the server as is.
        manifest = doc
        meta = manifest.setdefault("metadata", {})
        name = meta.get("name")
        if info.namespaced:
            meta["namespace"] = meta.get("namespace") or "default"
        if not name:  # generateName: a new object each time (kubectl create)
            return self.server.create(manifest)
        live = self.server.store.lookup(info, meta["namespace"] if info.namespaced else "", name)
        if live is None:
            value = last_applied_configuration(manifest)  # kubectl's with_last_applied, without its copy
            annotations = meta["annotations"] = dict(meta.get("annotations") or {})
            annotations[LAST_APPLIED] = value
            return self.server.create_owned(manifest)
        last = ((live.get("metadata") or {}).get("annotations") or {}).get(LAST_APPLIED)
        if is_custom_resource(info.key) and last == last_applied_configuration(manifest):
            # Unchanged since the last apply: kubectl's merge patch would send the custom resource's
            # lists back without the webhook's defaults (see docs/architecture.md's differences).
            return live
        try:
            patch = kubectl_apply_patch(live, manifest)
        except ApplyPatchError as err:
            raise ApiError(400, "BadRequest", f"{info.kind} {name!r}: {err}") from None
        if not patch.changed:
            return live
        return self.server.patch(info.key, name, patch.patch, meta.get("namespace"), patch_type=patch.patch_type)

    def update(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """Replace the object with ``obj`` (``kubectl replace``, an HTTP PUT): kind and name from
        ``obj``, namespace ``default`` when it has none; a ``metadata.resourceVersion`` it carries
        must be current (409 Conflict otherwise). ``status`` is kept for kinds with a status
        subresource. Returns the stored object once the cluster has reacted at this instant."""
        new = thaw(obj)
        if not isinstance(new, dict):
            raise ValueError(f"update: expected an object (a mapping), got {type(obj).__name__}")
        try:
            info = kind_for_object(new)
        except UnknownKindError as err:
            raise ApiError(404, "NotFound", str(err)) from None
        meta = new.setdefault("metadata", {})
        if info.namespaced and not meta.get("namespace"):
            meta["namespace"] = "default"
        stored = self.server.update(new)
        self.settle()
        return stored

    def patch(self, kind: str, name: str, patch: Any, namespace: str = "default", *,
              patch_type: str | None = None, subresource: str | None = None) -> dict[str, Any]:
        """Patch the object (``kubectl patch``), or its ``status`` with ``subresource="status"``.

        ``patch_type`` is ``merge`` (RFC 7386), ``json`` (RFC 6902 operations), ``strategic`` or
        ``apply`` (server-side apply, field manager ``volcano-testbed``). By default a list of
        operations is ``json``, otherwise ``strategic`` for built-in kinds, as kubectl's default,
        and ``merge`` for custom resources, which refuse strategic patches. Returns the patched
        object once the cluster has reacted at this instant."""
        info = self._kind(kind)
        if patch_type is None:
            patch_type = "json" if isinstance(patch, list) else "merge" if is_custom_resource(info.key) else "strategic"
        ns = namespace if info.namespaced else None
        manager = "volcano-testbed" if patch_type == "apply" else None
        stored = self.server.patch(info.key, name, patch, ns, patch_type=patch_type, subresource=subresource,
                                   field_manager=manager)
        self.settle()
        return stored

    def get(self, kind: str, name: str, namespace: str = "default") -> dict[str, Any]:
        """The stored object (read-only); ApiError NotFound when absent."""
        info = self._kind(kind)
        return self.server.get(info.key, name, namespace if info.namespaced else None)

    def list(self, kind: str, namespace: str | None = None,
             label_selector: str | Mapping[str, Any] | None = None) -> _Objects:
        """Objects of ``kind`` (all namespaces when ``namespace`` is None), sorted by namespace
        and name. ``label_selector`` is the string form (``app=x,tier!=db``) or a selector
        mapping (``matchLabels`` / ``matchExpressions``)."""
        info = self._kind(kind)
        ns = namespace if info.namespaced else None
        if label_selector is None or isinstance(label_selector, str):
            return list(self.server.list(info.key, ns, label_selector=label_selector or None)["items"])
        selector = label_selector_from_dict(label_selector)
        return [obj for obj in self.server.list(info.key, ns)["items"]
                if selector.matches((obj.get("metadata") or {}).get("labels"))]

    def delete(self, kind: str, name: str, namespace: str = "default") -> None:
        """Delete the object (pods bound to a node terminate gracefully)."""
        info = self._kind(kind)
        self.server.delete(info.key, name, namespace if info.namespaced else None)

    def evict(self, pod_name: str, namespace: str = "default") -> None:
        """Evict a pod through the ``pods/eviction`` subresource."""
        self.server.evict(pod_name, namespace)

    def scale(self, kind: str, name: str, namespace: str = "default", replicas: int | None = None) -> dict[str, Any]:
        """The ``scale`` subresource of a workload (an ``autoscaling/v1 Scale``); with ``replicas``,
        ``kubectl scale``'s merge patch of it first, returning the answer (ApiError as the API refuses)."""
        if replicas is None:
            return get_scale(self.server, kind, name, namespace)
        return patch_scale(self.server, kind, name, namespace, {"spec": {"replicas": replicas}})

    def logs(self, pod: str, namespace: str = "default", **options: Any) -> str:
        """``kubectl logs``: the ``pods/log`` text of ``pod`` (options as ``volcano.apiserver.podlog.pod_log``)."""
        return pod_log(self.server.get("Pod", pod, namespace), self.clock, **options)

    def podgroup_of(self, job: str | Mapping[str, Any], namespace: str = "default") -> dict[str, Any]:
        """The PodGroup of a Volcano Job (``job``: its name or the Job object). The Job controller
        names it ``<job>-<job uid>``; ApiError NotFound while the Job or its PodGroup is absent."""
        if isinstance(job, Mapping):
            meta = job.get("metadata") or {}
            name, namespace, uid = meta.get("name"), meta.get("namespace") or namespace, meta.get("uid")
        else:
            name, uid = job, None
        if not isinstance(name, str) or not name:
            raise ValueError(f"job: expected a Job name or a Job object with metadata.name, got {job!r}")
        if not uid:
            uid = self.get("Job", str(name), namespace)["metadata"]["uid"]
        return self.get("PodGroup", f"{name}-{uid}", namespace)

    def events(self, kind: str | None = None, name: str | None = None,
               namespace: str | None = None) -> _Objects:
        """Event objects whose involvedObject matches every given filter, oldest first."""
        info = self._kind(kind) if kind is not None else None
        out = []
        for event in self.server.list("Event")["items"]:
            involved = event.get("involvedObject") or {}
            if info is not None:
                if involved.get("kind") != info.kind:
                    continue
                api_version = involved.get("apiVersion")
                if api_version and api_version != info.api_version:
                    continue
            if name is not None and involved.get("name") != name:
                continue
            if namespace is not None and (involved.get("namespace") or "") != namespace:
                continue
            out.append(event)
        out.sort(key=lambda e: (e.get("firstTimestamp") or e.get("eventTime") or "",
                                int((e.get("metadata") or {}).get("resourceVersion") or 0)))
        return out

    @staticmethod
    def _kind(kind: str) -> KindInfo:
        """The kind as kubectl names it (``Pod``, ``pods``, ``po``, ``vcjob``, ``Job.batch``, ...);
        ApiError NotFound naming it when the cluster does not serve it."""
        if not isinstance(kind, str):
            raise ValueError(f"kind: expected a kind name such as 'Pod' or 'vcjob', got {kind!r}")
        try:
            return resolve_kind(kind)
        except UnknownKindError as err:
            raise ApiError(404, "NotFound", str(err)) from None

    # ------------------------------------------------------------------ time

    @property
    def now(self) -> float:
        """Simulated seconds since the cluster started."""
        return self.clock.now_ms / 1000.0

    def settle(self) -> None:
        """Run what is due at the current instant (watch deliveries and the components'
        reactions to them) without advancing time. ``apply``, ``update`` and ``patch`` call it;
        it does nothing while the clock is already running (a write from a clock callback or
        a ``run_until`` predicate)."""
        if self._work_due_now():
            with fewer_collections(self.gc_threshold):
                self._settle_now()

    def _work_due_now(self) -> bool:
        """Something is due at the current instant and the clock is not already running."""
        nxt = self.clock.next_time()
        return not self._driving and nxt is not None and nxt <= self.clock.now_ms

    def _settle_now(self) -> None:
        """``settle`` without entering the collector settings (for a caller already within them)."""
        if not self._work_due_now():
            return
        self._driving = True
        try:
            self.clock.run(self.clock.now_ms)
        finally:
            self._driving = False

    def run(self, seconds: float) -> None:
        """Advance simulated time by ``seconds``, every component running."""
        until = self.clock.now_ms + _ms(seconds, "seconds")
        self._driving = True
        try:
            with fewer_collections(self.gc_threshold):
                self.clock.run(until)
        finally:
            self._driving = False

    def run_until(self, predicate: Callable[[FakeCluster], bool], timeout: float = 600) -> float:
        """Run until ``predicate(self)`` holds; return the simulated time (s) it first held.

        The predicate is checked now and after all work of each simulated millisecond.
        ``TimeoutError`` (naming the predicate) when it still fails ``timeout`` seconds on.
        """
        timeout_ms = _ms(timeout, "timeout")
        self._driving = True
        try:
            with fewer_collections(self.gc_threshold):
                self.clock.run_until(lambda: predicate(self), timeout_ms)
        except TimeoutError:
            raise TimeoutError(f"run_until: {_predicate_name(predicate)} still false after {timeout} "
                               f"simulated seconds (at t={self.now:.3f}s)") from None
        finally:
            self._driving = False
        return self.now

    def wait_for(self, kind: str, name: str, namespace: str = "default", *, jsonpath: str | None = None,
                 condition: str | None = None, delete: bool = False, timeout: float = 600) -> dict[str, Any]:
        """Run until the object meets one condition, as ``kubectl wait --for=...`` does; return the
        object at the first instant it did (``{}`` for ``delete``).

        * ``jsonpath="{.status.state.phase}=Running"``: the expression selects exactly that value
          (the braces are optional; without ``=value``: selects anything);
        * ``condition="Ready"`` or ``"Ready=False"``: an entry of ``status.conditions`` with that
          ``type`` (case-insensitive) has that ``status`` (default ``True``);
        * ``delete=True``: the object is gone.

        An object that does not exist yet is waited for. ``TimeoutError`` after ``timeout``
        simulated seconds says what was awaited and what was seen last.
        """
        info = self._kind(kind)
        ns = namespace if info.namespaced else None
        check = wait_check(jsonpath=jsonpath, condition=condition, delete=delete)
        what = (f"{info.kind} {ns + '/' if ns else ''}{name} "
                f"{'deleted' if delete else f'jsonpath={jsonpath}' if jsonpath else f'condition={condition}'}")
        seen: list[Any] = [None, "object not found"]

        def met(_c: FakeCluster) -> bool:
            try:
                obj = self.server.get(info.key, name, ns)
            except ApiError as err:
                if err.code != 404:
                    raise
                seen[:] = [{}, "object not found"]
                return delete
            ok, seen[1] = check(obj)
            seen[0] = obj
            return ok

        try:
            self.run_until(met, timeout=timeout)
        except TimeoutError:
            raise TimeoutError(f"wait_for: timed out after {timeout:g} simulated seconds waiting for {what}; "
                               f"last seen: {seen[1]} (at t={self.now:.3f}s)") from None
        return dict(seen[0] or {}) if delete else seen[0]
