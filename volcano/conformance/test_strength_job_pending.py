"""A Job's ``status.state.lastTransitionTime`` and its conditions record phase changes only
(controllers reference §3: the status is initialised once, when the Job has no phase; a sync whose
state rule keeps the phase leaves the transition time and the conditions as they are).
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job

pytestmark = pytest.mark.job_lifecycle
Obj = dict[str, Any]
NOWHERE = {"kubernetes.io/hostname": "no-such-node"}


def _state(cluster: Cluster, name: str) -> tuple[str, str, list[tuple[str, str]]]:
    status = cluster.get("Job", name).get("status") or {}
    state = status.get("state") or {}
    conditions = [(c.get("status", ""), c.get("lastTransitionTime", "")) for c in status.get("conditions") or []]
    return state.get("phase", ""), state.get("lastTransitionTime", ""), conditions


def test_a_pending_jobs_later_syncs_keep_the_time_it_became_pending(cluster: Cluster) -> None:
    """A Job whose two pods no node can take stays Pending. A change to one of its pods a few seconds
    later makes the controller sync it again; the phase, its transition time and the one Pending
    condition are still those of its first sync."""
    name = "stays-pending"
    cluster.apply(job(name, [Task(name="a", rep=2, req={}, node_selector=NOWHERE)], min=2))
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 2, 60, f"pods of {name} created")
    first = _state(cluster, name)
    assert first[0] == "Pending" and first[1] and first[2] == [("Pending", first[1])], first
    cluster.sleep(3)
    cluster.patch("Pod", f"{name}-a-0", {"metadata": {"labels": {"touched": "yes"}}})
    cluster.sleep(3)
    assert _state(cluster, name) == first
