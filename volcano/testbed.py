"""FakeCluster: every component of a Volcano cluster wired on one simulated clock.

``FakeCluster`` is the public facade tests and scenarios use::

    c = FakeCluster(seed=0)
    c.add_nodes(4, cpu="8", memory="16Gi")
    c.apply(manifest_yaml)
    c.run_until(lambda c: c.get("Job", "demo")["status"].get("state", {}).get("phase") == "Completed")

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

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from volcano.admission import install_admission
from volcano.api.frozen import thaw
from volcano.api.kinds import KindInfo, UnknownKindError, kind_for_object, resolve_kind
from volcano.api.manifest import load_manifests
from volcano.api.quantity import parse_quantity
from volcano.api.selectors import label_selector_from_dict
from volcano.apiserver import ApiError, ApiServer, EventRecorder
from volcano.apiserver.faults import FaultPlan, FaultyClient
from volcano.controllers import CONTROLLERS
from volcano.informers import InformerFactory
from volcano.informers.retry import RetryingClient
from volcano.kubelet import KubeletConfig, SimKubelet
from volcano.kubelet.annotation_check import install_sim_annotation_check
from volcano.scheduler import DefaultScheduler, Scheduler, load_scheduler_conf
from volcano.sim import RandomStreams, SimClock, Trace

__all__ = ["FakeCluster"]

_Objects = list[dict[str, Any]]

_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_KEEP_ON_UPDATE = ("apiVersion", "kind", "metadata", "status")


def _ms(seconds: float, what: str) -> int:
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds != seconds or seconds < 0:
        raise ValueError(f"{what} must be a number of seconds >= 0, got {seconds!r}")
    return round(seconds * 1000)


def _parse_taint(taint: Any, index: int) -> dict[str, Any]:
    """A taint from a dict (``key``, ``value``, ``effect``) or ``key[=value]:Effect``."""
    where = f"taints[{index}]"
    if isinstance(taint, str):
        head, sep, effect = taint.rpartition(":")
        if not sep or not head:
            raise ValueError(f"{where}: invalid taint {taint!r}: expected 'key[=value]:Effect'")
        key, _, value = head.partition("=")
        out: dict[str, Any] = {"key": key, "effect": effect}
        if value:
            out["value"] = value
    elif isinstance(taint, Mapping):
        out = {k: v for k, v in taint.items()}
    else:
        raise ValueError(f"{where}: invalid taint {taint!r}: expected a mapping or 'key[=value]:Effect'")
    if not out.get("key") or not isinstance(out["key"], str):
        raise ValueError(f"{where}.key: required, got {out.get('key')!r}")
    if out.get("effect") not in _TAINT_EFFECTS:
        raise ValueError(f"{where}.effect: invalid value {out.get('effect')!r}: expected one of "
                         f"{', '.join(_TAINT_EFFECTS)}")
    return out


def _quantity_text(value: Any, what: str) -> str:
    if isinstance(value, bool):
        raise ValueError(f"{what}: invalid quantity {value!r}")
    try:
        if parse_quantity(value) < 0:
            raise ValueError(f"{what}: must not be negative, got {value!r}")
    except ValueError as err:
        raise ValueError(f"{what}: {err}") from None
    return str(value)


def _predicate_name(predicate: Callable[..., Any]) -> str:
    name = getattr(predicate, "__qualname__", None) or getattr(predicate, "__name__", None)
    if not name or "<lambda>" in name:
        return repr(predicate)
    return name


class FakeCluster:
    """A deterministic in-memory Volcano cluster (see the module docstring).

    ``scheduler_conf`` is Volcano scheduler-configuration YAML text or a path to
    it; None means Volcano's built-in default. ``kubelet`` tunes the simulated
    kubelet's timings. ``faults`` injects seeded faults between the components and
    the API server (``volcano.apiserver.faults``); ``self.faults.stats`` counts them.
    ``clock`` (default: a new ``SimClock`` at the simulation epoch) is for
    ``volcano serve``, whose clock is paced in real time.
    """

    def __init__(self, seed: int = 0, scheduler_conf: str | Path | None = None, *,
                 kubelet: KubeletConfig | None = None, faults: FaultPlan | None = None,
                 clock: SimClock | None = None) -> None:
        self.seed = int(seed)
        self.scheduler_conf = scheduler_conf
        self.scheduler_config = None if scheduler_conf is None else load_scheduler_conf(scheduler_conf)
        self.clock = clock if clock is not None else SimClock()
        """The cluster's clock; ``volcano serve`` passes one whose epoch is its start time."""
        self.streams = RandomStreams(self.seed)
        self.trace = Trace()
        self.server = ApiServer(self.clock, self.streams, trace=self.trace)
        self.faults = None if faults is None else FaultyClient(self.server, faults, self.clock, self.streams)
        # With faults, components reach the server through client-go's own retries (RetryingClient).
        self.client = self.server if self.faults is None else RetryingClient(self.faults)
        self.informers = InformerFactory(self.client, self.clock)
        self.informers.unusable.reporter = self._report_unusable
        self._recorders: dict[str, EventRecorder] = {}
        self._node_seq = 0
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
        if not isinstance(name, str) or not name:
            raise ValueError(f"name: a node needs a non-empty name, got {name!r}")
        capacity = {"cpu": _quantity_text(cpu, "cpu"), "memory": _quantity_text(memory, "memory")}
        if isinstance(pods, bool) or not isinstance(pods, int) or pods < 0:
            raise ValueError(f"pods: must be an integer >= 0, got {pods!r}")
        capacity["pods"] = str(pods)
        if isinstance(gpu, bool) or not isinstance(gpu, int) or gpu < 0:
            raise ValueError(f"gpu: must be an integer >= 0, got {gpu!r}")
        if gpu:
            capacity["nvidia.com/gpu"] = str(gpu)
        if ephemeral_storage is not None:
            capacity["ephemeral-storage"] = _quantity_text(ephemeral_storage, "ephemeral_storage")
        node_labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}
        for key, value in (labels or {}).items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise ValueError(f"labels: keys and values must be strings, got {key!r}: {value!r}")
            node_labels[key] = value
        spec: dict[str, Any] = {}
        seq = self._node_seq
        if seq < 48 * 256:
            spec["podCIDR"] = f"10.{64 + seq // 256}.{seq % 256}.0/24"
            spec["podCIDRs"] = [spec["podCIDR"]]
        node_taints = [_parse_taint(t, i) for i, t in enumerate(taints or ())]
        if node_taints:
            spec["taints"] = node_taints
        now = self.server.timestamp()
        host_ip = f"172.{18 + (seq + 2) // 65536}.{((seq + 2) // 256) % 256}.{(seq + 2) % 256}"
        node = {
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": node_labels},
            "spec": spec,
            "status": {
                "capacity": dict(capacity),
                "allocatable": dict(capacity),
                "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                "message": "kubelet is posting ready status",
                                "lastHeartbeatTime": now, "lastTransitionTime": now}],
                "addresses": [{"type": "InternalIP", "address": host_ip}, {"type": "Hostname", "address": name}],
                "nodeInfo": {"kubeletVersion": "v1.32.0", "kubeProxyVersion": "v1.32.0", "operatingSystem": "linux",
                             "architecture": "amd64", "osImage": "volcano simulated node",
                             "containerRuntimeVersion": "sim://1.0", "kernelVersion": "", "machineID": "",
                             "systemUUID": "", "bootID": ""},
                "phase": "Running",
            },
        }
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
        """Create or update (by name) every object of ``source`` (YAML text, a path, a dict
        or a list of dicts), in order; returns the stored objects.

        Every document is validated (structure and kind) before anything is stored. An
        update replaces everything but ``metadata`` and ``status`` of the stored object,
        and its labels and annotations when the manifest has them (a bound Pod keeps its
        ``spec.nodeName``: a Pod's spec is otherwise immutable). A rejection raises
        ``ApiError`` (objects applied before it stay, as with kubectl).
        """
        docs = load_manifests(source)  # validates structure and kind of every document first
        infos = [kind_for_object(doc) for doc in docs]
        out: _Objects = []
        for doc, info in zip(docs, infos):
            out.append(self._apply_one(doc, info))
        return out

    def _apply_one(self, doc: dict[str, Any], info: KindInfo) -> dict[str, Any]:
        meta = doc.get("metadata") or {}
        name = meta.get("name")
        if not name:
            return self.server.create(doc)
        namespace = (meta.get("namespace") or "default") if info.namespaced else None
        try:
            stored = self.server.get(info.key, name, namespace)
        except ApiError as err:
            if err.code != 404:
                raise
            return self.server.create(doc)
        new = thaw(stored)
        for key in list(new):
            if key not in _KEEP_ON_UPDATE and key not in doc:
                del new[key]
        for key, value in doc.items():
            if key not in _KEEP_ON_UPDATE:
                new[key] = thaw(value)
        for field in ("labels", "annotations"):
            if field in meta:
                new["metadata"][field] = thaw(meta[field])
        node = (stored.get("spec") or {}).get("nodeName") if info.key == "Pod" else None
        if node and isinstance(new.get("spec"), dict) and not new["spec"].get("nodeName"):
            new["spec"]["nodeName"] = node  # set by the binding, never by the manifest (as kubectl apply keeps it)
        return self.server.update(new)

    def get(self, kind: str, name: str, namespace: str = "default") -> dict[str, Any]:
        """The stored object (read-only); ApiError NotFound when absent."""
        return self.server.get(kind, name, namespace if self._namespaced(kind) else None)

    def list(self, kind: str, namespace: str | None = None,
             label_selector: str | Mapping[str, Any] | None = None) -> _Objects:
        """Objects of ``kind`` (all namespaces when ``namespace`` is None), sorted by namespace
        and name. ``label_selector`` is the string form (``app=x,tier!=db``) or a selector
        mapping (``matchLabels`` / ``matchExpressions``)."""
        ns = namespace if self._namespaced(kind) else None
        if label_selector is None or isinstance(label_selector, str):
            return list(self.server.list(kind, ns, label_selector=label_selector or None)["items"])
        selector = label_selector_from_dict(label_selector)
        return [obj for obj in self.server.list(kind, ns)["items"]
                if selector.matches((obj.get("metadata") or {}).get("labels"))]

    def delete(self, kind: str, name: str, namespace: str = "default") -> None:
        """Delete the object (pods bound to a node terminate gracefully)."""
        self.server.delete(kind, name, namespace if self._namespaced(kind) else None)

    def evict(self, pod_name: str, namespace: str = "default") -> None:
        """Evict a pod through the ``pods/eviction`` subresource."""
        self.server.evict(pod_name, namespace)

    def events(self, kind: str | None = None, name: str | None = None,
               namespace: str | None = None) -> _Objects:
        """Event objects whose involvedObject matches every given filter, oldest first."""
        info = resolve_kind(kind) if kind is not None else None
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
    def _namespaced(kind: str) -> bool:
        try:
            return resolve_kind(kind).namespaced
        except UnknownKindError:
            return True  # let the server report the unknown kind

    # ------------------------------------------------------------------ time

    @property
    def now(self) -> float:
        """Simulated seconds since the cluster started."""
        return self.clock.now_ms / 1000.0

    def run(self, seconds: float) -> None:
        """Advance simulated time by ``seconds``, every component running."""
        self.clock.run(self.clock.now_ms + _ms(seconds, "seconds"))

    def run_until(self, predicate: Callable[[FakeCluster], bool], timeout: float = 600) -> float:
        """Run until ``predicate(self)`` holds; return the simulated time (s) it first held.

        The predicate is checked now and after all work of each simulated millisecond.
        ``TimeoutError`` (naming the predicate) when it still fails ``timeout`` seconds on.
        """
        try:
            self.clock.run_until(lambda: predicate(self), _ms(timeout, "timeout"))
        except TimeoutError:
            raise TimeoutError(f"run_until: {_predicate_name(predicate)} still false after {timeout} "
                               f"simulated seconds (at t={self.now:.3f}s)") from None
        return self.now
