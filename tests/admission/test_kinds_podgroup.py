"""``mutatepodgroup.volcano.sh`` and ``validatepodgroup.volcano.sh``, whole: the queue from the
namespace annotation (only for the ``default`` queue, only when the namespace names one), the queue's
existence and state (each state one side of Open), the exclusive network-topology tiers (at the top
level and in the first offending subGroupPolicy only), and several errors joined, message for message."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.admission.lookup import StaticView
from volcano.admission.podgroup import QUEUE_NAME_ANNOTATION, mutate_podgroup, validate_podgroup_create


def _queue(name: str, state: str | None) -> dict[str, Any]:
    obj: dict[str, Any] = {"metadata": {"name": name}, "spec": {}}
    if state is not None:
        obj["status"] = {"state": state}
    return obj


def _ns(name: str, queue: str | None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if queue is not None:
        meta["annotations"] = {QUEUE_NAME_ANNOTATION: queue}
    return {"metadata": meta}


VIEW = StaticView(queues=[_queue("default", "Open"), _queue("open", "Open"), _queue("closed", "Closed"),
                          _queue("closing", "Closing"), _queue("fresh", None)],
                  namespaces=[_ns("team", "open"), _ns("plain", None), _ns("blank", "")])


def _pg(queue: Any = "default", namespace: str = "team", **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "pg", "namespace": namespace}, "spec": {"queue": queue, **spec}}


@pytest.mark.parametrize(("queue", "namespace", "result"), [
    ("default", "team", "open"),
    ("default", "plain", "default"),
    ("default", "blank", "default"),
    ("default", "missing", "default"),
    ("closed", "team", "closed"),
    ("", "team", ""),
])
def test_mutate_takes_the_namespace_queue_for_default_only(queue: str, namespace: str, result: str) -> None:
    pg = _pg(queue, namespace)
    mutate_podgroup(pg, VIEW)
    assert pg == _pg(result, namespace)


def test_mutate_leaves_a_spec_that_is_no_mapping() -> None:
    pg: dict[str, Any] = {"metadata": {"name": "pg", "namespace": "team"}, "spec": "x"}
    mutate_podgroup(pg, VIEW)
    assert pg == {"metadata": {"name": "pg", "namespace": "team"}, "spec": "x"}


TIERS = "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously"


@pytest.mark.parametrize(("pg", "message"), [
    (_pg("open"), ""),
    (_pg(""), ""),
    (_pg("nope"), 'unable to find queue: queue.scheduling.volcano.sh "nope" not found'),
    (_pg("closed"), "can only submit PodGroup to queue with state `Open`, queue `closed` status is `Closed`."),
    (_pg("closing"), "can only submit PodGroup to queue with state `Open`, queue `closing` status is `Closing`."),
    (_pg("fresh"), "can only submit PodGroup to queue with state `Open`, queue `fresh` status is ``."),
    (_pg("open", networkTopology={"highestTierAllowed": 0, "highestTierName": "t"}), TIERS + "."),
    (_pg("open", networkTopology={"highestTierAllowed": 1}), ""),
    (_pg("open", networkTopology={"highestTierName": "t"}), ""),
    (_pg("open", networkTopology={"highestTierAllowed": 1, "highestTierName": ""}), ""),
    (_pg("open", networkTopology={"highestTierAllowed": None, "highestTierName": "t"}), ""),
    (_pg("open", subGroupPolicy=[{"name": "a"}, {"name": "b", "networkTopology": {
        "highestTierAllowed": 2, "highestTierName": "t"}}, {"name": "c", "networkTopology": {
            "highestTierAllowed": 2, "highestTierName": "t"}}]), f"in subGroupPolicy 'b': {TIERS}."),
    (_pg("nope", networkTopology={"highestTierAllowed": 1, "highestTierName": "t"},
         subGroupPolicy=[{"networkTopology": {"highestTierAllowed": 1, "highestTierName": "t"}}]),
     f'unable to find queue: queue.scheduling.volcano.sh "nope" not found; {TIERS}. '
     f"in subGroupPolicy '': {TIERS}."),
])
def test_validate_create(pg: dict[str, Any], message: str) -> None:
    assert validate_podgroup_create(pg, VIEW) == message
