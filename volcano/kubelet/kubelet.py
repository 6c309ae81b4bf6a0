"""The simulated kubelet: one agent that plays the kubelet of every node.

It watches Nodes, Pods and PodGroups through shared informers and drives each
bound pod through the lifecycle a real kubelet reports:

* **Admission.** When it first sees a pod bound to an up node, it checks the
  pod fits: the sum of requests of the pods it already admitted there (not yet
  terminated) plus this one, against the node's allocatable, in Kubernetes'
  order (pod count, cpu, memory, ephemeral-storage, then other resources by
  name). A pod that does not fit is rejected as the real kubelet does: phase
  ``Failed``, reason ``OutOf<resource>``, message ``Pod was rejected: Node
  didn't have enough resource: cpu, requested: 1000, used: 3500, capacity:
  4000`` (cpu in milli-cores, everything else in whole units), and a Warning
  event when a recorder is given. A node with no allocatable at all (a Node
  manifest without status) is treated as unlimited. Malformed
  ``sim.volcano.sh/*`` annotations reject the pod with reason
  ``InvalidSimAnnotation`` and a message naming the annotation and value.
* **Start.** ``start_delay_ms`` later the containers run: phase ``Running``,
  ``startTime``, ``hostIP``/``podIP`` (deterministic), container statuses and
  the ``Initialized``/``ContainersReady``/``Ready`` conditions.
* **Work.** See ``volcano.kubelet.config``. Remaining work is kept exactly in
  integer ms. A ``gang`` pod progresses only while the number of its
  PodGroup's pods whose containers are running, plus those that already
  succeeded, is at least the PodGroup's ``spec.minMember`` (succeeded members
  count so that the longest member of a gang is not stranded by the others
  finishing first). A gang pod whose PodGroup does not exist makes no progress;
  a ``gang`` pod naming no PodGroup progresses alone.
* **Exit.** Exit code 0 gives ``Succeeded`` (container terminated, reason
  ``Completed``), other codes ``Failed`` (reason ``Error``) under
  ``restartPolicy: Never``. Under ``OnFailure`` a non-zero exit, and under
  ``Always`` (the Kubernetes default) any exit, restarts the containers in
  place: ``restartCount`` + 1, ``lastState.terminated`` set, state waiting
  (``CrashLoopBackOff``) for ``start_delay_ms``, then the whole duration runs
  again.
* **Graceful deletion.** A running pod with ``deletionTimestamp`` keeps running
  for its ``deletionGracePeriodSeconds`` (or ``stop_delay_ms`` when that is
  shorter). Then its containers are terminated (exit 137 ``Error`` when the
  grace period ran out, i.e. SIGKILL; exit 0 ``Completed`` when the stop delay
  ended it first, i.e. the workload exited on SIGTERM), the terminal phase is
  written (``Succeeded`` for 0, else ``Failed``) and the pod is deleted with
  grace 0. A deleted pod whose containers had not started yet (or were waiting
  to restart) is deleted with grace 0 at once. If the work ends during the
  grace period, the pod terminates normally and is deleted at once. A later
  DELETE with a shorter grace period brings the kill forward to when the new
  period runs out, counted from that DELETE; a longer one changes nothing.
* **Node failure.** ``fail_node`` stops the node's kubelet: its pods make no
  progress, the node's ``Ready`` condition becomes ``Unknown``
  (``NodeStatusUnknown``) and the ``node.kubernetes.io/unreachable``
  ``NoSchedule``/``NoExecute`` taints are added, as the node lifecycle
  controller does. Each pod is evicted (deleted with grace 0, as if force
  deleted, since its kubelet cannot confirm termination) after its
  ``tolerationSeconds`` for that taint, or ``node_eviction_timeout_ms`` when it
  has no such toleration (never, when it tolerates it without a limit).
  ``recover_node`` restores ``Ready``, removes the taints, resumes surviving
  pods and admits pods bound meanwhile.

All work runs as clock callbacks at ``Priority.KUBELET``; informer handlers
only mark objects dirty. The per-pod stages (admit, start, work, exit, kill)
live in ``volcano.kubelet.stages``; gang progress is kept incrementally by
``volcano.kubelet.gang`` (O(1) per pod unless the gang's answer flips).
Writes go through the client (status merge patches, deletes with a uid
precondition). Trace rows: component ``kubelet``, events
``PodRunning``, ``PodRestarted``, ``PodSucceeded``, ``PodFailed``,
``PodRejected``, ``PodKilled``, ``NodeFailed``, ``NodeRecovered``; component
``node-lifecycle``, event ``PodEvicted``; object ``ns/name``, detail the node.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.api import accessors
from volcano.api.frozen import FrozenDict, thaw
from volcano.api.quantity import QuantityError
from volcano.api.resources import Resources, node_allocatable
from volcano.apiserver.client import Client, Obj
from volcano.informers import GuardedIndex, same_spec
from volcano.kubelet.admit import eviction_delay_ms
from volcano.kubelet.config import KubeletConfig
from volcano.kubelet.gang import GangTable
from volcano.kubelet.stages import PodStages
from volcano.kubelet.state import NodeState, PodStage, PodState
from volcano.kubelet.status import (
    TAINT_UNREACHABLE,
    node_ready_condition,
    unreachable_taints,
)
from volcano.sim import Clock, Priority, RandomStreams, Trace

__all__ = ["SimKubelet"]

_TERMINAL_PHASES = ("Succeeded", "Failed")
_NODE_INDEX = "kubelet/spec.nodeName"
_DICTS = (dict, FrozenDict)


def _pod_key(obj: Mapping[str, Any]) -> str:
    meta = accessors.meta(obj)
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


def _node_of_pod(pod: Obj) -> list[str]:
    node = (pod.get("spec") or {}).get("nodeName")
    return [node] if node else []


_NODE_OF_POD = GuardedIndex(_node_of_pod, same_spec)
"""``_node_of_pod``, not called for a status write (the pod's ``spec`` shared, by identity)."""


class SimKubelet(PodStages):
    """The kubelet of every node of a fake cluster (see the module docstring).

    ``recorder`` (optional, an ``EventRecorder``-like object with
    ``event(obj, type, reason, message)``) receives the kubelet's events.
    Call ``start()`` once; ``fail_node``/``recover_node`` act at once.
    """

    def __init__(self, client: Client, informers: Any, clock: Clock, streams: RandomStreams,
                 trace: Trace | None = None, config: KubeletConfig | None = None, *,
                 recorder: Any = None) -> None:
        self.client = client
        self.informers = informers
        self.clock = clock
        self.streams = streams
        self.trace = trace if trace is not None else Trace(enabled=False)
        self.config = config if config is not None else KubeletConfig()
        self.recorder = recorder
        self._rng = streams.stream("kubelet")
        self._pods: dict[str, PodState] = {}
        self._nodes: dict[str, NodeState] = {}
        self._gangs = GangTable(self._min_member)
        self._dirty_nodes: dict[str, None] = {}
        self._dirty_groups: dict[str, None] = {}
        self._dirty_pods: dict[str, None] = {}
        self._drain_pending = False
        self._ip_seq = 0
        self._started = False
        self._pod_informer: Any = None
        self._node_informer: Any = None
        self._pg_informer: Any = None

    # ------------------------------------------------------------------ wiring

    def start(self) -> None:
        """Subscribe to Nodes, Pods and PodGroups; idempotent."""
        if self._started:
            return
        self._started = True
        self._node_informer = self.informers.informer("Node")
        self._pod_informer = self.informers.informer("Pod")
        self._pg_informer = self.informers.informer("PodGroup")
        self._pod_informer.add_index(_NODE_INDEX, _NODE_OF_POD)
        self._node_informer.add_handler(self._on_node)
        self._pod_informer.add_handler(self._on_pod)
        self._pg_informer.add_handler(self._on_podgroup)

    def _on_node(self, event: str, obj: Obj, old: Obj | None) -> None:
        self._dirty_nodes[accessors.meta(obj).get("name", "")] = None
        self._schedule_drain()

    def _on_pod(self, event: str, obj: Obj, old: Obj | None) -> None:
        meta: Any = obj.get("metadata")  # ``_pod_key`` inlined for the common shape (every pod event)
        key = f"{meta.get('namespace', '')}/{meta.get('name', '')}" if type(meta) in _DICTS else _pod_key(obj)
        if key not in self._pods and not (obj.get("spec") or {}).get("nodeName"):
            return
        self._dirty_pods[key] = None
        self._schedule_drain()

    def _on_podgroup(self, event: str, obj: Obj, old: Obj | None) -> None:
        key = _pod_key(obj)
        if key in self._gangs:
            self._dirty_groups[key] = None
            self._schedule_drain()

    def _schedule_drain(self) -> None:
        if not self._drain_pending:
            self._drain_pending = True
            self.clock.call_later(0, self._drain, priority=Priority.KUBELET)

    def _drain(self) -> None:
        self._drain_pending = False
        nodes, self._dirty_nodes = self._dirty_nodes, {}
        groups, self._dirty_groups = self._dirty_groups, {}
        pods, self._dirty_pods = self._dirty_pods, {}
        for name in nodes:
            self._sync_node(name)
        for gkey in groups:
            self._reevaluate_group(gkey, full=True)
        ordered = []
        for key in pods:
            namespace, _, name = key.partition("/")
            obj = self._pod_informer.get(name, namespace)
            created = accessors.meta(obj).get("creationTimestamp") or "" if obj is not None else ""
            ordered.append((created, key, obj))
        ordered.sort(key=lambda item: (item[0], item[1]))
        for _, key, obj in ordered:
            self._sync_pod(key, obj)

    # ------------------------------------------------------------------ introspection

    def remaining_work_ms(self, namespace: str, name: str) -> int | None:
        """Work (ms) the pod's current container run still has to do; None when the
        kubelet does not run the pod or its work is unbounded."""
        st = self._pods.get(f"{namespace}/{name}")
        if st is None or st.spec is None or st.spec.duration_ms is None:
            return None
        if st.progressing:
            return max(0, st.remaining_ms - (self.clock.now_ms - st.segment_start_ms))
        return st.remaining_ms

    def node_used(self, name: str) -> Resources:
        """Requests of the pods admitted on node ``name`` that have not terminated."""
        node = self._nodes.get(name)
        return node.used if node is not None else Resources()

    # ------------------------------------------------------------------ nodes

    def finish_containers(self, namespace: str, name: str, exit_code: int = 0) -> bool:
        """The pod's main process exits now with ``exit_code`` (for workload simulators whose
        process ends on an outside event, like a Spark driver whose executors finished).

        The exit is handled as if its work had run out: the restart policy decides what
        follows. Returns False when the pod's containers are not running on this kubelet.
        """
        st = self._pods.get(f"{namespace}/{name}")
        if st is None or st.stage is not PodStage.RUNNING:
            return False
        self._stop_progress(st)
        if st.timer is not None:
            st.timer.cancel()
            st.timer = None
        st.progressing = False
        st.remaining_ms = 0
        self._container_exit(st, exit_code)
        return True

    def _node_state(self, obj: Obj) -> NodeState:
        name = accessors.meta(obj)["name"]
        node = self._nodes.get(name)
        if node is None:
            node = NodeState(name)
            self._nodes[name] = node
        try:
            node.allocatable = node_allocatable(obj)
        except QuantityError:
            node.allocatable = Resources()
        status = obj.get("status") or {}
        node.host_ip = next((a.get("address", "") for a in status.get("addresses") or ()
                             if a.get("type") == "InternalIP"), "")
        node.pod_cidr = (obj.get("spec") or {}).get("podCIDR") or ""
        return node

    def _sync_node(self, name: str) -> None:
        obj = self._node_informer.get(name)
        if obj is None:
            self._node_removed(name)
            return
        is_new = name not in self._nodes
        node = self._node_state(obj)
        if is_new and not node.down:
            conditions = (obj.get("status") or {}).get("conditions") or []
            if not any(c.get("type") == "Ready" for c in conditions):
                self._patch_node_status(name, [*map(thaw, conditions),
                                               node_ready_condition(True, self._now())])
        for pod in self._pod_informer.by_index(_NODE_INDEX, name):
            self._dirty_pods[_pod_key(pod)] = None
        if self._dirty_pods:
            self._schedule_drain()

    def _node_removed(self, name: str) -> None:
        node = self._nodes.pop(name, None)
        if node is None:
            return
        for handle in node.eviction_timers:
            handle.cancel()
        for pod in self._pod_informer.by_index(_NODE_INDEX, name):
            self._force_delete(_pod_key(pod), accessors.meta(pod).get("uid"))

    def fail_node(self, name: str) -> None:
        """Stop node ``name``'s kubelet (see the module docstring). Unknown node: ApiError NotFound."""
        obj = self._node_informer.get(name) if self._node_informer is not None else None
        if obj is None:
            obj = self.client.get("Node", name)
        node = self._nodes.get(name) or self._node_state(obj)
        if node.down:
            return
        node.down = True
        now = self._now()
        groups: set[str] = set()
        for key in sorted(node.pods):
            st = node.pods[key]
            self._stop_progress(st)
            for attr in ("timer", "kill_timer"):
                handle = getattr(st, attr)
                if handle is not None:
                    handle.cancel()
                    setattr(st, attr, None)
            st.killing = False
            if st.stage is PodStage.RUNNING and st.group is not None:
                self._gangs.stop(st.group, key)
                groups.add(st.group)
        for gkey in sorted(groups):
            self._reevaluate_group(gkey, full=True)
        conditions = [thaw(c) for c in (obj.get("status") or {}).get("conditions") or ()
                      if c.get("type") != "Ready"]
        previous = next((c for c in (obj.get("status") or {}).get("conditions") or ()
                         if c.get("type") == "Ready"), None)
        self._patch_node_status(name, [*conditions, node_ready_condition(False, now, previous)])
        taints = [thaw(t) for t in (obj.get("spec") or {}).get("taints") or ()
                  if t.get("key") != TAINT_UNREACHABLE]
        self._patch(self.client.patch, "Node", name, {"spec": {"taints": taints + unreachable_taints(now)}}, None)
        self.trace.record(self.clock.now_ms, "kubelet", "NodeFailed", name, "")
        pods = sorted(self._pod_informer.by_index(_NODE_INDEX, name), key=_pod_key)
        for pod in pods:
            if ((pod.get("status") or {}).get("phase")) in _TERMINAL_PHASES:
                continue
            delay = eviction_delay_ms(pod, self.config.node_eviction_timeout_ms)
            if delay is None:
                continue
            handle = self.clock.call_later(delay, self._evict, name, _pod_key(pod), accessors.meta(pod).get("uid"),
                                           priority=Priority.CONTROLLER)
            node.eviction_timers.append(handle)

    def _evict(self, node_name: str, key: str, uid: str | None) -> None:
        node = self._nodes.get(node_name)
        if node is None or not node.down:
            return
        namespace, _, name = key.partition("/")
        if self.recorder is not None:
            pod = self._pod_informer.get(name, namespace)
            if pod is not None:
                self.recorder.event(pod, "Normal", "TaintManagerEviction", f"Marking for deletion Pod {key}")
        self.trace.record(self.clock.now_ms, "node-lifecycle", "PodEvicted", key, node_name)
        self._force_delete(key, uid)

    def recover_node(self, name: str) -> None:
        """Restart node ``name``'s kubelet (see the module docstring). Unknown node: ApiError NotFound."""
        obj = self.client.get("Node", name)
        node = self._nodes.get(name) or self._node_state(obj)
        if not node.down:
            return
        node.down = False
        for handle in node.eviction_timers:
            handle.cancel()
        node.eviction_timers.clear()
        now = self._now()
        conditions = [thaw(c) for c in (obj.get("status") or {}).get("conditions") or ()
                      if c.get("type") != "Ready"]
        self._patch_node_status(name, [*conditions, node_ready_condition(True, now)])
        taints = [thaw(t) for t in (obj.get("spec") or {}).get("taints") or ()
                  if t.get("key") != TAINT_UNREACHABLE]
        self._patch(self.client.patch, "Node", name, {"spec": {"taints": taints or None}}, None)
        self.trace.record(self.clock.now_ms, "kubelet", "NodeRecovered", name, "")
        groups: set[str] = set()
        for key in sorted(node.pods):
            st = node.pods[key]
            if st.stage is PodStage.RUNNING:
                if st.group is not None:
                    self._gangs.start(st.group, key)
                    groups.add(st.group)
                else:
                    self._sync_progress(st)
            elif st.stage in (PodStage.STARTING, PodStage.RESTARTING):
                st.timer = self.clock.call_later(self.config.start_delay_ms, self._start_containers, st,
                                                 priority=Priority.KUBELET)
            self._dirty_pods[key] = None
        for gkey in sorted(groups):
            self._reevaluate_group(gkey, full=True)
        for pod in self._pod_informer.by_index(_NODE_INDEX, name):
            self._dirty_pods[_pod_key(pod)] = None
        self._schedule_drain()

    def _min_member(self, gkey: str) -> int | None:
        """The PodGroup's ``spec.minMember`` (1 when not an integer), None when it does not exist."""
        namespace, _, name = gkey.partition("/")
        pg = self._pg_informer.get(name, namespace)
        if pg is None:
            return None
        value = (pg.get("spec") or {}).get("minMember", 1)
        return int(value) if isinstance(value, int) and not isinstance(value, bool) else 1
