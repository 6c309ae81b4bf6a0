"""API conformance: Kubernetes' own validation of the built-in kinds a Volcano user submits, at
the limits, the CRD schemas' string rules for Volcano's kinds, the Priority admission plugin and the
ranges of Volcano's pod webhook.

Volcano jobs become pods, so a malformed pod template reaches a user either as the Job webhook's
denial or as the API server's answer to the pod itself. These cases send pods (and the
workload kinds around them) with each value at a limit and one step past it, and check the
answer a real API server gives: 201 with the value stored, 422 Invalid naming the field, or
400 BadRequest when the body cannot even be decoded into the Go type. Pods use a scheduler
that does not exist, so nothing binds or runs them. Every case uses only the backend-neutral
``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import (
    POD_WEBHOOK,
    Denial,
    base_job,
    denial,
    own_queue,
    plain,
    queue_manifest,
    schema_causes,
    webhook_message,
)

__all__: list[str] = []

Obj = dict[str, Any]


def _pod(name: str, container: Obj | None = None, **spec: Any) -> Obj:
    """A pod no scheduler binds; ``container`` fields are laid over one busybox container."""
    c: Obj = {"name": "c", "image": "busybox:1.24", **(container or {})}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"schedulerName": "strength-absent-scheduler", "containers": [c], **spec}}


def _causes(d: Denial, kind: str, name: str) -> str:
    assert (d.code, d.reason) == (422, "Invalid"), d
    prefix = f'{kind} "{name}" is invalid: '
    assert d.message.startswith(prefix), d.message
    return d.message[len(prefix):]


def _check(cluster: Cluster, obj: Obj, expected: str | None) -> Obj | None:
    """Create ``obj``: stored when ``expected`` is None, else 422 with exactly these causes and
    nothing stored."""
    kind, name = obj["kind"], obj["metadata"]["name"]
    group = obj["apiVersion"].rpartition("/")[0]
    if expected is None:
        stored: Obj = plain(cluster.apply(obj)[0])
        return stored
    d = denial(lambda: cluster.apply(obj))
    assert _causes(d, f"{kind}.{group}" if group else kind, name) == expected
    assert cluster.try_get(kind, name) is None
    return None


_PORT = "spec.containers[0].ports[0]"
_POD_LIMITS = [
    pytest.param({"ports": [{"containerPort": 1}]}, {}, None, id="container-port-1"),
    pytest.param({"ports": [{"containerPort": 65535}]}, {}, None, id="container-port-65535"),
    pytest.param({"ports": [{"containerPort": 65536}]}, {},
                 f"{_PORT}.containerPort: Invalid value: 65536: must be between 1 and 65535, inclusive",
                 id="container-port-65536"),
    pytest.param({"ports": [{"containerPort": 80, "hostPort": 65535}]}, {}, None, id="host-port-65535"),
    pytest.param({"ports": [{"containerPort": 80, "hostPort": 65536}]}, {},
                 f"{_PORT}.hostPort: Invalid value: 65536: must be between 1 and 65535, inclusive",
                 id="host-port-65536"),
    pytest.param({"ports": [{"containerPort": 80, "name": "p" * 15}]}, {}, None, id="port-name-15"),
    pytest.param({"ports": [{"containerPort": 80, "name": "p" * 16}]}, {},
                 f'{_PORT}.name: Invalid value: "{"p" * 16}": must be no more than 15 characters',
                 id="port-name-16"),
    pytest.param({"resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}}}, {}, None,
                 id="request-at-limit"),
    pytest.param({"resources": {"requests": {"cpu": "1001m"}, "limits": {"cpu": "1"}}}, {},
                 'spec.containers[0].resources.requests: Invalid value: "1001m": must be less than or equal to '
                 "cpu limit of 1", id="request-over-limit"),
    pytest.param({"resources": {"requests": {"memory": "0"}}}, {}, None, id="request-zero"),
    pytest.param({}, {"activeDeadlineSeconds": 1}, None, id="deadline-1"),
    pytest.param({}, {"activeDeadlineSeconds": 0},
                 "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive",
                 id="deadline-0"),
    pytest.param({}, {"terminationGracePeriodSeconds": 0}, None, id="grace-0"),
    pytest.param({"name": "c" * 63}, {}, None, id="container-name-63"),
    pytest.param({"name": "c" * 64}, {},
                 f'spec.containers[0].name: Invalid value: "{"c" * 64}": must be no more than 63 characters',
                 id="container-name-64"),
    pytest.param({}, {"restartPolicy": "Sometimes"},
                 'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", '
                 '"Never"', id="restart-policy"),
]


@pytest.mark.admission
@pytest.mark.parametrize(("container", "spec", "expected"), _POD_LIMITS)
def test_pod_field_limits(cluster: Cluster, request: pytest.FixtureRequest, container: Obj, spec: Obj,
                          expected: str | None) -> None:
    name = f"pod-{request.node.callspec.id}"
    stored = _check(cluster, _pod(name, container, **spec), expected)
    if stored is not None:
        for key, value in spec.items():
            assert stored["spec"][key] == value


@pytest.mark.admission
def test_duplicate_container_names(cluster: Cluster) -> None:
    pod = _pod("dup-containers")
    pod["spec"]["containers"].append({"name": "c", "image": "busybox:1.24"})
    assert _check(cluster, pod, 'spec.containers[1].name: Duplicate value: "c"') is None


_UNDECODABLE = [
    pytest.param({"ports": [{"containerPort": "80"}]},
                 "json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort "
                 "of type int32", id="port-as-string"),
    pytest.param({"ports": [{"containerPort": 2**31}]},
                 f"json: cannot unmarshal number {2**31} into Go struct field ContainerPort.spec.containers.ports."
                 "containerPort of type int32", id="port-past-int32"),
    pytest.param({"env": {"A": "1"}},
                 "json: cannot unmarshal object into Go struct field Container.spec.containers.env of type "
                 "[]v1.EnvVar", id="env-as-map"),
    pytest.param({"livenessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 1.5}},
                 "json: cannot unmarshal number 1.5 into Go struct field Probe.spec.containers.livenessProbe."
                 "periodSeconds of type int32", id="fraction-in-int32"),
]


@pytest.mark.admission
@pytest.mark.parametrize(("container", "detail"), _UNDECODABLE)
def test_undecodable_pod_is_bad_request(cluster: Cluster, request: pytest.FixtureRequest, container: Obj,
                                        detail: str) -> None:
    """A body that does not decode into the Go type is 400 BadRequest, before any validation."""
    name = f"undecodable-{request.node.callspec.id}"
    d = denial(lambda: cluster.apply(_pod(name, container)))
    assert (d.code, d.reason) == (400, "BadRequest"), d
    assert d.message == f'Pod in version "v1" cannot be handled as a Pod: {detail}'
    assert cluster.try_get("Pod", name) is None


@pytest.mark.admission
def test_undecodable_timestamp_is_bad_request(cluster: Cluster) -> None:
    """Times decode as RFC 3339; anything else fails the request before validation."""
    pod = _pod("bad-time")
    pod["metadata"]["creationTimestamp"] = "yesterday"
    d = denial(lambda: cluster.apply(pod))
    assert (d.code, d.reason) == (400, "BadRequest"), d
    assert d.message == ('Pod in version "v1" cannot be handled as a Pod: parsing time "yesterday" as '
                         '"2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"')


@pytest.mark.admission
@pytest.mark.parametrize(("replicas", "expected"), [
    (0, None), (-1, "spec.replicas: Invalid value: -1: must be greater than or equal to 0")])
def test_deployment_replicas_lower_bound(cluster: Cluster, replicas: int, expected: str | None) -> None:
    name = f"replicas-{abs(replicas)}{'-below' if replicas < 0 else ''}"
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
                  "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                           "template": {"metadata": {"labels": {"app": name}},
                                        "spec": {"containers": [{"name": "c", "image": "busybox:1.24"}]}}}}
    stored = _check(cluster, deployment, expected)
    assert stored is None or stored["spec"]["replicas"] == 0


@pytest.mark.admission
def test_node_field_selector_takes_one_name(cluster: Cluster) -> None:
    """A required node affinity on ``metadata.name`` (matchFields) with In: exactly one value."""
    def pod(name: str, values: list[str]) -> Obj:
        term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": values}]}
        return _pod(name, affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [term]}}})

    assert cluster.apply(pod("field-one", ["node-a"]))[0]["metadata"]["name"] == "field-one"
    d = denial(lambda: cluster.apply(pod("field-two", ["node-a", "node-b"])))
    assert _causes(d, "Pod", "field-two").startswith(
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
        "matchFields[0].values: ")
    assert cluster.try_get("Pod", "field-two") is None


_JOB_RESTART = 'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: '


@pytest.mark.admission
@pytest.mark.parametrize(("policy", "expected"), [
    ("Never", []), ("OnFailure", []),
    ("Always", ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']),
    ("Sometimes", [_JOB_RESTART + '"Always", "OnFailure", "Never"', _JOB_RESTART + '"OnFailure", "Never"'])])
def test_batch_job_restart_policy(cluster: Cluster, policy: str, expected: list[str]) -> None:
    """A Kubernetes batch Job's pods may not restart Always; an unknown policy fails both the pod
    template's check and the Job's."""
    name = f"batch-{policy.lower()}"
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
           "spec": {"template": {"spec": {"restartPolicy": policy, "schedulerName": "strength-absent-scheduler",
                                          "containers": [{"name": "c", "image": "busybox:1.24"}]}}}}
    if not expected:
        cluster.apply(job)
        assert cluster.get("Job.batch", name)["spec"]["template"]["spec"]["restartPolicy"] == policy
        return
    d = denial(lambda: cluster.apply(job))
    causes = _causes(d, "Job.batch", name)
    for cause in expected:
        assert cause in causes
    assert len(causes) == sum(map(len, expected)) + (2 + 2 * (len(expected) - 1) if len(expected) > 1 else 0)
    assert cluster.try_get("Job.batch", name) is None


_SCHEMA_STRINGS = [
    pytest.param("Job", ("queue",), "Bad_Queue",
                 'spec.queue: Invalid value: "Bad_Queue": spec.queue in body should match ', id="job-queue-pattern"),
    pytest.param("Job", ("tasks", 0, "topologyPolicy"), "fastest",
                 'spec.tasks[0].topologyPolicy: Unsupported value: "fastest": supported values: ',
                 id="job-topology-enum"),
]


@pytest.mark.admission
@pytest.mark.parametrize(("kind", "path", "value", "causes"), _SCHEMA_STRINGS)
def test_custom_resource_schema_violations(cluster: Cluster, request: pytest.FixtureRequest, kind: str,
                                           path: tuple[str | int, ...], value: Any, causes: str) -> None:
    """A string off the CRD schema's pattern or enum in a Volcano object: 422 naming the field and
    the value (Volcano's webhooks decode such a string fine; a value of the wrong JSON type is
    another matter: the mutating webhook's Go decoding refuses it first)."""
    name = f"schema-{request.node.callspec.id}"
    if kind == "Queue":
        own_queue(request, cluster, name)
        obj = queue_manifest(name, {"weight": 1})
    else:
        obj = base_job(name)
    node: Any = obj["spec"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    d = denial(lambda: cluster.apply(obj))
    got = schema_causes(d, f"{kind}.{obj['apiVersion'].split('/')[0]}", name)
    assert got.startswith(causes) if causes.endswith(" ") else got == causes
    assert cluster.try_get(kind, name) is None


@pytest.mark.admission
def test_gated_pod_node_selector_only_grows(cluster: Cluster) -> None:
    """While a pod has scheduling gates its nodeSelector takes additions, not changes."""
    cluster.apply(_pod("gated", schedulingGates=[{"name": "example.com/gate"}], nodeSelector={"a": "1"}))
    grown = cluster.patch("Pod", "gated", {"spec": {"nodeSelector": {"b": "2"}}})
    assert grown["spec"]["nodeSelector"] == {"a": "1", "b": "2"}
    d = denial(lambda: cluster.patch("Pod", "gated", {"spec": {"nodeSelector": {"a": "3"}}}))
    assert _causes(d, "Pod", "gated") == (
        'spec.nodeSelector: Invalid value: map[string]string{"a":"3", "b":"2"}: only additions to '
        "spec.nodeSelector are allowed (no mutations or deletions)")
    assert cluster.get("Pod", "gated")["spec"]["nodeSelector"] == {"a": "1", "b": "2"}


# ------------------------------------------------------------------------------- PriorityClass


def _priority_class(name: str, value: int) -> Obj:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value}


def _own_priority_class(request: pytest.FixtureRequest, cluster: Cluster, name: str) -> None:
    def remove() -> None:
        if cluster.try_get("PriorityClass", name) is not None:
            cluster.delete("PriorityClass", name)
    request.addfinalizer(remove)


@pytest.mark.admission
@pytest.mark.parametrize(("value", "expected"), [
    (1_000_000_000, None),
    (1_000_000_001, "value: Forbidden: maximum allowed value of a user defined priority is 1000000000"),
])
def test_priority_class_value_limit(cluster: Cluster, request: pytest.FixtureRequest, value: int,
                                    expected: str | None) -> None:
    name = f"strength-priority-{value}"
    _own_priority_class(request, cluster, name)
    stored = _check(cluster, _priority_class(name, value), expected)
    assert stored is None or (stored["value"], stored["preemptionPolicy"]) == (value, "PreemptLowerPriority")
    if stored is not None:  # the value is fixed once created
        d = denial(lambda: cluster.patch("PriorityClass", name, {"value": value - 1}))
        assert _causes(d, "PriorityClass.scheduling.k8s.io", name) == (
            "value: Forbidden: may not be changed in an update.")


@pytest.mark.admission
def test_pod_priority_from_its_class(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """The Priority plugin resolves a pod's class to its value; a pod may repeat the value, not
    contradict it; an unknown class is refused."""
    _own_priority_class(request, cluster, "strength-priority-class")
    cluster.apply(_priority_class("strength-priority-class", 1000))
    pod = plain(cluster.apply(_pod("prio-resolved", priorityClassName="strength-priority-class"))[0])
    assert (pod["spec"]["priority"], pod["spec"]["preemptionPolicy"]) == (1000, "PreemptLowerPriority")
    same = plain(cluster.apply(_pod("prio-same", priorityClassName="strength-priority-class", priority=1000))[0])
    assert same["spec"]["priority"] == 1000
    d = denial(lambda: cluster.apply(_pod("prio-other", priorityClassName="strength-priority-class",
                                          priority=1001)))
    assert (d.code, d.reason) == (403, "Forbidden"), d
    assert d.message == ('pods "prio-other" is forbidden: the integer value of priority (1001) must not be provided '
                         "in pod spec; priority admission controller computed 1000 from the given PriorityClass name")
    d = denial(lambda: cluster.apply(_pod("prio-unknown", priorityClassName="strength-no-such-class")))
    assert (d.code, d.reason) == (403, "Forbidden"), d
    assert d.message == 'pods "prio-unknown" is forbidden: no PriorityClass with name strength-no-such-class was found'
    assert cluster.try_get("Pod", "prio-other") is None and cluster.try_get("Pod", "prio-unknown") is None


@pytest.mark.admission
def test_global_default_priority_class(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """A pod without a class gets the global default's value and name; a second global default
    is refused."""
    for name in ("strength-default-class", "strength-second-default"):
        _own_priority_class(request, cluster, name)
    cluster.apply({**_priority_class("strength-default-class", 7), "globalDefault": True})
    pod = plain(cluster.apply(_pod("prio-defaulted"))[0])
    assert (pod["spec"]["priorityClassName"], pod["spec"]["priority"]) == ("strength-default-class", 7)
    d = denial(lambda: cluster.apply({**_priority_class("strength-second-default", 8), "globalDefault": True}))
    assert (d.code, d.reason) == (403, "Forbidden"), d
    assert d.message.endswith("PriorityClass strength-default-class is already marked as default. "
                              "Only one default can exist")
    assert cluster.try_get("PriorityClass", "strength-second-default") is None


# ------------------------------------------------------------------------------ Volcano pod webhook


@pytest.mark.admission
@pytest.mark.parametrize(("key", "value", "expected"), [
    pytest.param("volcano.sh/jdb-max-unavailable", "1%", "", id="one-percent"),
    pytest.param("volcano.sh/jdb-max-unavailable", "99%", "", id="ninety-nine-percent"),
    pytest.param("volcano.sh/jdb-min-available", "1", "", id="one"),
    pytest.param("volcano.sh/jdb-min-available", "100%",
                 'invalid value <"100%"> for volcano.sh/jdb-min-available, it must be a valid percentage which '
                 "between 1% ~ 99%", id="min-available-hundred-percent"),
    pytest.param("volcano.sh/jdb-max-unavailable", "0",
                 'invalid value <"0"> for volcano.sh/jdb-max-unavailable, it must be a positive integer',
                 id="max-unavailable-zero"),
])
def test_disruption_budget_annotation_bounds(cluster: Cluster, key: str, value: str, expected: str) -> None:
    """The pod webhook's ranges: positive integers, or percentages from 1% to 99%, for either key."""
    name = f"jdb-{key.rsplit('-', 1)[-1]}-{value.replace('%', 'pct')}"
    pod: Obj = {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "annotations": {key: value}},
                "spec": {"schedulerName": "volcano",
                         "containers": [{"name": "c", "image": "busybox:1.24",
                                         "resources": {"requests": {"cpu": "100m"}}}]}}
    if expected:
        d = denial(lambda: cluster.apply(pod))
        assert webhook_message(d, POD_WEBHOOK) == expected
        assert cluster.try_get("Pod", name) is None
    else:
        assert cluster.apply(pod)[0]["metadata"]["annotations"][key] == value



@pytest.mark.admission
@pytest.mark.parametrize(("toleration", "causes"), [
    pytest.param({"key": "k", "operator": "Exists"}, None, id="exists-without-value"),
    pytest.param({"key": "k", "operator": "Exists", "value": "v"},
                 "spec.tolerations[0].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'",
                 id="exists-with-value"),
])
def test_toleration_exists_takes_no_value(cluster: Cluster, request: pytest.FixtureRequest, toleration: Obj,
                                          causes: str | None) -> None:
    name = f"toleration-{request.node.callspec.id}"
    if causes is None:
        assert cluster.apply(_pod(name, tolerations=[toleration]))[0]["spec"]["tolerations"][0]["key"] == "k"
        return
    d = denial(lambda: cluster.apply(_pod(name, tolerations=[toleration])))
    assert _causes(d, "Pod", name) == causes
    assert cluster.try_get("Pod", name) is None


@pytest.mark.admission
def test_system_priority_classes_are_reserved(cluster: Cluster) -> None:
    """A system- PriorityClass exists from the start: creating it again with its own value is 409
    AlreadyExists; with another value validation refuses it first (422 naming the required value)."""
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "system-node-critical"},
          "value": 2000001000}
    d = denial(lambda: cluster.create(pc))
    assert (d.code, d.reason) == (409, "AlreadyExists"), d
    d = denial(lambda: cluster.create({**pc, "value": 5}))
    assert _causes(d, "PriorityClass.scheduling.k8s.io", "system-node-critical") == (
        "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
        "error: value of system-node-critical PriorityClass must be 2000001000")
    assert cluster.get("PriorityClass", "system-node-critical")["value"] == 2000001000
