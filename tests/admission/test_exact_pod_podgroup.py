"""Exact verdicts of Volcano's pod and PodGroup webhooks (upstream ``admit_pod.go``,
``validate_podgroup.go``, ``mutate_podgroup.go``): every message, its boundaries, and what is left alone."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.admission.lookup import StaticView
from volcano.admission.pod import JDB_MAX_UNAVAILABLE, JDB_MIN_AVAILABLE, validate_pod_create
from volcano.admission.podgroup import mutate_podgroup, validate_podgroup_create

MIN, MAX = JDB_MIN_AVAILABLE, JDB_MAX_UNAVAILABLE
BOTH = "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously."
TIERS = {"highestTierAllowed": 1, "highestTierName": "zone"}


def _pod(annotations: dict[str, str], scheduler: str = "volcano") -> dict[str, Any]:
    return {"metadata": {"name": "p", "annotations": annotations}, "spec": {"schedulerName": scheduler}}


@pytest.mark.parametrize(("value", "expected"), [
    ("1", ""), ("0", 'invalid value <"0"> for {k}, it must be a positive integer'),
    ("-1", 'invalid value <"-1"> for {k}, it must be a positive integer'),
    ("+2", ""), ("2147483647", ""),
    ("2147483648", 'invalid value <"2147483648"> for {k}, it must be a valid percentage which between 1% ~ 99%'),
    ("1%", ""), ("99%", ""), ("+5%", ""),
    ("0%", 'invalid value <"0%"> for {k}, it must be a valid percentage which between 1% ~ 99%'),
    ("100%", 'invalid value <"100%"> for {k}, it must be a valid percentage which between 1% ~ 99%'),
    ("-5%", 'invalid value <"-5%"> for {k}, it must be a valid percentage which between 1% ~ 99%'),
    ("5%%", ""),
    ("abc", 'invalid value strconv.Atoi: parsing "abc": invalid syntax for {k}'),
    ("", 'invalid value strconv.Atoi: parsing "": invalid syntax for {k}'),
    ("1.5%", 'invalid value strconv.Atoi: parsing "1.5": invalid syntax for {k}'),
    ("99999999999999999999%",
     'invalid value strconv.Atoi: parsing "99999999999999999999": value out of range for {k}'),
])
@pytest.mark.parametrize("key", [MIN, MAX])
def test_budget_annotation_values(key: str, value: str, expected: str) -> None:
    assert validate_pod_create(_pod({key: value})) == expected.format(k=key)


def test_both_budget_annotations() -> None:
    assert validate_pod_create(_pod({MIN: "1", MAX: "1"})) == (
        f"not allow configure multiple annotations <[{MIN} {MAX}]> at same time")
    # the first bad value is reported before the count
    assert validate_pod_create(_pod({MIN: "1", MAX: "0"})) == (
        f'invalid value <"0"> for {MAX}, it must be a positive integer')
    assert validate_pod_create(_pod({MIN: "0%", MAX: "0"})) == (
        f'invalid value <"0%"> for {MIN}, it must be a valid percentage which between 1% ~ 99%')


def test_only_volcano_scheduled_pods_are_checked() -> None:
    assert validate_pod_create(_pod({MIN: "0"}, "default-scheduler")) == ""
    assert validate_pod_create(_pod({MIN: "0"}, "")) == ""
    assert validate_pod_create(_pod({MIN: "0"}, "mine"), ("volcano", "mine")) == (
        f'invalid value <"0"> for {MIN}, it must be a positive integer')
    assert validate_pod_create(_pod({"other": "x"})) == ""


def _pg(queue: Any = "default", namespace: str = "ns", **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"minMember": 1, **spec}
    if queue is not ...:
        body["queue"] = queue
    return {"metadata": {"name": "pg", "namespace": namespace}, "spec": body}


def _queue(name: str, state: str | None = "Open") -> dict[str, Any]:
    obj: dict[str, Any] = {"metadata": {"name": name}}
    if state is not None:
        obj["status"] = {"state": state}
    return obj


VIEW = StaticView(queues=[_queue("default"), _queue("closed", "Closed"), _queue("fresh", None)],
                  namespaces=[{"metadata": {"name": "ns", "annotations": {"scheduling.volcano.sh/queue-name": "nq"}}},
                              {"metadata": {"name": "empty", "annotations": {"scheduling.volcano.sh/queue-name": ""}}}])


@pytest.mark.parametrize(("pg", "expected"), [
    pytest.param(_pg(""), "", id="empty-queue-skips-the-lookup"),
    pytest.param(_pg(...), "", id="no-queue"),
    pytest.param(_pg(None), "", id="null-queue"),
    pytest.param(_pg("default"), "", id="open"),
    pytest.param(_pg("ghost"), 'unable to find queue: queue.scheduling.volcano.sh "ghost" not found', id="missing"),
    pytest.param(_pg("closed"), "can only submit PodGroup to queue with state `Open`, queue `closed` status is "
                                "`Closed`.", id="closed"),
    pytest.param(_pg("fresh"), "can only submit PodGroup to queue with state `Open`, queue `fresh` status is ``.",
                 id="no-state-yet"),
    pytest.param(_pg("default", networkTopology=TIERS), BOTH, id="tiers"),
    pytest.param(_pg("default", networkTopology={"highestTierAllowed": 0}), "", id="allowed-zero-only"),
    pytest.param(_pg("default", networkTopology={"highestTierAllowed": None, "highestTierName": "z"}), "",
                 id="name-only"),
    pytest.param(_pg("", subGroupPolicy=[{"name": "a", "networkTopology": {"highestTierName": "z"}},
                                         {"name": "b", "networkTopology": TIERS},
                                         {"name": "c", "networkTopology": TIERS}]),
                 f"in subGroupPolicy 'b': {BOTH}", id="first-bad-subgroup-only"),
    pytest.param(_pg("ghost", networkTopology=TIERS, subGroupPolicy=[{"name": "s", "networkTopology": TIERS}]),
                 f'unable to find queue: queue.scheduling.volcano.sh "ghost" not found; {BOTH} '
                 f"in subGroupPolicy 's': {BOTH}", id="parts-joined"),
])
def test_validate_podgroup(pg: dict[str, Any], expected: str) -> None:
    assert validate_podgroup_create(pg, VIEW) == expected


@pytest.mark.parametrize(("queue", "namespace", "expected"), [
    ("default", "ns", "nq"), ("default", "empty", "default"), ("default", "ghost", "default"),
    ("", "ns", ""), ("other", "ns", "other"), ("Default", "ns", "Default")])
def test_mutate_podgroup_only_moves_the_default_queue(queue: str, namespace: str, expected: str) -> None:
    pg = _pg(queue, namespace)
    mutate_podgroup(pg, VIEW)
    assert pg["spec"] == {"minMember": 1, "queue": expected}


def test_mutate_podgroup_without_queue_leaves_it_absent() -> None:
    pg = _pg(..., "ns")
    mutate_podgroup(pg, VIEW)
    assert pg["spec"] == {"minMember": 1}


def test_webhook_denial_shape() -> None:
    from volcano.admission.errors import resource_of, webhook_denied
    from volcano.api.kinds import resolve_kind

    job = resolve_kind("Job")
    err = webhook_denied(job, "j", "validatejob.volcano.sh", "bad")
    assert (err.code, err.reason, err.message) == (
        403, "Forbidden", 'jobs.batch.volcano.sh "j" is forbidden: admission webhook "validatejob.volcano.sh" '
                          "denied the request: bad")
    assert err.details == {"group": "batch.volcano.sh", "kind": "jobs", "name": "j"}
    silent = webhook_denied(resolve_kind("Pod"), "", "validatepod.volcano.sh", "")
    assert silent.message == ('pods "Unknown" is forbidden: admission webhook "validatepod.volcano.sh" denied the '
                              "request without explanation")
    assert silent.details == {"group": "", "kind": "pods", "name": "Unknown"}
    assert resource_of(resolve_kind("Pod")) == "pods"
