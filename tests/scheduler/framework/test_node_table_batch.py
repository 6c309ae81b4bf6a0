"""``NodeTable.add_tasks`` (the session's batched placement of the snapshot's tasks) leaves
exactly the accounting, task maps and change log that ``add_task`` one by one leaves."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.scheduler.framework.model import NodeSpec, TaskInfo, TaskSpec, TaskStatus
from volcano.scheduler.framework.node import NodeTable
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.state import State

S = TaskStatus
_STATUSES = (S.Running, S.Bound, S.Binding, S.Releasing, S.Pipelined, S.Allocated, S.Pending, S.Unknown)


def _node(i: int) -> NodeSpec:
    return NodeSpec({"metadata": {"name": f"n{i}"},
                     "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110", "nvidia.com/gpu": "8"}}})


def _task(i: int, cpu: int, gpu: int, status: TaskStatus, space: ResourceSpace) -> TaskInfo:
    requests = {"cpu": f"{cpu}m", **({"nvidia.com/gpu": str(gpu)} if gpu else {})}
    spec = TaskSpec({"metadata": {"name": f"p-{i}", "namespace": "ns", "uid": f"u{i}"},
                     "spec": {"containers": [{"name": "c", "resources": {"requests": requests}}]},
                     "status": {"phase": "Running"}})
    return TaskInfo(spec, space.fit(spec.vec(space)), status)


_TASKS = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4000), st.integers(0, 2),
                            st.sampled_from(_STATUSES)), max_size=30)


@settings(max_examples=60, deadline=None)
@given(_TASKS)
def test_batched_placement_matches_one_by_one(rows: list[tuple[int, int, int, TaskStatus]]) -> None:
    space = ResourceSpace()
    specs = [_node(i) for i in range(5)]
    tables = []
    for _ in range(2):
        table = NodeTable(specs, space)
        placed = [(table.nodes[r], _task(i, cpu, gpu, status, space)) for i, (r, cpu, gpu, status) in enumerate(rows)]
        tables.append((table, placed))
    (one, placed_one), (batch, placed_batch) = tables
    for node, task in placed_one:
        one.add_task(node, task)
    batch.add_tasks(placed_batch)
    for name in ("used", "idle", "fidle", "releasing", "pipelined", "pods"):
        assert np.array_equal(getattr(one, name), getattr(batch, name)), name
    assert one.changes == batch.changes
    assert [sorted(n.tasks) for n in one.nodes] == [sorted(n.tasks) for n in batch.nodes]


def test_the_allocatable_matrix_is_cached_per_node_set_and_copied() -> None:
    space, cache = ResourceSpace(), State()
    specs = [_node(i) for i in range(3)]
    first = NodeTable(specs, space, cache)
    first.alloc[0, 0] = -1  # a session's copy is its own
    second = NodeTable(specs, space, cache)
    assert second.alloc[0, 0] == 8000
    other = NodeTable([_node(i) for i in range(3)], space, cache)  # new objects: rebuilt, same values
    assert np.array_equal(other.alloc, second.alloc)
