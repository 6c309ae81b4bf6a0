"""PodGroup status at the edges of the scheduler's phase rule (scheduler reference §7.3, §5.1): a
PodGroup is Running while some of its scheduled pods have not finished, but Unknown when a pod
runs and the gang is no longer ready (ready pods are running or succeeded ones, failed pods are
not); Completed once every scheduled pod has finished, failed pods included. Its counters count
running, succeeded and failed pods. Built from bare pods, so only the scheduler writes the status."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group

pytestmark = pytest.mark.podgroup_status
Obj = dict[str, Any]


def _written(cluster: Cluster, name: str) -> list[tuple[str, int, int, int]]:
    """Every (phase, running, succeeded, failed) the watch saw on PodGroup ``name``, in order, repeats dropped."""
    out: list[tuple[str, int, int, int]] = []
    for _, kind, _, obj in cluster.recorded_history():
        if kind != "PodGroup" or obj["metadata"]["name"] != name:
            continue
        st = obj.get("status") or {}
        row = (str(st.get("phase") or ""), int(st.get("running") or 0), int(st.get("succeeded") or 0),
               int(st.get("failed") or 0))
        if not out or out[-1] != row:
            out.append(row)
    return out


@pytest.mark.cluster(workers=2)
@pytest.mark.parametrize(("min_member", "between", "after"), [(2, "Running", "Completed"), (3, "Unknown", "Pending")])
def test_a_podgroup_completes_when_every_scheduled_pod_finished_failed_ones_included(cluster: Cluster,
                                                                                     min_member: int,
                                                                                     between: str, after: str) -> None:
    """Three pods of one PodGroup: one succeeds and one fails after 5 s, the third succeeds after
    60 s. In between, 1 running, 1 succeeded and 1 failed pod: 2 ready pods, so with minMember 2 the
    PodGroup is Running and with minMember 3 Unknown (a pod runs, the gang is not ready); then
    Completed with 2 succeeded and 1 failed, whatever minMember (all 3 scheduled pods finished). With
    the failed pod deleted, 0 failed, and 2 scheduled pods: still Completed for minMember 2, back to
    Pending for minMember 3."""
    name = f"pg-mixed-{min_member}"
    cluster.apply(pod_group(name, min_member=min_member))
    cluster.apply([pod(f"{name}-ok", group=name, req={"cpu": "100m"}, duration="5s"),
                   pod(f"{name}-bad", group=name, req={"cpu": "100m"}, duration="5s", exit_code=1),
                   pod(f"{name}-long", group=name, req={"cpu": "100m"}, duration="60s")])
    # Read from the watch (which saw every status written), once it has delivered the final one.
    cluster.wait_until(lambda: _written(cluster, name)[-1:] == [("Completed", 0, 2, 1)], 300,
                       f"{name} Completed, as the watch saw it")
    rows = _written(cluster, name)
    assert (between, 1, 1, 1) in rows and ("Running", 3, 0, 0) in rows, rows
    assert not [r for r in rows if r[1:] == (1, 1, 1) and r[0] != between], rows
    assert rows[-1] == ("Completed", 0, 2, 1), rows
    assert [r for r in rows if r[0] == "Completed"] == [("Completed", 0, 2, 1)], rows
    # A counter that drops to 0 is dropped from the status, not left at its old value. The first
    # status written after the deletion is the one checked: with minMember 3 the PodGroup goes back
    # to Pending, and enqueue may then move it on to Inqueue (over HTTP, before the wait reads it).
    completed = len(rows)
    cluster.delete("Pod", f"{name}-bad")
    cluster.wait_until(lambda: len(_written(cluster, name)) > completed, 600,
                       f"{name} status written after its failed pod is gone")
    assert _written(cluster, name)[completed] == (after, 0, 2, 0), _written(cluster, name)
