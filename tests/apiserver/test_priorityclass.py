"""PriorityClass validation as kube-apiserver does it: the user value ceiling, the reserved ``system-``
prefix, the preemption policy enum, immutable value and policy; one global default (admission, 403)."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.api.frozen import thaw
from volcano.api.kinds import resolve_kind
from volcano.apiserver import ApiError, ApiServer
from volcano.testbed import FakeCluster


def _pc(name: str, value: Any, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, **extra}


def _refused(server: ApiServer, obj: dict[str, Any]) -> ApiError:
    """Create ``obj``: refused, and the store holds what it held before."""
    name = obj["metadata"]["name"]
    before = server.store.lookup(resolve_kind("PriorityClass"), "", name)
    with pytest.raises(ApiError) as err:
        server.create(obj)
    assert server.store.lookup(resolve_kind("PriorityClass"), "", name) is before
    return err.value


def test_the_highest_user_value_is_one_billion(server: ApiServer) -> None:
    assert server.create(_pc("top", 1_000_000_000))["value"] == 1_000_000_000
    err = _refused(server, _pc("over", 1_000_000_001))
    assert (err.code, err.reason) == (422, "Invalid")
    assert err.message == ('PriorityClass.scheduling.k8s.io "over" is invalid: value: Forbidden: maximum allowed '
                           "value of a user defined priority is 1000000000")
    assert err.details["causes"] == [{"reason": "FieldValueForbidden", "field": "value",
                                      "message": "Forbidden: maximum allowed value of a user defined priority is "
                                                 "1000000000"}]


@pytest.mark.parametrize(("obj", "why"), [
    (_pc("system-mine", 10), "system-mine is not a known system priority class"),
    (_pc("system-node-critical", 5), "value of system-node-critical PriorityClass must be 2000001000"),
    (_pc("system-cluster-critical", 2_000_000_000, globalDefault=True),
     "globalDefault of system-cluster-critical PriorityClass must be false"),
])
def test_system_prefix_is_reserved(server: ApiServer, obj: dict[str, Any], why: str) -> None:
    name = obj["metadata"]["name"]
    err = _refused(server, obj)
    assert err.message == (f'PriorityClass.scheduling.k8s.io "{name}" is invalid: metadata.name: Forbidden: '
                           f"priority class names with 'system-' prefix are reserved for system use only. "
                           f"error: {why}")


def test_the_bootstrap_system_classes_are_valid(server: ApiServer) -> None:
    assert server.get("PriorityClass", "system-node-critical")["value"] == 2_000_001_000
    server.delete("PriorityClass", "system-cluster-critical")
    assert server.create(_pc("system-cluster-critical", 2_000_000_000))["value"] == 2_000_000_000


def test_preemption_policy_is_an_enum_defaulted_when_absent(server: ApiServer) -> None:
    assert server.create(_pc("a", 1))["preemptionPolicy"] == "PreemptLowerPriority"
    assert server.create(_pc("b", 1, preemptionPolicy="Never"))["preemptionPolicy"] == "Never"
    err = _refused(server, _pc("c", 1, preemptionPolicy="Bogus"))
    assert err.message == ('PriorityClass.scheduling.k8s.io "c" is invalid: preemptionPolicy: Unsupported value: '
                           '"Bogus": supported values: "Never", "PreemptLowerPriority"')


def test_value_and_policy_are_immutable(server: ApiServer) -> None:
    stored = server.create(_pc("a", 10, description="first"))
    edit = thaw(stored)
    edit["description"] = "second"
    assert server.update(edit)["description"] == "second"
    current = server.get("PriorityClass", "a")
    for patch, message in [
        ({"value": 11}, 'PriorityClass.scheduling.k8s.io "a" is invalid: value: Forbidden: may not be changed in an '
                        "update."),
        ({"preemptionPolicy": "Never"}, 'PriorityClass.scheduling.k8s.io "a" is invalid: preemptionPolicy: Invalid '
                                        'value: "Never": field is immutable'),
    ]:
        with pytest.raises(ApiError) as err:
            server.patch("PriorityClass", "a", patch)
        assert (err.value.code, err.value.message) == (422, message)
        assert server.get("PriorityClass", "a") is current
    # naming the default policy is no change
    assert server.patch("PriorityClass", "a", {"preemptionPolicy": "PreemptLowerPriority"}) is current


def test_only_one_global_default(fake_cluster: FakeCluster) -> None:
    server = fake_cluster.server
    server.create(_pc("first", 10, globalDefault=True))
    second = server.create(_pc("second", 20))
    for name, write in (("third", lambda: server.create(_pc("third", 30, globalDefault=True))),
                        ("second", lambda: server.patch("PriorityClass", "second", {"globalDefault": True}))):
        with pytest.raises(ApiError) as err:
            write()
        assert (err.value.code, err.value.reason) == (403, "Forbidden")
        assert err.value.message == (f'priorityclasses.scheduling.k8s.io "{name}" is forbidden: PriorityClass '
                                     "first is already marked as default. Only one default can exist")
    assert server.get("PriorityClass", "second") is second
    # the default itself may be written again
    assert server.patch("PriorityClass", "first", {"description": "d"})["globalDefault"] is True
