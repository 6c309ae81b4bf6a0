"""predicates plugin: Kubernetes' filters, vectorised over the node table.

Implements the filters the reference names as the faithful minimum (Volcano
wraps kube-scheduler's): NodeUnschedulable, NodeAffinity (nodeSelector and
required node affinity), TaintToleration (NoSchedule/NoExecute), the
pod-number limit, NodePorts, and required InterPodAffinity (affinity,
anti-affinity, and existing pods' anti-affinity). Volume, topology-spread and
DRA filters are not implemented (their enable arguments are accepted and
ignored).

The node-static filters (unschedulable, affinity, taints) depend only on the
task's scheduling signature and the node set, so their verdict is cached per
signature across sessions while the node set is unchanged. Failure reasons
use Kubernetes' messages; unschedulable/affinity/taint/pod-affinity failures
are unresolvable by eviction, pod-number, ports and anti-affinity ones are not.

A task evicted in this session (Releasing through the session's evict event)
leaves the plugin's view, as Volcano's deallocate handler removes the pod from
its node snapshot: it no longer matches (anti-)affinity terms or holds host
ports. Undoing the eviction brings it back. Tasks already Releasing when the
session opens stay in view (their pods still exist).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from volcano.api.selectors import label_selector_from_dict
from volcano.scheduler.framework.model import NodeSpec, TaskInfo, TaskStatus
from volcano.scheduler.framework.plugin import Plugin
from volcano.scheduler.framework.points import PREDICATE, Verdict
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.state import StateKey

__all__ = ["PredicatesPlugin", "node_affinity_matches", "tolerates"]

UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"


def tolerates(tolerations: Sequence[Mapping[str, Any]], taint: Mapping[str, Any]) -> bool:
    """Whether any toleration tolerates ``taint`` (Kubernetes' ToleratesTaint)."""
    for tol in tolerations:
        effect = tol.get("effect") or ""
        if effect and effect != taint.get("effect"):
            continue
        key = tol.get("key") or ""
        op = tol.get("operator") or "Equal"
        if not key:
            if op == "Exists":
                return True
            continue
        if key != taint.get("key"):
            continue
        if op == "Exists" or (tol.get("value") or "") == (taint.get("value") or ""):
            return True
    return False


def _expr_matches(expr: Mapping[str, Any], value: str | None) -> bool:
    op = expr.get("operator")
    values = list(expr.get("values") or [])
    if op == "In":
        return value is not None and value in values
    if op == "NotIn":
        return value is None or value not in values
    if op == "Exists":
        return value is not None
    if op == "DoesNotExist":
        return value is None
    if op in ("Gt", "Lt") and value is not None and values:
        try:
            a, b = int(value), int(values[0])
        except ValueError:
            return False
        return a > b if op == "Gt" else a < b
    return False


def node_affinity_matches(pod_spec: Mapping[str, Any], node: NodeSpec) -> bool:
    """nodeSelector and required node affinity terms (terms ORed, expressions ANDed)."""
    for k, v in (pod_spec.get("nodeSelector") or {}).items():
        if node.labels.get(k) != v:
            return False
    req = ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    if not req:
        return True
    for term in req.get("nodeSelectorTerms") or []:
        exprs = list(term.get("matchExpressions") or [])
        fields = list(term.get("matchFields") or [])
        if not exprs and not fields:
            continue
        if all(_expr_matches(e, node.labels.get(e.get("key", ""))) for e in exprs) and \
                all(_expr_matches(f, node.name if f.get("key") == "metadata.name" else None) for f in fields):
            return True
    return False


STATIC_VERDICTS: StateKey[dict[tuple[bool, bool, str], Verdict]] = StateKey("predicates.static", dict)
"""Node-static verdicts (unschedulable, node affinity, taints) by (affinity on, taints on,
``TaskSpec.static_sig``), kept across sessions while the nodes are unchanged."""


class PredicatesPlugin(Plugin):
    """The vectorised predicate: node-static checks (cached across sessions), pod count,
    resources' host ports, and inter-pod affinity; evicted tasks drop out of view."""

    name = "predicates"
    ARGUMENTS: ClassVar[frozenset[str]] = frozenset({
        "predicate.NodeAffinityEnable", "predicate.NodePortsEnable", "predicate.TaintTolerationEnable",
        "predicate.PodAffinityEnable", "predicate.NodeVolumeLimitsEnable", "predicate.VolumeZoneEnable",
        "predicate.PodTopologySpreadEnable", "predicate.VolumeBindingEnable", "predicate.CacheEnable",
        "predicate.DynamicResourceAllocationEnable", "volumebinding.weight", "volumebinding.bindTimeoutSeconds",
        "volumebinding.shape", "dynamicresources.filterTimeoutSeconds"})

    def open(self, ssn: Session) -> None:
        """Register the vectorised predicate."""
        self.affinity = self.args.get_bool("predicate.NodeAffinityEnable", True)
        self.ports = self.args.get_bool("predicate.NodePortsEnable", True)
        self.taints = self.args.get_bool("predicate.TaintTolerationEnable", True)
        self.pod_affinity = self.args.get_bool("predicate.PodAffinityEnable", True)
        self.ssn = ssn
        # Placed tasks that carry required anti-affinity terms (kept current by event
        # handlers, so the symmetric check does not scan every node for every task).
        # (``with_anti`` 0: no placed task has such terms, the scan would find none.)
        # Only the rows the table counts such tasks on are read (``NodeTable.anti_rows``, in row order).
        nodes = ssn.nodes
        self.anti: dict[str, TaskInfo] = {t.uid: t for row in sorted(ssn.table.anti_rows)
                                          for t in nodes[row].tasks.values() if t.spec.pod_anti_affinity}
        # Uids of tasks evicted in this session (out of view until re-placed).
        self.evicted: set[str] = set()
        ssn.add_fn(PREDICATE, self.predicate, row_local=self._row_local)
        ssn.add_event_handler(allocate=self._placed, deallocate=self._removed)

    def _row_local(self, task: TaskInfo) -> bool:
        """Row-local unless inter-pod affinity applies (the task's own terms, or a
        placed pod's anti-affinity: those look at other nodes' pods)."""
        if not self.pod_affinity:
            return True
        spec = task.spec
        return not (spec.pod_affinity or spec.pod_anti_affinity or self.anti)

    def _placed(self, task: TaskInfo) -> None:
        self.evicted.discard(task.uid)
        if task.spec.pod_anti_affinity:
            self.anti[task.uid] = task

    def _removed(self, task: TaskInfo) -> None:
        if task.status == TaskStatus.Releasing:
            self.evicted.add(task.uid)
        self.anti.pop(task.uid, None)

    def _static(self, task: TaskInfo) -> Verdict:
        key = (self.affinity, self.taints, task.spec.static_sig)
        verdicts = self.ssn.shared.get(STATIC_VERDICTS)
        cached = verdicts.get(key)
        if cached is not None:
            return cached
        nodes = self.ssn.nodes
        v = Verdict(len(nodes))
        spec = task.spec.pod.get("spec") or {}
        tols = task.spec.tolerations
        unsched_taint = {"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule"}
        for node in nodes:
            ns = node.spec
            row = node.row
            if ns.unschedulable and not tolerates(tols, unsched_taint):
                v.codes[row] = v.code_for("node(s) were unschedulable", True)
                continue
            if self.affinity and not node_affinity_matches(spec, ns):
                v.codes[row] = v.code_for("node(s) didn't match Pod's node affinity/selector", True)
                continue
            if self.taints:
                for taint in ns.taints:
                    if taint.get("effect") in ("NoSchedule", "NoExecute") and not tolerates(tols, taint):
                        reason = f"node(s) had untolerated taint {{{taint.get('key', '')}: {taint.get('value', '')}}}"
                        v.codes[row] = v.code_for(reason, True)
                        break
        verdicts[key] = v
        return v

    def predicate(self, task: TaskInfo, rows: npt.NDArray[np.intp] | None = None) -> Verdict:
        """Per-node verdict for ``task`` over every row, or over ``rows`` only (the
        row-local checks; inter-pod affinity needs every row)."""
        table = self.ssn.table
        static = self._static(task)
        v = Verdict(len(table) if rows is None else len(rows))
        v.codes = static.codes.copy() if rows is None else static.codes[rows]
        v.reasons, v.unresolvable = list(static.reasons), list(static.unresolvable)
        if rows is None:
            v.fail(table.pods >= table.max_pods, "node(s) pod number exceeded", False)
        else:
            v.fail(table.pods[rows] >= table.max_pods[rows], "node(s) pod number exceeded", False)
        if self.ports and task.spec.host_ports:
            v.fail(self._port_conflicts(task, rows),
                   "node(s) didn't have free ports for the requested pod ports", False)
        if self.pod_affinity and rows is None:
            self._inter_pod(task, v)
        return v

    def _port_conflicts(self, task: TaskInfo, rows: npt.NDArray[np.intp] | None = None) -> npt.NDArray[np.bool_]:
        want = task.spec.host_ports
        nodes = self.ssn.nodes if rows is None else [self.ssn.nodes[int(r)] for r in rows]
        bad = np.zeros(len(nodes), dtype=np.bool_)
        for i, node in enumerate(nodes):
            for t in node.tasks.values():
                if t is task or t.uid in self.evicted:
                    continue
                for proto, port, ip in t.spec.host_ports:
                    for wp, wport, wip in want:
                        if proto == wp and port == wport and (ip == wip or "0.0.0.0" in (ip, wip)):
                            bad[i] = True
        return bad

    def _domain_mask(self, key: str, rows: set[int]) -> npt.NDArray[np.bool_]:
        """Nodes sharing the ``key`` label value with any of ``rows``."""
        nodes = self.ssn.nodes
        values = {nodes[r].spec.labels.get(key) for r in rows} - {None}
        return np.array([n.spec.labels.get(key) in values for n in nodes], dtype=np.bool_)

    def _matching_rows(self, term: Mapping[str, Any], owner_ns: str, exclude: TaskInfo) -> set[int]:
        sel = label_selector_from_dict(term.get("labelSelector"))
        namespaces = set(term.get("namespaces") or [owner_ns])
        evicted = self.evicted
        rows = set()
        for node in self.ssn.nodes:
            for t in node.tasks.values():
                if t is not exclude and t.uid not in evicted and t.namespace in namespaces \
                        and sel.matches(t.spec.labels):
                    rows.add(node.row)
                    break
        return rows

    def _inter_pod(self, task: TaskInfo, v: Verdict) -> None:
        spec = task.spec
        if not spec.pod_affinity and not spec.pod_anti_affinity and not self.anti:
            return
        nodes = self.ssn.nodes
        for term in spec.pod_affinity:
            key = term.get("topologyKey") or ""
            rows = self._matching_rows(term, spec.namespace, task)
            if not rows:
                sel = label_selector_from_dict(term.get("labelSelector"))
                if sel.matches(spec.labels):
                    continue  # the first pod of a group may go anywhere (Kubernetes' rule)
                v.fail(np.ones(len(nodes), dtype=np.bool_), "node(s) didn't match pod affinity rules", True)
                continue
            has_key = np.array([key in n.spec.labels for n in nodes], dtype=np.bool_)
            v.fail(~(self._domain_mask(key, rows) & has_key), "node(s) didn't match pod affinity rules", True)
        for term in spec.pod_anti_affinity:
            key = term.get("topologyKey") or ""
            rows = self._matching_rows(term, spec.namespace, task)
            if rows:
                v.fail(self._domain_mask(key, rows), "node(s) didn't match pod anti-affinity rules", False)
        keys: list[tuple[str, set[int]]] = []
        by_name = self.ssn.table.by_name
        for _, t in sorted(self.anti.items()):
            host = by_name.get(t.node_name)
            if t is task or host is None:
                continue
            for term in t.spec.pod_anti_affinity:
                sel = label_selector_from_dict(term.get("labelSelector"))
                namespaces = set(term.get("namespaces") or [t.namespace])
                if spec.namespace in namespaces and sel.matches(spec.labels):
                    keys.append((term.get("topologyKey") or "", {host.row}))
        for key, rows in keys:
            v.fail(self._domain_mask(key, rows), "node(s) didn't satisfy existing pods anti-affinity rules", False)
