"""Exact errors of ``ValidateLabelSelector`` (``label_selector_errors``) and of a pod affinity term, in
upstream's order: ``matchLabels`` (at the ``matchLabels`` path), then each expression (operator or
values, key, then each value as a label value); a term's selectors, namespaces, then ``topologyKey``."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.validation.pod import label_selector_errors, node_selector_term_errors
from volcano.sim import RandomStreams, SimClock

PATTERN = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
           "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
         "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
         "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
         "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
IN_VALUES = "Required value: must be specified when `operator` is 'In' or 'NotIn'"
EXISTS_VALUES = "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"


@pytest.mark.parametrize(("selector", "errors"), [
    (None, []),
    ({}, []),
    ({"matchLabels": {"app": "x", "example.com/tier": "a.b_c-1", "empty": ""}}, []),
    ({"matchLabels": {"bad key": "x"}}, [f's.matchLabels: Invalid value: "bad key": {PATTERN}']),
    ({"matchLabels": {"app": "-x"}}, [f's.matchLabels: Invalid value: "-x": {VALUE}']),
    ({"matchLabels": {"app": "x" * 63}}, []),
    ({"matchLabels": {"app": "x" * 64}}, [f's.matchLabels: Invalid value: "{"x" * 64}": must be no more than 63 '
                                          "characters"]),
    ({"matchLabels": {"k/": "v"}}, ['s.matchLabels: Invalid value: "k/": name part must be non-empty',
                                    f's.matchLabels: Invalid value: "k/": {PATTERN}']),
    # two bad labels: sorted by key (Go ranges over the map in no fixed order)
    ({"matchLabels": {"z!": "ok", "a": "no way"}}, [f's.matchLabels: Invalid value: "no way": {VALUE}',
                                                   f's.matchLabels: Invalid value: "z!": {PATTERN}']),
    ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["x"]}]}, []),
    ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": []}]}, [f"s.matchExpressions[0].values: "
                                                                               f"{IN_VALUES}"]),
    ({"matchExpressions": [{"key": "a", "operator": "In"}]}, [f"s.matchExpressions[0].values: {IN_VALUES}"]),
    ({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
     [f"s.matchExpressions[0].values: {EXISTS_VALUES}"]),
    ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, []),
    ({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]},
     ['s.matchExpressions[0].operator: Invalid value: "Gt": not a valid selector operator']),
    ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["ok", "no way", "-x"]}]},
     [f's.matchExpressions[0].values[1]: Invalid value: "no way": {VALUE}',
      f's.matchExpressions[0].values[2]: Invalid value: "-x": {VALUE}']),
    ({"matchExpressions": [{"key": "", "operator": "Exists"}]},
     ['s.matchExpressions[0].key: Invalid value: "": name part must be non-empty',
      f's.matchExpressions[0].key: Invalid value: "": {PATTERN}']),
    # the order: matchLabels, then per expression operator/values, key, values
    ({"matchExpressions": [{"key": "-k", "operator": "Bogus", "values": ["a b"]}], "matchLabels": {"x": "y z"}},
     [f's.matchLabels: Invalid value: "y z": {VALUE}',
      's.matchExpressions[0].operator: Invalid value: "Bogus": not a valid selector operator',
      f's.matchExpressions[0].key: Invalid value: "-k": {PATTERN}',
      f's.matchExpressions[0].values[0]: Invalid value: "a b": {VALUE}']),
])
def test_label_selector_errors(selector: Any, errors: list[str]) -> None:
    assert [str(e) for e in label_selector_errors(selector, "s")] == errors


def _affinity_pod(term: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "busybox"}],
                     "affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}}}


T = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"


@pytest.mark.parametrize(("term", "causes"), [
    ({"topologyKey": "zone"}, []),
    ({"topologyKey": ""}, [
        ("FieldValueRequired", f"{T}.topologyKey", "Required value: can not be empty"),
        ("FieldValueInvalid", f"{T}.topologyKey", 'Invalid value: "": name part must be non-empty'),
        ("FieldValueInvalid", f"{T}.topologyKey", f'Invalid value: "": {PATTERN}')]),
    ({}, [
        ("FieldValueRequired", f"{T}.topologyKey", "Required value: can not be empty"),
        ("FieldValueInvalid", f"{T}.topologyKey", 'Invalid value: "": name part must be non-empty'),
        ("FieldValueInvalid", f"{T}.topologyKey", f'Invalid value: "": {PATTERN}')]),
    ({"topologyKey": "-zone"}, [("FieldValueInvalid", f"{T}.topologyKey", f'Invalid value: "-zone": {PATTERN}')]),
    ({"topologyKey": "zone", "namespaces": ["ok", "Bad_NS", "also-ok", "-x"]}, [
        ("FieldValueInvalid", f"{T}.namespace", f'Invalid value: "Bad_NS": {LABEL}'),
        ("FieldValueInvalid", f"{T}.namespace", f'Invalid value: "-x": {LABEL}')]),
    ({"topologyKey": "zone", "labelSelector": {"matchLabels": {"a": "!"}},
      "namespaceSelector": {"matchExpressions": [{"key": "t", "operator": "In", "values": ["?"]}]}}, [
        ("FieldValueInvalid", f"{T}.labelSelector.matchLabels", f'Invalid value: "!": {VALUE}'),
        ("FieldValueInvalid", f"{T}.namespaceSelector.matchExpressions[0].values[0]", f'Invalid value: "?": {VALUE}')]),
    ({"namespaces": ["Bad"], "labelSelector": {"matchLabels": {"a!": "b"}}, "topologyKey": "z!"}, [
        ("FieldValueInvalid", f"{T}.labelSelector.matchLabels", f'Invalid value: "a!": {PATTERN}'),
        ("FieldValueInvalid", f"{T}.namespace", f'Invalid value: "Bad": {LABEL}'),
        ("FieldValueInvalid", f"{T}.topologyKey", f'Invalid value: "z!": {PATTERN}')]),
])
def test_pod_affinity_term_errors(term: dict[str, Any], causes: list[tuple[str, str, str]]) -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    if not causes:
        server.create(_affinity_pod(term))
        return
    with pytest.raises(ApiError) as err:
        server.create(_affinity_pod(term))
    assert (err.value.code, err.value.reason) == (422, "Invalid")
    texts = [f"{field}: {message}" for _reason, field, message in causes]
    body = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    assert err.value.message == f'Pod "p" is invalid: {body}'
    assert err.value.details is not None
    assert [(c["reason"], c["field"], c["message"]) for c in err.value.details["causes"]] == causes
    assert (err.value.details["kind"], err.value.details["name"]) == ("Pod", "p")


@pytest.mark.parametrize(("requirement", "errors"), [
    ({"key": "k", "operator": "Gt", "values": ["-5"]}, []),
    ({"key": "k", "operator": "Lt", "values": ["0"]}, []),
    ({"key": "k", "operator": "Gt", "values": ["12"]}, []),
    ({"key": "k", "operator": "Gt", "values": []},
     ["t.matchExpressions[0].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"]),
    ({"key": "k", "operator": "In", "values": ["no way"]}, []),  # node selector values are not label values
    ({"key": "k", "operator": "Exists"}, []),
    ({"key": "", "operator": "Exists"}, ['t.matchExpressions[0].key: Invalid value: "": name part must be non-empty',
                                         f't.matchExpressions[0].key: Invalid value: "": {PATTERN}']),
])
def test_node_selector_requirements(requirement: dict[str, Any], errors: list[str]) -> None:
    assert [str(e) for e in node_selector_term_errors({"matchExpressions": [requirement]}, "t")] == errors


@pytest.mark.parametrize(("operator", "values", "expected"), [
    ("Gt", ["x"], []),
    ("Lt", ["1.5"], []),
    ("Gt", ["-3"], []),
    ("Gt", [], ["p.values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"]),
    ("Lt", ["1", "2"], ["p.values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"]),
])
def test_node_selector_gt_lt_counts_values_only(operator: str, values: list[str], expected: list[str]) -> None:
    """kube-apiserver 1.32's ValidateNodeSelectorRequirement counts a Gt/Lt requirement's values (one) and
    does not parse it as an integer."""
    term = {"matchExpressions": [{"key": "a", "operator": operator, "values": values}]}
    errs = node_selector_term_errors(term, "t")
    assert [str(e).replace("t.matchExpressions[0].", "p.") for e in errs] == expected
