"""The overcommit factor at its boundaries: a job whose minResources equal ``total * factor - used``
is admitted, one millicore more is not; a factor of exactly 1.0 is used as given, anything below
it means the default 1.2 (reference §5.6)."""

from __future__ import annotations

import pytest

from tests.scheduler.plugins.test_overcommit import UPSTREAM_NODES, _pg, _session

# UPSTREAM_NODES: 6 CPUs and 20Gi in total.


@pytest.mark.parametrize(("factor", "cpu_milli", "admitted"), [
    (1.2, 7199, True), (1.2, 7200, True), (1.2, 7201, False),
    (1.0, 5999, True), (1.0, 6000, True), (1.0, 6001, False),
    (0.999, 6001, True), (0.999, 7200, True), (0.999, 7201, False),
    (2.0, 12000, True), (2.0, 12001, False),
])
def test_enqueue_at_the_overcommitted_idle(factor: float, cpu_milli: int, admitted: bool) -> None:
    ssn = _session([_pg("pg", {"cpu": f"{cpu_milli}m", "memory": "1Gi"})], UPSTREAM_NODES, factor)
    job = ssn.jobs["ns1/pg"]
    assert ssn.job_enqueueable(job) is admitted


@pytest.mark.parametrize(("second_milli", "admitted"), [(1199, True), (1200, True), (1201, False)])
def test_inqueue_jobs_use_up_the_idle(second_milli: int, admitted: bool) -> None:
    """A first job of 6 CPUs admitted leaves 1.2 CPUs of the overcommitted 7.2."""
    ssn = _session([_pg("first", {"cpu": "6"}), _pg("second", {"cpu": f"{second_milli}m"})], UPSTREAM_NODES, 1.2)
    first, second = ssn.jobs["ns1/first"], ssn.jobs["ns1/second"]
    assert ssn.job_enqueueable(first)
    ssn.job_enqueued(first)
    assert ssn.job_enqueueable(second) is admitted
