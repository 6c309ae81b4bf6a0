"""Graceful deletion at its boundaries: a running pod deleted with terminationGracePeriodSeconds
``g`` is still there (being deleted) just before ``g`` seconds and gone at ``g``; ``0`` removes
it at once; unset means Kubernetes' default of 30 s (reference kubernetes-rest-api, graceful
deletion)."""

from __future__ import annotations

import pytest

from tests.kubelet.test_kubelet import gone, pod, start
from volcano.testbed import FakeCluster


@pytest.mark.parametrize("grace", [None, 0, 1, 2])
def test_a_deleted_pod_goes_at_its_grace_period(grace: int | None) -> None:
    c = FakeCluster(seed=0)
    c.add_node("n", cpu="2")
    start(c, pod("p", grace=grace), "n")
    c.run(1)
    deleted_at = c.now
    c.delete("Pod", "p")
    seconds = 30 if grace is None else grace
    if seconds:
        c.run(seconds - 0.01)
        assert not gone(c, "p") and c.get("Pod", "p")["metadata"]["deletionTimestamp"]
    c.run_until(lambda c: gone(c, "p"), timeout=60)
    assert c.now == pytest.approx(deleted_at + seconds, abs=0.001)


@pytest.mark.parametrize(("first", "second", "gone_after"), [
    (30, 5, 2 + 5),    # shortened: killed when the new period runs out, counted from the second DELETE
    (30, 1, 2 + 1),
    (10, 20, 10),      # a longer period never lengthens an ongoing termination
    (10, 8, 10),       # 2 + 8 = 10: the same deadline, nothing changes
    (10, 7, 2 + 7),    # one second sooner: the new period wins
])
def test_a_second_delete_with_a_shorter_grace_period_kills_sooner(first: int, second: int, gone_after: int) -> None:
    c = FakeCluster(seed=0)
    c.add_node("n", cpu="2")
    start(c, pod("p", grace=first), "n")
    c.run(1)
    deleted_at = c.now
    c.client.delete("Pod", "p", "default", grace_period_seconds=first)
    c.run(2)
    c.client.delete("Pod", "p", "default", grace_period_seconds=second)
    c.run_until(lambda c: gone(c, "p"), timeout=60)
    assert c.now == pytest.approx(deleted_at + gone_after, abs=0.001)
    [killed] = c.trace.records(event="PodKilled")
    assert killed.time_ms == pytest.approx((deleted_at + gone_after) * 1000, abs=1)
