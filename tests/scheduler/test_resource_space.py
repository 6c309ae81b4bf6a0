"""Resource names first seen inside a session (a node or pod bringing a new scalar resource).

Every session-wide vector (node table columns, task requests, job allocations)
must have the same width, whatever order the names appear in.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scheduler.harness import conf, node, opt, pg, pod, queue, res, run
from volcano.scheduler.framework.model import NodeSpec, QueueInfo, TaskSpec
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.session import Session, Snapshot
from volcano.scheduler.plugins import default_registry

GPU = "nvidia.com/gpu"
CONF = conf(["enqueue", "allocate"],
            [opt("priority", "jobOrder", "taskOrder"), opt("gang", "jobReady", "jobPipelined", "jobOrder")],
            [opt("drf", "jobOrder"), opt("predicates", "predicate"), opt("proportion", "queueOrder", "allocatable"),
             opt("nodeorder", "nodeOrder")])


def test_node_brings_a_resource_no_task_registered() -> None:
    r = run(CONF, nodes=[node("n1", res(4, "8Gi", **{GPU: 4}))],
            pods=[pod("ns", "p1", req=res(1, "1Gi"), group="pg1")],
            podgroups=[pg("pg1", "ns", "q1", 1)], queues=[queue("q1")])
    assert r.binds == {"ns/p1": "n1"}
    assert r.session.table.alloc.shape == (1, len(r.session.space))


def test_gpu_pod_binds_only_where_gpus_are() -> None:
    r = run(CONF, nodes=[node("n1", res(8, "16Gi")), node("n2", res(4, "8Gi", **{GPU: 2}))],
            pods=[pod("ns", f"p{i}", req=res(1, "1Gi", **{GPU: 1}), group="pg1") for i in range(3)],
            podgroups=[pg("pg1", "ns", "q1", 1)], queues=[queue("q1")])
    assert r.binds == {"ns/p0": "n2", "ns/p1": "n2"}


def test_running_task_with_unseen_resource_counts_in_job_allocation() -> None:
    # The running pod's GPU request is registered while the session is built; the
    # job's allocated vector must be wide enough to hold it.
    r = run(CONF, nodes=[node("n1", res(4, "8Gi"))],
            pods=[pod("ns", "run", node_name="n1", phase="Running", req=res(1, "1Gi", **{GPU: 1}), group="pg1"),
                  pod("ns", "p1", req=res(1, "1Gi"), group="pg1")],
            podgroups=[pg("pg1", "ns", "q1", 1, "Running")], queues=[queue("q1")])
    job = r.session.jobs["ns/pg1"]
    space = r.session.space
    assert job.allocated[space.index[GPU]] == 1000
    assert r.binds == {"ns/p1": "n1"}


def test_space_grows_between_sessions() -> None:
    space = ResourceSpace()
    spec = TaskSpec(pod("ns", "p1", req=res(1, "1Gi"), group="pg1"))
    spec.vec(space)  # cached at the old width
    snap = Snapshot(space, [NodeSpec(node("n1", res(2, "2Gi", **{"example.com/fpga": 1})))],
                    [(pg("pg1", "ns", "q1", 1), 0)], [spec], [QueueInfo(queue("q1"))])
    ssn = Session(snap, CONF, default_registry())
    width = len(space)
    assert width == 4  # cpu, memory, pods, example.com/fpga
    task = next(iter(ssn.jobs["ns/pg1"].tasks.values()))
    assert task.vec.shape == (width,)
    assert ssn.table.idle.shape == (1, width)


NAMES = ["nvidia.com/gpu", "example.com/fpga", "hugepages-2Mi", "ephemeral-storage"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["node", "running", "pending"]), st.sampled_from(NAMES)),
                min_size=1, max_size=8))
def test_any_order_of_new_names_gives_one_width(items: list[tuple[str, str]]) -> None:
    nodes, pods = [node("base", res(64, "64Gi"))], []
    for i, (what, name) in enumerate(items):
        if what == "node":
            nodes.append(node(f"n{i}", res(64, "64Gi", **{name: 100})))
        elif what == "running":
            pods.append(pod("ns", f"r{i}", node_name="base", phase="Running", req=res(1, "1Gi", **{name: 1}),
                            group="pg1"))
        else:
            pods.append(pod("ns", f"p{i}", req=res(1, "1Gi", **{name: 1}), group="pg1"))
    r = run(CONF, nodes=nodes, pods=pods, podgroups=[pg("pg1", "ns", "q1", 1, "Running")], queues=[queue("q1")])
    width = len(r.session.space)
    assert width == 3 + len({name for _, name in items})
    assert r.session.table.alloc.shape[1] == width
    assert r.session.jobs["ns/pg1"].allocated.shape == (width,)
    for task in r.session.jobs["ns/pg1"].tasks.values():
        assert task.vec.shape == (width,)
    # A pending task binds exactly when some node has its resource (and no running
    # task already holds that resource beyond the cluster's total: proportion would refuse).
    offered = {name for what, name in items if what == "node"}
    held = {name for what, name in items if what == "running"}
    for i, (what, name) in enumerate(items):
        if what == "pending" and name not in held:
            assert (f"ns/p{i}" in r.binds) == (name in offered)


def test_equal_requests_share_one_read_only_vector_and_dims() -> None:
    space = ResourceSpace()
    a = TaskSpec(pod("ns", "a", req=res(1, "1Gi"), group="pg1"))
    b = TaskSpec(pod("ns", "b", req=res(1, "1Gi"), group="pg2"))
    c = TaskSpec(pod("ns", "c", req=res(2, "1Gi"), group="pg3"))
    assert a.vec(space) is b.vec(space) and a.dims() is b.dims()  # shared: memory per pod
    assert c.vec(space) is not a.vec(space) and list(c.vec(space)) != list(a.vec(space))
    assert not a.vec(space).flags.writeable and not a.dims().flags.writeable
    space.register_all({"example.com/fpga": 1})  # the space grows: a wider vector, zero-padded
    wide = a.vec(space)
    assert len(wide) == len(space) and list(wide[:-1]) == list(b.vec(space)[:-1]) and wide[-1] == 0
