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


def test_template_metadata_is_named_under_the_template() -> None:
    """``ValidatePodTemplateSpec``: labels at ``<path>.labels``, annotations at ``<path>.annotations``
    (keys checked lower-cased), then the pod-specific annotations, then the spec."""
    from volcano.apiserver.validation.pod import pod_template_errors

    template = {"metadata": {"labels": {"-bad": "x"}, "annotations": {"Bad Key": "1", COST: "+1"}},
                "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}], "restartPolicy": "Sometimes"}}
    texts = [str(e) for e in pod_template_errors(template, "spec.template")]
    assert [t.split(": ", 1)[0] for t in texts] == [
        "spec.template.labels", "spec.template.annotations", f"spec.template.annotations[{COST}]",
        "spec.template.spec.restartPolicy"]
    assert texts[1].startswith('spec.template.annotations: Invalid value: "Bad Key": name part must consist')
    assert texts[2] == f'spec.template.annotations[{COST}]: Invalid value: "+1": must be a 32bit integer'
