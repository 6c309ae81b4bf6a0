"""API conformance: Kubernetes' validation of the workload kinds around Volcano's pods.

Deployments, ReplicaSets, StatefulSets, ReplicationControllers and batch Jobs are sent with one
field wrong at a time (a selector the template's labels do not match, an empty selector, an
unknown strategy, a rolling update that can make no progress, a negative counter, a restart
policy the kind does not run, a pod failure policy beside a restart policy other than Never)
and the answer is checked: 422 Invalid naming the kind with its group, the object and the one
field, and nothing stored. Valid boundary values (zero counters, percentages) are stored.

Pods of these workloads use a scheduler that does not exist, so nothing runs. Every case uses
only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial, plain

__all__: list[str] = []

Obj = dict[str, Any]
MISMATCH = "`selector` does not match template `labels`"
NON_NEGATIVE = "must be greater than or equal to 0"


def _template(labels: dict[str, str], **spec: Any) -> Obj:
    return {"metadata": {"labels": labels},
            "spec": {"schedulerName": "strength-absent-scheduler",
                     "containers": [{"name": "c", "image": "busybox:1.36"}], **spec}}


def _workload(kind: str, name: str, spec: Obj) -> Obj:
    api = "v1" if kind == "ReplicationController" else "batch/v1" if kind == "Job.batch" else "apps/v1"
    return {"apiVersion": api, "kind": kind.partition(".")[0], "metadata": {"name": name}, "spec": spec}


def _deployment(name: str, **extra: Any) -> Obj:
    labels = {"app": name}
    return _workload("Deployment", name, {"replicas": 0, "selector": {"matchLabels": labels},
                                          "template": _template(labels), **extra})


def _refused(cluster: Cluster, kind: str, obj: Obj) -> str:
    """The causes of the 422 refusing ``obj`` (nothing stored)."""
    name = obj["metadata"]["name"]
    group = obj["apiVersion"].rpartition("/")[0]
    d = denial(lambda: cluster.create(obj))
    assert (d.code, d.reason) == (422, "Invalid"), d
    prefix = f'{obj["kind"]}.{group} "{name}" is invalid: ' if group else f'{obj["kind"]} "{name}" is invalid: '
    assert d.message.startswith(prefix), d.message
    assert cluster.try_get(kind, name) is None
    return d.message[len(prefix):]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize("kind", ["Deployment", "ReplicaSet", "StatefulSet"])
def test_selector_must_match_template_labels(cluster: Cluster, kind: str) -> None:
    """A label selector the template's labels do not satisfy: 422 on the template's labels,
    printed as a Go map."""
    name = f"mismatch-{kind.lower()}"
    spec: Obj = {"replicas": 0, "selector": {"matchLabels": {"app": name}},
                 "template": _template({"app": "other", "tier": "a"})}
    if kind == "StatefulSet":
        spec["serviceName"] = name
    causes = _refused(cluster, kind, _workload(kind, name, spec))
    assert causes == ('spec.template.metadata.labels: Invalid value: map[string]string{"app":"other", "tier":"a"}: '
                      + MISMATCH)


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_empty_selector_is_invalid(cluster: Cluster) -> None:
    """A Deployment whose selector selects nothing in particular: 422 on spec.selector."""
    causes = _refused(cluster, "Deployment", _deployment("empty-selector", selector={}))
    assert causes.startswith("spec.selector: Invalid value: ") and causes.endswith(
        ": empty selector is invalid for deployment"), causes


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("strategy", "expected"), [
    pytest.param({"type": "BlueGreen"},
                 'spec.strategy.type: Unsupported value: "BlueGreen": supported values: "Recreate", "RollingUpdate"',
                 id="unknown-type"),
    pytest.param({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": -1}},
                 f"spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: {NON_NEGATIVE}", id="negative-surge"),
    pytest.param({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": -2}},
                 f"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: -2: {NON_NEGATIVE}",
                 id="negative-unavailable"),
])
def test_deployment_strategy(cluster: Cluster, strategy: Obj, expected: str) -> None:
    """A Deployment's strategy: a known type, a rolling update that can progress."""
    assert _refused(cluster, "Deployment", _deployment("strategy", strategy=strategy)) == expected


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("unavailable", "surge"), [(0, 0), ("0%", 0), (0, "0%")])
def test_rolling_update_must_progress(cluster: Cluster, unavailable: int | str, surge: int | str) -> None:
    """maxUnavailable and maxSurge both zero (as numbers or percentages): 422 on maxUnavailable
    (the value is printed as Go prints an IntOrString, so only the field and reason are read)."""
    causes = _refused(cluster, "Deployment", _deployment("no-progress", strategy={
        "type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": unavailable, "maxSurge": surge}}))
    assert causes.startswith("spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "), causes
    assert causes.endswith(": may not be 0 when `maxSurge` is 0"), causes


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_deployment_strategy_boundaries_are_stored(cluster: Cluster) -> None:
    """Zero unavailable with one surge, percentages, Recreate: all stored as sent."""
    for name, strategy in (("surge-only", {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0,
                                                                                      "maxSurge": 1}}),
                           ("percent", {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%",
                                                                                   "maxSurge": "0%"}}),
                           ("recreate", {"type": "Recreate"})):
        stored = plain(cluster.create(_deployment(name, strategy=strategy)))
        assert stored["spec"]["strategy"]["type"] == strategy["type"]
        if "rollingUpdate" in strategy:
            assert stored["spec"]["strategy"]["rollingUpdate"] == strategy["rollingUpdate"]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_deployment_non_percent_string_is_invalid(cluster: Cluster) -> None:
    """A rolling-update bound that is a string but not a percentage: 422 on that field."""
    causes = _refused(cluster, "Deployment", _deployment(
        "not-percent", strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "50"}}))
    assert causes.startswith("spec.strategy.rollingUpdate.maxSurge: Invalid value: "), causes
    assert causes.endswith("a valid percent string must be a numeric string followed by an ending '%' "
                           "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"), causes


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("kind", "field"), [
    pytest.param("ReplicaSet", "replicas", id="replicaset-replicas"),
    pytest.param("ReplicaSet", "minReadySeconds", id="replicaset-min-ready"),
    pytest.param("Deployment", "minReadySeconds", id="deployment-min-ready"),
    pytest.param("StatefulSet", "replicas", id="statefulset-replicas"),
    pytest.param("ReplicationController", "replicas", id="rc-replicas"),
])
def test_negative_workload_counters(cluster: Cluster, kind: str, field: str) -> None:
    """A negative replica count or minReadySeconds: 422 naming it."""
    name = f"negative-{kind.lower()}-{field.lower()}"
    labels = {"app": name}
    spec: Obj = {"replicas": 0, "template": _template(labels), field: -1}
    spec["selector"] = labels if kind == "ReplicationController" else {"matchLabels": labels}
    if kind == "StatefulSet":
        spec["serviceName"] = name
    assert _refused(cluster, kind, _workload(kind, name, spec)) == f"spec.{field}: Invalid value: -1: {NON_NEGATIVE}"


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_replication_controller_template(cluster: Cluster) -> None:
    """A ReplicationController: its map selector must match the template's labels; its pods
    restart Always; without a selector it takes the template's labels."""
    mismatch = _workload("ReplicationController", "rc-mismatch",
                         {"replicas": 0, "selector": {"a": "1"}, "template": _template({"a": "2"})})
    assert _refused(cluster, "ReplicationController", mismatch) == (
        'spec.template.metadata.labels: Invalid value: map[string]string{"a":"2"}: ' + MISMATCH)
    never = _workload("ReplicationController", "rc-never",
                      {"replicas": 0, "selector": {"a": "1"}, "template": _template({"a": "1"}, restartPolicy="Never")})
    assert _refused(cluster, "ReplicationController", never) == (
        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"')


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize("field", ["parallelism", "completions", "activeDeadlineSeconds", "backoffLimit"])
def test_batch_job_negative_counters(cluster: Cluster, field: str) -> None:
    """A batch Job's counters may not be negative."""
    name = f"batch-negative-{field.lower()}"
    job = _workload("Job.batch", name, {"suspend": True, field: -1,
                                        "template": _template({"app": name}, restartPolicy="Never")})
    assert _refused(cluster, "Job.batch", job) == f"spec.{field}: Invalid value: -1: {NON_NEGATIVE}"


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_batch_job_pod_failure_policy_needs_never(cluster: Cluster) -> None:
    """A pod failure policy beside restartPolicy OnFailure: 422 on the restart policy."""
    rule = {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}
    job = _workload("Job.batch", "batch-failure-policy",
                    {"suspend": True, "podFailurePolicy": {"rules": [rule]},
                     "template": _template({"app": "batch-failure-policy"}, restartPolicy="OnFailure")})
    assert _refused(cluster, "Job.batch", job) == (
        'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when '
        "podFailurePolicy is specified")
