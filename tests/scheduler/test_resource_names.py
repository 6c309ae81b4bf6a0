"""Which ResourceList names the scheduler keeps (reference §9.1, Volcano's NewResource)."""

from __future__ import annotations

import pytest

from volcano.scheduler.framework.resources import is_scheduler_resource, scheduler_resources


@pytest.mark.parametrize(("name", "kept"), [
    ("cpu", True), ("memory", True), ("pods", True), ("ephemeral-storage", True),
    ("nvidia.com/gpu", True), ("hugepages-2Mi", True), ("attachable-volumes-aws-ebs", True),
    ("kubernetes.io/batch-cpu", True),
    ("count/pods", False), ("requests.cpu", False), ("limits.cpu", False), ("requests.nvidia.com/gpu", False),
    ("limits.memory", False),
])
def test_name_filter(name: str, kept: bool) -> None:
    assert is_scheduler_resource(name) is kept


def test_job_controller_min_resources_read_once_per_resource() -> None:
    # The PodGroup the Job controller writes for the seed MPI job.
    raw = {"count/pods": "4", "cpu": "3500m", "limits.cpu": "3500m", "pods": "4", "requests.cpu": "3500m"}
    assert dict(scheduler_resources(raw, field="spec.minResources")) == {"cpu": 3500, "pods": 4000}
