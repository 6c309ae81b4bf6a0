"""Preempt's victim order between jobs of one queue (reference §4.6): the job that orders later
is evicted first, whatever its tasks' own priorities; task order breaks ties within a job.

Job priority comes from the PodGroup's priority class, task priority from each pod's
``priority``; here the two disagree on purpose, so an order by task alone picks the other victim.
"""

from __future__ import annotations

import pytest

from tests.scheduler.harness import conf, node, opt, pc, pg, pod, queue, res, run

PRE = {"volcano.sh/preemptable": "true"}
PCS = [pc("high", 1000), pc("mid", 100), pc("low", 10)]
CONF = conf(["preempt"], [
    opt("conformance", "preemptable"),
    opt("priority", "taskOrder", "jobOrder", "preemptable", "jobPipelined", "jobStarving"),
    opt("proportion", "overused", "allocatable", "queueOrder"),
])


def _pod(name: str, group: str, node_name: str, priority: int) -> dict[str, object]:
    """A preemptable 1-CPU pod, Running when it has a node."""
    return pod("ns", name, group=group, node_name=node_name, phase="Running" if node_name else "Pending",
               req=res(1, "1G"), labels=PRE, priority=priority)


def _victim(job_classes: tuple[str, str], task_priorities: tuple[int, int]) -> list[str]:
    """A full 2-CPU node running one pod of each victim job; a high-priority pod needs 1 CPU."""
    pods = [
        _pod("a-0", "a", "n1", task_priorities[0]),
        _pod("b-0", "b", "n1", task_priorities[1]),
        _pod("p-0", "p", "", 1000),
    ]
    groups = [pg("a", "ns", "q", 1, "Running", pc_name=job_classes[0]),
              pg("b", "ns", "q", 1, "Running", pc_name=job_classes[1]),
              pg("p", "ns", "q", 1, "Inqueue", pc_name="high")]
    r = run(CONF, nodes=[node("n1", res(2, "2G"))], pods=pods, podgroups=groups, queues=[queue("q")], pcs=PCS)
    return r.evicted


@pytest.mark.parametrize(("job_classes", "task_priorities", "victim"), [
    (("low", "mid"), (50, 5), "ns/a-0"),   # job a orders later: evicted though its pod outranks b's
    (("mid", "low"), (5, 50), "ns/b-0"),
    (("low", "low"), (50, 5), "ns/b-0"),   # jobs tie: the lower-priority task goes first
    (("low", "low"), (5, 50), "ns/a-0"),
])
def test_the_job_that_orders_later_loses_its_task_first(job_classes: tuple[str, str],
                                                        task_priorities: tuple[int, int], victim: str) -> None:
    assert _victim(job_classes, task_priorities) == [victim]


@pytest.mark.parametrize("first", ["pending", "satisfied"])
def test_jobs_preempt_does_not_serve_are_skipped_not_the_end(first: str) -> None:
    """A job preempt does not serve (a Pending PodGroup, or a job that is not starving) listed
    before the starving preemptor must not stop the scan (written for a surviving mutant)."""
    pods = [_pod("v-0", "v", "n1", 10), _pod("v-1", "v", "n1", 10), _pod("p-0", "p", "", 1000)]
    groups = [pg("v", "ns", "q", 1, "Running", pc_name="low"), pg("p", "ns", "q", 1, "Inqueue", pc_name="high")]
    if first == "pending":
        groups.insert(0, pg("idle", "ns", "q", 1, "Pending", pc_name="high"))
        pods.append(_pod("idle-0", "idle", "", 1000))
    else:
        groups.insert(0, pg("done", "ns", "q", 1, "Running", pc_name="high"))
        pods.append(_pod("done-0", "done", "n2", 1000))
    r = run(CONF, nodes=[node("n1", res(2, "2G")), node("n2", res(1, "1G"))], pods=pods, podgroups=groups,
            queues=[queue("q")], pcs=PCS)
    assert r.evicted == ["ns/v-1"] or r.evicted == ["ns/v-0"], r.evicted
