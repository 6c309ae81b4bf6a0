"""The malformed objects of the "bad input" issue: refused with a real server's code, nothing stored;
and what a component does with one that is stored anyway."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.faults import inject_stored_object
from volcano.sim import RandomStreams, SimClock
from volcano.testbed import FakeCluster

QUANTITY = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def _pod(name: str = "p") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "busybox",
                                     "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}}]}}


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(obj: dict[str, Any]) -> None:
        *head, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        node: Any = obj
        for key in head:
            node = node[key]
        node[last] = value
    return change


@pytest.mark.parametrize(("change", "message"), [
    (_set("spec.containers.0.resources.requests.cpu", "lots"), QUANTITY),
    (_set("spec.containers.0.resources.requests.memory", "1.5.5Gi"), QUANTITY),
    (_set("spec.containers.0.ports", [{"containerPort": 80, "hostPort": "x"}]),
     "json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.hostPort of type int32"),
    (_set("spec.nodeSelector", ["a"]),
     "json: cannot unmarshal array into Go struct field PodSpec.spec.nodeSelector of type map[string]string"),
    (_set("spec.tolerations", "x"),
     "json: cannot unmarshal string into Go struct field PodSpec.spec.tolerations of type []v1.Toleration"),
    (_set("spec.containers.0.ports", [{"containerPort": 2**40}]),
     f"json: cannot unmarshal number {2**40} into Go struct field ContainerPort.spec.containers.ports.containerPort "
     "of type int32"),
], ids=["cpu-lots", "memory", "hostPort", "nodeSelector-list", "tolerations-string", "int32-overflow"])
def test_undecodable_pods_are_400_and_nothing_is_stored(change: Callable[[dict[str, Any]], None],
                                                        message: str) -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    pod = _pod()
    change(pod)
    before = server.resource_version
    with pytest.raises(ApiError) as info:
        server.create(pod)
    err = info.value
    assert (err.code, err.reason) == (400, "BadRequest")
    assert err.message == f'Pod in version "v1" cannot be handled as a Pod: {message}'
    assert err.details == {}  # NewBadRequest: a message and no details, as kube-apiserver answers
    assert server.resource_version == before and server.list("Pod")["items"] == []


@pytest.mark.parametrize(("change", "field", "reason", "body"), [
    (_set("spec.containers", []), "spec.containers", "FieldValueRequired", "Required value"),
    (_set("spec.containers.0.resources.requests.cpu", "-1"), "spec.containers[0].resources.requests[cpu]",
     "FieldValueInvalid", 'Invalid value: "-1": must be greater than or equal to 0'),
    (_set("spec.containers.0.resources.requests.cpu", "3"), "spec.containers[0].resources.requests",
     "FieldValueInvalid", 'Invalid value: "3": must be less than or equal to cpu limit of 2'),
    (_set("spec.affinity", {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "Bogus"}]}]}}}),
     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
     ".matchExpressions[0].operator", "FieldValueInvalid", 'Invalid value: "Bogus": not a valid selector operator'),
    (_set("spec.tolerations", [{"key": "k", "operator": "Exists", "effect": "Sometimes"}]),
     "spec.tolerations[0].effect", "FieldValueNotSupported",
     'Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'),
    (_set("spec.restartPolicy", "Sometimes"), "spec.restartPolicy", "FieldValueNotSupported",
     'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'),
], ids=["no-containers", "negative-cpu", "request-above-limit", "affinity-operator", "toleration-effect",
        "restart-policy"])
def test_invalid_pods_are_422_with_causes(change: Callable[[dict[str, Any]], None], field: str, reason: str,
                                          body: str) -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    pod = _pod()
    change(pod)
    with pytest.raises(ApiError) as info:
        server.create(pod)
    err = info.value
    assert (err.code, err.reason) == (422, "Invalid")
    assert {"field": field, "reason": reason, "message": body} in err.details["causes"]
    assert f"{field}: {body}" in err.message and err.message.startswith('Pod "p" is invalid: ')
    assert server.list("Pod")["items"] == []


def test_node_podgroup_and_selector_mismatch_are_refused() -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "zz"}}}
    with pytest.raises(ApiError) as info:
        server.create(node)
    assert info.value.code == 400 and QUANTITY in info.value.message
    pg = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": "pg"},
          "spec": {"minMember": 1, "minResources": {"cpu": "zz"}}}
    with pytest.raises(ApiError) as info:
        server.create(pg)
    assert info.value.code == 422 and "spec.minResources.cpu: Invalid value: \"zz\"" in info.value.message
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs"},
          "spec": {"selector": {"matchLabels": {"app": "a"}},
                   "template": {"metadata": {"labels": {"app": "b"}}, "spec": _pod()["spec"]}}}
    with pytest.raises(ApiError) as info:
        server.create(rs)
    assert info.value.code == 422
    assert ('spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: `selector` does not match '
            "template `labels`") in info.value.message


def test_create_resets_status_and_keeps_a_nodes() -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    pod = {**_pod(), "status": {"phase": "Running", "podIP": "1.2.3.4"}}
    assert server.create(pod)["status"] == {"phase": "Pending", "qosClass": "Burstable"}
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "status": {"replicas": 9},
              "spec": {"selector": {"matchLabels": {"app": "a"}},
                       "template": {"metadata": {"labels": {"app": "a"}}, "spec": _pod()["spec"]}}}
    assert "status" not in server.create(deploy)
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "4"}}}
    assert server.create(node)["status"] == {"allocatable": {"cpu": "4"}}


def test_integral_floats_become_ints() -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    pod = _pod()
    pod["spec"]["containers"][0]["ports"] = [{"containerPort": 80.0}]
    stored = server.create(pod)
    assert type(stored["spec"]["containers"][0]["ports"][0]["containerPort"]) is int


def test_sim_annotations_are_checked_at_create() -> None:
    c = FakeCluster(seed=0)
    pod = _pod()
    pod["metadata"]["annotations"] = {"sim.volcano.sh/duration": "soon"}
    with pytest.raises(ApiError) as info:
        c.apply(pod)
    assert info.value.code == 422
    assert 'metadata.annotations[sim.volcano.sh/duration]: Invalid value: "soon"' in info.value.message


def test_a_stored_malformed_object_is_skipped_with_a_warning_event() -> None:
    c = FakeCluster(seed=0)
    c.add_nodes(1, cpu="4", memory="8Gi")
    good = _pod("good")
    good["metadata"]["annotations"] = {"sim.volcano.sh/duration": "10s"}
    good["spec"]["schedulerName"] = "volcano"
    c.apply(good)
    bad = copy.deepcopy(good)
    bad["metadata"]["name"] = "bad"
    bad["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots"
    inject_stored_object(c.server, bad)
    c.run(60)
    assert c.get("Pod", "good")["status"]["phase"] in ("Running", "Succeeded")  # the cluster carried on
    warnings = [e for e in c.list("Event") if e["reason"] == "InvalidObject"]
    assert warnings and warnings[0]["type"] == "Warning"
    assert warnings[0]["involvedObject"]["name"] == "bad"
    assert "spec.containers[0].resources.requests[cpu]" in warnings[0]["message"]
    assert "'lots'" in warnings[0]["message"]


def test_a_null_quantity_decodes_as_zero_as_quantity_unmarshaljson_does() -> None:
    c = FakeCluster(seed=0)
    pod = _pod("nullcpu")
    pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = None
    stored = c.apply(pod)[0]
    assert stored["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "0"


def test_a_deployment_template_with_a_null_quantity_runs() -> None:
    """Found by `make fuzz`: the template was stored with null, and the scheduler raised on its pods."""
    c = FakeCluster(seed=0)
    c.add_nodes(1, cpu="4", memory="8Gi")
    template = _pod("x")
    template["spec"]["containers"][0]["resources"]["requests"]["cpu"] = None
    template["spec"]["schedulerName"] = "volcano"
    template["metadata"] = {"labels": {"app": "d"}}
    c.apply({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
             "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "d"}}, "template": template}})
    c.run(60)
    pods = c.list("Pod")
    assert len(pods) == 1 and pods[0]["spec"].get("nodeName") == "node-0"


def test_a_quantity_beyond_the_schedulers_range_is_stored_and_the_pod_skipped() -> None:
    """Found by `make fuzz`: 2**63 cpu is a valid quantity (a real server stores it); the scheduler's
    int64 vectors cannot hold it, so the scheduler skips the pod with a Warning Event."""
    c = FakeCluster(seed=0)
    c.add_nodes(1, cpu="4", memory="8Gi")
    huge = _pod("huge")
    huge["spec"]["containers"][0]["resources"] = {"requests": {"cpu": 2**63}}
    huge["spec"]["schedulerName"] = "volcano"
    c.apply(huge)
    c.run(600)  # must not raise
    assert not c.get("Pod", "huge")["spec"].get("nodeName")
    warnings = [e for e in c.list("Event") if e["reason"] == "InvalidObject"]
    assert warnings and "spec.containers[*].resources.requests.cpu" in warnings[0]["message"]
    assert "int64 milli-unit range" in warnings[0]["message"]


def _deep(depth: int) -> Any:
    value: Any = "deep"
    for i in range(depth):
        value = {"n": value} if i % 2 else [value]
    return value


@pytest.mark.parametrize("write", ["update", "update_status", "merge", "json", "strategic", "status", "apply"])
def test_nesting_too_deep_is_400_on_every_write(write: str) -> None:
    """Found by the update fuzzer: an update, status write or patch nested deeper than Python's stack
    raised RecursionError; like a create, it is 400 (``json: exceeded max depth``) and stores nothing."""
    server = ApiServer(SimClock(), RandomStreams(0))
    stored = server.create(_pod())
    deep = _deep(2000)
    obj: dict[str, Any] = copy.deepcopy(dict(stored))
    obj = {**obj, "metadata": dict(obj["metadata"]), "spec": {**obj["spec"], "x": deep}}
    calls: dict[str, Callable[[], Any]] = {
        "update": lambda: server.update(obj),
        "update_status": lambda: server.update_status({**obj, "status": deep}),
        "merge": lambda: server.patch("Pod", "p", {"spec": {"x": deep}}, "default"),
        "json": lambda: server.patch("Pod", "p", [{"op": "add", "path": "/spec/x", "value": deep}], "default",
                                     patch_type="json"),
        "strategic": lambda: server.patch("Pod", "p", {"spec": {"x": deep}}, "default", patch_type="strategic"),
        "status": lambda: server.patch("Pod", "p", {"status": deep}, "default", subresource="status"),
        "apply": lambda: server.patch("Pod", "p", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                                                   "spec": {"x": deep}}, "default", patch_type="apply",
                                      field_manager="m"),
    }
    with pytest.raises(ApiError) as err:
        calls[write]()
    assert (err.value.code, err.value.message) == (400, 'Pod in version "v1" cannot be handled as a Pod: json: '
                                                        "exceeded max depth")
    assert server.get("Pod", "p", "default") is stored


def test_a_job_template_quantity_beyond_the_controllers_range_skips_the_job() -> None:
    """Found by `make fuzz`: a Job whose pod template limits a GPU at ``1e400`` is admitted (the CRD
    schema's quantity pattern takes it, and so does the API server's decimal type); the Job
    controller cannot sum it for the PodGroup's minResources, so it skips the Job with a Warning
    Event and the cluster carries on."""
    c = FakeCluster(seed=0)
    c.add_nodes(1, cpu="4", memory="8Gi")
    container = {"name": "c", "image": "busybox", "resources": {"limits": {"nvidia.com/gpu": "1e400"}}}
    c.apply({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "big"},
             "spec": {"minAvailable": 1, "schedulerName": "volcano", "tasks": [
                 {"name": "t", "replicas": 1, "template": {"spec": {"containers": [container]}}}]}})
    c.run(60)  # must not raise
    warnings = [e for e in c.list("Event") if e["reason"] == "InvalidObject"]
    assert any(e["involvedObject"]["name"] == "big" and "1e400" in e["message"] for e in warnings), warnings


@pytest.mark.parametrize("plugins", [{"svc": []}, {"env": []}, {"ssh": []}, {"pytorch": ["--master=t", "--worker=w"]}])
def test_a_null_list_in_a_job_template_is_an_empty_one(plugins: dict[str, list[str]]) -> None:
    """Found by `make fuzz`: ``env: null`` (or ``volumeMounts``/``ports: null``) in a Job's container
    is an empty list, as Go's decoder makes it; the Job plugins that append to it used to raise."""
    c = FakeCluster(seed=0)
    c.add_nodes(2, cpu="4", memory="8Gi")
    container = {"name": "c", "image": "busybox", "env": None, "volumeMounts": None, "ports": None,
                 "resources": {"requests": {"cpu": "1"}}}
    tasks = [{"name": name, "replicas": 1, "template": {"metadata": {"annotations": {"sim.volcano.sh/duration": "5s"}},
                                                         "spec": {"restartPolicy": "Never", "volumes": None,
                                                                  "containers": [dict(container)]}}}
             for name in ("t", "w")]
    c.apply({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "nulls"},
             "spec": {"minAvailable": 2, "schedulerName": "volcano", "plugins": plugins, "tasks": tasks}})
    done = c.wait_for("vcjob", "nulls", jsonpath="{.status.state.phase}=Completed", timeout=300)
    assert done["status"]["state"]["phase"] == "Completed"
