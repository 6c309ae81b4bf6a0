"""Events expire as kube-apiserver's ``--event-ttl`` makes them (``volcano.apiserver.leases``): an
hour after their last write, on the etcd lease manager's shared leases (granted for the TTL plus the
reuse window of 60 s, reused for writes within that window, at most 1,000 objects each); storage
removes them with no admission and no finalizers, and watchers see DELETED."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.apiserver import ApiServer, EventRecorder
from volcano.apiserver.client import WatchEvent
from volcano.sim import SimClock
from volcano.sim.rand import RandomStreams

_HOUR_MS = 3_600_000
_REUSE_MS = 60_000


def _event(name: str, **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"namespace": "default", "name": name, **extra.pop("meta", {})}
    return {"apiVersion": "v1", "kind": "Event", "metadata": meta,
            "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
            "reason": "Tested", "message": "m", "type": "Normal", "count": 1, **extra}


def _server(**kwargs: Any) -> tuple[SimClock, ApiServer]:
    clock = SimClock()
    return clock, ApiServer(clock, RandomStreams(0), **kwargs)


def _names(server: ApiServer) -> list[str]:
    return [e["metadata"]["name"] for e in server.list("Event", "default")["items"]]


def test_an_event_expires_with_its_lease_and_watchers_see_it_deleted() -> None:
    clock, server = _server()
    seen: list[tuple[str, str]] = []

    def note(event: WatchEvent) -> None:
        seen.append((event.type, event.object["metadata"]["name"]))

    server.watch("Event", note, "default")
    server.create(_event("a"))
    expiry = _HOUR_MS + _REUSE_MS
    assert server.event_leases is not None and server.event_leases.expires_ms("Event", "default", "a") == expiry
    clock.run(expiry - 1)
    assert _names(server) == ["a"]
    clock.run(expiry)
    assert _names(server) == []
    assert seen == [("ADDED", "a"), ("DELETED", "a")]


def test_a_write_moves_the_event_to_a_later_lease() -> None:
    clock, server = _server()
    server.create(_event("a"))
    clock.run(_HOUR_MS)  # within the first lease (it expires at the hour plus 60 s)
    server.patch("Event", "a", {"count": 2}, "default")
    clock.run(_HOUR_MS + _REUSE_MS)
    assert _names(server) == ["a"]  # the first lease expired; the patch's lease holds it
    assert server.event_leases is not None
    assert server.event_leases.expires_ms("Event", "default", "a") == 2 * _HOUR_MS + _REUSE_MS
    clock.run(2 * _HOUR_MS + _REUSE_MS)
    assert _names(server) == []


def test_writes_within_the_reuse_window_share_one_lease() -> None:
    clock, server = _server()
    server.create(_event("a"))
    clock.run(_REUSE_MS - 1)
    server.create(_event("b"))  # the first lease still expires after now + ttl: reused
    clock.run(_REUSE_MS)
    server.create(_event("c"))  # now + ttl is the first lease's expiry: not before it, a new lease
    leases = server.event_leases
    assert leases is not None and leases.leases_granted == 2
    assert leases.expires_ms("Event", "default", "b") == _HOUR_MS + _REUSE_MS
    assert leases.expires_ms("Event", "default", "c") == _HOUR_MS + 2 * _REUSE_MS
    clock.run(_HOUR_MS + _REUSE_MS)
    assert _names(server) == ["c"]


def test_a_lease_holds_at_most_a_thousand_objects() -> None:
    _, server = _server()
    leases = server.event_leases
    assert leases is not None
    for i in range(1000):
        server.create(_event(f"e{i:04d}"))
    assert leases.leases_granted == 1
    server.create(_event("e1000"))
    assert leases.leases_granted == 2


def test_expiry_ignores_finalizers_and_admission() -> None:
    clock, server = _server()
    refused: list[str] = []

    def refuse(request: Any) -> None:
        refused.append(request.operation)
        raise AssertionError("expiry runs no admission")

    server.create(_event("a", meta={"finalizers": ["example.com/keep"]}))
    server.admission.register_validating("Event", ("DELETE",), refuse, "refuse-event-deletes")
    clock.run(_HOUR_MS + _REUSE_MS)
    assert _names(server) == [] and refused == []


def test_an_event_deleted_and_created_again_is_held_by_its_new_lease() -> None:
    clock, server = _server()
    server.create(_event("a"))
    server.delete("Event", "a", "default")
    clock.run(_HOUR_MS)
    server.create(_event("a"))
    clock.run(_HOUR_MS + _REUSE_MS)  # the first lease expires: its "a" is not the stored one
    assert _names(server) == ["a"]


def test_without_a_ttl_events_stay() -> None:
    clock, server = _server(event_ttl_s=None)
    server.create(_event("a"))
    clock.run(10 * _HOUR_MS)
    assert _names(server) == ["a"] and server.event_leases is None


def test_other_kinds_do_not_expire() -> None:
    clock, server = _server()
    server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}})
    clock.run(10 * _HOUR_MS)
    assert server.get("ConfigMap", "c", "default") is not None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3 * _HOUR_MS // 1000), st.integers(0, 5), st.booleans()),
                min_size=1, max_size=40))
def test_an_event_lives_until_the_lease_of_its_last_write_expires(
        writes: list[tuple[int, int, bool]]) -> None:
    """Random creates, updates and deletes at random times: at every instant, the stored Events are
    exactly those whose latest write's lease (as the lease manager grants them, computed here from
    its rules; a no-op update is no write) has not expired: removal happens at that lease's expiry
    and not before."""
    clock, server = _server()
    # The reference: the lease manager's rules, written out.
    prev_expiry, attached, count = None, 0, 1
    expires: dict[str, int] = {}
    for at_s, index, update in sorted(writes):
        clock.run(at_s * 1000)
        now = clock.now_ms
        expires = {n: until for n, until in expires.items() if until > now}  # the expired are gone
        assert sorted(expires) == _names(server)
        name = f"e{index}"
        if name in expires and update:
            count += 1  # a new count each time: a no-op patch writes nothing, so takes no lease
            server.patch("Event", name, {"count": count}, "default")
        elif name in expires:
            server.delete("Event", name, "default")
            del expires[name]
            continue
        else:
            server.create(_event(name))
        attached += 1
        if prev_expiry is not None and now + _HOUR_MS < prev_expiry <= now + _HOUR_MS + _REUSE_MS \
                and attached <= 1000:
            expiry = prev_expiry
        else:
            expiry, attached = now + _HOUR_MS + _REUSE_MS, 1
            prev_expiry = expiry
        expires[name] = expiry
    last = max(expires.values(), default=clock.now_ms)
    clock.run(last)
    assert _names(server) == []


def test_a_no_op_write_takes_no_lease() -> None:
    """kube-apiserver's storage writes nothing for an update that changes nothing, so it asks for
    no lease: the Event keeps its first write's expiry."""
    clock, server = _server()
    server.create(_event("a"))
    clock.run(_HOUR_MS)
    server.patch("Event", "a", {"count": 1}, "default")
    clock.run(_HOUR_MS + _REUSE_MS)
    assert _names(server) == []


def test_a_repeat_of_an_expired_event_creates_it_again() -> None:
    """client-go's recorder patches a repeat; when the Event has expired the patch is NotFound and
    the recorder creates it again, under its name, with the count it has reached."""
    clock, server = _server()
    involved = server.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                              "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    recorder = EventRecorder(server, clock, "volcano")
    recorder.event(involved, "Normal", "Tested", "m")
    [first] = server.list("Event", "default")["items"]
    clock.run(_HOUR_MS + _REUSE_MS)
    assert _names(server) == []
    recorder.event(involved, "Normal", "Tested", "m")
    [again] = server.list("Event", "default")["items"]
    assert again["metadata"]["name"] == first["metadata"]["name"] and again["count"] == 2
    assert again["firstTimestamp"] == first["firstTimestamp"] != again["lastTimestamp"]
