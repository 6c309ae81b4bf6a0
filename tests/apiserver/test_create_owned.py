"""``ApiServer.create_owned`` (the facade's create, without the defensive copy) is ``create``: on
random manifests, valid or not, both store the same objects or raise the same error; and
``last_applied_configuration`` (which no longer deep-copies) serialises as kubectl does."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from volcano.api.frozen import freeze, thaw
from volcano.apiserver import ApiServer
from volcano.apiserver.errors import ApiError
from volcano.apiserver.gojson import go_json
from volcano.apiserver.threeway import LAST_APPLIED, last_applied_configuration
from volcano.sim import SimClock
from volcano.sim.rand import RandomStreams

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 2**40), st.text(max_size=8),
                     st.sampled_from(["1", "100m", "2Gi", "abc", "", "default"]))
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "name", "cpu", "x"]), inner, max_size=3)),
    max_leaves=8)


@st.composite
def manifests(draw: st.DrawFn) -> dict[str, Any]:
    """A Pod, PodGroup, Queue or ConfigMap with random names, labels, fields and requests, sometimes
    with a field of a wrong type or value somewhere, so that refusals are compared too."""
    kind = draw(st.sampled_from(["Pod", "PodGroup", "Queue", "ConfigMap"]))
    name = draw(st.sampled_from(["a", "b", "pg-1", "Bad_Name", "q"]))
    meta: dict[str, Any] = {"name": name}
    if draw(st.booleans()):
        meta["labels"] = draw(st.dictionaries(st.sampled_from(["app", "bench", "bad key"]),
                                              st.sampled_from(["x", "", "y" * 70]), max_size=2))
    if draw(st.booleans()):
        meta["annotations"] = {"scheduling.k8s.io/group-name": draw(st.sampled_from(["pg-1", "g"]))}
    if draw(st.booleans()):
        meta["namespace"] = draw(st.sampled_from(["default", "kube-system", "missing"]))
    if kind == "Pod":
        requests = draw(st.dictionaries(st.sampled_from(["cpu", "memory"]), st.sampled_from(["1", "100m", "x", 2]),
                                        max_size=2))
        obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {
            "schedulerName": "volcano", "containers": [{"name": "c", "image": "pause",
                                                        "resources": {"requests": requests}}]}}
    elif kind == "PodGroup":
        obj = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": meta,
               "spec": {"minMember": draw(st.sampled_from([1, 3, -1, "2"])), "queue": "default"}}
    elif kind == "Queue":
        meta.pop("namespace", None)
        obj = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": meta,
               "spec": {"weight": draw(st.sampled_from([1, 4, 0, "x"])), "reclaimable": True}}
    else:
        obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta,
               "data": draw(st.dictionaries(st.sampled_from(["k", "v"]), st.sampled_from(["1", 2]), max_size=2))}
    if draw(st.integers(0, 4)) == 0:
        obj[draw(st.sampled_from(["spec", "status", "extra"]))] = draw(_values)
    return obj


def _outcome(fn: Any, obj: dict[str, Any]) -> Any:
    try:
        return ("ok", fn(obj))
    except ApiError as exc:
        return ("error", exc.code, exc.reason, exc.message, exc.details)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(manifests(), min_size=1, max_size=5))
def test_create_owned_is_create(batch: list[dict[str, Any]]) -> None:
    owned, full = ApiServer(SimClock(), RandomStreams(5)), ApiServer(SimClock(), RandomStreams(5))
    for obj in batch:
        assert _outcome(owned.create_owned, thaw(obj)) == _outcome(full.create, copy.deepcopy(obj))
    assert owned.snapshot() == full.snapshot()
    assert owned.resource_version == full.resource_version


@settings(max_examples=100, deadline=None)
@given(manifests(), st.booleans(), st.booleans())
def test_last_applied_configuration_is_kubectls(obj: dict[str, Any], frozen: bool, annotated: bool) -> None:
    if annotated:
        obj["metadata"].setdefault("annotations", {})[LAST_APPLIED] = "{}"
    before = copy.deepcopy(obj)
    expected = thaw(obj)
    meta = expected.setdefault("metadata", {})
    annotations = dict(meta.get("annotations") or {})
    annotations.pop(LAST_APPLIED, None)
    meta["annotations"] = annotations
    assert last_applied_configuration(freeze(obj) if frozen else obj) == go_json(expected) + "\n"
    assert obj == before  # the manifest itself is not edited
