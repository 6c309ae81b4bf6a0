"""FakeCluster raises the collector's young threshold while it runs the cluster (and while ``apply``
reads its manifests: the copy of a large list of documents is part of the cluster's work), and
restores the caller's after."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

import volcano.testbed as testbed
from volcano.testbed import YOUNG_GC_THRESHOLD, FakeCluster


@pytest.fixture
def default_threshold() -> Iterator[tuple[int, int, int]]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield (700, 10, 10)
    gc.set_threshold(*before)


def test_threshold_raised_while_running_and_restored(default_threshold: tuple[int, int, int]) -> None:
    c = FakeCluster(seed=1)
    seen: list[tuple[int, int, int]] = []
    c.clock.call_later(100, lambda: seen.append(gc.get_threshold()))
    c.run(1)
    assert seen == [(YOUNG_GC_THRESHOLD, 10, 10)]
    assert gc.get_threshold() == default_threshold
    c.add_nodes(1)
    c.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"a": "b"}})
    c.run_until(lambda _c: _c.now >= 2)
    assert gc.get_threshold() == default_threshold


def test_threshold_restored_after_an_error(default_threshold: tuple[int, int, int]) -> None:
    c = FakeCluster(seed=1)
    with pytest.raises(TimeoutError):
        c.run_until(lambda _c: False, timeout=1)
    assert gc.get_threshold() == default_threshold


def test_none_and_a_disabled_collector_are_left_alone(default_threshold: tuple[int, int, int]) -> None:
    seen: list[tuple[int, int, int]] = []
    c = FakeCluster(seed=1, gc_threshold=None)
    c.clock.call_later(100, lambda: seen.append(gc.get_threshold()))
    c.run(1)
    gc.set_threshold(0, 10, 10)
    c.clock.call_later(100, lambda: seen.append(gc.get_threshold()))
    FakeCluster.run(c, 1)
    c.gc_threshold = YOUNG_GC_THRESHOLD
    c.clock.call_later(100, lambda: seen.append(gc.get_threshold()))
    c.run(1)
    assert seen == [default_threshold, (0, 10, 10), (0, 10, 10)]


def test_manifests_are_read_within_the_raised_threshold(default_threshold: tuple[int, int, int],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int, int, int]] = []
    real = testbed.load_manifests

    def spy(source: Any) -> Any:
        seen.append(gc.get_threshold())
        return real(source)

    monkeypatch.setattr(testbed, "load_manifests", spy)
    c = FakeCluster(seed=1)
    [stored] = c.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"a": "b"}})
    assert stored["data"] == {"a": "b"}
    assert seen == [(YOUNG_GC_THRESHOLD, 10, 10)]
    assert gc.get_threshold() == default_threshold


def test_a_rejected_manifest_restores_the_threshold(default_threshold: tuple[int, int, int]) -> None:
    c = FakeCluster(seed=1)
    with pytest.raises(Exception, match="kind"):
        c.apply({"apiVersion": "v1", "metadata": {"name": "x"}})
    assert gc.get_threshold() == default_threshold
