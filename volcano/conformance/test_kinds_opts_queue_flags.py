"""A queue plugin's order flag in allocate (scheduler reference §2.3, §5.5): capacity's
``enableQueueOrder``. Of two queues waiting for one slot, the one with the smaller share of its
deserved goes first; with the flag off, the queue created first.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import make_queues, simple_queue

pytestmark = pytest.mark.queue


def _conf(plugin: str, flags: list[str]) -> str:
    entry = f"  - name: {plugin}\n" + "".join(f"    {f}\n" for f in flags)
    return ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
            "- plugins:\n  - name: predicates\n" + entry + "  - name: nodeorder\n")


def _bound(cluster: Cluster, names: list[str]) -> int:
    return sum(bound(cluster.get("Pod", n)) for n in names)


@pytest.mark.cluster(workers=1, cpu="3", control_plane=False)
@pytest.mark.parametrize(("winner",), [
    pytest.param("second-0", id="on", marks=pytest.mark.scheduler_conf(_conf("capacity", []))),
    pytest.param("first-1", id="off", marks=pytest.mark.scheduler_conf(
        _conf("capacity", ["enableQueueOrder: false"]))),
])
def test_capacity_enable_queue_order(cluster: Cluster, winner: str) -> None:
    """Queues ``q-first`` (1 CPU running, created first) and ``q-second`` (nothing), 3 CPUs deserved
    each, wait with a 2-CPU pod each for the slot a holder frees."""
    make_queues(cluster, simple_queue("q-first", deserved={"cpu": "3"}))
    cluster.sleep(2)
    make_queues(cluster, simple_queue("q-second", deserved={"cpu": "3"}))
    cluster.apply(pod_group("first", min_member=1, queue="q-first"))
    cluster.apply(pod("first-0", group="first"))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "first-0")), 60, "first-0 binds")
    cluster.apply(pod("holder", req={"cpu": "2"}, grace_seconds=0))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "holder")), 60, "holder binds")
    cluster.apply(pod("first-1", group="first", req={"cpu": "2"}))
    cluster.apply(pod_group("second", min_member=1, queue="q-second"))
    cluster.apply(pod("second-0", group="second", req={"cpu": "2"}))
    cluster.sleep(10)
    names = ["first-1", "second-0"]
    cluster.delete("Pod", "holder")
    cluster.wait_until(lambda: _bound(cluster, names) >= 1, 60, "a waiting pod binds")
    cluster.hold(lambda: _bound(cluster, names) == 1, 10, "only one binds")
    assert [n for n in names if bound(cluster.get("Pod", n))] == [winner]
