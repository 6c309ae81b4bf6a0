"""Gang preemption (``gangpreempt``, catalogue §3.10) plans room only for what the evicting gang can
place: its scheduling-gated pods are left out of the plan, so they neither ask for more victims nor
hold the plan back, and they stay Pending and unbound.

Shape: the gang-evict suite's (four 1-CPU / 1Gi worker slots, four tainted kwok nodes no job
tolerates, the suite's scheduler configuration), as upstream's GP-1: a low-priority victim gang of 4
pods with minAvailable 2 fills the slots; a high-priority job of two 1-CPU pods (its minAvailable)
and one gated 1-CPU pod preempts.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job
from volcano.conformance.lib.waits import bound, wait_tasks_ready
from volcano.conformance.test_gang_evict import HIGH_LOW, SLOTS, _gang, _setup
from volcano.conformance.test_scheduling_support import C1, GANG_EVICT_CONF, ready

Obj = dict[str, Any]

pytestmark = [pytest.mark.preemption, pytest.mark.scheduler_conf(GANG_EVICT_CONF), pytest.mark.cluster(**SLOTS)]


def test_a_gated_pod_of_the_preempting_gang_is_left_out_of_the_plan(cluster: Cluster) -> None:
    """The preemptor's two ungated pods run, the victim gang keeps exactly two pods (its minAvailable,
    not one fewer for the gated pod), and the gated pod stays unbound."""
    _setup(cluster, {"gp-q": 4}, HIGH_LOW)
    cluster.apply(_gang("kge-victim", "gp-q", "gp-low-pri", 4, 2, True))
    wait_tasks_ready(cluster, "kge-victim", 4)
    preemptor = job("kge-preemptor", [Task(name="run", req=C1, rep=2, min=2),
                                      Task(name="held", req=C1, rep=1, min=0)], min=2, queue="gp-q",
                    priority_class="gp-high-pri")
    preemptor["spec"]["tasks"][1]["template"]["spec"]["schedulingGates"] = [{"name": "kinds.example/hold"}]
    cluster.apply(preemptor)
    wait_tasks_ready(cluster, "kge-preemptor", 2)
    cluster.hold(lambda: ready(cluster, "kge-victim") == 2, 20, "the victim keeps two pods")
    held = [p for p in cluster.job_pods("kge-preemptor") if p["metadata"]["name"].startswith("kge-preemptor-held-")]
    assert len(held) == 1 and not bound(held[0]), held
    assert held[0]["status"].get("phase") == "Pending"
