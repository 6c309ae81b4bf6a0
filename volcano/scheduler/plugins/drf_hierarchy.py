"""Hierarchical DRF ("hdrf"): the drf plugin's queue tree when ``enableHierarchy`` is on.

Queues place their jobs in a tree with two annotations: ``volcano.sh/hierarchy``
(a path such as ``root/eng/prod``) and ``volcano.sh/hierarchy-weights`` (one
weight per path component, such as ``1/2/8``). The first component always
stands for the root; every further component is an inner node, created by the
first job that reaches it with the weight its queue names for that level (a
weight below 1, unparsable, non-finite or missing counts as 1; upstream
panics on a missing one). Each job hangs below its queue's last component as
a leaf of weight 1 that carries the job's allocation and its total request
(every task, whatever its status).

Shares are recomputed bottom-up (Volcano's ``updateHierarchicalShare``):

* a resource is *demanding* while the cluster-wide allocation of it is below
  the cluster total (only resources the total offers count);
* a leaf's share is its job's dominant share; a leaf is *saturated* when, on
  some resource it holds, its allocation has reached its request (both
  non-zero), or it requests a held resource that is no longer demanding;
* an inner node's allocation is the sum over its non-empty children (share
  != 0): saturated children as they are, the others scaled by
  ``mdr / child.share``, ``mdr`` being the smallest share among non-empty
  non-saturated children (1 when none); its share is the dominant share of
  that sum; it is saturated when every child is.

Queues compare (``compare``) by walking both paths from the root: at each
level a non-saturated node goes before a saturated one, then the smaller
``share / weight``; equal nodes descend one level. Children are combined in
sorted key order so float sums are reproducible; a path step that names no
node (a queue without jobs) ends the comparison as equal, where upstream
would dereference nil.

An allocation change recomputes only the changed leaf's ancestors unless the
set of demanding resources changed, which recomputes the whole tree; both
give exactly what a full recomputation gives.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["HIERARCHY_ANNOTATION", "WEIGHTS_ANNOTATION", "HNode", "HdrfTree", "parse_weight"]

HIERARCHY_ANNOTATION = "volcano.sh/hierarchy"
"""Queue annotation naming the queue's path in the hdrf tree (``root/a/b``)."""
WEIGHTS_ANNOTATION = "volcano.sh/hierarchy-weights"
"""Queue annotation with one weight per path component (``1/2/8``)."""

FloatVec = npt.NDArray[np.float64]
IntVec = npt.NDArray[np.int64]
BoolVec = npt.NDArray[np.bool_]


def parse_weight(text: str) -> float:
    """A path component's weight: the parsed float, or 1 when it is below 1, non-finite or unparsable."""
    try:
        value = float(text.strip())
    except ValueError:
        return 1.0
    if not math.isfinite(value) or value < 1:
        return 1.0
    return value


class HNode:
    """One node of the tree: an inner node (``children`` is a dict) or a job leaf (``children`` is None)."""

    __slots__ = ("alloc", "children", "name", "parent", "request", "saturated", "share", "weight")

    def __init__(self, name: str, parent: HNode | None, weight: float, alloc: FloatVec,
                 request: IntVec | None = None) -> None:
        self.name = name
        self.parent = parent
        self.weight = weight
        self.alloc = alloc
        self.request = request
        self.children: dict[str, HNode] | None = None if request is not None else {}
        self.share = 0.0
        self.saturated = False

    def copy(self, parent: HNode | None) -> HNode:
        """A deep copy of this subtree below ``parent`` (vectors are shared: they are replaced, never mutated)."""
        node = HNode(self.name, parent, self.weight, self.alloc, self.request)
        node.share = self.share
        node.saturated = self.saturated
        if self.children is not None:
            node.children = {k: c.copy(node) for k, c in self.children.items()}
        return node


class HdrfTree:
    """The hdrf tree of one session (see the module docstring).

    ``total`` is the cluster total, ``mask`` the columns that count for shares
    and demand (total at least the tolerance), ``tol`` the per-column
    tolerance that decides which resources a leaf *holds*. Jobs are added with
    ``add_job`` and the tree settled with ``refresh``; after that
    ``set_alloc`` keeps it current.
    """

    def __init__(self, total: IntVec, mask: BoolVec, tol: FloatVec) -> None:
        self.total = total
        self.mask = mask
        self.tol = tol
        self.root = HNode("root", None, 1.0, np.zeros(len(total), dtype=np.float64))
        self.leaves: dict[str, HNode] = {}
        self.total_allocated: IntVec = np.zeros(len(total), dtype=np.int64)
        self._demanding: BoolVec = self._demand()

    # -- building ----------------------------------------------------------------------------
    def add_job(self, job: str, hierarchy: str, weights: str, alloc: IntVec, request: IntVec) -> None:
        """Hang ``job`` below the path ``hierarchy`` (creating missing inner nodes with ``weights``)."""
        paths = hierarchy.split("/")
        parts = weights.split("/")
        node = self.root
        for i in range(1, len(paths)):
            assert node.children is not None
            child = node.children.get(paths[i])
            if child is None or child.children is None:
                weight = parse_weight(parts[i]) if i < len(parts) else 1.0
                child = HNode(paths[i], node, weight, np.zeros(len(self.total), dtype=np.float64))
                node.children[paths[i]] = child
            node = child
        assert node.children is not None
        old = self.leaves.get(job)
        if old is not None and old.parent is not None and old.parent.children is not None:
            old.parent.children.pop(job, None)
            self.total_allocated = self.total_allocated - old.alloc.astype(np.int64)
        leaf = HNode(job, node, 1.0, alloc.astype(np.float64), request.copy())
        leaf.share = self._share(leaf.alloc)
        node.children[job] = leaf
        self.leaves[job] = leaf
        self.total_allocated = self.total_allocated + alloc

    def refresh(self) -> None:
        """Recompute every node (after adding jobs)."""
        self._demanding = self._demand()
        self._update(self.root)

    def clone(self) -> HdrfTree:
        """An independent copy (for what-if comparisons)."""
        other = HdrfTree.__new__(HdrfTree)
        other.total, other.mask, other.tol = self.total, self.mask, self.tol
        other.root = self.root.copy(None)
        other.leaves = {}
        stack = [other.root]
        while stack:
            node = stack.pop()
            if node.children is None:
                other.leaves[node.name] = node
            else:
                stack.extend(node.children.values())
        other.total_allocated = self.total_allocated.copy()
        other._demanding = self._demanding.copy()
        return other

    # -- updates -----------------------------------------------------------------------------
    def set_alloc(self, job: str, alloc: IntVec) -> None:
        """Give ``job``'s leaf the allocation ``alloc`` and bring the tree up to date."""
        leaf = self.leaves.get(job)
        if leaf is None:
            return
        self.total_allocated = self.total_allocated + (alloc - leaf.alloc.astype(np.int64))
        leaf.alloc = alloc.astype(np.float64)
        leaf.share = self._share(leaf.alloc)
        demanding = self._demand()
        if not np.array_equal(demanding, self._demanding):
            self._demanding = demanding
            self._update(self.root)
            return
        self._saturate_leaf(leaf)
        node = leaf.parent
        while node is not None:
            self._combine(node)
            node = node.parent

    # -- queries -----------------------------------------------------------------------------
    def node_at(self, path: Sequence[str]) -> HNode | None:
        """The inner node at ``path`` (first component = root), or None."""
        node: HNode | None = self.root
        for name in path[1:]:
            if node is None or node.children is None:
                return None
            node = node.children.get(name)
        return node

    def compare(self, lpath: Sequence[str], rpath: Sequence[str]) -> float:
        """Negative when the queue at ``lpath`` goes first, positive when ``rpath``'s does, else 0."""
        lnode: HNode | None = self.root
        rnode: HNode | None = self.root
        depth = min(len(lpath), len(rpath))
        for i in range(depth):
            if lnode is None or rnode is None:
                return 0.0
            if not lnode.saturated and rnode.saturated:
                return -1.0
            if lnode.saturated and not rnode.saturated:
                return 1.0
            lv, rv = lnode.share / lnode.weight, rnode.share / rnode.weight
            if lv != rv:
                return lv - rv
            if i < depth - 1:
                lnode = lnode.children.get(lpath[i + 1]) if lnode.children is not None else None
                rnode = rnode.children.get(rpath[i + 1]) if rnode.children is not None else None
        return 0.0

    # -- internals ---------------------------------------------------------------------------
    def _share(self, alloc: FloatVec) -> float:
        if not self.mask.any():
            return 0.0
        best = float((alloc[self.mask] / self.total[self.mask]).max())
        return best if best > 0.0 else 0.0

    def _demand(self) -> BoolVec:
        return np.asarray(self.mask & (self.total_allocated < self.total), dtype=np.bool_)

    def _saturate_leaf(self, leaf: HNode) -> None:
        request = leaf.request
        assert request is not None
        held = leaf.alloc >= self.tol
        asked = request != 0
        reached = held & asked & (leaf.alloc != 0) & (leaf.alloc >= request)
        starved = held & asked & ~self._demanding
        leaf.saturated = bool(reached.any() or starved.any())

    def _combine(self, node: HNode) -> None:
        children = node.children
        assert children is not None
        kids = [children[k] for k in sorted(children)]
        mdr = 1.0
        for child in kids:
            if child.share != 0 and not child.saturated and child.share < mdr:
                mdr = child.share
        alloc = np.zeros(len(self.total), dtype=np.float64)
        saturated = True
        for child in kids:
            if not child.saturated:
                saturated = False
            if child.share != 0:
                alloc = alloc + (child.alloc if child.saturated else child.alloc * (mdr / child.share))
        node.alloc = alloc
        node.share = self._share(alloc)
        node.saturated = saturated

    def _update(self, node: HNode) -> None:
        if node.children is None:
            self._saturate_leaf(node)
            return
        for key in sorted(node.children):
            self._update(node.children[key])
        self._combine(node)
