"""Volcano's Pod validating webhook (e2e 60-69) and Kubernetes' Pod defaults."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.admission.pod import validate_pod_create
from volcano.apiserver.validation.defaults import default_pod


def _pod(scheduler: str = "volcano", **annotations: str) -> dict[str, Any]:
    return {"metadata": {"name": "p", "annotations": annotations},
            "spec": {"schedulerName": scheduler, "containers": [{"name": "c", "image": "nginx"}]}}


MIN = "volcano.sh/jdb-min-available"
MAX = "volcano.sh/jdb-max-unavailable"


@pytest.mark.parametrize(("annotations", "expected"), [
    ({MIN: "2"}, ""),                                                                             # 60
    ({MAX: "50%"}, ""),                                                                           # 61
    ({MIN: "-1"}, f'invalid value <"-1"> for {MIN}, it must be a positive integer'),              # 62
    ({MIN: "0"}, f'invalid value <"0"> for {MIN}, it must be a positive integer'),                # 63
    ({MAX: "0%"}, f'invalid value <"0%"> for {MAX}, it must be a valid percentage which between 1% ~ 99%'),  # 64
    ({MAX: "100%"}, f'invalid value <"100%"> for {MAX}, it must be a valid percentage which between 1% ~ 99%'),
    ({MIN: "invalid"}, f'invalid value strconv.Atoi: parsing "invalid": invalid syntax for {MIN}'),  # 66
    ({MIN: "2", MAX: "50%"}, f"not allow configure multiple annotations <[{MIN} {MAX}]> at same time"),  # 67
    ({}, ""),                                                                                     # 68
])
def test_jdb_annotations(annotations: dict[str, str], expected: str) -> None:
    assert validate_pod_create(_pod(**annotations)) == expected


def test_other_schedulers_bypass() -> None:  # 69
    assert validate_pod_create(_pod("default-scheduler", **{MIN: "-1"})) == ""
    assert validate_pod_create(_pod("mine", **{MIN: "-1"}), ("volcano", "mine")) != ""


def test_pod_defaults() -> None:
    pod: dict[str, Any] = {"spec": {"containers": [
        {"name": "a", "image": "nginx", "resources": {"limits": {"cpu": "1"}}},
        {"name": "b", "image": "nginx:1.2", "resources": {"requests": {"cpu": "100m"}, "limits": {"cpu": "1"}}},
        {"name": "c", "image": "nginx:latest"}]}}
    default_pod(pod)
    spec = pod["spec"]
    assert (spec["schedulerName"], spec["restartPolicy"], spec["dnsPolicy"]) == \
        ("default-scheduler", "Always", "ClusterFirst")
    assert spec["terminationGracePeriodSeconds"] == 30
    assert [c["imagePullPolicy"] for c in spec["containers"]] == ["Always", "IfNotPresent", "Always"]
    assert spec["containers"][0]["resources"]["requests"] == {"cpu": "1"}
    assert spec["containers"][1]["resources"]["requests"] == {"cpu": "100m"}


def test_pod_defaults_keep_given_values() -> None:
    pod: dict[str, Any] = {"spec": {"schedulerName": "volcano", "restartPolicy": "Never",
                                    "terminationGracePeriodSeconds": 0, "containers": []}}
    default_pod(pod)
    assert (pod["spec"]["schedulerName"], pod["spec"]["restartPolicy"]) == ("volcano", "Never")
    assert pod["spec"]["terminationGracePeriodSeconds"] == 0
