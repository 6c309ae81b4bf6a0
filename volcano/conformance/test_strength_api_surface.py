"""API conformance: the parts of the Kubernetes API a client uses beyond the controllers' paths.

Chunked lists (``limit``/``continue``, ``remainingItemCount``), field selectors, ``dryRun=All``
on create, patch and delete, the patch types (JSON patch, strategic merge patch, server-side
apply with its ``managedFields`` and conflicts), the ``scale`` subresource of a Deployment and
``pods/log``. Each case asserts what kube-apiserver answers: the items, the list metadata, the
Status code, reason and message of a refusal, and that a refused or dry-run write stored
nothing.

Objects are ConfigMaps where any kind would do (no controller writes them), a Queue for a
custom resource, and Pods no scheduler binds unless the case needs a running container. Every
case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod as built_pod
from volcano.conformance.test_admission import denial, plain

__all__: list[str] = []

Obj = dict[str, Any]
REJECTED = "the server rejected our request due to an error in our request"


def _cm(name: str, data: dict[str, str] | None = None, labels: dict[str, str] | None = None) -> Obj:
    metadata: Obj = {"name": name}
    if labels is not None:
        metadata["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": dict(data or {"k": "v"})}


def _names(listed: Obj) -> list[str]:
    return [o["metadata"]["name"] for o in listed["items"]]


def _pod(name: str, containers: tuple[str, ...] = ("c",), scheduled: bool = False) -> Obj:
    spec: Obj = {"containers": [{"name": c, "image": "busybox:1.36"} for c in containers]}
    if not scheduled:
        spec["schedulerName"] = "strength-absent-scheduler"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


# ------------------------------------------------------------------------------------ chunked lists


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_list_in_chunks(cluster: Cluster) -> None:
    """``limit`` 2 walks the whole list in (namespace, name) order: every page but the last carries
    ``continue`` and ``remainingItemCount`` (the items after it), every page the first page's
    resourceVersion, and the pages together are the unchunked list."""
    for i in range(5):
        cluster.create(_cm(f"chunk-{i}"))
    whole = plain(cluster.list_page("ConfigMap"))
    assert "continue" not in whole["metadata"] and "remainingItemCount" not in whole["metadata"]
    total, seen, token = len(whole["items"]), [], None
    first_rv = None
    while True:
        page = plain(cluster.list_page("ConfigMap", limit=2, continue_=token))
        meta = page["metadata"]
        first_rv = first_rv or meta["resourceVersion"]
        assert meta["resourceVersion"] == first_rv
        assert 1 <= len(page["items"]) <= 2
        seen += _names(page)
        token = meta.get("continue")
        if token is None:
            assert "remainingItemCount" not in meta
            break
        assert meta["remainingItemCount"] == total - len(seen)
    assert seen == _names(whole)
    assert [n for n in seen if n.startswith("chunk-")] == [f"chunk-{i}" for i in range(5)]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_chunked_list_with_a_selector(cluster: Cluster) -> None:
    """A filtered chunk counts only matching objects and reports no ``remainingItemCount``;
    a malformed ``continue`` is 400 BadRequest."""
    for i in range(5):
        cluster.create(_cm(f"odd-{i}", labels={"parity": str(i % 2)}))
    first = plain(cluster.list_page("ConfigMap", label_selector="parity=0", limit=2))
    assert _names(first) == ["odd-0", "odd-2"]
    assert "continue" in first["metadata"] and "remainingItemCount" not in first["metadata"]
    rest = plain(cluster.list_page("ConfigMap", label_selector="parity=0", limit=2,
                                   continue_=first["metadata"]["continue"]))
    assert _names(rest) == ["odd-4"]
    assert "continue" not in rest["metadata"]
    foreign = base64.urlsafe_b64encode(json.dumps({"v": "meta.k8s.io/v0", "rv": 1, "start": ["", "odd-0"]}).encode())
    for token in ("not-a-token", foreign.decode().rstrip("=")):
        d = denial(lambda token=token: cluster.list_page("ConfigMap", limit=2, continue_=token))
        assert (d.code, d.reason) == (400, "BadRequest"), d
        assert "continue key is not valid" in d.message, d.message


# ---------------------------------------------------------------------------------- field selectors


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("selector", "expected"), [
    pytest.param("metadata.name=field-b", ["field-b"], id="equals"),
    pytest.param("metadata.name==field-b", ["field-b"], id="double-equals"),
    pytest.param("metadata.name!=field-b", ["field-a", "field-c"], id="not-equals"),
    pytest.param("metadata.name!=field-a,metadata.name!=field-c", ["field-b"], id="conjunction"),
    pytest.param("metadata.name=field-z", [], id="no-match"),
])
def test_field_selector_on_names(cluster: Cluster, selector: str, expected: list[str]) -> None:
    for name in ("field-a", "field-b", "field-c"):
        cluster.create(_cm(name, labels={"set": "field"}))
    listed = cluster.list_page("ConfigMap", label_selector="set=field", field_selector=selector)
    assert _names(listed) == expected


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_malformed_field_selector_is_bad_request(cluster: Cluster) -> None:
    d = denial(lambda: cluster.list_page("ConfigMap", field_selector="metadata.name"))
    assert (d.code, d.reason) == (400, "BadRequest"), d


# ------------------------------------------------------------------------------------------ dry run


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_dry_run_create(cluster: Cluster) -> None:
    """A dry-run create answers with the object as it would be stored (uid and creation time set)
    and stores nothing; it is still refused where the real create would be (AlreadyExists)."""
    made = plain(cluster.create(_cm("dry-new", {"k": "1"}), dry_run=True))
    assert made["metadata"]["name"] == "dry-new" and made["metadata"]["uid"]
    assert made["metadata"]["creationTimestamp"] and made["data"] == {"k": "1"}
    assert cluster.try_get("ConfigMap", "dry-new") is None
    cluster.create(_cm("dry-old"))
    d = denial(lambda: cluster.create(_cm("dry-old"), dry_run=True))
    assert (d.code, d.reason, d.message) == (409, "AlreadyExists", 'configmaps "dry-old" already exists'), d


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_dry_run_patch_and_delete(cluster: Cluster) -> None:
    """A dry-run patch answers with the patched object and leaves the stored one (data and
    resourceVersion); a dry-run delete leaves the object."""
    stored = plain(cluster.create(_cm("dry-cm", {"k": "v"})))
    answered = plain(cluster.patch("ConfigMap", "dry-cm", {"data": {"k": "dry"}}, dry_run=True))
    assert answered["data"] == {"k": "dry"}
    after = plain(cluster.get("ConfigMap", "dry-cm"))
    assert after["data"] == {"k": "v"}
    assert after["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]
    cluster.delete("ConfigMap", "dry-cm", dry_run=True)
    assert cluster.get("ConfigMap", "dry-cm")["metadata"]["uid"] == stored["metadata"]["uid"]


# ------------------------------------------------------------------------------------- patch types


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_json_patch_operations(cluster: Cluster) -> None:
    """RFC 6902: the operations apply in order; a failing ``test`` or a ``remove`` of a missing
    member refuses the whole patch (422 Invalid) and nothing is stored."""
    cluster.create(_cm("jp", {"a": "1", "b": "2"}))
    ops = [{"op": "add", "path": "/data/c", "value": "3"}, {"op": "replace", "path": "/data/a", "value": "9"},
           {"op": "remove", "path": "/data/b"}, {"op": "test", "path": "/data/c", "value": "3"}]
    assert plain(cluster.patch("ConfigMap", "jp", ops, patch_type="json"))["data"] == {"a": "9", "c": "3"}
    for bad in ([{"op": "replace", "path": "/data/a", "value": "0"}, {"op": "test", "path": "/data/c", "value": "4"}],
                [{"op": "remove", "path": "/data/missing"}]):
        d = denial(lambda bad=bad: cluster.patch("ConfigMap", "jp", bad, patch_type="json"))
        assert (d.code, d.reason, d.message) == (422, "Invalid", REJECTED), d
    assert cluster.get("ConfigMap", "jp")["data"] == {"a": "9", "c": "3"}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_strategic_merge_patch_merges_containers_by_name(cluster: Cluster) -> None:
    """A strategic merge patch of a Pod merges ``containers`` by name: the other container stays."""
    cluster.create(_pod("smp", containers=("a", "b")))
    patched = plain(cluster.patch("Pod", "smp", {"spec": {"containers": [{"name": "b", "image": "busybox:1.37"}]}},
                                  patch_type="strategic"))
    assert [(c["name"], c["image"]) for c in patched["spec"]["containers"]] == [
        ("a", "busybox:1.36"), ("b", "busybox:1.37")]


@pytest.mark.admission
def test_strategic_merge_patch_of_a_custom_resource_is_unsupported(cluster: Cluster) -> None:
    """Custom resources have no patch strategy: 415 UnsupportedMediaType naming the accepted types."""
    d = denial(lambda: cluster.patch("Queue", "default", {"spec": {"weight": 2}}, patch_type="strategic"))
    assert (d.code, d.reason) == (415, "UnsupportedMediaType"), d
    assert d.message == ("the body of the request was in an unknown format - accepted media types include: "
                         "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")
    assert cluster.get("Queue", "default")["spec"]["weight"] == 1


# ------------------------------------------------------------------------------ server-side apply


def _apply(cluster: Cluster, manager: str | None, data: dict[str, str], force: bool | None = None) -> Obj:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa"}, "data": data}
    return plain(cluster.patch("ConfigMap", "ssa", body, patch_type="apply", field_manager=manager, force=force))


def _owners(obj: Obj) -> dict[tuple[str, str], Obj]:
    return {(e["manager"], e["operation"]): e for e in obj["metadata"].get("managedFields") or []}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_server_side_apply_ownership_and_conflicts(cluster: Cluster) -> None:
    """Apply creates the object and records its manager's fields; another manager's apply of a
    field it does not own is 409 Conflict naming the owner and field, unless forced, which moves
    the field; a manager that owns nothing more leaves managedFields."""
    created = _apply(cluster, "mgr-a", {"k": "a"})
    entry = _owners(created)[("mgr-a", "Apply")]
    assert (entry["apiVersion"], entry["fieldsType"], entry["fieldsV1"]) == ("v1", "FieldsV1", {"f:data": {"f:k": {}}})
    d = denial(lambda: _apply(cluster, "mgr-b", {"k": "b"}))
    assert (d.code, d.reason) == (409, "Conflict"), d
    assert d.message == 'Apply failed with 1 conflict: conflict with "mgr-a": .data.k'
    assert cluster.get("ConfigMap", "ssa")["data"] == {"k": "a"}
    same = _apply(cluster, "mgr-b", {"k": "a", "j": "b"})  # the same value is shared, not a conflict
    assert same["data"] == {"k": "a", "j": "b"}
    assert _owners(same)[("mgr-b", "Apply")]["fieldsV1"] == {"f:data": {"f:j": {}, "f:k": {}}}
    d = denial(lambda: _apply(cluster, "mgr-c", {"k": "c", "j": "c"}))
    assert (d.code, d.message) == (409, 'Apply failed with 3 conflicts: conflicts with "mgr-a":\n- .data.k\n'
                                        'conflicts with "mgr-b":\n- .data.j\n- .data.k'), d  # shared k: both
    forced = _apply(cluster, "mgr-b", {"k": "b", "j": "b"}, force=True)
    assert forced["data"] == {"k": "b", "j": "b"}
    assert set(_owners(forced)) == {("mgr-b", "Apply")}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_update_after_apply_is_tracked(cluster: Cluster) -> None:
    """A merge patch after an apply is recorded as an Update owning the field it set; an apply
    without a field manager is 422."""
    _apply(cluster, "mgr-a", {"k": "a"})
    patched = plain(cluster.patch("ConfigMap", "ssa", {"data": {"other": "x"}}))
    updates = [e for e in patched["metadata"]["managedFields"] if e["operation"] == "Update"]
    assert len(updates) == 1 and updates[0]["fieldsV1"]["f:data"].get("f:other") == {}
    assert _owners(patched)[("mgr-a", "Apply")]["fieldsV1"] == {"f:data": {"f:k": {}}}
    d = denial(lambda: _apply(cluster, None, {"k": "a"}))
    assert (d.code, d.reason) == (422, "Invalid"), d
    assert d.message == ('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: '
                         "is required for apply patch")


# ------------------------------------------------------------------------------ scale subresource


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_deployment_scale_subresource(cluster: Cluster) -> None:
    """``deployments/scale``: an ``autoscaling/v1 Scale`` mirroring the Deployment (desired
    replicas, the selector as a string, then the observed replicas); patching it sets the
    Deployment's replicas; a negative count is 422 and changes nothing; a missing Deployment 404."""
    labels = {"app": "scaled"}
    created = plain(cluster.create({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "scaled"},
        "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": {
            "metadata": {"labels": labels},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36",
                                     "resources": {"requests": {"cpu": "100m"}}}]}}}}))
    scale = plain(cluster.scale("Deployment", "scaled"))
    assert (scale["apiVersion"], scale["kind"]) == ("autoscaling/v1", "Scale")
    assert scale["metadata"]["name"] == "scaled" and scale["metadata"]["uid"] == created["metadata"]["uid"]
    assert scale["spec"] == {"replicas": 1} and scale["status"]["selector"] == "app=scaled"
    answered = plain(cluster.scale("Deployment", "scaled", replicas=2))
    assert answered["spec"] == {"replicas": 2}
    assert cluster.get("Deployment", "scaled")["spec"]["replicas"] == 2
    cluster.wait_until(lambda: cluster.scale("Deployment", "scaled")["status"].get("replicas") == 2, 120,
                       "the Scale's status.replicas follows the Deployment")
    d = denial(lambda: cluster.scale("Deployment", "scaled", replicas=-1))
    assert (d.code, d.reason) == (422, "Invalid"), d
    assert d.message == ('Scale.autoscaling "scaled" is invalid: spec.replicas: Invalid value: -1: '
                         "must be greater than or equal to 0")
    assert cluster.get("Deployment", "scaled")["spec"]["replicas"] == 2
    d = denial(lambda: cluster.scale("Deployment", "absent"))
    assert (d.code, d.reason, d.message) == (404, "NotFound", 'deployments.apps "absent" not found'), d


# ------------------------------------------------------------------------------------------ pod logs


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_pod_log_container_choice(cluster: Cluster) -> None:
    """``pods/log`` of a pod with several containers needs one named (400 listing them, the
    server does not read kubectl's default-container annotation); an unknown name is 400; an
    unscheduled pod has an empty log."""
    pod = _pod("two-logs", containers=("a", "b"))
    pod["metadata"]["annotations"] = {"kubectl.kubernetes.io/default-container": "b"}
    cluster.create(pod)
    d = denial(lambda: cluster.pod_log("two-logs"))
    assert (d.code, d.reason, d.message) == (
        400, "BadRequest", "a container name must be specified for pod two-logs, choose one of: [a b]"), d
    d = denial(lambda: cluster.pod_log("two-logs", container="z"))
    assert (d.code, d.reason, d.message) == (400, "BadRequest", "container z is not valid for pod two-logs"), d
    assert cluster.pod_log("two-logs", container="a") == ""


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_pod_log_options(cluster: Cluster) -> None:
    """A running container's log: ``timestamps`` prefixes each line with the kubelet's fixed-width
    RFC 3339 time, ``tailLines`` keeps the last lines, ``limitBytes`` cuts the text; ``previous``
    without a terminated run is 400."""
    cluster.create(_pod("logged", scheduled=True))
    cluster.wait_until(lambda: (cluster.get("Pod", "logged").get("status") or {}).get("phase") == "Running", 120,
                       "the pod runs")
    # the pod's events are stored in its namespace (listed there, not only found by involvedObject)
    assert "logged" in {e["involvedObject"]["name"] for e in cluster.list("Event")}
    text = cluster.pod_log("logged")
    lines = text.splitlines()
    assert lines and text.endswith("\n")
    stamped = cluster.pod_log("logged", timestamps=True).splitlines()
    assert len(stamped) == len(lines)
    for plain_line, line in zip(lines, stamped):
        stamp, _, rest = line.partition(" ")
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z", stamp), line
        assert rest == plain_line
    assert cluster.pod_log("logged", tail_lines=0) == ""
    assert cluster.pod_log("logged", tail_lines=1) == lines[-1] + "\n"
    assert cluster.pod_log("logged", limit_bytes=5) == text[:5]
    d = denial(lambda: cluster.pod_log("logged", previous=True))
    assert (d.code, d.reason, d.message) == (
        400, "BadRequest", 'previous terminated container "c" in pod "logged" not found'), d


# ------------------------------------------------------------------------- metadata of the wrong type

_UNDECODABLE_META = [
    pytest.param({"ownerReferences": "owner"}, "string into Go struct field ObjectMeta.metadata.ownerReferences "
                 "of type []v1.OwnerReference", id="owner-references-string"),
    pytest.param({"labels": {"a": 1}}, "number into Go struct field ObjectMeta.metadata.labels of type string",
                 id="label-number"),
    pytest.param({"finalizers": "example.com/f"}, "string into Go struct field ObjectMeta.metadata.finalizers "
                 "of type []string", id="finalizers-string"),
]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("meta", "message"), _UNDECODABLE_META)
@pytest.mark.parametrize("verb", ["create", "update"])
def test_metadata_of_the_wrong_type_is_bad_request(cluster: Cluster, meta: Obj, message: str, verb: str) -> None:
    """Metadata that does not decode into ObjectMeta is 400 BadRequest with the decoder's message,
    on create and on update alike (the object stays as it was)."""
    cm = _cm("meta-typed", {"k": "v"})
    if verb == "update":
        cluster.create(cm)
    bad = {**cm, "metadata": {**cm["metadata"], **meta}}
    d = denial(lambda: cluster.apply(bad))
    assert (d.code, d.reason) == (400, "BadRequest"), d
    assert d.message == f'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal {message}'
    stored = cluster.try_get("ConfigMap", "meta-typed")
    assert stored is None if verb == "create" else not any(k in stored["metadata"] for k in meta)


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_owner_reference_fields_must_not_be_empty(cluster: Cluster) -> None:
    """An owner reference without apiVersion version, kind, name or uid: 422 with one cause each."""
    ref = {"apiVersion": "example.com/", "kind": "", "name": "owner", "uid": ""}
    d = denial(lambda: cluster.create({**_cm("owned"), "metadata": {"name": "owned", "ownerReferences": [ref]}}))
    assert (d.code, d.reason) == (422, "Invalid"), d
    assert d.message == ('ConfigMap "owned" is invalid: ['
                         'metadata.ownerReferences.apiVersion: Invalid value: "example.com/": '
                         'version must not be empty, '
                         'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty, '
                         'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty]')
    assert cluster.try_get("ConfigMap", "owned") is None


# ---------------------------------------------------------------------------- defaults and messages


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_image_pull_policy_default(cluster: Cluster) -> None:
    """A container without imagePullPolicy gets Always for an untagged or ``:latest`` image, else
    IfNotPresent (a registry port is not a tag; a digest pins the image); a given one is kept."""
    images = {"busybox": "Always", "busybox:latest": "Always", "busybox:1.36": "IfNotPresent",
              "registry.local:5000/busybox": "Always", "busybox@sha256:" + "0" * 64: "IfNotPresent"}
    pod = _pod("pull-policy", containers=tuple(f"c{i}" for i in range(len(images))))
    for container, image in zip(pod["spec"]["containers"], images):
        container["image"] = image
    pod["spec"]["containers"].append({"name": "given", "image": "busybox:1.36", "imagePullPolicy": "Never"})
    created = plain(cluster.create(pod))
    assert {c["image"]: c["imagePullPolicy"] for c in created["spec"]["containers"][:-1]} == images
    assert created["spec"]["containers"][-1]["imagePullPolicy"] == "Never"  # a given policy is kept


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_qualified_name_message(cluster: Cluster) -> None:
    """A label key that is not a qualified name: apimachinery's message, examples and regex verbatim."""
    d = denial(lambda: cluster.create(_cm("label-key", labels={"-bad": "x"})))
    assert (d.code, d.reason) == (422, "Invalid"), d
    assert d.message == (
        'ConfigMap "label-key" is invalid: metadata.labels: Invalid value: "-bad": name part must consist of '
        "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_priority_class_update_limits(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """A PriorityClass's value and preemptionPolicy may not change (422 naming each)."""
    name = "strength-surface-pc"
    request.addfinalizer(lambda: cluster.delete("PriorityClass", name)
                         if cluster.try_get("PriorityClass", name) else None)
    cluster.create({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                    "value": 10})
    prefix = f'PriorityClass.scheduling.k8s.io "{name}" is invalid: '
    d = denial(lambda: cluster.patch("PriorityClass", name, {"preemptionPolicy": "Never"}))
    assert (d.code, d.message) == (422, prefix + 'preemptionPolicy: Invalid value: "Never": field is immutable'), d
    d = denial(lambda: cluster.patch("PriorityClass", name, {"value": 11}))
    assert (d.code, d.message) == (422, prefix + "value: Forbidden: may not be changed in an update."), d
    assert cluster.get("PriorityClass", name)["value"] == 10


def _restarts(cluster: Cluster, name: str) -> int:
    statuses = (cluster.get("Pod", name).get("status") or {}).get("containerStatuses") or []
    return sum(int(cs.get("restartCount") or 0) for cs in statuses)


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_restarting_container_serves_its_last_log(cluster: Cluster) -> None:
    """A container that exited and waits to restart (``CrashLoopBackOff``) is not "waiting to start":
    the kubelet serves the log of its last run (``previous`` serves the same run)."""
    cluster.create(built_pod("crashing", req={"cpu": "100m"}, duration="1s", exit_code=1,
                             restart_policy="Always"))
    cluster.wait_until(lambda: _restarts(cluster, "crashing") >= 1, 180, "the container restarted once")
    text = cluster.pod_log("crashing")  # no 400 while it waits to run again
    if cluster.backend == "memory":  # the simulated kubelet's lines (a real busybox writes none here)
        assert text.splitlines()[-1] == "volcano-sim: container main exited with code 1 (Error)", text
        assert cluster.pod_log("crashing", previous=True) == text


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_node_status_may_not_hold_negative_quantities(cluster: Cluster) -> None:
    """A status write giving a node a negative capacity is 422 naming ``status.capacity.<resource>``
    (a child path, as ``ValidateNodeResources`` builds it); the node keeps its capacity."""
    name = cluster.worker_nodes()[0]["metadata"]["name"]
    before = plain(cluster.get("Node", name))["status"]["capacity"]
    d = denial(lambda: cluster.patch("Node", name, {"status": {"capacity": {"cpu": "-1"}}}, subresource="status"))
    assert (d.code, d.message) == (422, f'Node "{name}" is invalid: status.capacity.cpu: Invalid value: "-1": '
                                        "must be greater than or equal to 0"), d
    assert plain(cluster.get("Node", name))["status"]["capacity"]["cpu"] == before["cpu"]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_priority_class_preemption_policy_is_an_enumeration(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """A PriorityClass's ``preemptionPolicy`` is ``Never`` or ``PreemptLowerPriority`` (422 listing
    both; nothing stored)."""
    name = "strength-surface-policy"
    request.addfinalizer(lambda: cluster.delete("PriorityClass", name)
                         if cluster.try_get("PriorityClass", name) else None)
    d = denial(lambda: cluster.create({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                       "metadata": {"name": name}, "value": 10, "preemptionPolicy": "Sometimes"}))
    assert (d.code, d.message) == (422, f'PriorityClass.scheduling.k8s.io "{name}" is invalid: preemptionPolicy: '
                                        'Unsupported value: "Sometimes": supported values: "Never", '
                                        '"PreemptLowerPriority"'), d
    assert cluster.try_get("PriorityClass", name) is None
