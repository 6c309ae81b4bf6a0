"""Enqueue options: overcommit's factor, capacity's hierarchy, and ``enableJobEnqueued`` (scheduler
reference §2.3, §5.5, §5.10).

* ``overcommit-factor`` (a float or an int; default 1.2; below 1.0 the default; a quoted number is not
  a float and keeps the default): a PodGroup whose ``minResources`` asks for ``total x factor`` CPUs is
  admitted (Inqueue), one millicore more stays Pending with the ``Normal``/``Unschedulable`` event
  "resource in cluster is overused: overused cpu". ``enableJobEnqueued: false`` on overcommit's entry
  switches that check off.
* capacity with ``enableHierarchy: true``: a PodGroup in leaf ``a`` whose parent ``p`` has a
  capability of 4 CPUs, 3 of them held by a pod in sibling ``b``, is admitted for 1 CPU and refused for
  2 with the event "queue resource quota insufficient: insufficient cpu" (each leaf alone would admit
  both); with the hierarchy off (absent, or ``false``) the parent limits nothing.
* proportion's queue capability check, switched off by ``enableJobEnqueued: false`` on its entry.
* sla's ``sla-waiting-time`` argument (expected to fail, strictly: the plugin is not implemented).
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import make_queues, simple_queue

Obj = dict[str, Any]

pytestmark = pytest.mark.queue


def _phase(cluster: Cluster, name: str) -> str:
    return str((cluster.get("PodGroup", name).get("status") or {}).get("phase") or "Pending")


def _events(cluster: Cluster, name: str) -> list[Obj]:
    """The ``Normal`` ``Unschedulable`` events of PodGroup ``name`` (enqueue's; gang's are Warnings)."""
    return [e for e in cluster.events() if (e.get("involvedObject") or {}).get("name") == name
            and e.get("reason") == "Unschedulable" and e.get("type") == "Normal"]


def _admitted(cluster: Cluster, name: str, admitted: bool, message: str) -> None:
    """PodGroup ``name`` reaches Inqueue (``admitted``), or stays Pending for a minute with a ``Normal``
    ``Unschedulable`` event carrying ``message``."""
    if admitted:
        cluster.wait_until(lambda: _phase(cluster, name) == "Inqueue", 60, f"{name} Inqueue")
        return
    cluster.wait_until(lambda: bool(_events(cluster, name)), 60, f"an Unschedulable event on {name}")
    cluster.hold(lambda: _phase(cluster, name) == "Pending", 30, f"{name} stays Pending")
    assert {e.get("message") for e in _events(cluster, name)} == {message}


def _overcommit_conf(factor: str | None, flag: str = "") -> str:
    entry = "  - name: overcommit\n" + (f"    {flag}\n" if flag else "")
    if factor is not None:
        entry += f"    arguments:\n      overcommit-factor: {factor}\n"
    return ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
            "- plugins:\n" + entry + "  - name: predicates\n  - name: nodeorder\n")


OVERCUSED = "resource in cluster is overused: overused cpu"
FACTORS = [
    # (factor as written, minResources cpu, admitted): one worker of 4 CPUs is the whole cluster
    (None, "4800m", True), (None, "4801m", False),  # the default 1.2
    ("1.5", "6", True), ("1.5", "6001m", False),
    ("1", "4", True), ("1", "4001m", False),  # an int, at the limit 1.0: kept
    ("1.0", "4001m", False),
    ("0.99", "4800m", True), ("0.99", "4801m", False),  # below 1.0: the default
    ('"1.5"', "4801m", False),  # quoted: not a float, the default
    ("2", "8", True), ("2", "8001m", False),
]


@pytest.mark.cluster(workers=1, cpu="4", control_plane=False)
@pytest.mark.parametrize(("cpu", "admitted"), [
    pytest.param(cpu, ok, id=f"{f}-{cpu}", marks=pytest.mark.scheduler_conf(_overcommit_conf(f)))
    for f, cpu, ok in FACTORS])
def test_overcommit_factor(cluster: Cluster, cpu: str, admitted: bool) -> None:
    """A PodGroup asking for ``total x factor`` CPUs is admitted, one millicore more is not."""
    cluster.apply(pod_group("big", min_member=1, min_resources={"cpu": cpu}))
    _admitted(cluster, "big", admitted, OVERCUSED)


@pytest.mark.cluster(workers=1, cpu="4", control_plane=False)
@pytest.mark.parametrize(("admitted",), [
    pytest.param(True, id="off", marks=pytest.mark.scheduler_conf(_overcommit_conf(None, "enableJobEnqueued: false"))),
    pytest.param(False, id="on", marks=pytest.mark.scheduler_conf(_overcommit_conf(None, "enableJobEnqueued: true"))),
])
def test_overcommit_enable_job_enqueued(cluster: Cluster, admitted: bool) -> None:
    """``enableJobEnqueued: false`` on overcommit's entry admits a PodGroup of twice the cluster."""
    cluster.apply(pod_group("big", min_member=1, min_resources={"cpu": "8"}))
    _admitted(cluster, "big", admitted, OVERCUSED)


def _capacity_conf(hierarchy: str | None) -> str:
    entry = "  - name: capacity\n" + (f"    enableHierarchy: {hierarchy}\n" if hierarchy is not None else "")
    return ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
            "- plugins:\n  - name: predicates\n" + entry + "  - name: nodeorder\n")


INSUFFICIENT = "queue resource quota insufficient: insufficient cpu"


@pytest.mark.cluster(workers=1, cpu="8", control_plane=False)
@pytest.mark.parametrize(("hierarchy", "cpu", "admitted"), [
    pytest.param(h, cpu, ok, id=f"{h}-{cpu}", marks=pytest.mark.scheduler_conf(_capacity_conf(h)))
    for h, cpu, ok in [("true", "1", True), ("true", "2", False), ("true", "1001m", False),
                       ("false", "2", True), (None, "2", True)]])
def test_capacity_ancestor_capability(cluster: Cluster, hierarchy: str | None, cpu: str, admitted: bool) -> None:
    """Parent ``p`` (4 CPUs) over leaves ``a`` and ``b`` (4 CPUs each), 3 CPUs running in ``b``: a
    PodGroup in ``a`` is admitted as far as the parent's capability goes, when the hierarchy is on."""
    make_queues(cluster, simple_queue("p", parent="root", capability={"cpu": "4"}))
    make_queues(cluster, simple_queue("a", parent="p", capability={"cpu": "4"}),
                simple_queue("b", parent="p", capability={"cpu": "4"}))
    cluster.apply(pod_group("in-b", min_member=1, queue="b", min_resources={"cpu": "3"}))
    cluster.apply(pod("in-b-0", group="in-b", req={"cpu": "3"}))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "in-b-0")), 60, "b's pod binds")
    cluster.apply(pod_group("in-a", min_member=1, queue="a", min_resources={"cpu": cpu}))
    _admitted(cluster, "in-a", admitted, INSUFFICIENT)


def _proportion_conf(flag: str) -> str:
    return ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
            f"- plugins:\n  - name: predicates\n  - name: proportion\n    {flag}\n  - name: nodeorder\n")


@pytest.mark.cluster(workers=1, cpu="4", control_plane=False)
@pytest.mark.parametrize(("admitted",), [
    pytest.param(True, id="off", marks=pytest.mark.scheduler_conf(_proportion_conf("enableJobEnqueued: false"))),
    pytest.param(False, id="on", marks=pytest.mark.scheduler_conf(_proportion_conf("enableJobEnqueued: true"))),
])
def test_proportion_enable_job_enqueued(cluster: Cluster, admitted: bool) -> None:
    """A PodGroup asking for 3 CPUs in a queue capped at 2: admitted only with proportion's enqueue
    check switched off."""
    make_queues(cluster, simple_queue("capped", capability={"cpu": "2"}))
    cluster.apply(pod_group("over", min_member=1, queue="capped", min_resources={"cpu": "3"}))
    _admitted(cluster, "over", admitted, INSUFFICIENT)


SLA_CONF = ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
            "  - name: sla\n    arguments:\n      sla-waiting-time: 1m\n"
            "- plugins:\n  - name: overcommit\n  - name: predicates\n  - name: nodeorder\n")


@pytest.mark.cluster(workers=1, cpu="4", control_plane=False)
@pytest.mark.scheduler_conf(SLA_CONF)
@pytest.mark.xfail(strict=True, reason="the sla plugin is not implemented (the configuration loader refuses it)")
def test_sla_waiting_time_argument(cluster: Cluster) -> None:
    """sla's ``sla-waiting-time`` (tier 1) permits a PodGroup's enqueue once it has waited that long,
    before overcommit (tier 2) can refuse it: a PodGroup of twice the cluster stays Pending for the
    first minute and is Inqueue after it."""
    cluster.apply(pod_group("patient", min_member=1, min_resources={"cpu": "8"}))
    cluster.hold(lambda: _phase(cluster, "patient") == "Pending", 50, "patient waits")
    cluster.wait_until(lambda: _phase(cluster, "patient") == "Inqueue", 30, "patient Inqueue after a minute")
