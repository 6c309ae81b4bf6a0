"""gangreclaim's victim-queue order (scheduler reference §4.6 and §4.8) when the victims sit in two
queues.

Bundles are sorted safe before whole, then by the victim-queue order relative to the reclaiming
queue: ``VictimQueueOrderFn`` when a plugin registers one (capacity only with ``enableHierarchy``),
else "the queue that would be scheduled *later* first", i.e. the reverse of the queue order. With
flat capacity the queue order is the smaller share (allocated / deserved) first, so the victims come
from the queue with the larger share. Only when the queues tie does return on investment decide.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import GANG_EVICT_CONF, make_queues, simple_queue

pytestmark = [pytest.mark.reclaim, pytest.mark.scheduler_conf(GANG_EVICT_CONF)]

C1 = {"cpu": "1", "memory": "1Gi"}
PREEMPTABLE = {"volcano.sh/preemptable": "true"}


def _deserved(cpu: int) -> dict[str, str]:
    return {"cpu": str(cpu), "memory": f"{cpu}Gi"}


def _gang(cluster: Cluster, name: str, queue_name: str, pods: int, min_member: int, *, preemptable: bool) -> None:
    """A PodGroup ``name`` of ``pods`` one-CPU bare pods ``<name>-<i>``, waited bound."""
    cluster.apply(pod_group(name, min_member=min_member, queue=queue_name))
    cluster.apply([pod(f"{name}-{i}", group=name, req=C1, grace_seconds=0,
                       labels=PREEMPTABLE if preemptable else None) for i in range(pods)])
    cluster.wait_until(lambda: all(bound(p) for p in _pods(cluster, name)) and len(_pods(cluster, name)) == pods,
                       120, f"{name}'s {pods} pods bound")


def _pods(cluster: Cluster, group: str) -> list[dict[str, Any]]:
    return [p for p in cluster.pods() if p["metadata"]["name"].startswith(f"{group}-")]


def _live(cluster: Cluster, group: str) -> int:
    return sum(1 for p in _pods(cluster, group) if bound(p) and not p["metadata"].get("deletionTimestamp"))


@pytest.mark.cluster(workers=6, cpu="1", memory="1Gi")
@pytest.mark.parametrize(("deserved_a", "deserved_b", "taken_from"), [(1, 2, "gang-a"), (2, 1, "gang-b")])
def test_victims_come_from_the_queue_scheduled_last(cluster: Cluster, deserved_a: int, deserved_b: int,
                                                    taken_from: str) -> None:
    """Two overused queues each run a three-pod gang with minMember 1 (so each offers a safe bundle);
    a one-pod gang in an empty queue reclaims. Its victims are the safe bundle of the queue with the
    larger share (3 / 1 against 3 / 2), whichever queue that is; the other gang keeps all three pods."""
    make_queues(cluster, simple_queue("gr-own", deserved=_deserved(2)),
                simple_queue("gr-qa", deserved=_deserved(deserved_a)),
                simple_queue("gr-qb", deserved=_deserved(deserved_b)))
    _gang(cluster, "gang-a", "gr-qa", 3, 1, preemptable=True)
    _gang(cluster, "gang-b", "gr-qb", 3, 1, preemptable=True)
    _gang(cluster, "reclaimer", "gr-own", 1, 1, preemptable=False)
    kept = "gang-b" if taken_from == "gang-a" else "gang-a"
    assert _live(cluster, kept) == 3, f"{kept} lost pods: the victims came from the queue with the smaller share"
    assert _live(cluster, taken_from) < 3, f"{taken_from} kept every pod"
