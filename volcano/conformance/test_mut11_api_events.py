"""API conformance: the fields of an Event a Volcano controller records (client-go's legacy recorder).

Each Event of ``core/v1`` a controller writes names its object (``involvedObject`` kind, name,
namespace and uid, the Event's own name ``<object>.<hex>``), says when it was first and last seen
(``firstTimestamp`` at most ``lastTimestamp``, both set; ``eventTime`` null, the field of the newer
events API) and how often (``count``, at least 1), with its ``type`` and the recording component in
``source``. The Job controller's ``PodGroupPending`` Warning is the example (a gang that cannot fit).
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job

pytestmark = pytest.mark.job_lifecycle
Obj = dict[str, Any]


@pytest.mark.cluster(workers=2, cpu="4", memory="16Gi", control_plane=False)
def test_a_controller_event_says_what_when_and_how_often(cluster: Cluster) -> None:
    """Three 2.5-CPU pods, minAvailable 3, on two 4-CPU workers: the Job's ``PodGroupPending`` Warning
    carries the Job's identity and the recorder's timestamps and count."""
    name = "mut11-events"
    cluster.apply(job(name, [Task(name="t", rep=3, req={"cpu": "2500m"})], min=3))

    def reported() -> list[Obj]:
        return [e for e in cluster.events("Job", name) if e.get("reason") == "PodGroupPending"]

    cluster.wait_until(lambda: bool(reported()), 120, "a PodGroupPending event on the Job")
    made = cluster.get("Job", name)
    for event in reported():
        involved = event["involvedObject"]
        assert (involved["kind"], involved["name"], involved["namespace"], involved["uid"]) == (
            "Job", name, made["metadata"]["namespace"], made["metadata"]["uid"]), event
        assert event["metadata"]["name"].startswith(f"{name}."), event
        assert event["type"] == "Warning" and event["source"]["component"], event
        assert event["firstTimestamp"] and event["lastTimestamp"], event
        assert event["firstTimestamp"] <= event["lastTimestamp"], event
        assert event.get("eventTime") is None and int(event["count"]) >= 1, event
