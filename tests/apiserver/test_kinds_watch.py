"""The watch event conversion, whole: every event a watcher sees (type and the COMPLETE object) for
unfiltered, namespace-, label- and field-selected watches, objects crossing a selection in and out
(a MODIFIED becoming ADDED or DELETED, the DELETED carrying the object as it was while selected with
the resourceVersion of the write that moved it out, as kube-apiserver's watch cache sends it), initial
events (``resourceVersion=0``), a resume from a resourceVersion, and the 410 of a compacted history
(raised at the start, or as an ERROR event with its whole ``Status``)."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.api.frozen import thaw
from volcano.apiserver import ApiError, ApiServer, WatchEvent
from volcano.sim import SimClock

from .conftest import pod


def _recorder() -> tuple[list[tuple[str, Any]], Any]:
    seen: list[tuple[str, Any]] = []

    def handler(ev: WatchEvent) -> None:
        seen.append((ev.type, thaw(ev.object)))
    return seen, handler


def _labelled(name: str, namespace: str = "default", **labels: str) -> dict[str, Any]:
    obj = pod(name, namespace)
    obj["metadata"]["labels"] = dict(labels)
    return obj


def _get(server: ApiServer, name: str, namespace: str = "default") -> dict[str, Any]:
    return thaw(server.get("Pod", name, namespace))


def _with_rv(obj: dict[str, Any], rv: str) -> dict[str, Any]:
    return {**obj, "metadata": {**obj["metadata"], "resourceVersion": rv}}


def _ns(server: ApiServer, name: str) -> None:
    server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})


def test_unfiltered_watch_sees_every_write_whole(server: ApiServer, clock: SimClock) -> None:
    seen, handler = _recorder()
    server.watch("Pod", handler)
    server.create(pod("a"))
    created = _get(server, "a")
    server.patch("Pod", "a", {"metadata": {"labels": {"x": "1"}}})
    patched = _get(server, "a")
    server.delete("Pod", "a", grace_period_seconds=0)
    clock.run()
    deleted_rv = str(int(patched["metadata"]["resourceVersion"]) + 1)
    assert seen == [("ADDED", created), ("MODIFIED", patched), ("DELETED", _with_rv(patched, deleted_rv))]
    assert created["metadata"]["resourceVersion"] < patched["metadata"]["resourceVersion"] < deleted_rv


def test_namespace_watch_sees_only_its_namespace(server: ApiServer, clock: SimClock) -> None:
    _ns(server, "other")
    seen, handler = _recorder()
    server.watch("Pod", handler, "other")
    server.create(pod("a"))
    server.create(pod("b", "other"))
    server.patch("Pod", "a", {"metadata": {"labels": {"x": "1"}}})
    server.patch("Pod", "b", {"metadata": {"labels": {"x": "2"}}}, "other")
    clock.run()
    b = _get(server, "b", "other")
    first = {**b, "metadata": {k: v for k, v in b["metadata"].items() if k != "labels"}}
    first["metadata"]["resourceVersion"] = str(int(b["metadata"]["resourceVersion"]) - 2)
    assert seen == [("ADDED", first), ("MODIFIED", b)]


def test_label_selection_crossing_in_and_out(server: ApiServer, clock: SimClock) -> None:
    seen, handler = _recorder()
    server.watch("Pod", handler, label_selector="app=web")
    server.create(_labelled("a", app="web"))
    v1 = _get(server, "a")
    server.create(_labelled("b", app="db"))  # never selected: nothing
    server.patch("Pod", "a", {"metadata": {"labels": {"tier": "1"}}})  # stays in: MODIFIED
    v2 = _get(server, "a")
    server.patch("Pod", "a", {"metadata": {"labels": {"app": "db"}}})  # leaves: DELETED (old content)
    v3 = _get(server, "a")
    server.patch("Pod", "a", {"metadata": {"labels": {"tier": "2"}}})  # outside both times: nothing
    server.patch("Pod", "a", {"metadata": {"labels": {"app": "web"}}})  # enters: ADDED (new content)
    v5 = _get(server, "a")
    server.patch("Pod", "b", {"metadata": {"labels": {"app": "web"}}})  # enters
    b2 = _get(server, "b")
    server.delete("Pod", "b", grace_period_seconds=0)  # selected when deleted: DELETED
    server.create(_labelled("c", app="db"))
    server.delete("Pod", "c", grace_period_seconds=0)  # never selected: nothing
    clock.run()
    left = _with_rv(v2, v3["metadata"]["resourceVersion"])
    assert left["metadata"]["labels"] == {"app": "web", "tier": "1"}
    b_deleted = _with_rv(b2, str(int(b2["metadata"]["resourceVersion"]) + 1))
    assert seen == [("ADDED", v1), ("MODIFIED", v2), ("DELETED", left), ("ADDED", v5), ("ADDED", b2),
                    ("DELETED", b_deleted)]


def test_field_selection_crossing_in_by_binding(server: ApiServer, clock: SimClock) -> None:
    seen, handler = _recorder()
    unbound, unbound_handler = _recorder()
    server.watch("Pod", handler, field_selector="spec.nodeName=n1")
    server.watch("Pod", unbound_handler, field_selector="spec.nodeName=")
    server.create(pod("a"))
    created = _get(server, "a")
    server.bind("a", "default", "n1")
    bound = _get(server, "a")
    server.patch("Pod", "a", {"metadata": {"labels": {"x": "1"}}})
    labelled = _get(server, "a")
    clock.run()
    assert seen == [("ADDED", bound), ("MODIFIED", labelled)]
    assert unbound == [("ADDED", created), ("DELETED", _with_rv(created, bound["metadata"]["resourceVersion"]))]


def test_metadata_name_field_selector_and_label_together(server: ApiServer, clock: SimClock) -> None:
    seen, handler = _recorder()
    server.watch("Pod", handler, label_selector="app", field_selector="metadata.name!=b")
    server.create(_labelled("a", app="x"))
    a = _get(server, "a")
    server.create(_labelled("b", app="x"))
    server.create(pod("c"))
    server.patch("Pod", "c", {"metadata": {"labels": {"app": "y"}}})
    c = _get(server, "c")
    clock.run()
    assert seen == [("ADDED", a), ("ADDED", c)]


def test_initial_events_are_sorted_selected_then_changes(server: ApiServer, clock: SimClock) -> None:
    _ns(server, "zz")
    server.create(_labelled("b", app="web"))
    server.create(_labelled("a", "zz", app="web"))
    server.create(_labelled("a", app="web"))
    server.create(_labelled("c", app="db"))
    seen, handler = _recorder()
    in_default, default_handler = _recorder()
    server.watch("Pod", handler, resource_version="0", label_selector="app=web")
    server.watch("Pod", default_handler, "default", resource_version="0")
    server.patch("Pod", "c", {"metadata": {"labels": {"app": "web"}}})
    clock.run()
    a, b, c, za = (_get(server, "a"), _get(server, "b"), _get(server, "c"), _get(server, "a", "zz"))
    assert seen == [("ADDED", a), ("ADDED", b), ("ADDED", za), ("ADDED", c)]
    c_before = _with_rv({**c, "metadata": {**c["metadata"], "labels": {"app": "db"}}},
                        str(int(c["metadata"]["resourceVersion"]) - 1))
    assert in_default == [("ADDED", a), ("ADDED", b), ("ADDED", c_before), ("MODIFIED", c)]


def test_resume_after_a_resource_version_replays_what_followed(server: ApiServer, clock: SimClock) -> None:
    server.create(pod("a"))
    rv = server.get("Pod", "a")["metadata"]["resourceVersion"]
    server.create(pod("b"))
    b = _get(server, "b")
    server.delete("Pod", "a", grace_period_seconds=0)
    seen, handler = _recorder()
    server.watch("Pod", handler, resource_version=rv)
    clock.run()
    assert [(t, o["metadata"]["name"], o["metadata"]["resourceVersion"]) for t, o in seen] == [
        ("ADDED", "b", b["metadata"]["resourceVersion"]),
        ("DELETED", "a", str(int(b["metadata"]["resourceVersion"]) + 1))]
    assert seen[0][1] == b


def test_compacted_start_is_gone_with_its_whole_status(server: ApiServer, clock: SimClock) -> None:
    server.create(pod("a"))
    old = int(server.get("Pod", "a")["metadata"]["resourceVersion"])
    server.create(pod("b"))
    server.create(pod("c"))
    server.compact_watch_history()
    newest = server.get("Pod", "c")["metadata"]["resourceVersion"]
    with pytest.raises(ApiError) as err:
        server.watch("Pod", lambda ev: None, resource_version=str(old))
    assert err.value.status() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": f"too old resource version: {old} ({newest})", "reason": "Expired", "code": 410}


def test_watcher_behind_compaction_gets_one_error_event_and_stops(server: ApiServer, clock: SimClock) -> None:
    seen, handler = _recorder()
    server.watch("Pod", handler, label_selector="x!=y")
    server.create(pod("a"))
    server.create(pod("b"))
    server.compact_watch_history()
    b_rv = int(server.get("Pod", "b")["metadata"]["resourceVersion"])
    clock.run()
    server.create(pod("c"))
    clock.run()
    assert seen == [("ERROR", {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": f"too old resource version: {b_rv - 1} ({b_rv})", "reason": "Expired", "code": 410})]


def test_stopped_watch_sees_nothing_more(server: ApiServer, clock: SimClock) -> None:
    seen, handler = _recorder()
    handle = server.watch("Pod", handler, label_selector="app")
    server.create(_labelled("a", app="1"))
    clock.run()
    handle.stop()
    handle.stop()
    server.create(_labelled("b", app="1"))
    clock.run()
    assert seen == [("ADDED", _get(server, "a"))]
