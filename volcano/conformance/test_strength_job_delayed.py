"""Delayed actions (a policy with a ``timeout``, controllers reference §2.4) and their scope: once an
action runs, only the pending delayed actions of its own scope are cancelled (RestartTask those of
the same task), so another task's delayed RestartTask still runs when its own timeout is up.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job

pytestmark = pytest.mark.job_lifecycle
Obj = dict[str, Any]
NOWHERE = {"kubernetes.io/hostname": "no-such-node"}


def _added(cluster: Cluster, pod_name: str) -> list[float]:
    """When each pod called ``pod_name`` was created, in order (from the watch history: a pod the
    controller replaces lives 20 simulated seconds, too short to poll for over HTTP)."""
    return [at for at, kind, event, obj in cluster.recorded_history()
            if kind == "Pod" and event == "ADDED" and obj["metadata"]["name"] == pod_name]


def _gaps(times: list[float]) -> list[float]:
    return [later - earlier for earlier, later in pairwise(times)]


@pytest.mark.cluster(workers=2)
def test_a_tasks_restart_leaves_another_tasks_delayed_restart_in_place(cluster: Cluster) -> None:
    """Tasks ``a`` and ``b``, one pod each that no node can take, each with its own policy PodPending ->
    RestartTask, ``a`` after 20 s and ``b`` after 50 s (maxRetry 10, so the job outlives ``a``'s restarts
    every 20 s). ``a``'s restart at 20 s replaces only ``a``'s pod, and ``b``'s pod is still replaced
    when its own 50 s are up (not cancelled by ``a``'s restarts)."""
    name = "delayed-scope"
    tasks = [Task(name=t, rep=1, req={}, node_selector=NOWHERE,
                  policies=[{"event": "PodPending", "action": "RestartTask", "timeout": timeout}])
             for t, timeout in (("a", "20s"), ("b", "50s"))]
    cluster.apply(job(name, tasks, min=1, max_retry=10))
    cluster.sleep(70)
    # (over HTTP the sleep may run long: every replacement is checked against the one before)
    a_added, b_added = _added(cluster, f"{name}-a-0"), _added(cluster, f"{name}-b-0")
    assert len(a_added) >= 2 and min(_gaps(a_added)) >= 18, f"{name}-a-0 created at {a_added} s"
    assert len(b_added) >= 2 and min(_gaps(b_added)) >= 48, f"{name}-b-0 created at {b_added} s"


def _started(cluster: Cluster, name: str) -> list[Obj]:
    """The Job's "Start to execute action" Events (a delayed action, when it runs, records none)."""
    return [e for e in cluster.events(kind="Job", name=name)
            if e.get("reason") == "ExecuteAction" and e.get("message", "").startswith("Start to execute action")]


@pytest.mark.cluster(workers=2)
def test_a_tasks_restart_cancels_its_other_pods_delayed_restarts(cluster: Cluster) -> None:
    """Task ``a`` of two pods no node can take, policy PodPending -> RestartTask after 20 s: both pods'
    delayed actions fall due at once, the first restarts the task (both pods replaced) and cancels
    the other (the controller's unit tests count the runs from its trace), one retry per round.
    Neither run records a "Start to execute action" Event, as Volcano's delayed-action goroutine."""
    name = "delayed-sibling"
    cluster.apply(job(name, [Task(name="a", rep=2, req={}, node_selector=NOWHERE,
                                  policies=[{"event": "PodPending", "action": "RestartTask", "timeout": "20s"}])],
                      min=1, max_retry=10))
    cluster.sleep(30)
    # (over HTTP the sleep may run long: one restart per round of replacements)
    rounds = [len(_added(cluster, f"{name}-a-{i}")) - 1 for i in range(2)]
    assert rounds[0] == rounds[1] >= 1, f"replacements per pod: {rounds}"
    assert _started(cluster, name) == []
    assert int(cluster.get("Job", name)["status"].get("retryCount") or 0) == rounds[0]


@pytest.mark.cluster(workers=2)
def test_a_delayed_action_is_announced_on_the_job_when_it_is_scheduled(cluster: Cluster) -> None:
    """A pod no node can take under policy PodPending -> RestartTask after 20 s: well before the 20 s
    are up, the Job has a Normal ``ExecuteAction`` Event saying the action will run after a delay
    (controllers reference §2.4), and the task has not been restarted yet."""
    name = "delayed-announced"
    cluster.apply(job(name, [Task(name="a", rep=1, req={}, node_selector=NOWHERE,
                                  policies=[{"event": "PodPending", "action": "RestartTask", "timeout": "20s"}])],
                      min=1, max_retry=10))

    def announced() -> list[Obj]:
        return [e for e in cluster.events(kind="Job", name=name) if e.get("reason") == "ExecuteAction"]

    cluster.wait_until(lambda: bool(announced()), 10, f"ExecuteAction event on {name}")
    assert [(e.get("type"), e.get("message", "").startswith("Execute action RestartTask after"))
            for e in announced()] == [("Normal", True)], announced()
    assert len(_added(cluster, f"{name}-a-0")) == 1  # not restarted yet
