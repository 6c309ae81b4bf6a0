"""Pod spec validation, whole: each container rule (ports: number, host port, name length and
uniqueness, protocol; resources: names, negatives, requests against limits, extended resources;
names, images, pull policy) and each toleration rule at its limit and one side of it, answered with
the COMPLETE 422 ``Status`` (every cause's reason, message and field, in order)."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver import ApiError, ApiServer

REASONS = {"Invalid value": "FieldValueInvalid", "Required value": "FieldValueRequired",
           "Duplicate value": "FieldValueDuplicate", "Unsupported value": "FieldValueNotSupported"}


def c(**extra: Any) -> dict[str, Any]:
    """A valid container with ``extra`` fields."""
    return {"name": "c", "image": "b", **extra}


CONTAINERS: dict[str, list[dict[str, Any]]] = {
    "port 65535": [c(ports=[{"containerPort":65535}])],
    "port 65536": [c(ports=[{"containerPort":65536}])],
    "port 0": [c(ports=[{"containerPort":0}])],
    "hostPort 65536": [c(ports=[{"containerPort":1,"hostPort":65536}])],
    "port name 15": [c(ports=[{"containerPort":1,"name":"a"*15}])],
    "port name 16": [c(ports=[{"containerPort":1,"name":"a"*16}])],
    "port name dup": [c(ports=[{"containerPort":1,"name":"x"},{"containerPort":2,"name":"x"}])],
    "protocol bad": [c(ports=[{"containerPort":1,"protocol":"ICMP"}])],
    "req=limit": [c(resources={"requests":{"cpu":"1"},"limits":{"cpu":"1"}})],
    "req>limit": [c(resources={"requests":{"cpu":"1001m"},"limits":{"cpu":"1"}})],
    "neg": [c(resources={"requests":{"cpu":"-1"}})],
    "bad name": [c(resources={"requests":{"foo":"1"}})],
    "ext no limit": [c(resources={"requests":{"example.com/gpu":"1"}})],
    "ext ne": [c(resources={"requests":{"example.com/gpu":"1"},"limits":{"example.com/gpu":"2"}})],
    "ext frac": [c(resources={"requests":{"example.com/gpu":"500m"},"limits":{"example.com/gpu":"500m"}})],
    "dup container": [c(), c()],
    "container name bad": [{"name":"C","image":"b"}],
    "no image": [{"name":"c"}],
    "pull bad": [c(imagePullPolicy="Sometimes")],
}
TOLERATIONS: dict[str, list[dict[str, Any]]] = {
    "tol empty key Equal": [{"operator":"Equal","value":"x"}],
    "tol exists value": [{"key":"k","operator":"Exists","value":"v"}],
    "tol seconds no NoExecute": [{"key":"k","operator":"Exists","effect":"NoSchedule","tolerationSeconds":5}],
    "tol bad op": [{"key":"k","operator":"Gt"}],
    "tol bad effect": [{"key":"k","operator":"Exists","effect":"Sometimes"}],
    "tol bad key": [{"key":"-k","operator":"Exists"}],
}
EXPECTED: dict[str, list[str]] = {
    'port 65535': [],
    'port 65536': [
        'spec.containers[0].ports[0].containerPort: Invalid value: 65536: must be between 1 and 65535, inclusive',
    ],
    'port 0': [
        'spec.containers[0].ports[0].containerPort: Required value',
    ],
    'hostPort 65536': [
        'spec.containers[0].ports[0].hostPort: Invalid value: 65536: must be between 1 and 65535, inclusive',
    ],
    'port name 15': [],
    'port name 16': [
        'spec.containers[0].ports[0].name: Invalid value: "aaaaaaaaaaaaaaaa": must be no more than 15 characters',
    ],
    'port name dup': [
        'spec.containers[0].ports[1].name: Duplicate value: "x"',
    ],
    'protocol bad': [
        'spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
    ],
    'req=limit': [],
    'req>limit': [
        'spec.containers[0].resources.requests: Invalid value: "1001m": must be less than or equal to cpu limit of 1',
    ],
    'neg': [
        'spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0',
    ],
    'bad name': [
        'spec.containers[0].resources.requests[foo]: Invalid value: "foo": must be a standard resource for containers',
    ],
    'ext no limit': [
        'spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources',
    ],
    'ext ne': [
        'spec.containers[0].resources.requests[example.com/gpu]: Invalid value: "1": must be equal '
        'to example.com/gpu limit of 2',
    ],
    'ext frac': [
        'spec.containers[0].resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer',
        'spec.containers[0].resources.requests[example.com/gpu]: Invalid value: "500m": must be an integer',
    ],
    'dup container': [
        'spec.containers[1].name: Duplicate value: "c"',
    ],
    'container name bad': [
        'spec.containers[0].name: Invalid value: "C": a lowercase RFC 1123 label must consist of lo'
        "wer case alphanumeric characters or '-', and must start and end with an alphanumeric chara"
        "cter (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z"
        "0-9])?')",
    ],
    'no image': [
        'spec.containers[0].image: Required value',
    ],
    'pull bad': [
        'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Alw'
        'ays", "IfNotPresent", "Never"',
    ],
    'tol empty key Equal': [
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` i'
        's empty, which means "match all values and all keys"',
    ],
    'tol exists value': [
        'spec.tolerations[0].operator: Invalid value: "v": value must be empty when `operator` is \'Exists\'',
    ],
    'tol seconds no NoExecute': [
        'spec.tolerations[0].effect: Invalid value: "NoSchedule": effect must be \'NoExecute\' when `'
        'tolerationSeconds` is set',
    ],
    'tol bad op': [
        'spec.tolerations[0].operator: Unsupported value: "Gt": supported values: "Equal", "Exists"',
    ],
    'tol bad effect': [
        'spec.tolerations[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule"'
        ', "PreferNoSchedule", "NoExecute"',
    ],
    'tol bad key': [
        'spec.tolerations[0].key: Invalid value: "-k": name part must consist of alphanumeric chara'
        "cters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyNam"
        "e',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]"
        "*)?[A-Za-z0-9]')",
    ],
}


def _status(name: str, causes: list[str]) -> dict[str, Any]:
    split = [cause.split(": ", 1) for cause in causes]
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": f'Pod "{name}" is invalid: '
                       + (causes[0] if len(causes) == 1 else "[" + ", ".join(causes) + "]"),
            "reason": "Invalid",
            "details": {"name": name, "kind": "Pod", "causes": [
                {"reason": REASONS[body.split(":")[0]], "message": body, "field": field} for field, body in split]},
            "code": 422}


@pytest.mark.parametrize("case", list(EXPECTED))
def test_pod_spec_rule(server: ApiServer, case: str) -> None:
    spec: dict[str, Any] = {"containers": CONTAINERS[case]} if case in CONTAINERS else {
        "containers": [c()], "tolerations": TOLERATIONS[case]}
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}
    if not EXPECTED[case]:
        assert server.create(obj)["metadata"]["name"] == "p"
        return
    with pytest.raises(ApiError) as err:
        server.create(obj)
    assert err.value.status() == _status("p", EXPECTED[case])
    assert server.list("Pod")["items"] == []
