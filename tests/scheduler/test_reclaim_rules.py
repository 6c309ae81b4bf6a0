"""reclaim: which tier picks the victims, nodes without reclaimees, and per-queue job service.

These pin three upstream rules found while investigating an evict/re-bind
livelock (a queue reclaimed below its deserved share, its pods re-bound by
allocate because its share became the lowest, then reclaimed again):

* Reclaimable is a tier intersection: with gang and conformance in a tier
  above proportion (upstream's CI configuration) the first tier decides and
  proportion's "victim queue above deserved" filter never runs, so a queue
  can be taken below its deserved share. With proportion in the deciding
  tier, reclaim stops at the deserved share.
* A node without any reclaimee is skipped, even when its FutureIdle alone
  would fit the task (reclaim never pipelines without a victim candidate).
* A popped queue serves all of its starving jobs before the next queue.
"""

from __future__ import annotations

from typing import Any

from tests.scheduler.harness import conf, node, opt, pg, pod, queue, res, run

PRE = {"volcano.sh/preemptable": "true"}
NOT_PRE = {"volcano.sh/preemptable": "false"}


def P(name: str, node_name: str, phase: str, group: str, labels: dict[str, str] | None = None,
      cpu: int = 1) -> dict[str, Any]:
    """A pod of namespace c1 requesting ``cpu`` and 1G."""
    return pod("c1", name, node_name=node_name, phase=phase, req=res(cpu, "1G"), group=group,
               labels=labels if labels is not None else PRE)


def _big_job_and_arrivals() -> dict[str, Any]:
    """q1 runs 4 one-cpu pods (minMember 1) filling n1; q2 (weight 2) brings four one-pod jobs;
    q3's unpreemptable pod fills n2.

    Each queue requests 4 of the 8 cpu; by weight q1 deserves 2, q2 4, q3 2.
    Proportion's rule lets q1 lose 2 pods (down to its deserved 2); gang's
    alone lets it lose 3 (down to minMember 1).
    """
    nodes = [node("n1", res(4, "8Gi")), node("n2", res(4, "8Gi"))]
    pods = [P(f"big-{i}", "n1", "Running", "pg-big") for i in range(4)]
    pods += [P("filler", "n2", "Running", "pg-filler", NOT_PRE, cpu=4)]
    groups = [pg("pg-big", "c1", "q1", 1, "Running"), pg("pg-filler", "c1", "q3", 1, "Running")]
    for i in range(4):
        pods.append(P(f"new-{i}", "", "Pending", f"pg-new-{i}"))
        groups.append(pg(f"pg-new-{i}", "c1", "q2", 1))
    return {"nodes": nodes, "pods": pods, "podgroups": groups,
            "queues": [queue("q1"), queue("q2", 2), queue("q3")]}


GANG_CONFORMANCE = [opt("conformance", "reclaimable"), opt("gang", "reclaimable", "jobStarving")]
PROPORTION = opt("proportion", "reclaimable", "queueOrder", "preemptive", "overused")


def _pipelined(r: Any) -> int:
    return sum(bool(r.pipelined(f"c1/pg-new-{i}")) for i in range(4))


def test_proportion_in_a_lower_tier_does_not_protect_the_deserved_share() -> None:
    """Upstream's CI layout: tier 1 (gang, conformance) decides; q1 goes below its deserved 2 cpu."""
    r = run(conf(["reclaim"], GANG_CONFORMANCE, [PROPORTION]), **_big_job_and_arrivals())
    assert len(r.evicted) == 3  # gang keeps minMember 1
    assert _pipelined(r) == 3


def test_proportion_in_the_deciding_tier_stops_at_the_deserved_share() -> None:
    """Same objects, proportion in the same tier as gang: only the part above deserved is taken."""
    r = run(conf(["reclaim"], [*GANG_CONFORMANCE, PROPORTION]), **_big_job_and_arrivals())
    assert len(r.evicted) == 2
    assert _pipelined(r) == 2


def test_a_node_without_reclaimees_is_skipped_even_with_room() -> None:
    """n1 is empty (room, but nothing to reclaim); n2's only pod is not preemptable: nothing pipelined."""
    nodes = [node("n1", res(2, "2Gi")), node("n2", res(1, "1Gi"))]
    pods = [P("victim", "n2", "Running", "pg1", NOT_PRE), P("preemptor", "", "Pending", "pg2")]
    groups = [pg("pg1", "c1", "q1", 1, "Running"), pg("pg2", "c1", "q2", 1)]
    r = run(conf(["reclaim"], [*GANG_CONFORMANCE, PROPORTION]), nodes=nodes, pods=pods, podgroups=groups,
            queues=[queue("q1"), queue("q2")])
    assert r.evicted == []
    assert r.pipelined("c1/pg2") == []


def test_a_popped_queue_serves_all_its_starving_jobs_first() -> None:
    """q2 (popped first) reclaims for both its jobs before q3 is considered, although q2's share
    rises above q3's after the first job; gang lets q1 lose only 2 pods, so q3's job gets none."""
    nodes = [node("n1", res(4, "8Gi"))]
    pods = [P(f"v-{i}", "n1", "Running", "pg1") for i in range(4)]
    pods += [P("a", "", "Pending", "pg-a"), P("b", "", "Pending", "pg-b"), P("c", "", "Pending", "pg-c")]
    groups = [pg("pg1", "c1", "q1", 2, "Running"), pg("pg-a", "c1", "q2", 1), pg("pg-b", "c1", "q2", 1),
              pg("pg-c", "c1", "q3", 1)]
    # Deserved cpu: q1 1, q2 2 (weight 3, request 2), q3 1; q2 and q3 both start at share 0.
    r = run(conf(["reclaim"], [*GANG_CONFORMANCE, PROPORTION]), nodes=nodes, pods=pods, podgroups=groups,
            queues=[queue("q1"), queue("q2", 3), queue("q3")])
    assert len(r.evicted) == 2
    assert r.pipelined("c1/pg-a") == ["n1"]
    assert r.pipelined("c1/pg-b") == ["n1"]
    assert r.pipelined("c1/pg-c") == []
