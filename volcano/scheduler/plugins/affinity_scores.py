"""Kubernetes' NodeAffinity, TaintToleration and InterPodAffinity scores, vectorised over node rows.

The nodeorder plugin (reference §5.7) adds these batch scorers, each
normalised to 0-100 over the nodes being scored and multiplied by its weight:

* **NodeAffinity** (preferred terms): a node's raw score is the sum of the
  weights of the pod's ``preferredDuringSchedulingIgnoredDuringExecution``
  terms it matches (an empty term matches nothing; weight-0 terms are
  ignored); normalised as ``100 * raw // max`` (all 0 when the maximum is 0).
* **TaintToleration**: the raw score counts the node's ``PreferNoSchedule``
  taints that the pod's tolerations with an empty or ``PreferNoSchedule``
  effect do not tolerate; normalised reversed, ``100 - 100 * raw // max``
  (all 100 when no node has such a taint).
* **InterPodAffinity** (preferred terms): every pod already on a node with
  labels contributes, per topology domain, the weight of each of the incoming
  pod's preferred affinity terms it matches (minus it for anti-affinity
  terms), and the weight of each of its own preferred affinity (anti-affinity)
  terms the incoming pod matches. A node scores the sum over topology keys of
  its domain's total; normalised min-max, ``int(100 * (s - min) / (max -
  min))`` (all 0 when equal). When no domain got a score the scorer is skipped
  (contributes 0), as kube-scheduler's PreScore returns Skip. Volcano builds
  the plugin with empty arguments, so ``hardPodAffinityWeight`` is 0 and
  existing pods' required terms add nothing. A term's namespaces are its
  ``namespaces`` list, else the owning pod's namespace; an empty
  ``namespaceSelector`` selects every namespace (a non-empty one is not
  evaluated: namespace labels are not watched here). A term without
  ``labelSelector`` matches no pod.

Node-static parts (label columns, taint groups, the raw node-affinity and
taint scores of a signature) are computed once per node set and kept in the
session's ``shared`` state, so a task is scored without a per-node Python
loop. Pod-affinity work is proportional to the placed pods only when the
incoming pod has preferred pod-affinity terms, else to the placed pods that
carry affinity terms.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from volcano.api.selectors import LabelSelector, label_selector_from_dict
from volcano.scheduler.framework.model import NodeSpec, NodeTable, TaskInfo, TaskSpec
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.state import State, StateKey
from volcano.scheduler.plugins.predicates import tolerates

__all__ = [
    "MAX_NODE_SCORE",
    "AffinityScorers",
    "NodeLabels",
    "PodAffinityScorer",
    "default_normalize",
    "has_pod_affinity",
    "has_preferred_pod_terms",
    "intolerable_prefer_no_schedule",
    "minmax_normalize",
    "preferred_node_affinity",
    "preferred_pod_terms",
]

MAX_NODE_SCORE = 100
IntVec = npt.NDArray[np.int64]
BoolVec = npt.NDArray[np.bool_]
Obj = Mapping[str, Any]


class NodeLabels:
    """Label columns of a node list: per key, an int code per node (-1: label absent)
    and the distinct values; built lazily per key and shared across sessions."""

    def __init__(self, nodes: Sequence[NodeSpec]) -> None:
        self.nodes = nodes
        self._cols: dict[str, tuple[IntVec, list[str]]] = {}
        self.names = {n.name: i for i, n in enumerate(nodes)}

    def __len__(self) -> int:
        return len(self.nodes)

    def column(self, key: str) -> tuple[IntVec, list[str]]:
        """``(codes, values)`` for label ``key``: ``values[codes[row]]`` is the row's value."""
        col = self._cols.get(key)
        if col is None:
            index: dict[str, int] = {}
            codes = np.full(len(self.nodes), -1, dtype=np.int64)
            for row, node in enumerate(self.nodes):
                value = node.labels.get(key)
                if value is not None:
                    codes[row] = index.setdefault(value, len(index))
            col = self._cols[key] = (codes, list(index))
        return col

    def expression(self, expr: Obj) -> BoolVec:
        """Rows matching one node-selector requirement (In, NotIn, Exists, DoesNotExist, Gt, Lt)."""
        codes, values = self.column(str(expr.get("key") or ""))
        op = expr.get("operator")
        wanted = [str(v) for v in expr.get("values") or []]
        if op in ("In", "NotIn"):
            hit = np.array([v in wanted for v in values] + [False], dtype=np.bool_)
            inside = hit[codes]  # code -1 reads the trailing False
            return inside if op == "In" else ~inside
        if op == "Exists":
            return codes >= 0
        if op == "DoesNotExist":
            return codes < 0
        if op in ("Gt", "Lt") and len(wanted) == 1:
            try:
                bound = int(wanted[0])
            except ValueError:
                return np.zeros(len(codes), dtype=np.bool_)
            hit = np.array([_int_cmp(v, bound, op) for v in values] + [False], dtype=np.bool_)
            return hit[codes]
        return np.zeros(len(codes), dtype=np.bool_)

    def term(self, term: Obj) -> BoolVec:
        """Rows matching a NodeSelectorTerm (requirements ANDed; an empty term matches nothing)."""
        exprs = list(term.get("matchExpressions") or [])
        fields = list(term.get("matchFields") or [])
        if not exprs and not fields:
            return np.zeros(len(self.nodes), dtype=np.bool_)
        mask = np.ones(len(self.nodes), dtype=np.bool_)
        for expr in exprs:
            mask &= self.expression(expr)
        for f in fields:
            mask &= self._field(f)
        return mask

    def _field(self, req: Obj) -> BoolVec:
        out = np.zeros(len(self.nodes), dtype=np.bool_)
        if req.get("key") != "metadata.name" or req.get("operator") not in ("In", "NotIn"):
            return out
        for name in req.get("values") or []:
            row = self.names.get(str(name))
            if row is not None:
                out[row] = True
        return out if req.get("operator") == "In" else ~out


def _int_cmp(value: str, bound: int, op: str) -> bool:
    try:
        n = int(value)
    except ValueError:
        return False
    return n > bound if op == "Gt" else n < bound


def _signature(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, default=str)


_NODE_LABELS: StateKey[NodeLabels | None] = StateKey("nodeorder.labels", lambda: None)
"""The label columns of the current node set."""
_NODE_AFFINITY: StateKey[dict[str, IntVec]] = StateKey("nodeorder.nodeaffinity", dict)
"""Raw preferred node-affinity scores by term signature."""
_PREFER_NO_SCHEDULE: StateKey[list[tuple[Obj, BoolVec]] | None] = StateKey(
    "nodeorder.prefer-no-schedule", lambda: None)
"""The node set's distinct PreferNoSchedule taints with the rows carrying each."""
_TAINTS: StateKey[dict[str, IntVec]] = StateKey("nodeorder.taints", dict)
"""Untolerated PreferNoSchedule counts by usable-toleration signature."""


def preferred_node_affinity(labels: NodeLabels, pod: Obj, cache: State) -> IntVec | None:
    """Raw NodeAffinity scores of every node row (sum of matched preferred-term weights),
    or None when the pod has no preferred node-affinity term. Cached by term signature."""
    terms = (((pod.get("spec") or {}).get("affinity") or {}).get("nodeAffinity") or {}).get(
        "preferredDuringSchedulingIgnoredDuringExecution") or []
    if not terms:
        return None
    memo = cache.get(_NODE_AFFINITY)
    key = _signature(terms)
    raw = memo.get(key)
    if raw is None:
        raw = np.zeros(len(labels), dtype=np.int64)
        for term in terms:
            weight = int(term.get("weight") or 0)
            if weight:
                raw += labels.term(term.get("preference") or {}) * weight
        raw.setflags(write=False)
        memo[key] = raw
    return raw


def _prefer_no_schedule_groups(nodes: Sequence[NodeSpec], cache: State) -> list[tuple[Obj, BoolVec]]:
    """Distinct ``PreferNoSchedule`` taints of the node set, each with the rows carrying it."""
    groups = cache.get(_PREFER_NO_SCHEDULE)
    if groups is None:
        found: dict[tuple[str, str], tuple[Obj, BoolVec]] = {}
        for row, node in enumerate(nodes):
            for taint in node.taints:
                if taint.get("effect") != "PreferNoSchedule":
                    continue
                ident = (str(taint.get("key") or ""), str(taint.get("value") or ""))
                if ident not in found:
                    found[ident] = (taint, np.zeros(len(nodes), dtype=np.bool_))
                found[ident][1][row] = True
        groups = [found[k] for k in sorted(found)]
        cache.set(_PREFER_NO_SCHEDULE, groups)
    return list(groups)


def intolerable_prefer_no_schedule(nodes: Sequence[NodeSpec], tolerations: Sequence[Obj],
                                   cache: State) -> IntVec:
    """Per node row, how many ``PreferNoSchedule`` taints ``tolerations`` leave untolerated
    (only tolerations with an empty or ``PreferNoSchedule`` effect count)."""
    usable = [t for t in tolerations if (t.get("effect") or "") in ("", "PreferNoSchedule")]
    memo = cache.get(_TAINTS)
    key = _signature(usable)
    raw = memo.get(key)
    if raw is None:
        raw = np.zeros(len(nodes), dtype=np.int64)
        for taint, rows in _prefer_no_schedule_groups(nodes, cache):
            if not tolerates(usable, taint):
                raw += rows
        raw.setflags(write=False)
        memo[key] = raw
    return raw


def default_normalize(raw: IntVec, reverse: bool = False) -> IntVec:
    """kube-scheduler's DefaultNormalizeScore over the scored nodes."""
    top = int(raw.max()) if len(raw) else 0
    if top == 0:
        return np.full(len(raw), MAX_NODE_SCORE if reverse else 0, dtype=np.int64)
    score = MAX_NODE_SCORE * raw // top
    return MAX_NODE_SCORE - score if reverse else score


def minmax_normalize(raw: IntVec) -> IntVec:
    """InterPodAffinity's NormalizeScore: ``int(100 * (s - min) / (max - min))``, 0 when all equal."""
    if not len(raw):
        return raw
    lo, hi = int(raw.min()), int(raw.max())
    if hi == lo:
        return np.zeros(len(raw), dtype=np.int64)
    return (MAX_NODE_SCORE * ((raw - lo) / (hi - lo))).astype(np.int64)


class _Term:
    """A parsed pod-affinity term: weight, selector, namespaces (None: all), topology key."""

    __slots__ = ("key", "namespaces", "selector", "weight")

    def __init__(self, raw: Obj, owner_namespace: str, weight: int) -> None:
        self.weight = weight
        self.key = str(raw.get("topologyKey") or "")
        sel = raw.get("labelSelector")
        self.selector: LabelSelector | None = None if sel is None else label_selector_from_dict(sel)
        listed = list(raw.get("namespaces") or [])
        ns_sel = raw.get("namespaceSelector")
        if ns_sel is not None and not ns_sel.get("matchLabels") and not ns_sel.get("matchExpressions"):
            self.namespaces: frozenset[str] | None = None
        else:
            self.namespaces = frozenset(listed or [owner_namespace])

    def matches(self, spec: TaskSpec) -> bool:
        """Whether the pod of ``spec`` matches this term."""
        if self.selector is None:
            return False
        if self.namespaces is not None and spec.namespace not in self.namespaces:
            return False
        return self.selector.matches(spec.labels)


def preferred_pod_terms(spec: TaskSpec) -> tuple[list[_Term], list[_Term]]:
    """The pod's preferred (affinity, anti-affinity) terms; weight-0 terms dropped."""
    affinity = (spec.pod.get("spec") or {}).get("affinity") or {}
    out: list[list[_Term]] = []
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = (affinity.get(kind) or {}).get("preferredDuringSchedulingIgnoredDuringExecution") or []
        out.append([_Term(t.get("podAffinityTerm") or {}, spec.namespace, int(t.get("weight") or 0))
                    for t in terms if int(t.get("weight") or 0)])
    return out[0], out[1]


def has_preferred_pod_terms(spec: TaskSpec) -> bool:
    """Whether the pod has preferred pod affinity or anti-affinity terms."""
    if not spec.terms:  # no podAffinity/podAntiAffinity at all (``TaskSpec.terms``): none preferred either
        return False
    affinity = (spec.pod.get("spec") or {}).get("affinity") or {}
    return any((affinity.get(kind) or {}).get("preferredDuringSchedulingIgnoredDuringExecution")
               for kind in ("podAffinity", "podAntiAffinity"))


def has_pod_affinity(spec: TaskSpec) -> bool:
    """Whether the pod carries any pod affinity or anti-affinity (kube-scheduler's PodsWithAffinity)."""
    return spec.terms  # worked out once per pod version


class PodAffinityScorer:
    """InterPodAffinity scores for one session (see the module docstring).

    ``nodes`` are the session's NodeInfo objects (``.row``, ``.tasks``), read
    at scoring time. The placed pods that carry affinity terms are indexed on
    first use and kept current through ``place`` / ``remove`` (the session's
    allocate / deallocate events)."""

    def __init__(self, labels: NodeLabels, nodes: Sequence[Any], table: NodeTable | None = None) -> None:
        self.labels = labels
        self.nodes = nodes
        self.table = table
        """The session's node table, when ``nodes`` are its rows (its ``with_terms`` bound
        spares the scan of a cluster where no placed pod has terms)."""
        self._with_affinity: dict[str, tuple[TaskInfo, int]] | None = None

    def affinity_pool(self) -> dict[str, tuple[TaskInfo, int]]:
        """Placed tasks carrying pod affinity terms, by uid, with their node rows."""
        if self._with_affinity is None:
            if self.table is not None and not self.table.with_terms:
                self._with_affinity = {}  # what the scan below finds
            else:
                self._with_affinity = {t.uid: (t, node.row) for node in self.nodes for t in node.tasks.values()
                                       if t.spec.terms}  # has_pod_affinity, inlined
        return self._with_affinity

    def place(self, task: TaskInfo, row: int) -> None:
        """Record ``task`` placed on node ``row``."""
        if self._with_affinity is not None and has_pod_affinity(task.spec):
            self._with_affinity[task.uid] = (task, row)

    def remove(self, task: TaskInfo) -> None:
        """Forget ``task`` (evicted or unallocated)."""
        if self._with_affinity is not None:
            self._with_affinity.pop(task.uid, None)

    def raw(self, task: TaskInfo) -> IntVec | None:
        """Raw scores of every node row, or None when the scorer is skipped."""
        aff, anti = preferred_pod_terms(task.spec)
        constrained = bool(aff or anti)
        if constrained:
            pool = [(t, node.row) for node in self.nodes for t in node.tasks.values()]
        else:
            index = self.affinity_pool()
            pool = [index[uid] for uid in sorted(index)]
        if not pool:
            return None
        scores: dict[tuple[str, int], int] = {}

        def add(key: str, row: int, amount: int) -> None:
            code = int(self.labels.column(key)[0][row])
            if code >= 0:
                scores[(key, code)] = scores.get((key, code), 0) + amount

        spec = task.spec
        for other, row in pool:
            if other is task or not self.labels.nodes[row].labels:
                continue
            for term in aff:
                if term.matches(other.spec):
                    add(term.key, row, term.weight)
            for term in anti:
                if term.matches(other.spec):
                    add(term.key, row, -term.weight)
            if constrained and not has_pod_affinity(other.spec):
                continue
            o_aff, o_anti = preferred_pod_terms(other.spec)
            for term in o_aff:
                if term.matches(spec):
                    add(term.key, row, term.weight)
            for term in o_anti:
                if term.matches(spec):
                    add(term.key, row, -term.weight)
        if not scores:
            return None
        out = np.zeros(len(self.labels), dtype=np.int64)
        for key in sorted({k for k, _ in scores}):
            codes, values = self.labels.column(key)
            per_code = np.array([scores.get((key, c), 0) for c in range(len(values))] + [0], dtype=np.int64)
            out += per_code[codes]
        return out


class AffinityScorers:
    """The three normalised scorers of nodeorder, weighted, for one session.

    ``weights`` maps ``nodeaffinity.weight``, ``tainttoleration.weight`` and
    ``podaffinity.weight`` to their weights (0 disables a scorer). Node-static
    parts are cached in the session's ``shared`` state."""

    def __init__(self, ssn: Session, weights: Mapping[str, int]) -> None:
        self.shared = ssn.shared
        self.specs: Sequence[NodeSpec] = [n.spec for n in ssn.nodes]
        labels = self.shared.get(_NODE_LABELS)
        if labels is None or labels.nodes != self.specs:
            labels = NodeLabels(self.specs)
            self.shared.set(_NODE_LABELS, labels)
        self.labels = labels
        self.w_node = int(weights.get("nodeaffinity.weight", 0))
        self.w_taint = int(weights.get("tainttoleration.weight", 0))
        self.w_pod = int(weights.get("podaffinity.weight", 0))
        self.pods = PodAffinityScorer(labels, ssn.nodes, ssn.table) if self.w_pod else None
        self._memo: dict[Any, tuple[IntVec | None, IntVec | None]] = {}
        if self.pods is not None:
            table = ssn.table
            pods = self.pods
            ssn.add_event_handler(allocate=lambda t: pods.place(t, table.by_name[t.node_name].row),
                                  deallocate=pods.remove)

    def _static(self, task: TaskInfo) -> tuple[IntVec | None, IntVec | None]:
        """(node-affinity raw, taint raw or None when no node has an untolerated taint),
        memoised per scheduling signature (which covers tolerations and preferred node
        affinity)."""
        sig = task.spec.sched_sig
        got = self._memo.get(sig)
        if got is None:
            node = preferred_node_affinity(self.labels, task.spec.pod, self.shared) if self.w_node else None
            taint = None
            if self.w_taint:
                raw = intolerable_prefer_no_schedule(self.specs, task.spec.tolerations, self.shared)
                taint = raw if raw.any() else None
            got = self._memo[sig] = (node, taint)
        return got

    def _pods_flat(self, task: TaskInfo) -> bool:
        return self.pods is None or not (has_preferred_pod_terms(task.spec) or self.pods.affinity_pool())

    def row_local(self, task: TaskInfo) -> bool:
        """True when every scorer is the same on all nodes for ``task`` (so its total
        does not depend on which rows are scored): no preferred node-affinity term, no
        untolerated PreferNoSchedule taint anywhere, no preferred pod-affinity term and
        no placed pod carrying affinity."""
        node, taint = self._static(task)
        return node is None and taint is None and self._pods_flat(task)

    def score(self, task: TaskInfo, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
        """The weighted normalised scores of ``rows`` (normalised over ``rows``)."""
        node, taint = self._static(task)
        flat = float(MAX_NODE_SCORE * self.w_taint) if taint is None else 0.0
        total = np.full(len(rows), flat, dtype=np.float64)
        if node is not None:
            total += default_normalize(node[rows]) * self.w_node
        if taint is not None:
            total += default_normalize(taint[rows], reverse=True) * self.w_taint
        if not self._pods_flat(task):
            assert self.pods is not None
            raw = self.pods.raw(task)
            if raw is not None:
                total += minmax_normalize(raw[rows]) * self.w_pod
        return total
