"""Why enqueue keeps a PodGroup Pending, in the words of the plugin that refused it (scheduler
reference §5.4.3, §5.5 and the overcommit plugin; upstream ``FormatResourceNames``):

* ``overcommit`` admits a PodGroup while ``inqueue + minResources <= total x factor - used`` on the
  dimensions minResources asks for (the limit itself allowed); a refusal is a PodGroup event
  ``Normal``/``Unschedulable`` "resource in cluster is overused: overused <res>, ...". The factor is
  ``overcommit-factor`` (default 1.2; a value below 1 means the default);
* ``proportion`` and ``capacity`` admit it while ``minResources + allocated + inqueue - elastic`` stays
  within the queue's real capability; a refusal is "queue resource quota insufficient: insufficient
  <res>, ...";
* plugins vote in order and the first refusal ends the vote, so only that plugin's event is written.

Shape: one worker of 4 CPUs and 16Gi, no control-plane node, so the cluster total is 4 CPUs and 16Gi.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import make_queues, simple_queue

Obj = dict[str, Any]

pytestmark = [pytest.mark.queue, pytest.mark.cluster(workers=1, cpu="4", memory="16Gi", control_plane=False)]

QUOTA = "queue resource quota insufficient"
OVERUSED = "resource in cluster is overused"


def _overcommit_conf(factor: str) -> str:
    """overcommit as the only enqueue voter (no queue plugin), with ``overcommit-factor``."""
    return ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
            "- plugins:\n  - name: overcommit\n    arguments:\n"
            f"      overcommit-factor: {factor}\n  - name: predicates\n  - name: nodeorder\n")


CAPACITY_CONF = ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
                 "- plugins:\n  - name: predicates\n  - name: capacity\n  - name: nodeorder\n")


def _submit(cluster: Cluster, min_resources: dict[str, str], queue: str = "default") -> None:
    cluster.apply(pod_group("asks", min_member=1, queue=queue, min_resources=min_resources))
    cluster.apply(pod("asks-0", group="asks", req={"cpu": "100m", "memory": "100Mi"}))


def _phase(cluster: Cluster) -> str:
    return str((cluster.get("PodGroup", "asks").get("status") or {}).get("phase") or "Pending")


def _refused(cluster: Cluster, message: str) -> None:
    """The PodGroup stays Pending, its pod unbound, and its only enqueue events (``Normal``
    ``Unschedulable``; gang's own account of the unready job is a ``Warning``) say ``message``."""
    def said() -> list[Obj]:
        return [e for e in cluster.events("PodGroup", "asks")
                if e.get("reason") == "Unschedulable" and e.get("type") == "Normal"]

    cluster.wait_until(lambda: bool(said()), 60, "an Unschedulable event on the PodGroup")
    cluster.hold(lambda: _phase(cluster) == "Pending" and not bound(cluster.get("Pod", "asks-0")), 10,
                 "the PodGroup stays Pending")
    assert {e["message"] for e in said()} == {message}


def _admitted(cluster: Cluster) -> None:
    cluster.wait_until(lambda: bound(cluster.get("Pod", "asks-0")), 60, "the pod binds")
    assert _phase(cluster) in ("Inqueue", "Running")
    assert not [e for e in cluster.events("PodGroup", "asks")
                if e.get("reason") == "Unschedulable" and e.get("type") == "Normal"]


@pytest.mark.parametrize(("min_resources", "message"), [
    ({"cpu": "4801m"}, f"{OVERUSED}: overused cpu"),
    ({"cpu": "5", "memory": "20Gi"}, f"{OVERUSED}: overused cpu, overused memory"),
    ({"cpu": "4800m"}, f"{QUOTA}: insufficient cpu"),     # within 4 x 1.2, past the queue's 4 CPUs
    ({"cpu": "1", "memory": "17Gi"}, f"{QUOTA}: insufficient memory"),
])
def test_the_default_configuration_names_the_refusing_plugin_and_dimensions(
        cluster: Cluster, min_resources: dict[str, str], message: str) -> None:
    """Default configuration (overcommit before proportion in the second tier): overcommit refuses
    past 4.8 CPUs or 19.2Gi; within those, proportion refuses past the default queue's 4 CPUs or
    16Gi. The event names every failing dimension, cpu before memory."""
    _submit(cluster, min_resources)
    _refused(cluster, message)


@pytest.mark.parametrize(("factor", "cpu", "admitted"), [
    pytest.param(f, c, a, marks=pytest.mark.scheduler_conf(_overcommit_conf(f)))
    for f, c, a in [("0.5", "4800m", True), ("0.5", "4801m", False), ("2.0", "8000m", True),
                    ("2.0", "8001m", False)]
])
def test_the_overcommit_factor_sets_what_enqueue_admits(cluster: Cluster, factor: str, cpu: str,
                                                        admitted: bool) -> None:
    """``overcommit-factor`` 2.0 admits minResources up to 8 CPUs on the 4-CPU cluster; 0.5, below
    1, means the default 1.2 (4.8 CPUs)."""
    _submit(cluster, {"cpu": cpu})
    if admitted:
        _admitted(cluster)
    else:
        _refused(cluster, f"{OVERUSED}: overused cpu")


@pytest.mark.scheduler_conf(CAPACITY_CONF)
@pytest.mark.parametrize(("min_resources", "message"), [
    ({"cpu": "3001m"}, f"{QUOTA}: insufficient cpu"),
    ({"cpu": "3001m", "memory": "5Gi"}, f"{QUOTA}: insufficient cpu, insufficient memory"),
    ({"cpu": "3", "memory": "4Gi"}, None),
])
def test_capacity_refuses_past_the_queue_capability_by_dimension(cluster: Cluster, min_resources: dict[str, str],
                                                                 message: str | None) -> None:
    """Queue ``capq`` with capability 3 CPUs and 4Gi under capacity: minResources at the capability
    are admitted; past it the event names each dimension past it."""
    make_queues(cluster, simple_queue("capq", capability={"cpu": "3", "memory": "4Gi"}))
    _submit(cluster, min_resources, queue="capq")
    if message is None:
        _admitted(cluster)
    else:
        _refused(cluster, message)
