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
