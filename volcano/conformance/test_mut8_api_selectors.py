"""API conformance: label selectors inside objects are validated (apimachinery's ``ValidateLabelSelector``).

* ``matchLabels`` first: every key a qualified name, every value a label value, each error at the
  ``matchLabels`` path itself (``ValidateLabels``), then each of ``matchExpressions`` in order: its
  operator and values, its key, then each value a label value at ``values[i]``.
* A pod (anti-)affinity term (``validatePodAffinityTerm``): its ``labelSelector``, its
  ``namespaceSelector``, each of its ``namespaces`` a DNS-1123 label (errors at ``.namespace``), and
  its ``topologyKey``: an empty key is required *and* not a qualified name (three errors).
* A PersistentVolumeClaim's ``spec.selector`` by the same rules.

Each selector holds one bad label at most, since Go ranges over a map in no fixed order. Every case
uses only the backend-neutral ``cluster`` fixture and creates a handful of objects.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial, plain
from volcano.conformance.test_cov_api_nodes import LABEL, PATTERN, VALUE
from volcano.conformance.test_strength_api_details import _status
from volcano.conformance.test_strength_api_edges import SUBDOMAIN

__all__: list[str] = []

Obj = dict[str, Any]
HARD = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
ANTI = "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
SOFT = "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm"
HOST = "kubernetes.io/hostname"


def _pod(name: str, affinity: Obj) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"schedulerName": "mut8-absent-scheduler", "affinity": affinity,
                     "containers": [{"name": "c", "image": "busybox:1.36"}]}}


def _hard(term: Obj, kind: str = "podAffinity") -> Obj:
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def _invalid(cluster: Cluster, obj: Obj, errors: list[str]) -> None:
    """Creating ``obj`` is 422 Invalid listing exactly ``errors``, and nothing is stored."""
    kind, name = obj["kind"], obj["metadata"]["name"]
    d = denial(lambda: cluster.create(obj))
    body = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
    assert (d.code, d.reason, d.message) == (422, "Invalid", f'{kind} "{name}" is invalid: {body}'), d
    assert cluster.try_get(kind, name) is None


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_affinity_match_labels_keys_and_values(cluster: Cluster) -> None:
    """A bad ``matchLabels`` key, then a bad value, in a required podAffinity term's labelSelector; the
    errors name the ``matchLabels`` path and quote the key or the value."""
    _invalid(cluster, _pod("ml-key", _hard({"labelSelector": {"matchLabels": {"bad key": "x"}}, "topologyKey": HOST})),
             [f'{HARD}.labelSelector.matchLabels: Invalid value: "bad key": {PATTERN}'])
    _invalid(cluster, _pod("ml-value", _hard({"labelSelector": {"matchLabels": {"app": "-x"}}, "topologyKey": HOST})),
             [f'{HARD}.labelSelector.matchLabels: Invalid value: "-x": {VALUE}'])
    _invalid(cluster, _pod("ml-prefix", _hard({"labelSelector": {"matchLabels": {"Example.com/app": "x"}},
                                                "topologyKey": HOST})),
             [f'{HARD}.labelSelector.matchLabels: Invalid value: "Example.com/app": prefix part {SUBDOMAIN}'])
    good = _hard({"labelSelector": {"matchLabels": {"example.com/app": "x_1.y"}}, "topologyKey": HOST})
    made = plain(cluster.create(_pod("ml-good", good)))
    assert made["spec"]["affinity"] == good


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_selector_errors_come_in_upstream_order(cluster: Cluster) -> None:
    """One term with a bad ``matchLabels`` value and two bad expressions (a value that is not a label value;
    an ``Exists`` with values and a bad key), a bad ``namespaceSelector`` label and a bad namespace:
    matchLabels, then the expressions in order (operator/values, key, values), then the namespace
    selector, then ``namespaces``."""
    term = {"labelSelector": {"matchLabels": {"app": "a b"},
                              "matchExpressions": [{"key": "tier", "operator": "In", "values": ["ok", "no way"]},
                                                   {"key": "-k", "operator": "Exists", "values": ["v"]}]},
            "namespaceSelector": {"matchLabels": {"team": "x!"}},
            "namespaces": ["Bad_NS"], "topologyKey": HOST}
    sel = f"{ANTI}.labelSelector"
    _invalid(cluster, _pod("order", _hard(term, "podAntiAffinity")), [
        f'{sel}.matchLabels: Invalid value: "a b": {VALUE}',
        f'{sel}.matchExpressions[0].values[1]: Invalid value: "no way": {VALUE}',
        f"{sel}.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or "
        "'DoesNotExist'",
        f'{sel}.matchExpressions[1].key: Invalid value: "-k": {PATTERN}',
        f'{ANTI}.namespaceSelector.matchLabels: Invalid value: "x!": {VALUE}',
        f'{ANTI}.namespace: Invalid value: "Bad_NS": {LABEL}',
    ])


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_empty_topology_key_is_three_errors(cluster: Cluster) -> None:
    """An empty ``topologyKey`` (a preferred term's too) is required, and as a label name its name part is
    empty and does not match the pattern; a term that only lacks the key gets those three."""
    errors = [f"{SOFT}.topologyKey: Required value: can not be empty",
              f'{SOFT}.topologyKey: Invalid value: "": name part must be non-empty',
              f'{SOFT}.topologyKey: Invalid value: "": {PATTERN}']
    soft = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 5, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": ""}}]}}
    _invalid(cluster, _pod("topo-empty", soft), errors)
    assert _status(lambda: cluster.create(_pod("topo-empty", soft))) == (422, "Invalid", {
        "name": "topo-empty", "kind": "Pod", "causes": [
            {"reason": "FieldValueRequired", "field": f"{SOFT}.topologyKey",
             "message": "Required value: can not be empty"},
            {"reason": "FieldValueInvalid", "field": f"{SOFT}.topologyKey",
             "message": 'Invalid value: "": name part must be non-empty'},
            {"reason": "FieldValueInvalid", "field": f"{SOFT}.topologyKey",
             "message": f'Invalid value: "": {PATTERN}'}]})
    term = soft["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0]["podAffinityTerm"]
    term["topologyKey"] = "a/b/c"
    _invalid(cluster, _pod("topo-slashes", soft), [
        f'{SOFT}.topologyKey: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '
        "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
        "or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional "
        "DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"])


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_claim_selector_match_labels(cluster: Cluster) -> None:
    """A PersistentVolumeClaim whose ``spec.selector`` has a bad ``matchLabels`` key, then a bad
    expression value: 422 at ``spec.selector...``; a good selector is stored as sent."""
    def claim(name: str, selector: Obj) -> Obj:
        return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                         "storageClassName": "", "selector": selector}}

    _invalid(cluster, claim("sel-key", {"matchLabels": {"tier/": "gold"}}),
             ['spec.selector.matchLabels: Invalid value: "tier/": name part must be non-empty',
              f'spec.selector.matchLabels: Invalid value: "tier/": {PATTERN}'])
    _invalid(cluster, claim("sel-value", {"matchExpressions": [{"key": "tier", "operator": "NotIn",
                                                                "values": ["x" * 64]}]}),
             [f'spec.selector.matchExpressions[0].values[0]: Invalid value: "{"x" * 64}": must be no more than 63 '
              "characters"])
    good = {"matchLabels": {"tier": "gold"}, "matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
    made = plain(cluster.create(claim("sel-good", good)))
    assert made["spec"]["selector"] == good


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_node_affinity_takes_negative_numbers(cluster: Cluster) -> None:
    """``Gt``/``Lt`` node selector requirements of one negative or zero integer are accepted and stored as
    sent (the value is parsed as an integer, a leading ``-`` included)."""
    term = {"matchExpressions": [{"key": "example.com/rank", "operator": "Gt", "values": ["-5"]},
                                 {"key": "example.com/rank", "operator": "Lt", "values": ["0"]}]}
    affinity = {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]},
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {"matchExpressions": [
            {"key": "example.com/rank", "operator": "Lt", "values": ["-10"]}]}}]}}
    made = plain(cluster.create(_pod("node-negative", affinity)))
    assert made["spec"]["affinity"] == affinity
