"""Volcano's PodGroup admission rules (e2e 70-75 and the validation messages)."""

from __future__ import annotations

from typing import Any

from volcano.admission.lookup import StaticView
from volcano.admission.podgroup import mutate_podgroup, validate_podgroup_create


def _pg(queue: str | None = "default", namespace: str = "ns", **spec: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"metadata": {"name": "pg", "namespace": namespace}, "spec": {"minMember": 1, **spec}}
    if queue is not None:
        obj["spec"]["queue"] = queue
    return obj


def _ns(name: str, queue: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if queue:
        meta["annotations"] = {"scheduling.volcano.sh/queue-name": queue}
    return {"metadata": meta}


def _queue(name: str, state: str = "Open") -> dict[str, Any]:
    return {"metadata": {"name": name}, "status": {"state": state}}


VIEW = StaticView(queues=[_queue("default"), _queue("custom"), _queue("closed", "Closed")],
                  namespaces=[_ns("ns", "namespace-queue"), _ns("plain")])


def test_custom_queue_untouched() -> None:  # 70
    pg = _pg("custom")
    mutate_podgroup(pg, VIEW)
    assert pg["spec"]["queue"] == "custom"


def test_namespace_annotation_sets_queue() -> None:  # 71, 73
    pg = _pg("default")
    mutate_podgroup(pg, VIEW)
    assert pg["spec"]["queue"] == "namespace-queue"


def test_default_kept_without_annotation() -> None:  # 72
    pg = _pg("default", namespace="plain")
    mutate_podgroup(pg, VIEW)
    assert pg["spec"]["queue"] == "default"
    pg = _pg("default", namespace="missing")
    mutate_podgroup(pg, VIEW)
    assert pg["spec"]["queue"] == "default"


def test_open_queue_and_empty_queue_allowed() -> None:  # 74, 75
    assert validate_podgroup_create(_pg("custom"), VIEW) == ""
    assert validate_podgroup_create(_pg(None), VIEW) == ""


def test_queue_missing_or_not_open() -> None:
    assert validate_podgroup_create(_pg("ghost"), VIEW) == \
        'unable to find queue: queue.scheduling.volcano.sh "ghost" not found'
    assert validate_podgroup_create(_pg("closed"), VIEW) == \
        "can only submit PodGroup to queue with state `Open`, queue `closed` status is `Closed`."


def test_network_topology_errors_joined() -> None:
    both = {"highestTierAllowed": 1, "highestTierName": "t"}
    pg = _pg("closed", networkTopology=both, subGroupPolicy=[{"name": "sg", "networkTopology": both}])
    # Upstream's validateNetworkTopology joins its own errors with a space; validatePodGroup joins parts with "; ".
    assert validate_podgroup_create(pg, VIEW) == (
        "can only submit PodGroup to queue with state `Open`, queue `closed` status is `Closed`.; "
        "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously. "
        "in subGroupPolicy 'sg': must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology "
        "simultaneously.")
