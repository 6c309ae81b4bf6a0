"""Per-plugin order flags and an action's ``configurations`` argument (scheduler reference §2.3, §2.4,
§4.8, §5.1-§5.3).

* Job order: two jobs wait for the one slot a ``holder`` pod frees; ``early`` (created first) and
  ``late``. priority orders by the PodGroups' class values (``late`` has the higher), gang puts jobs
  not yet ready first, drf the smaller dominant share first; ``enableJobOrder: false`` on an entry takes
  that plugin out of the order, and with every plugin out the creation order decides.
* Task order: one PodGroup, two pods, one slot; priority orders its tasks by pod priority,
  ``enableTaskOrder: false`` leaves Volcano's default (the pod index in the name).
* ``gangpreempt``'s ``allowWholeBundle`` (a bool in any ParseBool form; default true): a high-priority
  gang takes the slots of a low-priority gang only through a "whole" bundle (one that breaks the
  victim gang) when allowed; a victim with spare pods above its minAvailable gives a "safe" bundle
  either way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group, priority_class
from volcano.conformance.lib.waits import bound, wait_tasks_ready
from volcano.conformance.test_gang_evict import HIGH_LOW, SLOTS, _gang, _setup
from volcano.conformance.test_scheduling_support import GANG_EVICT_CONF, ready

Obj = dict[str, Any]
Test = TypeVar("Test", bound=Callable[..., None])

pytestmark = pytest.mark.scheduling_base


def _conf(plugins: list[str]) -> str:
    """Tier 1: ``plugins`` (entries, each possibly with flag lines after a ``;``); tier 2: predicates,
    proportion, nodeorder."""
    tier = "".join("  - name: " + p.replace(";", "\n    ") + "\n" for p in plugins)
    return ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n' + tier
            + "- plugins:\n  - name: predicates\n  - name: proportion\n  - name: nodeorder\n")


def _free_slot(cluster: Cluster, names: list[str]) -> str:
    """Delete the holder; the one of ``names`` that binds (the others stay unbound)."""
    cluster.delete("Pod", "holder")
    cluster.wait_until(lambda: any(bound(cluster.get("Pod", n)) for n in names), 60, "a waiting pod binds")
    cluster.hold(lambda: sum(bound(cluster.get("Pod", n)) for n in names) == 1, 10, "only one binds")
    return next(n for n in names if bound(cluster.get("Pod", n)))


def _orders(cases: list[tuple[list[str], str]], cpu: str) -> Callable[[Test], Test]:
    """On one worker of ``cpu`` CPUs (no control plane), parametrise ``winner`` over ``cases`` (tier-1 plugin
    entries, the pod expected to win), each case under its own scheduler configuration and named by its entries."""
    parametrise = pytest.mark.parametrize(("winner",), [
        pytest.param(w, id="|".join(p), marks=pytest.mark.scheduler_conf(_conf(p))) for p, w in cases])
    return lambda test: pytest.mark.cluster(workers=1, cpu=cpu, control_plane=False)(parametrise(test))


def _hold_slot(cluster: Cluster, *, high_class: bool = False) -> None:
    """Create the 2-CPU ``holder`` pod (no grace period) and wait for it to bind; with ``high_class``, first
    the PriorityClass ``opts-high`` (1000)."""
    if high_class:
        cluster.apply(priority_class("opts-high", 1000))
    cluster.apply(pod("holder", req={"cpu": "2"}, grace_seconds=0))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "holder")), 60, "holder binds")


def _waiting_job(cluster: Cluster, name: str, priority: str = "") -> None:
    """A PodGroup ``name`` (minMember 1, of class ``priority`` when given) and its one 2-CPU pod ``<name>-0``."""
    cluster.apply(pod_group(name, min_member=1, priority_class=priority))
    cluster.apply(pod(f"{name}-0", group=name, req={"cpu": "2"}))


PRIORITY_ORDER = [
    (["priority", "gang"], "late-0"),
    (["priority;enableJobOrder: false", "gang"], "early-0"),
    (["priority;enableJobOrder: true", "gang;enableJobOrder: false"], "late-0"),
]


@_orders(PRIORITY_ORDER, cpu="2")
def test_priority_job_order_flag(cluster: Cluster, winner: str) -> None:
    """``late``'s PodGroup has the higher class; it goes first unless priority's job order is off."""
    _hold_slot(cluster, high_class=True)
    _waiting_job(cluster, "early")
    cluster.sleep(2)  # creation timestamps a second apart
    _waiting_job(cluster, "late", "opts-high")
    cluster.sleep(10)
    assert _free_slot(cluster, ["early-0", "late-0"]) == winner


SHARE_ORDER = [
    # rich (created first) runs 1 of 3 CPUs and waits for a second pod; poor (later) holds nothing
    (["gang", "drf"], "poor-0"),
    (["gang;enableJobOrder: false", "drf"], "poor-0"),  # drf: the smaller share first
    (["gang", "drf;enableJobOrder: false"], "poor-0"),  # gang: the job not yet ready first
    (["gang;enableJobOrder: false", "drf;enableJobOrder: false"], "rich-1"),  # creation order
]


@_orders(SHARE_ORDER, cpu="3")
def test_gang_and_drf_job_order_flags(cluster: Cluster, winner: str) -> None:
    """``rich`` (ready, 1 CPU running) and ``poor`` (nothing yet) each wait with a 2-CPU pod."""
    cluster.apply(pod_group("rich", min_member=1))
    cluster.apply(pod("rich-0", group="rich", req={"cpu": "1"}))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "rich-0")), 60, "rich-0 binds")
    _hold_slot(cluster)
    cluster.apply(pod("rich-1", group="rich", req={"cpu": "2"}))
    cluster.sleep(2)
    _waiting_job(cluster, "poor")
    cluster.sleep(10)
    assert _free_slot(cluster, ["rich-1", "poor-0"]) == winner


TASK_ORDER = [
    (["priority", "gang"], "one-task-1"),
    (["priority;enableTaskOrder: false", "gang"], "one-task-0"),
]


@_orders(TASK_ORDER, cpu="2")
def test_priority_task_order_flag(cluster: Cluster, winner: str) -> None:
    """One PodGroup (minMember 1) with ``one-task-0`` (no class) and ``one-task-1`` (the higher class)."""
    _hold_slot(cluster, high_class=True)
    cluster.apply(pod_group("one", min_member=1))
    cluster.apply([pod("one-task-0", group="one", req={"cpu": "2"}),
                   pod("one-task-1", group="one", req={"cpu": "2"}, priority_class="opts-high")])
    cluster.sleep(10)
    assert _free_slot(cluster, ["one-task-0", "one-task-1"]) == winner


def _bundle_conf(value: str | None) -> str:
    if value is None:
        return GANG_EVICT_CONF
    return GANG_EVICT_CONF + f"configurations:\n- name: gangpreempt\n  arguments:\n    allowWholeBundle: {value}\n"


WHOLE = [
    # (allowWholeBundle as written, the victim's minAvailable, whether the evictor runs)
    (None, 4, True), ("true", 4, True), ('"true"', 4, True), ("false", 4, False), ('"false"', 4, False),
    ('"0"', 4, False), ("0", 4, True),  # a YAML int: not a bool, the default
    ('"false"', 2, True),  # a safe bundle (the victim keeps its minAvailable) needs no permission
]


@pytest.mark.cluster(**SLOTS)
@pytest.mark.parametrize(("min_available", "runs"), [
    pytest.param(m, r, id=f"{v}-{m}", marks=pytest.mark.scheduler_conf(_bundle_conf(v))) for v, m, r in WHOLE])
def test_gangpreempt_allow_whole_bundle(cluster: Cluster, min_available: int, runs: bool) -> None:
    """A low-priority gang of 4 fills the four 1-CPU slots; a high-priority gang of 2 preempts it only
    when a whole bundle is allowed or the victim has 2 pods to spare."""
    _setup(cluster, {"gp-q": 4}, HIGH_LOW)
    cluster.apply(_gang("victim", "gp-q", "gp-low-pri", 4, min_available, True))
    wait_tasks_ready(cluster, "victim", 4)
    cluster.apply(_gang("evictor", "gp-q", "gp-high-pri", 2, 2, False))
    if runs:
        wait_tasks_ready(cluster, "evictor", 2, timeout=120)
        assert ready(cluster, "victim") <= 2
    else:
        cluster.hold(lambda: ready(cluster, "victim") == 4 and ready(cluster, "evictor") == 0, 60,
                     "the victim keeps its four pods")
