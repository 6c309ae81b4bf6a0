"""Exact reports of ``validation.problem``: why a component could not use an object it met (the first
decoding error with its field and value, else the first validation cause with its field and message),
or None for an acceptable object."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver.validation import problem

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}


def _pod(spec: Any, **meta: Any) -> dict[str, Any]:
    return {**POD, "metadata": {"name": "p", **meta}, "spec": spec}


@pytest.mark.parametrize(("obj", "report"), [
    (_pod({"containers": [{"name": "c", "image": "i"}]}), None),
    (_pod({"containers": "x"}), "field spec.containers: value 'x': json: cannot unmarshal string into Go struct "
                                "field PodSpec.spec.containers of type []v1.Container"),
    (_pod({"containers": [{"name": "c", "image": "i", "ports": [{"containerPort": "80"}]}]}),
     "field spec.containers[0].ports[0].containerPort: value '80': json: cannot unmarshal string into Go struct "
     "field ContainerPort.spec.containers.ports.containerPort of type int32"),
    (_pod({"containers": [{"name": "c", "image": "i"}]}, labels=5),
     "field metadata.labels: value 5: json: cannot unmarshal number into Go struct field "
     "ObjectMeta.metadata.labels of type map[string]string"),
    (_pod({"containers": []}), "field spec.containers: Required value"),
    (_pod({"containers": [{"name": "c"}]}), "field spec.containers[0].image: Required value"),
    (_pod({"containers": [{"name": "c", "image": "i"}], "restartPolicy": "Sometimes"}),
     'field spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'),
    ({"apiVersion": "v1", "kind": "Nope", "metadata": {"name": "p"}}, "no matches for kind 'Nope' in version 'v1'"),
])
def test_problem(obj: dict[str, Any], report: str | None) -> None:
    assert problem(obj) == report
