"""Unit tests of ``ValidateDeleteOptions`` as kube-apiserver's delete handler applies it: 422 Invalid on
``DeleteOptions.meta.k8s.io`` before the object is looked up, for the server and the HTTP layer alike."""

from __future__ import annotations

import pytest

from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.deletion import check_delete_options
from volcano.httpapi.params import DeleteOptions, Query
from volcano.sim import RandomStreams, SimClock

UNSUPPORTED = ('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": '
               'supported values: "Foreground", "Background", "Orphan", "nil"')
BOTH = ('propagationPolicy: Invalid value: "Foreground": orphanDependents and deletionPropagation cannot be '
        "both set")


def test_known_policies_pass() -> None:
    for policy in (None, "Foreground", "Background", "Orphan"):
        check_delete_options(policy)
    check_delete_options(None, True)


def test_unknown_policy_is_invalid_before_the_lookup() -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    with pytest.raises(ApiError) as err:
        server.delete("ConfigMap", "absent", "default", propagation_policy="Sideways")
    assert (err.value.code, err.value.reason, err.value.message) == (422, "Invalid", UNSUPPORTED)
    assert err.value.details == {"group": "meta.k8s.io", "kind": "DeleteOptions", "causes": [
        {"reason": "FieldValueNotSupported", "field": "propagationPolicy",
         "message": 'Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"'}]}


def test_orphan_dependents_beside_a_policy() -> None:
    with pytest.raises(ApiError) as err:
        DeleteOptions.read(Query({}), {"orphanDependents": False, "propagationPolicy": "Foreground"})
    assert err.value.message == f'DeleteOptions.meta.k8s.io "" is invalid: {BOTH}'
    with pytest.raises(ApiError) as err:
        check_delete_options("Sideways", True)
    assert err.value.message == (
        'DeleteOptions.meta.k8s.io "" is invalid: [propagationPolicy: Invalid value: "Sideways": orphanDependents '
        'and deletionPropagation cannot be both set, propagationPolicy: Unsupported value: "Sideways": supported '
        'values: "Foreground", "Background", "Orphan", "nil"]')
    assert DeleteOptions.read(Query({}), {"orphanDependents": False}).propagation_policy == "Background"


def test_http_layer_gives_the_same_answer() -> None:
    with pytest.raises(ApiError) as err:
        DeleteOptions.read(Query({"propagationPolicy": "Sideways"}), None)
    assert (err.value.code, err.value.message) == (422, UNSUPPORTED)
