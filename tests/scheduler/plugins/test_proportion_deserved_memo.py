"""proportion takes a session's deserved amounts from the last session only for the very same inputs.

``compute_deserved`` is a pure function of the total, Σ guarantees and each queue's name,
weight, request, guarantee and capability (in order); the memo keys on them with each
value's type and the entries' order, so anything the computation could tell apart is
computed again.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

import volcano.scheduler.plugins.proportion as proportion
from volcano.scheduler.framework.quota import QueueQuota, compute_deserved
from volcano.scheduler.framework.state import State


def _quotas(weight: int, request: dict[str, Any], capability: dict[str, Any] | None = None) -> list[QueueQuota]:
    return [QueueQuota("a", weight, request, {}, capability), QueueQuota("b", 1, {"cpu": 3000, "memory": 4096})]


def _view(quotas: list[QueueQuota]) -> list[Any]:
    return [[(k, v, type(v)) for k, v in d.items()] for q in quotas for d in (q.deserved, q.real)]


@pytest.mark.parametrize("changed", [
    _quotas(2, {"cpu": 5000, "memory": 2048}),
    _quotas(1, {"cpu": 5000.0, "memory": 2048}),
    _quotas(1, {"memory": 2048, "cpu": 5000}),
    _quotas(1, {"cpu": 5000, "memory": 2048}, {"cpu": 4000}),
])
def test_the_same_inputs_reuse_the_result_and_any_change_computes_again(
        monkeypatch: pytest.MonkeyPatch, changed: list[QueueQuota]) -> None:
    calls: list[int] = []

    def counting(*args: Any) -> None:
        calls.append(1)
        compute_deserved(*args)

    monkeypatch.setattr(proportion, "compute_deserved", counting)
    ssn: Any = SimpleNamespace(shared=State())
    total = {"cpu": 6000, "memory": 8192}
    first = _quotas(1, {"cpu": 5000, "memory": 2048})
    proportion._deserved(ssn, total, first, {})
    again = _quotas(1, {"cpu": 5000, "memory": 2048})
    proportion._deserved(ssn, total, again, {})
    assert len(calls) == 1
    reference = _quotas(1, {"cpu": 5000, "memory": 2048})
    compute_deserved(total, reference, {})
    assert _view(again) == _view(reference) == _view(first)
    assert all(a.deserved is not b.deserved for a, b in zip(again, first, strict=True))
    proportion._deserved(ssn, total, changed, {})
    assert len(calls) == 2
    ref_changed = [QueueQuota(q.name, q.weight, q.request, q.guarantee, q.capability) for q in changed]
    compute_deserved(total, ref_changed, {})
    assert _view(changed) == _view(ref_changed)
    other_total = _quotas(1, {"cpu": 5000, "memory": 2048})
    proportion._deserved(ssn, {"cpu": 7000, "memory": 8192}, other_total, {})
    assert len(calls) == 3
