"""API conformance: node selector requirements in a pod's required node affinity, and other pod spec rules.

``ValidateNodeSelectorRequirement`` (``matchExpressions``), one cause per rule at the requirement's path:
``In``/``NotIn`` without values (``values: Required value: must be specified when `operator` is 'In' or
'NotIn'``), ``Exists``/``DoesNotExist`` with values (``values: Forbidden``), ``Gt``/``Lt`` without a single
value, an unknown operator (``operator: Invalid value``).

``ValidateNodeFieldSelectorRequirement`` (``matchFields``): only ``In``/``NotIn`` (another operator is
``not a valid selector operator``) with exactly one value (``must be only one value when `operator` is 'In'
or 'NotIn' for node field selector``), only the key ``metadata.name`` (``not a valid field selector key``),
whose values must be node names (DNS subdomains, at ``values[<i>]``).

Also: a pod without containers (``spec.containers: Required value``), a negative
``terminationGracePeriodSeconds`` (0 is accepted), and an extended resource whose request differs from its
limit (``must be equal to <resource> limit of <limit>``). Every check is a dry-run create.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import plain
from volcano.conformance.test_admission import denial

__all__: list[str] = []

Obj = dict[str, Any]
NAME = "kinds-podspec"
TERM = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"


def _pod(container: Obj | None = None, **spec: Any) -> Obj:
    base: Obj = {"schedulerName": "kinds-absent-scheduler",
                 "containers": [{"name": "c", "image": "busybox:1.36", **(container or {})}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": NAME}, "spec": {**base, **spec}}


def _affinity(**term: Any) -> Obj:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}


def _invalid(cluster: Cluster, pod: Obj) -> str:
    d = denial(lambda: cluster.create(pod, dry_run=True))
    assert (d.code, d.reason) == (422, "Invalid"), d
    prefix = f'Pod "{NAME}" is invalid: '
    assert d.message.startswith(prefix), d.message
    return d.message[len(prefix):]


def _accepted(cluster: Cluster, pod: Obj) -> Obj:
    return plain(cluster.create(pod, dry_run=True))


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_match_expression_rules(cluster: Cluster) -> None:
    """Each operator's rule on ``values``, and an unknown operator."""
    expr = f"{TERM}.matchExpressions[0]"

    def refused(**req: Any) -> str:
        return _invalid(cluster, _pod(affinity=_affinity(matchExpressions=[{"key": "kinds/zone", **req}])))

    assert refused(operator="In") == (
        f"{expr}.values: Required value: must be specified when `operator` is 'In' or 'NotIn'")
    assert refused(operator="Exists", values=["a"]) == (
        f"{expr}.values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
    assert refused(operator="Gt", values=["1", "2"]) == (
        f"{expr}.values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'")
    assert refused(operator="Near", values=["a"]) == (
        f'{expr}.operator: Invalid value: "Near": not a valid selector operator')
    gt = [{"key": "kinds/zone", "operator": "Gt", "values": ["1"]}]
    assert _accepted(cluster, _pod(affinity=_affinity(matchExpressions=gt)))["spec"]["affinity"] == (
        _affinity(matchExpressions=gt))


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_match_field_rules(cluster: Cluster) -> None:
    """Operator, value count, key, and node-name values of a ``matchFields`` requirement."""
    field = f"{TERM}.matchFields[0]"

    def refused(**req: Any) -> str:
        return _invalid(cluster, _pod(affinity=_affinity(matchFields=[req])))

    one = (f"{field}.values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node "
           "field selector")
    assert refused(key="metadata.name", operator="In", values=["a", "b"]) == one
    assert refused(key="metadata.name", operator="NotIn") == one
    assert refused(key="metadata.name", operator="Exists") == (
        f'{field}.operator: Invalid value: "Exists": not a valid selector operator')
    assert refused(key="metadata.uid", operator="In", values=["a"]) == (
        f'{field}.key: Invalid value: "metadata.uid": not a valid field selector key')
    text = refused(key="metadata.name", operator="NotIn", values=["Bad_Node"])
    assert text.startswith(f'{field}.values[0]: Invalid value: "Bad_Node": a lowercase RFC 1123 subdomain must '), text
    ok = _accepted(cluster, _pod(affinity=_affinity(matchFields=[{"key": "metadata.name", "operator": "In",
                                                                  "values": ["worker-0"]}])))
    assert ok["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["worker-0"]}]}]}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_containers_grace_and_extended_resources(cluster: Cluster) -> None:
    """No containers; grace -1 refused and 0 kept; an extended resource's request must equal its limit."""
    assert _invalid(cluster, _pod(containers=[])) == "spec.containers: Required value"
    assert _invalid(cluster, _pod(terminationGracePeriodSeconds=-1)) == (
        "spec.terminationGracePeriodSeconds: Invalid value: -1: must be greater than or equal to 0")
    assert _accepted(cluster, _pod(terminationGracePeriodSeconds=0))["spec"]["terminationGracePeriodSeconds"] == 0
    gpu = "example.com/gpu"
    assert _invalid(cluster, _pod({"resources": {"requests": {gpu: "1"}, "limits": {gpu: "2"}}})) == (
        f'spec.containers[0].resources.requests[{gpu}]: Invalid value: "1": must be equal to {gpu} limit of 2')
    made = _accepted(cluster, _pod({"resources": {"requests": {gpu: "2"}, "limits": {gpu: "2"}}}))
    assert made["spec"]["containers"][0]["resources"] == {"requests": {gpu: "2"}, "limits": {gpu: "2"}}
    assert cluster.try_get("Pod", NAME) is None
