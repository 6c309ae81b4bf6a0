"""WriteOverlay: the controller's own writes win over a lagging informer, and only until it catches up."""

from __future__ import annotations

from typing import Any

from tests.controllers.job.conftest import StubInformer
from volcano.api.frozen import freeze
from volcano.apiserver.client import Obj
from volcano.controllers.job.overlay import WriteOverlay


def pod(name: str, uid: str, rv: int, **meta: Any) -> Obj:
    return freeze({"metadata": {"name": name, "namespace": "ns", "uid": uid, "resourceVersion": str(rv), **meta}})


def test_a_written_object_wins_until_the_informer_reaches_its_version() -> None:
    inf = StubInformer()
    inf.deliver(pod("p", "u1", 5), 5)
    overlay = WriteOverlay(inf)
    marked = pod("p", "u1", 7, deletionTimestamp="2024-01-01T00:00:01Z")
    overlay.wrote(marked, "ns/job")
    assert overlay.get("p", "ns") is marked
    assert overlay.group_names("ns/job") == ["p"]
    inf.deliver(pod("q", "u9", 6), 6)  # an unrelated event: still behind our write
    assert overlay.get("p", "ns") is marked
    seen = pod("p", "u1", 7, deletionTimestamp="2024-01-01T00:00:01Z")
    inf.deliver(seen, 7)
    assert overlay.get("p", "ns") is seen
    assert len(overlay) == 0 and overlay.group_names("ns/job") == []


def test_a_created_object_is_visible_before_the_informer_has_it() -> None:
    inf = StubInformer()
    overlay = WriteOverlay(inf)
    created = pod("p", "u1", 3)
    overlay.wrote(created, "ns/job")
    assert overlay.get("p", "ns") is created
    inf.deliver(None, 4, ("ns", "p"))  # caught up, and since deleted by someone else: the informer is right
    assert overlay.get("p", "ns") is None
    assert len(overlay) == 0


def _removed_while_cached() -> tuple[StubInformer, WriteOverlay]:
    """An informer that holds pod ``ns/p`` (uid u1, version 5) and an overlay told it was removed."""
    inf = StubInformer()
    old = pod("p", "u1", 5)
    inf.deliver(old, 5)
    overlay = WriteOverlay(inf)
    overlay.removed(old, "ns/job")
    return inf, overlay


def test_a_removed_object_stays_hidden_until_the_informer_drops_that_uid() -> None:
    inf, overlay = _removed_while_cached()
    assert overlay.get("p", "ns") is None
    inf.deliver(pod("x", "u2", 9), 9)  # later events, but the informer still holds u1
    assert overlay.get("p", "ns") is None
    inf.deliver(None, 10, ("ns", "p"))
    assert overlay.get("p", "ns") is None
    assert len(overlay) == 0
    reborn = pod("p", "u3", 11)
    inf.deliver(reborn, 11)
    assert overlay.get("p", "ns") is reborn


def test_removed_then_recreated_shows_the_new_object_over_the_old_cached_one() -> None:
    _, overlay = _removed_while_cached()
    new = pod("p", "u2", 8)
    overlay.wrote(new, "ns/job")
    assert overlay.get("p", "ns") is new
    assert overlay.group_names("ns/job") == ["p"]


def test_forget_group_drops_only_that_group() -> None:
    inf = StubInformer()
    overlay = WriteOverlay(inf)
    overlay.wrote(pod("a", "u1", 3), "ns/one")
    overlay.wrote(pod("b", "u2", 4), "ns/two")
    overlay.forget_group("ns/one")
    assert overlay.get("a", "ns") is None
    assert overlay.get("b", "ns") is not None
    assert overlay.group_names("ns/one") == [] and overlay.group_names("ns/two") == ["b"]
