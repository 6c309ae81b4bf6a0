"""A Job's PodGroup held by a finalizer (controllers reference §2.7): killing the whole job (a
TerminateJob Command here, as ``vcctl job terminate`` issues it) deletes its PodGroup; a finalizer
someone else put on it keeps it, marked for deletion, until that finalizer goes, and the job still
ends Terminated.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job, job_command
from volcano.conformance.lib.waits import pg_name, pod_group_of, wait_job_phase

pytestmark = pytest.mark.job_lifecycle

FINALIZER = "example.com/hold"


@pytest.mark.parametrize("held", [True, False])
def test_a_terminated_jobs_podgroup_waits_for_its_finalizer(cluster: Cluster, held: bool) -> None:
    """A running one-pod job, its PodGroup carrying a foreign finalizer when ``held``, is terminated
    by a Command: it ends Terminated either way; the held PodGroup stays with a deletionTimestamp
    until the finalizer is removed, the other is deleted at once."""
    name = "pg-held" if held else "pg-unheld"
    cluster.apply(job(name, [Task(name="t", rep=1, req={"cpu": "100m"})]))
    wait_job_phase(cluster, name, "Running", 120)
    assert pod_group_of(cluster, name) is not None
    pg = pg_name(cluster, name)
    if held:
        cluster.patch("PodGroup", pg, {"metadata": {"finalizers": [FINALIZER]}})
    cluster.create(job_command(cluster.get("Job", name), "TerminateJob"))
    wait_job_phase(cluster, name, "Terminated", 120)
    if not held:
        cluster.wait_until(lambda: cluster.try_get("PodGroup", pg) is None, 30, "the PodGroup deleted")
        return
    cluster.wait_until(lambda: (cluster.try_get("PodGroup", pg) or {}).get("metadata", {}).get("deletionTimestamp")
                       is not None, 30, "the PodGroup marked for deletion")
    cluster.hold(lambda: cluster.try_get("PodGroup", pg) is not None, 10, "the PodGroup kept by its finalizer")
    assert cluster.get("Job", name)["status"]["state"]["phase"] == "Terminated"
    cluster.patch("PodGroup", pg, {"metadata": {"finalizers": None}})
    cluster.wait_until(lambda: cluster.try_get("PodGroup", pg) is None, 30, "the PodGroup gone")
