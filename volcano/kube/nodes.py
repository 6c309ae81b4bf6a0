"""Simulated kubelets for fake nodes on a real control plane (``volcano nodes``), as kwok does.

``SimNodes`` registers ``count`` Node objects named ``<prefix>0`` ...
``<prefix><count-1>`` with the given capacity, a ``Ready`` condition and the
label ``sim.volcano.sh/node-group=<group>``, then keeps them alive as a
kubelet does:

* a Lease per node in ``kube-node-lease`` (holder = the node, 40 s duration,
  owned by the Node), renewed every ``lease_renew_ms`` (10 s, the kubelet's
  default), spread over the interval so that many nodes do not renew at once;
* the ``Ready`` condition's ``lastHeartbeatTime`` refreshed every
  ``status_report_ms`` (the kubelet's ``nodeStatusReportFrequency``: 5 min);
* the pods bound to them run by the simulated kubelet
  (``volcano.kubelet.SimKubelet``, the same code the in-memory cluster runs):
  admission against allocatable, ``Running`` after the start delay, work by
  the ``sim.volcano.sh/*`` annotations on the wall clock, the terminal phase
  and graceful deletion, every status written as a kubelet writes it.

The kubelet sees only this group's nodes (its Node informer lists and watches
with the group's label selector), so pods bound to other nodes (real ones,
or another ``volcano nodes`` process's) are left to their own kubelets. A Node
that exists already (a restart) is taken over: its status is refreshed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from volcano.api.frozen import thaw
from volcano.api.quantity import parse_quantity
from volcano.apiserver.client import Client, Obj, WatchEvent, WatchHandle
from volcano.apiserver.errors import ApiError
from volcano.apiserver.events import EventRecorder
from volcano.informers import InformerFactory
from volcano.kubelet import KubeletConfig, SimKubelet
from volcano.kubelet.status import node_ready_condition
from volcano.sim.clock import Clock, Priority, TimerHandle
from volcano.sim.rand import RandomStreams

__all__ = ["GROUP_LABEL", "NodeGroupClient", "SimNodes", "node_manifest"]

GROUP_LABEL = "sim.volcano.sh/node-group"
"""Label naming the ``volcano nodes`` group a simulated node belongs to."""

LEASE_NAMESPACE = "kube-node-lease"
LEASE_DURATION_S = 40

_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def group_of(prefix: str) -> str:
    """The node-group label value of a name prefix (``node-`` -> ``node``)."""
    value = re.sub(r"[^A-Za-z0-9_.-]", "-", prefix).strip("-_.")[:63].strip("-_.")
    return value or "sim"


def node_manifest(name: str, *, cpu: str, memory: str, gpu: int, pods: int, group: str, now: str,
                  index: int, labels: Mapping[str, str] | None = None,
                  taints: Sequence[Mapping[str, Any]] = ()) -> Obj:
    """The Node a simulated kubelet registers: capacity = allocatable, Ready, addresses, node info,
    ``labels`` added to the standard ones, ``taints`` in its spec."""
    capacity = {"cpu": cpu, "memory": memory, "pods": str(pods), "ephemeral-storage": "100Gi"}
    if gpu:
        capacity["nvidia.com/gpu"] = str(gpu)
    host = index + 2
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                                              "kubernetes.io/arch": "amd64", "type": "simulated",
                                              **dict(labels or {}), GROUP_LABEL: group}},
        "spec": {"taints": [dict(t) for t in taints]} if taints else {},
        "status": {
            "capacity": dict(capacity), "allocatable": dict(capacity),
            "conditions": [node_ready_condition(True, now)],
            "addresses": [{"type": "InternalIP", "address": f"10.{200 + host // 65536 % 50}.{host // 256 % 256}."
                                                            f"{host % 256}"},
                          {"type": "Hostname", "address": name}],
            "nodeInfo": {"kubeletVersion": "v1.32.0-volcano-sim", "kubeProxyVersion": "", "operatingSystem": "linux",
                         "architecture": "amd64", "osImage": "volcano simulated node",
                         "containerRuntimeVersion": "sim://1.0", "kernelVersion": "", "machineID": "",
                         "systemUUID": "", "bootID": ""},
            "phase": "Running",
        },
    }


class NodeGroupClient:
    """A ``Client`` view whose Node lists and watches carry the group's label selector (all else forwarded)."""

    def __init__(self, client: Any, selector: str) -> None:
        self._client = client
        self.selector = selector

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def list(self, kind: str, namespace: str | None = None, *, label_selector: str | None = None,
             field_selector: str | None = None) -> Obj:
        """``Client.list``; Nodes only of the group."""
        if kind == "Node":
            label_selector = self.selector if not label_selector else f"{label_selector},{self.selector}"
        out: Obj = self._client.list(kind, namespace, label_selector=label_selector, field_selector=field_selector)
        return out

    def watch(self, kind: str, handler: Callable[[WatchEvent], None], namespace: str | None = None, *,
              resource_version: str | None = None, label_selector: str | None = None,
              field_selector: str | None = None) -> WatchHandle:
        """``Client.watch``; Nodes only of the group."""
        if kind == "Node":
            label_selector = self.selector if not label_selector else f"{label_selector},{self.selector}"
        handle: WatchHandle = self._client.watch(kind, handler, namespace, resource_version=resource_version,
                                                 label_selector=label_selector, field_selector=field_selector)
        return handle


class SimNodes:
    """``count`` simulated nodes and their kubelet on ``client`` (see the module docstring).

    ``recorder`` receives the kubelet's events (default: an ``EventRecorder`` writing at once;
    ``volcano nodes`` passes an ``AsyncEventRecorder``)."""

    def __init__(self, client: Client, clock: Clock, *, count: int, prefix: str = "sim-node-", cpu: str = "8",
                 memory: str = "32Gi", gpu: int = 0, pods: int = 110, seed: int = 0,
                 kubelet: KubeletConfig | None = None, lease_renew_ms: int = 10_000,
                 status_report_ms: int = 300_000, labels: Mapping[str, str] | None = None,
                 taints: Sequence[Mapping[str, Any]] = (), recorder: Any = None) -> None:
        self.check(count=count, prefix=prefix, cpu=cpu, memory=memory, gpu=gpu)
        self.client, self.clock = client, clock
        self.count, self.prefix, self.cpu, self.memory, self.gpu, self.pods = count, prefix, cpu, memory, gpu, pods
        self.group = group_of(prefix)
        self.labels = dict(labels or {})
        self.taints = [dict(t) for t in taints]
        self.lease_renew_ms, self.status_report_ms = lease_renew_ms, status_report_ms
        self.names = [f"{prefix}{i}" for i in range(count)]
        self.scoped = NodeGroupClient(client, f"{GROUP_LABEL}={self.group}")
        self.informers = InformerFactory(self.scoped, clock)
        self.recorder = recorder if recorder is not None else EventRecorder(client, clock, "kubelet")
        self.informers.unusable.reporter = lambda component, obj, message: self.recorder.event(
            dict(obj), "Warning", "InvalidObject", message)
        self.kubelet = SimKubelet(self.scoped, self.informers, clock, RandomStreams(seed), None,
                                  kubelet or KubeletConfig(), recorder=self.recorder)
        self._uids: dict[str, str] = {}
        self._timers: list[TimerHandle] = []
        self.lease_renewals = 0

    @staticmethod
    def check(*, count: int, prefix: str, cpu: str, memory: str, gpu: int) -> None:
        """Refuse meaningless options with a ``ValueError`` naming the flag and the value."""
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"--count {count!r}: must be an integer >= 0")
        for flag, value in (("--cpu", cpu), ("--memory", memory)):
            try:
                if parse_quantity(value) <= 0:
                    raise ValueError("must be positive")
            except ValueError as err:
                raise ValueError(f"{flag} {value!r}: {err}") from None
        if isinstance(gpu, bool) or not isinstance(gpu, int) or gpu < 0:
            raise ValueError(f"--gpu {gpu!r}: must be an integer >= 0")
        if not re.fullmatch(r"[a-z0-9]([-a-z0-9.]*[a-z0-9-])?", prefix or ""):
            raise ValueError(f"--prefix {prefix!r}: node names must be lower-case DNS names "
                             "(letters, digits, '-', '.')")

    def start(self) -> None:
        """Register the nodes and their Leases, start the kubelet and the heartbeats."""
        for index, name in enumerate(self.names):
            self._register(index, name)
            self._renew_lease(name)
        self.kubelet.start()
        for index, name in enumerate(self.names):
            offset = (index * self.lease_renew_ms) // max(1, self.count)
            self._timers.append(self.clock.call_every(self.lease_renew_ms, self._renew_lease, name,
                                                      priority=Priority.KUBELET,
                                                      first_ms=self.clock.now_ms + self.lease_renew_ms + offset))
            self._timers.append(self.clock.call_every(self.status_report_ms, self._report_status, name,
                                                      priority=Priority.KUBELET))

    def stop(self) -> None:
        """Stop the heartbeats and the kubelet's watches (the Node objects stay, as with a real kubelet)."""
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        self.informers.stop()

    def _register(self, index: int, name: str) -> None:
        node = node_manifest(name, cpu=self.cpu, memory=self.memory, gpu=self.gpu, pods=self.pods,
                             group=self.group, now=self.clock.timestamp(), index=index, labels=self.labels,
                             taints=self.taints)
        try:
            created = self.client.create(node)
        except ApiError as err:
            if err.code != 409:
                raise
            current = thaw(self.client.get("Node", name))
            current["metadata"].setdefault("labels", {}).update(node["metadata"]["labels"])
            current["spec"] = {**(current.get("spec") or {}), "taints": node["spec"].get("taints") or []}
            current = thaw(self.client.update(current))
            current["status"] = node["status"]
            created = self.client.update_status(current)
        self._uids[name] = created["metadata"]["uid"]

    def _renew_lease(self, name: str) -> None:
        now = self.clock.micro_timestamp()
        try:
            self.client.patch("Lease", name, {"spec": {"holderIdentity": name, "renewTime": now,
                                                       "leaseDurationSeconds": LEASE_DURATION_S}},
                              LEASE_NAMESPACE)
        except ApiError as err:
            if err.code != 404:
                raise
            owner = {"apiVersion": "v1", "kind": "Node", "name": name, "uid": self._uids.get(name, "")}
            self.client.create({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                                "metadata": {"name": name, "namespace": LEASE_NAMESPACE, "ownerReferences": [owner]},
                                "spec": {"holderIdentity": name, "leaseDurationSeconds": LEASE_DURATION_S,
                                         "renewTime": now}})
        self.lease_renewals += 1

    def _report_status(self, name: str) -> None:
        node = self.informers.informer("Node").get(name)
        if node is None:
            return
        conditions = [thaw(c) for c in (node.get("status") or {}).get("conditions") or () if c.get("type") != "Ready"]
        previous = next((c for c in (node.get("status") or {}).get("conditions") or () if c.get("type") == "Ready"),
                        None)
        conditions.append(node_ready_condition(True, self.clock.timestamp(), previous))
        try:
            self.client.patch("Node", name, {"status": {"conditions": conditions}}, subresource="status")
        except ApiError as err:
            if err.code != 404:
                raise
