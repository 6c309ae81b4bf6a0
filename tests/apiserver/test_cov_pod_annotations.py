"""Unit tests of ``ValidatePodSpecificAnnotations`` as the server applies it to pods: the mirror-pod
annotation needs ``spec.nodeName``; the pod deletion cost is a canonical int32 (``validFirstDigit``
then ``strconv.ParseInt(value, 10, 32)``); both before the spec's own errors."""

from __future__ import annotations

import pytest

from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.validation.pod import pod_annotation_errors
from volcano.sim import RandomStreams, SimClock

COST = "controller.kubernetes.io/pod-deletion-cost"


def _pod(annotations: dict[str, str], **spec: object) -> dict[str, object]:
    return {"metadata": {"name": "p", "annotations": annotations},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}], **spec}}


@pytest.mark.parametrize("value", ["0", "-5", "-08", "7", "2147483647", "-2147483648"])
def test_valid_deletion_costs(value: str) -> None:
    assert pod_annotation_errors(_pod({COST: value})) == []


@pytest.mark.parametrize("value", ["", "+10", "008", "00", "2147483648", "-2147483649", "x", "-", "1.5", "１"])
def test_invalid_deletion_costs(value: str) -> None:
    assert [str(e) for e in pod_annotation_errors(_pod({COST: value}))] == [
        f'metadata.annotations[{COST}]: Invalid value: "{value}": must be a 32bit integer']


def test_mirror_needs_a_node() -> None:
    mirror = {"kubernetes.io/config.mirror": "hash"}
    assert [str(e) for e in pod_annotation_errors(_pod(mirror))] == [
        'metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "hash": must set spec.nodeName if '
        "mirror pod annotation is set"]
    assert pod_annotation_errors(_pod(mirror, nodeName="node-1")) == []
    assert pod_annotation_errors({"metadata": {"name": "p"}}) == []


def test_annotation_errors_come_before_spec_errors_on_create() -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "p", "namespace": "default", "annotations": {COST: "x"}},
           "spec": {"restartPolicy": "Sometimes", "containers": [{"name": "c", "image": "busybox:1.36"}]}}
    with pytest.raises(ApiError) as err:
        server.create(pod)
    assert err.value.message.startswith(
        f'Pod "p" is invalid: [metadata.annotations[{COST}]: Invalid value: "x": must be a 32bit integer, '
        'spec.restartPolicy: Unsupported value: "Sometimes"'), err.value.message
