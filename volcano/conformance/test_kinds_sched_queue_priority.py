"""A queue's ``spec.priority`` comes before its share in allocate's queue order, with proportion and
with capacity (scheduler reference §5.4.3 and §5.5 queueOrderFn): of two queues waiting for the one free
CPU, the one of higher priority gets it even with the larger share; at equal priority the smaller share
does.

Shape: one worker of 8 CPUs and 16Gi, no control-plane node. ``kp-a`` runs one 1-CPU pod, ``kp-b`` two,
``kp-c`` a 4-CPU pod and a 1-CPU filler that holds the last CPU while each of ``kp-a`` and ``kp-b`` adds
a waiting pod; then the filler goes. Shares: proportion's water-filling of the 8 CPUs (requests 2, 3
and 4) deserves ``kp-a`` 2 and ``kp-b`` 3, so 1/2 against 2/3, both within their deserved with one more
CPU; capacity is given deserved 2 CPUs each, so 1/2 against 2/2.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import queue
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_kinds_sched_capacity import CAPACITY_CONF, _all_bound, _group, _pg_phase, free_one_slot
from volcano.conformance.test_scheduling_support import CI_CONF_NO_ENQUEUE, conf_with, make_queues

Obj = dict[str, Any]

# The CI configuration's plugins, allocating only: no reclaim takes ``kp-c``'s CPUs above its deserved.
PROPORTION_CONF = conf_with(CI_CONF_NO_ENQUEUE, old='"allocate, backfill, reclaim, preempt"', new='"allocate"')

pytestmark = [pytest.mark.queue, pytest.mark.cluster(workers=1, cpu="8", memory="16Gi", control_plane=False)]


def _queue(name: str, priority: int, deserved: dict[str, str] | None) -> Obj:
    q = queue(name, deserved=deserved)
    if priority:
        q["spec"]["priority"] = priority
    return q


@pytest.mark.parametrize("plugin", [
    pytest.param("proportion", marks=pytest.mark.scheduler_conf(PROPORTION_CONF)),
    pytest.param("capacity", marks=pytest.mark.scheduler_conf(CAPACITY_CONF)),
])
@pytest.mark.parametrize(("b_priority", "winner"), [(10, "kp-b"), (0, "kp-a")])
def test_the_higher_priority_queue_goes_first_whatever_its_share(cluster: Cluster, plugin: str, b_priority: int,
                                                                 winner: str) -> None:
    """``kp-b`` of priority ``b_priority`` (``kp-a`` 0): the freed CPU goes to ``winner``'s waiting pod."""
    deserved = {"cpu": "2", "memory": "4Gi"} if plugin == "capacity" else None
    make_queues(cluster, _queue("kp-a", 0, deserved), _queue("kp-b", b_priority, deserved), _queue("kp-c", 0, None))
    running = _group(cluster, "kp-a-run", "kp-a", 1) + _group(cluster, "kp-b-run", "kp-b", 2)
    running += _group(cluster, "kp-c-keep", "kp-c", 1, cpu="4")
    filler = _group(cluster, "kp-c-fill", "kp-c", 1)
    _all_bound(cluster, running + filler, "the queues' first pods bound")
    waiting = _group(cluster, "kp-a-wait", "kp-a", 1) + _group(cluster, "kp-b-wait", "kp-b", 1)
    cluster.wait_until(lambda: all(_pg_phase(cluster, g) in ("Pending", "Inqueue") for g in ("kp-a-wait", "kp-b-wait")),
                       60, "both waiting PodGroups known")
    cluster.sleep(3)
    assert not any(bound(cluster.get("Pod", n)) for n in waiting)
    free_one_slot(cluster, "kp-c-fill", filler, waiting, winner)
