"""API conformance: a pod's spec refused field by field, as kube-apiserver's ``ValidatePodSpec`` does.

Each case sends one wrong field (a resource name or quantity, a port, a container's name or pull
policy, a toleration, a node affinity term, the restart or DNS policy, the active deadline) and
checks the answer: 422 Invalid naming the pod, the field path, the value where Kubernetes shows one
and its message; nothing is stored.

Pods use a scheduler that does not exist, so nothing runs. Every case uses only the
backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial

__all__: list[str] = []

Obj = dict[str, Any]
C = "spec.containers[0]"
N = "spec.affinity.nodeAffinity"
T = N + ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]"
LABEL = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
         "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
         "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


def _term(operator: str, values: list[str]) -> Obj:
    return {"matchExpressions": [{"key": "a", "operator": operator, "values": values}]}


def _required_terms(terms: list[Obj]) -> Obj:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}


def _preferred(weight: int, operator: str, values: list[str]) -> Obj:
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": weight, "preference": _term(operator, values)}]}}


_CASES = [
    pytest.param({"resources": {"requests": {"gpu": "1"}}}, {},
                 f"{C}.resources.requests[gpu]: Invalid value: \"gpu\": must be a standard resource for containers",
                 id="res-unknown"),
    pytest.param({"resources": {"requests": {"example.com/dev": "500m"}, "limits": {"example.com/dev": "500m"}}}, {},
                 (f"[{C}.resources.limits[example.com/dev]: Invalid value: \"500m\": must be an integer, "
                  f"{C}.resources.requests[example.com/dev]: Invalid value: \"500m\": must be an integer]"),
                 id="ext-fraction"),
    pytest.param({"resources": {"requests": {"example.com/dev": "1"}}}, {},
                 f"{C}.resources.limits: Required value: Limit must be set for non overcommitable resources",
                 id="ext-no-limit"),
    pytest.param({"resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}}, {},
                 f"{C}.resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1",
                 id="req-above-limit"),
    pytest.param({"resources": {"requests": {"memory": "-1"}}}, {},
                 f"{C}.resources.requests[memory]: Invalid value: \"-1\": must be greater than or equal to 0",
                 id="neg"),
    pytest.param({"ports": [{"name": "a-very-long-port-name", "containerPort": 80}]}, {},
                 f"{C}.ports[0].name: Invalid value: \"a-very-long-port-name\": must be no more than 15 characters",
                 id="port-name-long"),
    pytest.param({"ports": [{"name": "web", "containerPort": 80}, {"name": "web", "containerPort": 81}]}, {},
                 f"{C}.ports[1].name: Duplicate value: \"web\"",
                 id="port-name-dup"),
    pytest.param({"ports": [{"containerPort": 0}]}, {},
                 f"{C}.ports[0].containerPort: Required value",
                 id="port-zero"),
    pytest.param({"ports": [{"containerPort": 65536}]}, {},
                 f"{C}.ports[0].containerPort: Invalid value: 65536: must be between 1 and 65535, inclusive",
                 id="port-big"),
    pytest.param({"ports": [{"containerPort": 80, "hostPort": 70000}]}, {},
                 f"{C}.ports[0].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
                 id="hostport-big"),
    pytest.param({"ports": [{"containerPort": 80, "protocol": "HTTP"}]}, {},
                 f"{C}.ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
                 id="protocol"),
    pytest.param({"name": ""}, {},
                 f"{C}.name: Required value",
                 id="no-name"),
    pytest.param({"imagePullPolicy": "Sometimes"}, {},
                 (f"{C}.imagePullPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", "
                  "\"IfNotPresent\", \"Never\""),
                 id="pull"),
    pytest.param({},
                 {"tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5}]},
                 ("spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when "
                  "`tolerationSeconds` is set"),
                 id="tol-seconds"),
    pytest.param({}, {"tolerations": [{"key": "k", "operator": "Exists", "value": "v"}]},
                 "spec.tolerations[0].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'",
                 id="tol-exists-value"),
    pytest.param({}, {"tolerations": [{"key": "k", "operator": "In"}]},
                 "spec.tolerations[0].operator: Unsupported value: \"In\": supported values: \"Equal\", \"Exists\"",
                 id="tol-op"),
    pytest.param({}, {"tolerations": [{"key": "k", "operator": "Exists", "effect": "Sometimes"}]},
                 ("spec.tolerations[0].effect: Unsupported value: \"Sometimes\": supported values: "
                  "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""),
                 id="tol-effect"),
    pytest.param({}, {"tolerations": [{"key": "k", "operator": "Equal", "value": "bad value"}]},
                 f"spec.tolerations[0].value: Invalid value: \"bad value\": {LABEL}",
                 id="tol-value"),
    pytest.param({}, {"affinity": _required_terms([])},
                 (f"{N}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must "
                  "have at least one node selector term"),
                 id="node-aff-empty"),
    pytest.param({}, {"affinity": _preferred(101, "In", ["x"])},
                 (f"{N}.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in "
                  "the range 1-100"),
                 id="node-pref-weight"),
    pytest.param({}, {"affinity": _required_terms([_term("Exists", ["x"])])},
                 (f"{T}.values: "
                  "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
                 id="node-exists-values"),
    pytest.param({}, {"affinity": _required_terms([_term("Gt", ["1", "2"])])},
                 (f"{T}.values: "
                  "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"),
                 id="node-gt-two"),
    pytest.param({}, {"affinity": _required_terms([_term("Near", ["1"])])},
                 (f"{T}.operator: "
                  "Invalid value: \"Near\": not a valid selector operator"),
                 id="node-bad-op"),
    pytest.param({}, {"activeDeadlineSeconds": 0},
                 "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive",
                 id="deadline-zero"),
    pytest.param({}, {"restartPolicy": "Sometimes"},
                 ("spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", "
                  "\"OnFailure\", \"Never\""),
                 id="restart"),
    pytest.param({}, {"dnsPolicy": "Google"},
                 ("spec.dnsPolicy: Unsupported value: \"Google\": supported values: \"ClusterFirstWithHostNet\", "
                  "\"ClusterFirst\", \"Default\", \"None\""),
                 id="dns"),
]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("container", "spec", "causes"), _CASES)
def test_pod_spec_field_refused(cluster: Cluster, container: Obj, spec: Obj, causes: str) -> None:
    """One wrong field: 422 Invalid with exactly these causes; nothing is stored."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "podspec-refused"},
           "spec": {"schedulerName": "strength-absent-scheduler",
                    "containers": [{"name": "c", "image": "busybox:1.36", **container}], **spec}}
    d = denial(lambda: cluster.create(pod))
    assert (d.code, d.reason, d.message) == (422, "Invalid", f'Pod "podspec-refused" is invalid: {causes}'), d
    assert cluster.try_get("Pod", "podspec-refused") is None


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_node_selector_gt_value_not_checked_as_integer(cluster: Cluster) -> None:
    """A node-selector ``Gt``/``Lt`` requirement needs exactly one value, but kube-apiserver 1.32's
    ``ValidateNodeSelectorRequirement`` does not parse it: a preferred term ``Gt ["x"]`` is stored as
    sent (such a requirement matches no node when scheduling)."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "podspec-gt-word"},
           "spec": {"schedulerName": "strength-absent-scheduler",
                    "containers": [{"name": "c", "image": "busybox:1.36"}],
                    "affinity": _preferred(1, "Gt", ["x"])}}
    cluster.create(pod)
    stored = cluster.get("Pod", "podspec-gt-word")
    prefs = stored["spec"]["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert prefs == [{"weight": 1, "preference": {"matchExpressions": [{"key": "a", "operator": "Gt",
                                                                         "values": ["x"]}]}}]
