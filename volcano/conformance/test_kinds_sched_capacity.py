"""The capacity plugin, kinds of behaviour a client observes (scheduler reference §5.5):

* a queue deserves ``min(spec.deserved, real capability)``, and with no capability the real capability
  is the cluster's total: a queue declaring more than the cluster has shares as if it declared the
  total, which decides the queue order of allocate (smaller ``allocated / deserved`` first);
* enqueue admits a PodGroup while ``minResources + allocated + inqueue`` stays within the queue's real
  capability on the dimensions minResources asks for (the limit itself admitted); a refusal keeps the
  PodGroup Pending with a ``Normal``/``Unschedulable`` event "queue resource quota insufficient:
  insufficient <res>".

Shape: one worker of 4 CPUs and 16Gi, no control-plane node (the cluster total is 4 CPUs, 16Gi).
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import make_queues, simple_queue

Obj = dict[str, Any]

CAPACITY_CONF = ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
                 "- plugins:\n  - name: predicates\n  - name: capacity\n  - name: nodeorder\n")

pytestmark = [pytest.mark.queue, pytest.mark.cluster(workers=1, cpu="4", memory="16Gi", control_plane=False),
              pytest.mark.scheduler_conf(CAPACITY_CONF)]

ONE = {"cpu": "1"}


def _group(cluster: Cluster, name: str, queue: str, pods: int, *, cpu: str = "1",
           min_resources: dict[str, str] | None = None, node: str | None = None,
           resource: str = "cpu") -> list[str]:
    """A PodGroup of minMember 1 in ``queue`` with ``pods`` pods of ``cpu`` units of ``resource`` each (a
    GPU pod asks 100m cpu too); their names."""
    cluster.apply(pod_group(name, min_member=1, queue=queue, min_resources=min_resources))
    names = [f"{name}-{i}" for i in range(pods)]
    req = {"cpu": cpu} if resource == "cpu" else {"cpu": "100m", resource: cpu}
    cluster.apply([pod(n, group=name, req=req, grace_seconds=0,
                       node_selector={"kubernetes.io/hostname": node} if node else None) for n in names])
    return names


def _pg_phase(cluster: Cluster, name: str) -> str:
    return str((cluster.get("PodGroup", name).get("status") or {}).get("phase") or "Pending")


def free_one_slot(cluster: Cluster, fill_group: str, filler: list[str], waiting: list[str], winner: str) -> None:
    """Delete the filler PodGroup ``fill_group`` and its one pod, then check that exactly one of the
    ``waiting`` pods binds, and that it is ``winner``'s (``<winner>-wait-0``), and stays the only one."""
    cluster.delete("PodGroup", fill_group)
    cluster.delete("Pod", filler[0])
    cluster.wait_until(lambda: any(bound(cluster.get("Pod", n)) for n in waiting), 120, "a waiting pod binds")
    cluster.hold(lambda: sum(bound(cluster.get("Pod", n)) for n in waiting) == 1, 10, "only one binds")
    assert [n for n in waiting if bound(cluster.get("Pod", n))] == [f"{winner}-wait-0"]


def _all_bound(cluster: Cluster, names: list[str], what: str) -> None:
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", n)) for n in names), 120, what)


GPU = "nvidia.com/gpu"


@pytest.mark.parametrize("resource", [
    "cpu", pytest.param(GPU, marks=pytest.mark.cluster(workers=1, cpu="4", memory="16Gi", gpu=4, control_plane=False)),
])
@pytest.mark.parametrize(("a_running", "winner"), [(2, "kb"), (1, "ka")])
def test_a_deserved_past_the_cluster_total_counts_as_the_total(cluster: Cluster, resource: str, a_running: int,
                                                                winner: str) -> None:
    """Queue ``ka`` declares 8 of ``resource`` (the cluster has 4: it deserves 4), ``kb`` 3. ``ka`` runs
    ``a_running`` pods of one unit, ``kb`` one, ``kc`` the rest (a one-unit filler among them); each of
    ``ka`` and ``kb`` then waits with one more pod. Once the filler goes the one free unit goes to the
    queue of smaller share: with 2 running ``ka``'s share is 2/4 (not 2/8) against ``kb``'s 1/3, so
    ``kb``'s pod binds; with 1 running, 1/4 against 1/3, ``ka``'s. A scalar resource (GPUs) is capped
    as cpu is."""
    make_queues(cluster, simple_queue("ka", deserved={resource: "8"}), simple_queue("kb", deserved={resource: "3"}),
                simple_queue("kc"))
    running = (_group(cluster, "ka-run", "ka", a_running, resource=resource)
               + _group(cluster, "kb-run", "kb", 1, resource=resource))
    if a_running < 2:
        running += _group(cluster, "kc-keep", "kc", 1, cpu=str(2 - a_running), resource=resource)
    filler = _group(cluster, "kc-fill", "kc", 1, resource=resource)
    _all_bound(cluster, running + filler, "the queues' first pods bound")
    waiting = _group(cluster, "ka-wait", "ka", 1, resource=resource) + _group(cluster, "kb-wait", "kb", 1,
                                                                              resource=resource)
    cluster.wait_until(lambda: all(_pg_phase(cluster, g) == "Inqueue" for g in ("ka-wait", "kb-wait")), 60,
                       "both waiting PodGroups Inqueue")
    assert not any(bound(cluster.get("Pod", n)) for n in waiting)
    free_one_slot(cluster, "kc-fill", filler, waiting, winner)


QUOTA = "queue resource quota insufficient"


def _ask(cluster: Cluster, asked: str, admitted: bool) -> None:
    """A PodGroup ``kq-asks`` of minResources ``asked`` CPU in ``kq`` (a 100m pod): admitted, its pod
    binds with no refusal; else its only refusals say the cpu quota is short, it stays Pending, its pod
    unbound."""
    [asks] = _group(cluster, "kq-asks", "kq", 1, cpu="100m", min_resources={"cpu": asked})

    def refusals() -> list[Obj]:
        return [e for e in cluster.events("PodGroup", "kq-asks")
                if e.get("reason") == "Unschedulable" and e.get("type") == "Normal"]

    if admitted:
        cluster.wait_until(lambda: bound(cluster.get("Pod", asks)), 60, "the asking pod binds")
        assert _pg_phase(cluster, "kq-asks") in ("Inqueue", "Running")
        assert refusals() == []
        return
    cluster.wait_until(lambda: bool(refusals()), 60, "an Unschedulable event on kq-asks")
    cluster.hold(lambda: _pg_phase(cluster, "kq-asks") == "Pending" and not bound(cluster.get("Pod", asks)), 10,
                 "kq-asks stays Pending")
    assert {e["message"] for e in refusals()} == {f"{QUOTA}: insufficient cpu"}


@pytest.mark.parametrize(("run_min", "waiting", "asked", "admitted"), [
    ("2", None, "1", True), ("2", None, "1001m", False),
    ("2", "500m", "500m", True), ("2", "500m", "501m", False),
    (None, None, "3", True), (None, None, "3001m", False),
])
def test_enqueue_counts_what_the_queue_runs_and_admitted(cluster: Cluster, run_min: str | None, waiting: str | None,
                                                        asked: str, admitted: bool) -> None:
    """Queue ``kq`` of capability 3 CPUs runs a 2-CPU pod in a PodGroup of minResources ``run_min``; with
    ``waiting`` a second PodGroup of that minResources is admitted (Inqueue) with a pod that can never
    bind. A PodGroup asking ``asked`` CPU is then admitted while asked + allocated + inqueue - elastic
    <= 3, else refused with the quota event, left Pending and its pod unbound. A running PodGroup's
    allocation beyond its minResources is elastic: without minResources its 2 CPUs count for nothing."""
    make_queues(cluster, simple_queue("kq", capability={"cpu": "3", "memory": "16Gi"}))
    run_resources = {"cpu": run_min} if run_min else None
    _all_bound(cluster, _group(cluster, "kq-run", "kq", 1, cpu="2", min_resources=run_resources),
               "the 2-CPU pod bound")
    if waiting is not None:
        _group(cluster, "kq-wait", "kq", 1, cpu=waiting, min_resources={"cpu": waiting}, node="kq-nowhere")
        cluster.wait_until(lambda: _pg_phase(cluster, "kq-wait") == "Inqueue", 60, "kq-wait Inqueue")
    _ask(cluster, asked, admitted)


@pytest.mark.parametrize(("asked", "admitted"), [("1", True), ("1001m", False)])
def test_a_running_podgroup_holds_back_its_minresources_beyond_its_allocation(cluster: Cluster, asked: str,
                                                                              admitted: bool) -> None:
    """Queue ``kq`` of capability 3 CPUs runs a PodGroup of minMember 1 and minResources 2 CPUs with one
    1-CPU pod: Running with its minMember allocated, it still holds the other CPU back (inqueue
    ``minResources - allocated``, upstream's reservation for running jobs). A PodGroup asking ``asked``
    CPU is admitted while asked + 1 allocated + 1 held <= 3."""
    make_queues(cluster, simple_queue("kq", capability={"cpu": "3", "memory": "16Gi"}))
    _all_bound(cluster, _group(cluster, "kq-run", "kq", 1, min_resources={"cpu": "2"}), "the 1-CPU pod bound")
    cluster.wait_until(lambda: _pg_phase(cluster, "kq-run") == "Running", 60, "kq-run Running")
    _ask(cluster, asked, admitted)
