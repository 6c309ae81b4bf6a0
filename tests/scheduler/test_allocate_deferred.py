"""Allocate's deferred placements (a quiet visit writes the node table only when it must) leave
the session exactly as the reference path does.

The random clusters and gangs of ``test_allocate_lookahead`` (mixed request shapes within a
gang, node selectors, host ports, nominated nodes, partial fits that end in a discard) are
scheduled by one allocate action with ``reuse`` (quiet visits defer their node-table writes,
``Statement.deferred``) and on the reference path; besides the tasks, fit errors, binds and
session close that test compares, the node table after the action must be the same: every
accounting column and every row's tasks in order, and every fit error with its unresolvable
rows. Deferred visits were made, and one that ends discarded wrote nothing to the table.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scheduler.harness import allocated, node, pg, pod, queue, res
from tests.scheduler.test_allocate_lookahead import _conf, _objects, _small_jobs
from volcano.scheduler.framework import statement
from volcano.scheduler.framework.conf import PluginOption, SchedulerConf, Tier

Obj = dict[str, Any]


def _table_after(objects: tuple[list[Obj], list[Obj], list[Obj], list[Obj]], conf: SchedulerConf,
                 reuse: bool) -> tuple[Any, ...]:
    ssn = allocated(objects, conf, reuse)
    table = ssn.table
    rows = [list(n.tasks) for n in table.nodes]
    tasks = [(t.key, t.status, t.node_name, t.last_txn) for j in ssn.jobs.values() for t in j.tasks.values()]
    fit = [(uid, fe.error(), None if fe.unresolvable is None else fe.unresolvable.tolist())
           for j in ssn.jobs.values() for uid, fe in j.fit_errors.items()]
    return table.block.tolist(), table.alloc.tolist(), rows, tasks, fit


class _Counting:
    """Counts deferred statements and their writes to the node table."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.deferred = 0
        self.writes = 0
        original_init, original_write = statement.Statement.__init__, statement.Statement.write
        counter = self

        def init(self: statement.Statement, *args: Any, **kwargs: Any) -> None:
            original_init(self, *args, **kwargs)
            counter.deferred += self.deferred

        def write(self: statement.Statement) -> None:
            counter.writes += bool(self._unwritten)
            original_write(self)

        monkeypatch.setattr(statement.Statement, "__init__", init)
        monkeypatch.setattr(statement.Statement, "write", write)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 1_000_000), small=st.booleans())
def test_deferred_placements_leave_the_table_as_the_reference_path(seed: int, small: bool) -> None:
    rng = random.Random(seed)
    objects = _small_jobs(rng) if small else _objects(rng)
    conf = _conf(rng)
    fast = _table_after(objects, conf, True)
    assert fast == _table_after(objects, conf, False)


_CONF = SchedulerConf(("allocate",), (
    Tier((PluginOption("priority", {}, {}), PluginOption("gang", {}, {}))),
    Tier((PluginOption("predicates", {}, {}), PluginOption("proportion", {}, {}),
          PluginOption("nodeorder", {}, {}), PluginOption("binpack", {}, {})))))
GPU = {"nvidia__com/gpu": 1}


def test_a_discarded_visit_writes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The queue deserves the cluster's 32 GPUs: ALLOCATABLE says no to the gang's pods past the 32nd,
    so the visit places 32, ends without a fit error, and is discarded without a write."""
    counting = _Counting(monkeypatch)
    nodes = [node(f"n{i}", res(16, "64Gi", **{"nvidia__com/gpu": 8})) for i in range(4)]
    pods = [pod("ns", f"big-x-{k}", group="big", req=res(1, "1Gi", **GPU)) for k in range(40)]
    objects = (nodes, [queue("q1")], [pg("big", "ns", "q1", 40)], pods)
    fast = _table_after(objects, _CONF, True)
    assert counting.deferred == 1 and counting.writes == 0
    assert fast == _table_after(objects, _CONF, False)
    assert sum(1 for t in fast[3] if t[3] is not None) == 32  # 32 placed and discarded


def test_only_the_ready_gang_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """30 GPUs free (and no quota plugin): a gang of 40 is placed 30 times, its 31st pod fits nowhere
    (its fit errors are worked out over the table shifted by the 30, not written), and it is
    discarded; a gang of 2 is ready and written when it is."""
    counting = _Counting(monkeypatch)
    nodes = [node(f"n{i}", res(16, "64Gi", **{"nvidia__com/gpu": 8})) for i in range(4)]
    running = [pod("ns", f"run-x-{k}", group="run", node_name="n0", phase="Running", req=res(1, "1Gi", **GPU))
               for k in range(2)]
    big = [pod("ns", f"big-x-{k}", group="big", req=res(1, "1Gi", **GPU)) for k in range(40)]
    ready = [pod("ns", f"ok-x-{k}", group="ok", req=res(1, "1Gi", **GPU)) for k in range(2)]
    groups = [pg("run", "ns", "q1", 1, phase="Running"), pg("big", "ns", "q1", 40), pg("ok", "ns", "q1", 2)]
    objects = (nodes, [queue("q1")], groups, [*running, *big, *ready])
    no_quota = SchedulerConf(("allocate",), (_CONF.tiers[0], Tier(tuple(
        p for p in _CONF.tiers[1].plugins if p.name != "proportion"))))
    fast = _table_after(objects, no_quota, True)
    assert counting.deferred == 2 and counting.writes == 1
    assert fast == _table_after(objects, no_quota, False)
    assert [f[:2] for f in fast[4]] == [("ns-big-x-30", "0/4 nodes are unavailable: 4 Insufficient nvidia/com/gpu.")]


def test_a_gang_of_two_shapes_writes_the_first_shape_before_the_second_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = _Counting(monkeypatch)
    nodes = [node(f"n{i}", res(16, "64Gi", **{"nvidia__com/gpu": 8})) for i in range(3)]
    pods = [pod("ns", f"mix-x-{k}", group="mix", req=res(1, "1Gi", **GPU) if k < 5 else res(2, "2Gi", **GPU))
            for k in range(10)]
    objects = (nodes, [queue("q1")], [pg("mix", "ns", "q1", 10)], pods)
    fast = _table_after(objects, _CONF, True)
    assert counting.deferred == 1 and counting.writes >= 1
    assert fast == _table_after(objects, _CONF, False)
    assert all(t[2] for t in fast[3])  # every task placed (bound when committed)


def test_a_second_gang_stuck_at_the_same_point_gets_the_kept_fit_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    """30 GPUs free: two gangs of 40 one-GPU pods each place 30 (held, discarded) and stick at their
    31st; the second's fit errors are the first's, kept (``Lookahead._no_fit``: same signature,
    table state and held placements), and the action leaves what the reference path leaves. A third
    gang of another request works its own out; a property over the random clusters of
    ``test_deferred_placements_leave_the_table_as_the_reference_path`` covers the rest."""
    from volcano.scheduler.framework import select

    worked: list[str] = []
    original = select.Lookahead._fit_errors

    def counting(self: select.Lookahead, task: Any) -> Any:
        worked.append(task.name)
        return original(self, task)

    monkeypatch.setattr(select.Lookahead, "_fit_errors", counting)
    nodes = [node(f"n{i}", res(16, "64Gi", **{"nvidia__com/gpu": 8})) for i in range(4)]
    running = [pod("ns", f"run-x-{k}", group="run", node_name="n0", phase="Running", req=res(1, "1Gi", **GPU))
               for k in range(2)]
    gangs = [pod("ns", f"{g}-x-{k}", group=g, req=res(1, "1Gi", **GPU)) for g in ("a", "b") for k in range(40)]
    other = [pod("ns", f"c-x-{k}", group="c", req=res(2, "1Gi", **{"nvidia__com/gpu": 2})) for k in range(20)]
    groups = [pg("run", "ns", "q1", 1, phase="Running"), pg("a", "ns", "q1", 40), pg("b", "ns", "q1", 40),
              pg("c", "ns", "q1", 20)]
    objects = (nodes, [queue("q1")], groups, [*running, *gangs, *other])
    no_quota = SchedulerConf(("allocate",), (_CONF.tiers[0], Tier(tuple(
        p for p in _CONF.tiers[1].plugins if p.name != "proportion"))))
    fast = _table_after(objects, no_quota, True)
    assert len(worked) == 2  # a's 31st and c's 16th; b's 31st took a's
    assert fast == _table_after(objects, no_quota, False)
    stuck = {f[0]: f[1] for f in fast[4]}
    assert stuck["ns-a-x-30"] == stuck["ns-b-x-30"] == "0/4 nodes are unavailable: 4 Insufficient nvidia/com/gpu."
