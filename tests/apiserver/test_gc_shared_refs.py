"""The garbage collector's tracker passes over a write that keeps the very ``ownerReferences``
object of an object not being deleted (a status write): on random writes it leaves the same
index and schedules the same work as the general path, which an equal copy of the references
takes."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.api.frozen import FrozenDict, freeze, thaw
from volcano.apiserver.gc import FOREGROUND, ORPHAN, GarbageCollector


class _Server:
    """The two reads the collector's index makes of its server."""

    def __init__(self, uids: set[str]) -> None:
        self.uids = uids

    def uid_exists(self, uid: str) -> bool:
        return uid in self.uids

    def get_by_uid(self, uid: str) -> Any:
        return {"metadata": {"uid": uid, "finalizers": [FOREGROUND]}} if uid in self.uids else None


class _Clock:
    """Records the work the collector schedules."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def call_later(self, delay: int, fn: Any, *args: Any, priority: Any = None) -> None:
        self.calls.append((delay, fn.__name__, args, priority))


refs = st.lists(st.sampled_from(["o1", "o2", "gone"]), max_size=2, unique=True).map(
    lambda uids: [{"apiVersion": "v1", "kind": "ConfigMap", "name": u, "uid": u} for u in uids])


@st.composite
def objects(draw: st.DrawFn) -> FrozenDict:
    meta: dict[str, Any] = {"name": "p", "namespace": "default", "uid": "u1", "resourceVersion": "5"}
    owners = draw(st.one_of(st.none(), refs))
    if owners is not None:
        meta["ownerReferences"] = owners
    if draw(st.booleans()):
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    fins = draw(st.lists(st.sampled_from([FOREGROUND, ORPHAN, "x"]), max_size=2, unique=True))
    if fins:
        meta["finalizers"] = fins
    return freeze({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "status": {"phase": "Pending"}})


@settings(max_examples=300, deadline=None)
@given(objects(), objects(), st.lists(objects(), max_size=3), st.booleans())
def test_shared_refs_track_as_the_general_path(old: FrozenDict, new: FrozenDict, before: list[FrozenDict],
                                               shared: bool) -> None:
    if shared:  # the store's status write: the new version holds the old one's references object
        meta = dict(new["metadata"])
        meta.pop("ownerReferences", None)
        if "ownerReferences" in old["metadata"]:
            meta["ownerReferences"] = old["metadata"]["ownerReferences"]
        new = FrozenDict(new, metadata=FrozenDict(meta))
    # The general path: the same write with equal references that are not the same object.
    copy_meta = thaw(new["metadata"])
    copy_meta.setdefault("ownerReferences", [])  # no references: an empty list reads as none, a new object
    general_new = FrozenDict(new, metadata=freeze(copy_meta))
    states = []
    for written in (new, general_new):
        clock = _Clock()
        gc = GarbageCollector(_Server({"o1", "o2"}), clock)  # type: ignore[arg-type]
        for prior in before:  # an index with other objects' references in it
            gc.track(None, FrozenDict(prior, metadata=FrozenDict(prior["metadata"], uid="other")))
        gc.track(None, old)
        clock.calls.clear()
        gc.track(old, written)
        states.append((gc._deps, sorted(gc._pending_owners), sorted(gc._pending_deps), clock.calls))
    assert states[0] == states[1]
