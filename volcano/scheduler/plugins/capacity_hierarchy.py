"""The capacity plugin's hierarchical queues (``enableHierarchy: true``; reference §5.5).

``build_queue_tree(ssn)`` gives every queue of the session an attribute set and
links it to its parent (``spec.parent``, empty = ``root``). A missing parent, a
cycle, a missing ``root`` queue or a job in a non-leaf queue makes the tree
invalid (the plugin then rejects everything, as Volcano does). Allocated,
request, inqueue and elastic amounts roll up to every ancestor. ``root``'s
capability is unbounded when unset; a child inherits cpu, memory and scalars its
capability leaves unset from its parent; ``root``'s guarantee and deserved are
the sums of its children's; a child's deserved is at least its guarantee; a
child's real capability is ``max(0, parent real − Σ sibling guarantees) + own
guarantee``, capped by its own capability.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from volcano.scheduler.framework.quota import Num, QueueQuota, Vec, add, exceeded_part, is_empty
from volcano.scheduler.framework.quota_state import QueueAttr, build_queue_attrs

if TYPE_CHECKING:
    from volcano.scheduler.framework.session import Session

__all__ = ["ROOT", "UNBOUNDED", "QueueTree", "build_queue_tree"]

ROOT = "root"
"""The root queue's name."""
UNBOUNDED = 2**62
"""Stands for an unset (infinite) capability dimension of ``root``."""
_CPU, _MEMORY = "cpu", "memory"


@dataclass
class QueueTree:
    """Attributes of every queue plus the tree links; ``valid`` is False when the structure is broken."""

    attrs: dict[str, QueueAttr] = field(default_factory=dict)
    parent: dict[str, str] = field(default_factory=dict)
    ancestors: dict[str, list[str]] = field(default_factory=dict)
    """Nearest parent first, ``root`` last."""
    children: dict[str, list[str]] = field(default_factory=dict)
    valid: bool = True

    def is_leaf(self, name: str) -> bool:
        """Whether ``name`` has no child queue."""
        return not self.children.get(name)

    def chain(self, name: str) -> list[str]:
        """``name`` and its ancestors, nearest first."""
        return [name, *self.ancestors.get(name, [])]

    def path(self, name: str) -> list[str]:
        """From ``root`` down to ``name``."""
        return list(reversed(self.chain(name)))


def _min_capped(real: dict[str, Num], cap: Vec) -> dict[str, Num]:
    out = dict(real)
    for name, value in real.items():
        if name in (_CPU, _MEMORY) or name in cap:
            limit = cap.get(name, 0)
            if limit < value:
                out[name] = limit
    return out


def build_queue_tree(ssn: Session) -> QueueTree:
    """The hierarchy of the session's queues (see the module docstring)."""
    tree = QueueTree()
    flat, total, _ = build_queue_attrs(ssn)
    queues = ssn.queues
    for name in sorted(queues):
        q = queues[name]
        tree.attrs[name] = flat.get(name) or QueueAttr(QueueQuota(
            name, q.weight, {}, dict(q.guarantee or {}), dict(q.capability) if q.capability is not None else None))
        tree.children[name] = []
    if ROOT not in queues:
        tree.valid = False
        return tree
    for name in sorted(queues):
        if name == ROOT:
            continue
        parent = queues[name].parent or ROOT
        if parent not in queues:
            tree.valid = False
            return tree
        tree.parent[name] = parent
        tree.children[parent].append(name)
    for name in sorted(queues):
        chain: list[str] = []
        current = name
        while current != ROOT:
            current = tree.parent[current]
            if current == name or current in chain:
                tree.valid = False
                return tree
            chain.append(current)
        tree.ancestors[name] = chain
    for job in ssn.jobs.values():
        if tree.children.get(job.queue):
            tree.valid = False
            return tree
    for name in sorted(flat):
        leaf = flat[name]
        for ancestor in tree.ancestors[name]:
            a = tree.attrs[ancestor]
            a.allocated = add(a.allocated, leaf.allocated)
            a.request = add(a.request, leaf.request)
            a.inqueue = add(a.inqueue, leaf.inqueue)
            a.elastic = add(a.elastic, leaf.elastic)
    root = tree.attrs[ROOT].quota
    cap = root.capability
    if cap is None or is_empty(cap):
        cap = dict.fromkeys({*total, _CPU, _MEMORY}, UNBOUNDED)
    root.capability = dict(cap)
    root.real = dict(cap)
    for name in sorted(queues):
        tree.attrs[name].quota.deserved = dict(queues[name].deserved or {})
    _settle(tree, ROOT)
    return tree


def _settle(tree: QueueTree, name: str) -> None:
    """Volcano's ``checkHierarchicalQueue`` for ``name``'s children, then recursively."""
    me = tree.attrs[name].quota
    pcap: Vec = me.capability or {}
    guarantees: dict[str, Num] = {}
    deserved: dict[str, Num] = {}
    kids = tree.children.get(name, [])
    for child in kids:
        c = tree.attrs[child].quota
        for res_name, value in c.guarantee.items():
            if value > c.deserved.get(res_name, 0):
                c.deserved[res_name] = value
        deserved = add(deserved, c.deserved)
        guarantees = add(guarantees, c.guarantee)
        ccap: dict[str, Num] = dict(c.capability or {})
        for dim in (_CPU, _MEMORY):
            if ccap.get(dim, 0) <= 0:
                ccap[dim] = pcap.get(dim, 0)
        for res_name, value in pcap.items():
            if res_name not in (_CPU, _MEMORY) and res_name not in ccap:
                ccap[res_name] = value
        c.capability = ccap
    if name == ROOT:
        me.guarantee = guarantees
        me.deserved = deserved
    for child in kids:
        c = tree.attrs[child].quota
        real = add(exceeded_part(me.real, guarantees), c.guarantee)
        c.real = _min_capped(real, c.capability or {})
    for child in kids:
        _settle(tree, child)
