"""Hierarchical DRF: upstream TestHDRF (catalogue §5.3) and the hdrf tree's rules.

Upstream's TestHDRF compares its whole expectation map with one job's
allocation, an assertion that can never fail; here each job's allocation is
checked against its expected cpu, memory and pods.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.scheduler.harness import Result, conf, node, opt, pg, pod, queue, res, run
from volcano.scheduler.framework.points import QUEUE_ORDER, RECLAIMABLE
from volcano.scheduler.plugins.drf import DrfPlugin
from volcano.scheduler.plugins.drf_hierarchy import HdrfTree, parse_weight

Obj = dict[str, Any]
G = 10**9 * 1000  # 1G of memory in milli-units
CONF = conf(["allocate"], [opt("drf", "hierarchy", "queueOrder", "jobOrder"),
                           opt("proportion", "jobEnqueued", "queueOrder", "reclaimable")])


def hqueue(name: str, hierarchy: str, weights: str) -> Obj:
    q = queue(name)
    q["metadata"]["annotations"] = {"volcano.sh/hierarchy": hierarchy, "volcano.sh/hierarchy-weights": weights}
    return q


def make_pods(n: int, cpu: str, mem: str, group: str) -> list[Obj]:
    return [pod("default", f"{group}-p{i}", req=res(cpu, mem), group=group) for i in range(n)]


def allocations(r: Result) -> dict[str, tuple[int, int, int]]:
    """Per job: (cpu milli, memory milli-bytes, pods milli) allocated at the end of the cycle."""
    out: dict[str, tuple[int, int, int]] = {}
    for job in r.session.jobs.values():
        a = job.allocated
        out[job.name] = (int(a[0]), int(a[1]), int(a[2]))
    return out


def test_rescaling() -> None:
    queues = [hqueue("root-sci", "root/sci", "100/50"), hqueue("root-eng-dev", "root/eng/dev", "100/50/50"),
              hqueue("root-eng-prod", "root/eng/prod", "100/50/50")]
    pgs = [pg("pg1", "default", "root-sci", 0), pg("pg21", "default", "root-eng-dev", 0),
           pg("pg22", "default", "root-eng-prod", 0)]
    pods = make_pods(10, "1", "1G", "pg1") + make_pods(10, "1", "0G", "pg21") + make_pods(10, "0", "1G", "pg22")
    r = run(CONF, nodes=[node("n", res(10, "10G", pods=50))], queues=queues, pods=pods, podgroups=pgs)
    assert allocations(r) == {"pg1": (5000, 5 * G, 5000), "pg21": (5000, 0, 5000), "pg22": (0, 5 * G, 5000)}
    assert len(r.binds) == 15


def test_blocking_nodes() -> None:
    queues = [hqueue("root-pg1", "root/pg1", "100/25"), hqueue("root-pg2", "root/pg2", "100/25"),
              hqueue("root-pg3-pg31", "root/pg3/pg31", "100/25/50"),
              hqueue("root-pg3-pg32", "root/pg3/pg32", "100/25/50"), hqueue("root-pg4", "root/pg4", "100/25")]
    # pg32 sits in queue root-pg3-pg31, as upstream's table writes it.
    pgs = [pg("pg1", "default", "root-pg1", 0), pg("pg2", "default", "root-pg2", 0),
           pg("pg31", "default", "root-pg3-pg31", 0), pg("pg32", "default", "root-pg3-pg31", 0),
           pg("pg4", "default", "root-pg4", 0)]
    pods = (make_pods(30, "1", "0G", "pg1") + make_pods(30, "1", "0G", "pg2") + make_pods(30, "1", "0G", "pg31")
            + make_pods(30, "0", "1G", "pg32") + make_pods(30, "0", "1G", "pg4"))
    r = run(CONF, nodes=[node("n", res(30, "30G", pods=500))], queues=queues, pods=pods, podgroups=pgs)
    assert allocations(r) == {"pg1": (10000, 0, 10000), "pg2": (10000, 0, 10000), "pg31": (10000, 0, 10000),
                              "pg32": (0, 15 * G, 15000), "pg4": (0, 15 * G, 15000)}


def test_queue_order_is_registered_only_with_the_hierarchy() -> None:
    queues = [hqueue("root-sci", "root/sci", "100/50"), hqueue("root-eng-dev", "root/eng/dev", "100/50/50")]
    pgs = [pg("pg1", "default", "root-sci", 0, "Running"), pg("pg21", "default", "root-eng-dev", 0)]
    pods = [pod("default", "pg1-p0", node_name="n", phase="Running", req=res(1, "1G"), group="pg1"),
            *make_pods(1, "1", "0G", "pg21")]
    nodes = [node("n", res(10, "10G", pods=50))]
    on = run(conf([], [opt("drf", "hierarchy", "queueOrder", "jobOrder")]), nodes=nodes, queues=queues, pods=pods,
             podgroups=pgs)
    sci, dev = on.session.queues["root-sci"], on.session.queues["root-eng-dev"]
    assert on.session.call(QUEUE_ORDER, dev, sci) == -1  # eng (empty) before sci (0.1)
    assert on.session.call(QUEUE_ORDER, sci, dev) == 1
    off = run(conf([], [opt("drf", "queueOrder", "jobOrder")]), nodes=nodes, queues=queues, pods=pods, podgroups=pgs)
    assert not off.session.has(QUEUE_ORDER) and not off.session.has(RECLAIMABLE)


def _tree(total: list[int]) -> HdrfTree:
    t = np.array(total, dtype=np.int64)
    return HdrfTree(t, t >= 1, np.full(len(total), 0.1))


def test_inner_node_rescales_unsaturated_children_to_the_smallest_share() -> None:
    tree = _tree([10, 10])
    tree.add_job("a", "root/eng/dev", "1/1/1", np.array([4, 0]), np.array([10, 0]))
    tree.add_job("b", "root/eng/prod", "1/1/1", np.array([0, 2]), np.array([0, 10]))
    tree.refresh()
    eng = tree.node_at(["root", "eng"])
    assert eng is not None
    assert eng.alloc.tolist() == [2.0, 2.0]  # dev (0.4) scaled to prod's 0.2
    assert eng.share == pytest.approx(0.2) and not eng.saturated


def test_saturated_leaf_is_not_scaled_and_sorts_last() -> None:
    tree = _tree([10, 10])
    tree.add_job("a", "root/x", "1/1", np.array([3, 0]), np.array([3, 0]))  # reached its request
    tree.add_job("b", "root/y", "1/1", np.array([1, 0]), np.array([5, 0]))
    tree.refresh()
    x, y = tree.node_at(["root", "x"]), tree.node_at(["root", "y"])
    assert x is not None and y is not None and x.saturated and not y.saturated
    assert tree.compare(["root", "y"], ["root", "x"]) < 0 < tree.compare(["root", "x"], ["root", "y"])
    root = tree.root
    assert root.alloc.tolist() == [4.0, 0.0]  # x unscaled (3) + y scaled by 0.1/0.1


def test_exhausted_resource_saturates_every_job_asking_for_it() -> None:
    tree = _tree([10, 10])
    tree.add_job("a", "root/x", "1/1", np.array([5, 0]), np.array([9, 0]))
    tree.add_job("b", "root/y", "1/1", np.array([4, 1]), np.array([9, 9]))
    tree.refresh()
    assert not tree.leaves["a"].saturated
    tree.set_alloc("a", np.array([6, 0]))  # cpu now fully allocated
    assert tree.leaves["a"].saturated and tree.leaves["b"].saturated
    tree.set_alloc("a", np.array([5, 0]))
    assert not tree.leaves["a"].saturated and not tree.leaves["b"].saturated


def test_weights_divide_shares_and_incremental_matches_full() -> None:
    tree = _tree([100, 100])
    tree.add_job("a", "root/heavy", "1/4", np.array([40, 0]), np.array([100, 0]))
    tree.add_job("b", "root/light", "1/1", np.array([20, 0]), np.array([100, 0]))
    tree.refresh()
    assert tree.compare(["root", "heavy"], ["root", "light"]) < 0  # 0.4/4 < 0.2/1
    tree.set_alloc("b", np.array([5, 0]))
    full = tree.clone()
    full.refresh()
    for path in (["root"], ["root", "heavy"], ["root", "light"]):
        inc, ref = tree.node_at(path), full.node_at(path)
        assert inc is not None and ref is not None
        assert (inc.share, inc.saturated, inc.alloc.tolist()) == (ref.share, ref.saturated, ref.alloc.tolist())


@pytest.mark.parametrize(("text", "weight"), [("50", 50.0), ("0.5", 1.0), ("x", 1.0), ("inf", 1.0), ("2.5", 2.5)])
def test_parse_weight(text: str, weight: float) -> None:
    assert parse_weight(text) == weight


def test_missing_weights_and_unknown_paths_do_not_break() -> None:
    tree = _tree([10, 10])
    tree.add_job("a", "root/p/q", "", np.array([1, 0]), np.array([2, 0]))
    tree.refresh()
    node_q = tree.node_at(["root", "p", "q"])
    assert node_q is not None and node_q.weight == 1.0
    assert tree.compare(["root", "p", "q"], ["root", "nowhere"]) == 0.0


def _reclaim_session(preemptee_groups: int) -> Result:
    cfg = conf(["reclaim"], [opt("drf", "hierarchy", "queueOrder", "jobOrder", "reclaimable")])
    queues = [hqueue("qa", "root/a", "1/1"), hqueue("qb", "root/b", "1/1")]
    pods = [pod("ns", f"b-{i}", node_name="n", phase="Running", req=res(1, "0"), group="gb")
            for i in range(preemptee_groups)]
    pods.append(pod("ns", "a-0", req=res(1, "0"), group="ga"))
    pgs = [pg("gb", "ns", "qb", 0, "Running"), pg("ga", "ns", "qa", 1)]
    return run(cfg, nodes=[node("n", res(4, "4G", pods=10))], queues=queues, pods=pods, podgroups=pgs,
               actions=[])


def test_reclaimable_moves_requests_between_jobs() -> None:
    r = _reclaim_session(4)
    plugin = r.session.plugins["drf"]
    assert isinstance(plugin, DrfPlugin) and plugin.tree is not None
    reclaimer = next(iter(r.session.jobs["ns/ga"].tasks.values()))
    victims = list(r.session.jobs["ns/gb"].tasks.values())
    # qa would hold 1 cpu, qb 3 after giving one up: qa still goes first, every task is a victim candidate
    assert [t.name for t in plugin.reclaimable(reclaimer, victims)[0]] == ["b-0", "b-1", "b-2", "b-3"]
    r2 = _reclaim_session(1)
    p2 = r2.session.plugins["drf"]
    assert isinstance(p2, DrfPlugin)
    reclaimer2 = next(iter(r2.session.jobs["ns/ga"].tasks.values()))
    # with a single 1-cpu task in qb, qa (1 cpu) would not go before qb (0): no victim
    assert p2.reclaimable(reclaimer2, list(r2.session.jobs["ns/gb"].tasks.values()))[0] == []
    assert r.session.plugins["drf"] is plugin
