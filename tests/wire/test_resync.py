"""Informer resync (client-go's ``--resync-period``): every cached object is delivered again."""

from __future__ import annotations

from volcano.apiserver import ApiServer
from volcano.informers import InformerFactory
from volcano.sim import RandomStreams, SimClock


def test_resync_delivers_every_cached_object_again_as_an_update_of_itself() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    factory = InformerFactory(server, clock)
    seen: list[tuple[str, str, bool]] = []
    factory.informer("ConfigMap").add_handler(lambda e, o, old: seen.append((e, o["metadata"]["name"], old is o)))
    for name in ("b", "a"):
        server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}})
    clock.run(1)
    assert seen == [("ADDED", "b", False), ("ADDED", "a", False)]
    seen.clear()
    factory.resync()
    assert seen == [("MODIFIED", "a", True), ("MODIFIED", "b", True)]  # sorted, old is the object itself


def test_a_handler_still_replaying_gets_the_resync_after_its_replay() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(0))
    server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}})
    informer = InformerFactory(server, clock).informer("ConfigMap")
    seen: list[str] = []
    informer.add_handler(lambda e, o, old: seen.append(e))
    informer.resync()  # before the replay of existing objects ran
    clock.run(1)
    assert seen == ["ADDED", "MODIFIED"]
