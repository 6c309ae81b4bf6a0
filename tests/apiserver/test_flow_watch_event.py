"""An unfiltered watcher's events are ``WatchEvent`` named tuples built without the named tuple's
Python-level ``__new__``: the same type, fields, equality and attribute access as the
constructor's, for every event type, next to a filtered watcher of the same writes."""

from __future__ import annotations

from volcano.apiserver import ApiServer, WatchEvent
from volcano.sim import SimClock

from .conftest import pod


def test_unfiltered_events_are_the_constructors_named_tuples(server: ApiServer, clock: SimClock) -> None:
    plain: list[WatchEvent] = []
    filtered: list[WatchEvent] = []
    server.watch("Pod", plain.append)
    server.watch("Pod", filtered.append, namespace="default")
    server.create(pod("a"))
    server.patch("Pod", "a", {"metadata": {"labels": {"x": "1"}}})
    server.delete("Pod", "a")
    clock.run()
    assert [type(e) for e in plain] == [WatchEvent] * 3
    assert plain == filtered == [WatchEvent(e.type, e.object) for e in plain]
    assert [e.type for e in plain] == ["ADDED", "MODIFIED", "DELETED"]
    assert all(e.object is f.object and e._fields == ("type", "object") for e, f in zip(plain, filtered, strict=True))
