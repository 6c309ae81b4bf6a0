"""Waits and checks mirroring upstream's e2e wait helpers (``test/e2e/util``), made stricter
where upstream's can never fail (see the catalogue's caveat on "Pending" waits)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from volcano.conformance.backends.base import Cluster

__all__ = [
    "READY_PHASES",
    "bound",
    "count_phase",
    "hold_unbound",
    "job_conditions",
    "job_phase",
    "pg_name",
    "pod_group_of",
    "pods_unbound",
    "wait_job_gone",
    "wait_job_phase",
    "wait_job_phases",
    "wait_job_unschedulable",
    "wait_pg_phase",
    "wait_pods_gone",
    "wait_task_phase",
    "wait_tasks_ready",
]

Obj = dict[str, Any]
READY_PHASES = ("Running", "Succeeded")


def bound(p: Obj) -> bool:
    """The pod has a node."""
    return bool(p.get("spec", {}).get("nodeName"))


def count_phase(pods: Iterable[Obj], phases: Iterable[str]) -> int:
    """How many pods are in one of ``phases`` (and not being deleted)."""
    wanted = set(phases)
    return sum(1 for p in pods if p.get("status", {}).get("phase") in wanted
               and not p["metadata"].get("deletionTimestamp"))


def pods_unbound(pods: Iterable[Obj]) -> int:
    """How many pods have no node."""
    return sum(1 for p in pods if not bound(p))


def job_phase(cluster: Cluster, job: str) -> str | None:
    """``status.state.phase`` of a Volcano Job (None when absent)."""
    obj = cluster.try_get("Job", job)
    return None if obj is None else obj.get("status", {}).get("state", {}).get("phase")


def pg_name(cluster: Cluster, job: str) -> str:
    """The PodGroup name of a Volcano Job: ``<job>-<job uid>``."""
    return f"{job}-{cluster.get('Job', job)['metadata']['uid']}"


def pod_group_of(cluster: Cluster, job: str) -> Obj | None:
    """The PodGroup of a Volcano Job, or None."""
    return cluster.try_get("PodGroup", pg_name(cluster, job))


def wait_task_phase(cluster: Cluster, job: str, phases: Iterable[str], n: int, timeout: float = 300) -> None:
    """At least ``n`` pods of ``job`` in one of ``phases`` (upstream ``WaitTaskPhase``)."""
    ph = tuple(phases)
    cluster.wait_until(lambda: count_phase(cluster.job_pods(job), ph) >= n, timeout,
                       f"{n} pods of job {job} in {ph}")


def wait_tasks_ready(cluster: Cluster, job: str, n: int, timeout: float = 300) -> None:
    """At least ``n`` pods of ``job`` Running or Succeeded (upstream ``WaitTasksReady``)."""
    wait_task_phase(cluster, job, READY_PHASES, n, timeout)


def wait_job_phase(cluster: Cluster, job: str, phase: str, timeout: float = 300) -> None:
    """The Job reaches ``phase`` (upstream ``WaitJobStates``)."""
    cluster.wait_until(lambda: job_phase(cluster, job) == phase, timeout, f"job {job} phase {phase}")


def _written_phases(before: list[str], now: list[str]) -> list[str]:
    """Phases the controller wrote between two readings of ``status.conditions``.

    The controller appends a condition for every phase it sets, first removing an older entry with the
    same phase, so a new reading is the old one with the phases written since moved (or added) to the
    end: what follows the longest prefix of ``now`` that is an ordered subsequence of ``before``."""
    it = iter(before)
    kept = 0
    for status in now:
        if any(status == b for b in it):
            kept += 1
        else:
            break
    return now[kept:]


def job_conditions(cluster: Cluster, job: str) -> list[str]:
    """The phases recorded in the Job's ``status.conditions``, oldest first (empty if there is no Job):
    the reading to pass as ``since`` to :func:`wait_job_phases` before acting on a running Job."""
    obj = cluster.try_get("Job", job)
    return [str(c.get("status")) for c in ((obj or {}).get("status") or {}).get("conditions") or []]


def wait_job_phases(cluster: Cluster, job: str, phases: list[str], timeout: float = 600,
                    since: list[str] | None = None) -> list[str]:
    """The Job passes through ``phases`` in order (upstream ``WaitJobPhases``, which watches every
    update). Each reading takes the phase and the phases the controller wrote since the previous
    reading (from ``status.conditions``), so a phase entered and left between two readings, as
    ``Restarting`` often is, still counts. ``since`` is a :func:`job_conditions` reading taken before
    the action that starts the sequence: what it holds is history. Left out, the Job was created just
    before the call and everything it wrote counts (a served cluster runs while the test does, so by
    the first reading the Job may already have left ``Pending``). Returns the sequence of distinct
    phases seen."""
    seen: list[str] = []
    last: list[list[str]] = [list(since or [])]

    def observe() -> bool:
        conds = job_conditions(cluster, job)
        for ph in [*_written_phases(last[0], conds), job_phase(cluster, job) or ""]:
            if ph and (not seen or seen[-1] != ph):
                seen.append(ph)
        last[0] = conds
        it = iter(seen)
        return all(p in it for p in phases)

    try:
        cluster.wait_until(observe, timeout, f"job {job} phases {phases}")
    except AssertionError as err:
        raise type(err)(f"{err} (seen: {seen})") from None
    return seen


def wait_pg_phase(cluster: Cluster, pg: str, phase: str, timeout: float = 300) -> None:
    """The PodGroup reaches ``phase`` (upstream ``WaitPodGroupPhase``)."""
    def check() -> bool:
        obj = cluster.try_get("PodGroup", pg)
        return obj is not None and obj.get("status", {}).get("phase") == phase

    cluster.wait_until(check, timeout, f"podgroup {pg} phase {phase}")


def wait_job_unschedulable(cluster: Cluster, job: str, timeout: float = 300) -> None:
    """The Job's PodGroup has an ``Unschedulable`` (or ``FailedScheduling``) event
    (upstream ``WaitJobUnschedulable``)."""
    def check() -> bool:
        pg = pod_group_of(cluster, job)
        if pg is None:
            return False
        name = pg["metadata"]["name"]
        return any(e["involvedObject"].get("name", "").startswith(name)
                   and e.get("reason") in ("Unschedulable", "FailedScheduling") for e in cluster.events())

    cluster.wait_until(check, timeout, f"job {job} unschedulable")


def hold_unbound(cluster: Cluster, job: str, n: int, seconds: float = 30) -> None:
    """At least ``n`` pods of ``job`` exist and stay without a node for a whole window
    (what upstream's "pending" waits meant)."""
    cluster.wait_until(lambda: len(cluster.job_pods(job)) >= n, 300, f"{n} pods of job {job} created")
    cluster.hold(lambda: pods_unbound(cluster.job_pods(job)) >= n, seconds,
                 f"{n} pods of job {job} stay unbound")


def wait_pods_gone(cluster: Cluster, job: str, timeout: float = 300) -> None:
    """No pod of ``job`` exists."""
    cluster.wait_until(lambda: not cluster.job_pods(job), timeout, f"pods of job {job} gone")


def wait_job_gone(cluster: Cluster, job: str, timeout: float = 300) -> None:
    """The Job and its pods are gone (upstream ``WaitJobCleanedUp``)."""
    cluster.wait_until(lambda: cluster.try_get("Job", job) is None and not cluster.job_pods(job), timeout,
                       f"job {job} cleaned up")
