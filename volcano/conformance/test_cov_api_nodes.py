"""API conformance: a Node's taints and a Namespace's name, as kube-apiserver validates them.

* ``validateNodeTaints``: a taint key is a label name (``IsQualifiedName``: an empty key fails as empty
  and as not matching the pattern), a value a label value (its messages joined by ``;``), the effect
  is required and one of ``NoSchedule``, ``PreferNoSchedule``, ``NoExecute``; a second taint with the
  same key and effect is a Duplicate ("taints must be unique by key and effect pair").
* ``ValidateNamespaceName``: a namespace's name is an RFC 1123 label, not a subdomain (no dots).

Every object here is refused: nothing is stored and nothing needs cleaning up on a real cluster.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial

__all__: list[str] = []

Obj = dict[str, Any]
PATTERN = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
           "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
         "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
         "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
         "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


def _node(name: str, taints: list[Obj]) -> Obj:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "spec": {"taints": taints}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_node_taints_are_validated(cluster: Cluster) -> None:
    """One Node with five broken taints: 422 Invalid listing each error in Go's order; not stored."""
    taints = [{"key": "", "effect": "NoSchedule"},
              {"key": "cov/ok", "value": "-bad", "effect": "NoSchedule"},
              {"key": "cov/no-effect"},
              {"key": "cov/odd", "effect": "Sometimes"},
              {"key": "cov/ok", "value": "again", "effect": "NoSchedule"}]
    d = denial(lambda: cluster.create(_node("cov-bad-taints", taints)))
    assert (d.code, d.reason) == (422, "Invalid"), d
    assert d.message == (
        'Node "cov-bad-taints" is invalid: ['
        f'spec.taints[0].key: Invalid value: "": name part must be non-empty, '
        f'spec.taints[0].key: Invalid value: "": {PATTERN}, '
        f'spec.taints[1].value: Invalid value: "-bad": {VALUE}, '
        "spec.taints[2].effect: Required value, "
        'spec.taints[3].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", '
        '"PreferNoSchedule", "NoExecute", '
        'spec.taints[4]: Duplicate value: core.Taint{Key:"cov/ok", Value:"again", Effect:"NoSchedule", '
        "TimeAdded:<nil>}: taints must be unique by key and effect pair]"), d.message
    assert cluster.try_get("Node", "cov-bad-taints") is None


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_namespace_name_is_a_label(cluster: Cluster) -> None:
    """``cov.dotted`` is a valid subdomain but not a label: 422 naming ``metadata.name``; not stored."""
    d = denial(lambda: cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "cov.dotted"}}))
    assert (d.code, d.reason, d.message) == (
        422, "Invalid", f'Namespace "cov.dotted" is invalid: metadata.name: Invalid value: "cov.dotted": {LABEL}'), d
    assert cluster.try_get("Namespace", "cov.dotted") is None
