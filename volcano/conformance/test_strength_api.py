"""API conformance: what a client of a real kube-apiserver sees, at the edges.

The scheduling cases exercise the API server only along the paths the controllers take. These
cases check the API semantics a user meets directly, each against its limit: optimistic
concurrency (a stale ``resourceVersion`` is 409 Conflict, a no-op write keeps the version),
``generation`` (bumped by spec changes only), NotFound / Conflict / Invalid with their Status
reasons and messages, name and label length limits at the limit and one past it, label selector
operators, JSON merge patch semantics, finalizers and owner-reference garbage collection, and
what a pod update may change.

Objects are ConfigMaps where any kind would do (no controller writes them, so nothing races the
case), Queues for custom-resource behaviour, and a Pod no scheduler picks up for pod updates.
Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import Denial, denial, own_queue, plain, queue_manifest

__all__: list[str] = []

Obj = dict[str, Any]
CONFLICT = "the object has been modified; please apply your changes to the latest version and try again"


def _cm(name: str, data: dict[str, str] | None = None, labels: dict[str, str] | None = None, **meta: Any) -> Obj:
    metadata: Obj = {"name": name, **meta}
    if labels is not None:
        metadata["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": dict(data or {"k": "v"})}


def _rv(obj: Obj) -> str:
    return str(obj["metadata"]["resourceVersion"])


def _invalid(d: Denial, kind: str, name: str) -> str:
    """The causes of a 422 Invalid for ``kind`` ``name``."""
    assert (d.code, d.reason) == (422, "Invalid"), d
    prefix = f'{kind} "{name}" is invalid: '
    assert d.message.startswith(prefix), d.message
    return d.message[len(prefix):]


# --------------------------------------------------------------------------- optimistic concurrency


@pytest.mark.admission
def test_stale_resource_version_is_conflict(cluster: Cluster) -> None:
    """A patch carrying a resourceVersion is conditional on it: the version read before another
    write is stale (409 Conflict, nothing changed); the current one succeeds."""
    first = plain(cluster.apply(_cm("occ", {"k": "1"}))[0])
    second = plain(cluster.patch("ConfigMap", "occ", {"data": {"k": "2"}}))
    assert _rv(second) != _rv(first)
    d = denial(lambda: cluster.patch("ConfigMap", "occ", {"metadata": {"resourceVersion": _rv(first)},
                                                          "data": {"k": "stale"}}))
    assert (d.code, d.reason) == (409, "Conflict"), d
    assert d.message == f'Operation cannot be fulfilled on configmaps "occ": {CONFLICT}'
    assert cluster.get("ConfigMap", "occ")["data"] == {"k": "2"}
    third = plain(cluster.patch("ConfigMap", "occ", {"metadata": {"resourceVersion": _rv(second)},
                                                     "data": {"k": "3"}}))
    assert third["data"] == {"k": "3"}
    assert _rv(third) not in (_rv(first), _rv(second))


@pytest.mark.admission
def test_noop_patch_keeps_resource_version(cluster: Cluster) -> None:
    """A write that changes nothing stores nothing: same resourceVersion, uid and creation time."""
    created = plain(cluster.apply(_cm("noop", {"k": "v"}, labels={"a": "1"}))[0])
    same = plain(cluster.patch("ConfigMap", "noop", {"data": {"k": "v"}, "metadata": {"labels": {"a": "1"}}}))
    assert _rv(same) == _rv(created)
    changed = plain(cluster.patch("ConfigMap", "noop", {"metadata": {"labels": {"a": "2"}}}))
    assert _rv(changed) != _rv(created)
    for key in ("uid", "creationTimestamp", "name", "namespace"):
        assert changed["metadata"][key] == created["metadata"][key]


@pytest.mark.admission
def test_generation_counts_spec_changes_only(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """A custom resource with a status subresource: generation 1 at create, +1 for each spec
    change; label, annotation and status changes through the main resource leave it."""
    own_queue(request, cluster, "gen-queue")
    q = plain(cluster.apply(queue_manifest("gen-queue", {"weight": 1, "parent": "root"}))[0])
    assert q["metadata"]["generation"] == 1

    def generation() -> int:
        return int(cluster.get("Queue", "gen-queue")["metadata"]["generation"])

    cluster.patch("Queue", "gen-queue", {"metadata": {"labels": {"team": "a"}, "annotations": {"note": "x"}}})
    cluster.patch("Queue", "gen-queue", {"status": {"state": "Closed"}})
    assert generation() == 1
    cluster.patch("Queue", "gen-queue", {"spec": {"weight": 2}})
    assert generation() == 2
    cluster.patch("Queue", "gen-queue", {"spec": {"weight": 3, "reclaimable": False}})
    assert generation() == 3
    cluster.patch("Queue", "gen-queue", {"spec": {"weight": 3}})
    assert generation() == 3


# ------------------------------------------------------------------------------------- NotFound


_MISSING = [
    pytest.param("ConfigMap", "configmaps", id="configmap"),
    pytest.param("Queue", "queues.scheduling.volcano.sh", id="queue"),
    pytest.param("Job", "jobs.batch.volcano.sh", id="job"),
]


@pytest.mark.admission
@pytest.mark.parametrize(("kind", "resource"), _MISSING)
@pytest.mark.parametrize("verb", ["get", "patch", "delete"])
def test_missing_object_is_not_found(cluster: Cluster, kind: str, resource: str, verb: str) -> None:
    """get, patch and delete of an object that does not exist: 404 NotFound naming the group-resource."""
    calls = {"get": lambda: cluster.get(kind, "absent-object"),
             "patch": lambda: cluster.patch(kind, "absent-object", {"metadata": {"labels": {"a": "b"}}}),
             "delete": lambda: cluster.delete(kind, "absent-object")}
    d = denial(calls[verb])
    assert (d.code, d.reason) == (404, "NotFound"), d
    assert d.message == f'{resource} "absent-object" not found'


@pytest.mark.admission
def test_create_in_missing_namespace_is_not_found(cluster: Cluster) -> None:
    d = denial(lambda: cluster.apply(_cm("orphan-cm", namespace="strength-no-such-namespace")))
    assert (d.code, d.reason) == (404, "NotFound"), d
    assert d.message == 'namespaces "strength-no-such-namespace" not found'


# ---------------------------------------------------------------------------------- length limits


def _long(n: int, head: str = "n") -> str:
    return (head + "a" * n)[:n]


@pytest.mark.admission
@pytest.mark.parametrize(("length", "admitted"), [(252, True), (253, True), (254, False)])
def test_object_name_length(cluster: Cluster, length: int, admitted: bool) -> None:
    """A ConfigMap name is a DNS-1123 subdomain: at most 253 characters."""
    name = _long(length)
    if admitted:
        assert cluster.apply(_cm(name))[0]["metadata"]["name"] == name
        return
    d = denial(lambda: cluster.apply(_cm(name)))
    # kube-apiserver's detail is "must be no more than 253 characters"; the cause's field is what
    # every backend agrees on.
    assert _invalid(d, "ConfigMap", name).startswith("metadata.name: Invalid value: ")
    assert cluster.try_get("ConfigMap", name) is None


_LABELS = [
    pytest.param("key", _long(63, "v"), None, id="value-63"),
    pytest.param("key", _long(64, "v"), "must be no more than 63 characters", id="value-64"),
    pytest.param(_long(63, "k"), "v", None, id="name-63"),
    pytest.param(_long(64, "k"), "v", "name part must be no more than 63 characters", id="name-64"),
    pytest.param(_long(253, "p") + "/k", "v", None, id="prefix-253"),
    pytest.param(_long(254, "p") + "/k", "v", "prefix part must be no more than 253 characters", id="prefix-254"),
]


@pytest.mark.admission
@pytest.mark.parametrize(("key", "value", "error"), _LABELS)
def test_label_length_limits(cluster: Cluster, request: pytest.FixtureRequest, key: str, value: str,
                             error: str | None) -> None:
    """Label values and key names at most 63 characters, key prefixes at most 253."""
    name = f"label-{request.node.callspec.id}"
    cm = _cm(name, labels={key: value})
    if error is None:
        assert cluster.apply(cm)[0]["metadata"]["labels"] == {key: value}
        return
    d = denial(lambda: cluster.apply(cm))
    shown = value if "value" in request.node.callspec.id else key
    assert _invalid(d, "ConfigMap", name) == f'metadata.labels: Invalid value: "{shown}": {error}'
    assert cluster.try_get("ConfigMap", name) is None


@pytest.mark.admission
@pytest.mark.parametrize(("size", "admitted"), [(262143, True), (262144, True), (262145, False)])
def test_annotations_total_size(cluster: Cluster, size: int, admitted: bool) -> None:
    """Keys and values of all annotations together: at most 256 KiB. The case counts what the
    stored object already carries (a client may have added its own annotations) and patches one
    annotation that brings the total to ``size``."""
    name = f"annotations-{size}"
    stored = plain(cluster.apply(_cm(name))[0])
    existing = sum(len(k) + len(v) for k, v in (stored["metadata"].get("annotations") or {}).items())
    value = "x" * (size - existing - 1)
    if admitted:
        cluster.patch("ConfigMap", name, {"metadata": {"annotations": {"a": value}}})
        assert cluster.get("ConfigMap", name)["metadata"]["annotations"]["a"] == value
        return
    d = denial(lambda: cluster.patch("ConfigMap", name, {"metadata": {"annotations": {"a": value}}}))
    assert _invalid(d, "ConfigMap", name).startswith("metadata.annotations: Too long: ")
    assert "262144 bytes" in d.message
    assert "a" not in (cluster.get("ConfigMap", name)["metadata"].get("annotations") or {})


@pytest.mark.admission
def test_label_value_characters(cluster: Cluster) -> None:
    """A label value outside the qualified-name alphabet: 422 with Kubernetes' full explanation
    (compared with runs of spaces folded: apimachinery's example list puts two spaces before
    each "or", which is easy to get wrong and not what this case is about)."""
    d = denial(lambda: cluster.apply(_cm("label-chars", labels={"key": "bad value!"})))
    assert " ".join(_invalid(d, "ConfigMap", "label-chars").split()) == (
        'metadata.labels: Invalid value: "bad value!": a valid label must be an empty string or consist of '
        "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'MyValue', or 'my_value', or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


@pytest.mark.admission
@pytest.mark.parametrize(("field", "message"), [
    ("name", "the name of the object (renamed) does not match the name on the URL (named)"),
    ("namespace", "the namespace of the provided object does not match the namespace sent on the request"),
])
def test_patch_cannot_move_an_object(cluster: Cluster, field: str, message: str) -> None:
    """A patch that renames the object or moves it to another namespace: 400 BadRequest."""
    cluster.apply(_cm("named"))
    value = "renamed" if field == "name" else "strength-elsewhere"
    d = denial(lambda: cluster.patch("ConfigMap", "named", {"metadata": {field: value}}))
    assert (d.code, d.reason, d.message) == (400, "BadRequest", message), d
    assert cluster.get("ConfigMap", "named")["metadata"]["name"] == "named"


# ------------------------------------------------------------------------------------- selectors


_SELECTORS = [
    pytest.param("tier=a", ["sel-a"], id="equals"),
    pytest.param("tier==a", ["sel-a"], id="double-equals"),
    pytest.param("tier!=a", ["sel-b", "sel-none"], id="not-equals-includes-unlabelled"),
    pytest.param("tier in (a,b)", ["sel-a", "sel-b"], id="in"),
    pytest.param("tier notin (a)", ["sel-b", "sel-none"], id="notin-includes-unlabelled"),
    pytest.param("tier", ["sel-a", "sel-b"], id="exists"),
    pytest.param("!tier", ["sel-none"], id="does-not-exist"),
    pytest.param("tier,env=prod", ["sel-a"], id="and"),
    pytest.param("tier in (a,b),env!=prod", ["sel-b"], id="in-and-not-equals"),
    pytest.param("env=prod,tier=b", [], id="no-match"),
]


@pytest.mark.admission
@pytest.mark.parametrize(("selector", "expected"), _SELECTORS)
def test_label_selector_operators(cluster: Cluster, selector: str, expected: list[str]) -> None:
    cluster.apply([_cm("sel-a", labels={"tier": "a", "env": "prod"}), _cm("sel-b", labels={"tier": "b"}),
                   _cm("sel-none", labels={"env": "prod"})])
    got = [n for n in cluster.names(cluster.list("ConfigMap", label_selector=selector)) if n.startswith("sel-")]
    assert got == expected


# ----------------------------------------------------------------------------------- merge patch


@pytest.mark.admission
def test_merge_patch_null_deletes_and_lists_replace(cluster: Cluster) -> None:
    """JSON merge patch (RFC 7386): null removes a key, maps merge key by key, lists are replaced whole."""
    cluster.apply(_cm("merge", {"keep": "1", "drop": "2"}, labels={"a": "1", "b": "2"}))
    cluster.patch("ConfigMap", "merge", {"data": {"drop": None, "add": "3"},
                                         "metadata": {"labels": {"b": None, "c": "3"}}})
    cm = plain(cluster.get("ConfigMap", "merge"))
    assert cm["data"] == {"keep": "1", "add": "3"}
    assert cm["metadata"]["labels"] == {"a": "1", "c": "3"}


# ------------------------------------------------------------------------- finalizers and deletion


@pytest.mark.admission
def test_finalizer_holds_deletion(cluster: Cluster) -> None:
    """An object with a finalizer is only marked for deletion; no finalizer may be added then; the
    object goes once its last finalizer is removed."""
    cluster.apply(_cm("held", finalizers=["example.com/a", "example.com/b"]))
    cluster.delete("ConfigMap", "held")
    marked = plain(cluster.get("ConfigMap", "held"))
    assert marked["metadata"]["deletionTimestamp"]
    assert marked["metadata"]["finalizers"] == ["example.com/a", "example.com/b"]
    d = denial(lambda: cluster.patch("ConfigMap", "held",
                                     {"metadata": {"finalizers": ["example.com/a", "example.com/b", "example.com/c"]}}))
    assert _invalid(d, "ConfigMap", "held").startswith(
        "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, "
        "found new finalizers ")
    assert "example.com/c" in d.message
    cluster.patch("ConfigMap", "held", {"metadata": {"finalizers": ["example.com/b"]}})
    assert cluster.get("ConfigMap", "held")["metadata"]["finalizers"] == ["example.com/b"]
    cluster.patch("ConfigMap", "held", {"metadata": {"finalizers": None}})
    cluster.wait_until(lambda: cluster.try_get("ConfigMap", "held") is None, 30, "held configmap removed")


@pytest.mark.admission
@pytest.mark.parametrize("policy", ["Background", "Orphan"])
def test_owner_deletion_propagation(cluster: Cluster, policy: str) -> None:
    """Deleting an owner: Background deletes its dependents; Orphan keeps them and removes the
    owner reference (other owners' references stay)."""
    owner = plain(cluster.apply(_cm("owner"))[0])
    other = plain(cluster.apply(_cm("other-owner"))[0])

    def ref(o: Obj) -> Obj:
        return {"apiVersion": "v1", "kind": "ConfigMap", "name": o["metadata"]["name"], "uid": o["metadata"]["uid"]}

    cluster.apply([_cm("dependent", ownerReferences=[ref(owner)]),
                   _cm("co-owned", ownerReferences=[ref(owner), ref(other)])])
    cluster.delete("ConfigMap", "owner", propagation_policy=policy)
    cluster.wait_until(lambda: cluster.try_get("ConfigMap", "owner") is None, 60, "owner deleted")
    def refs_are(name: str, refs: list[str]) -> bool:
        obj = cluster.try_get("ConfigMap", name)
        return obj is not None and [r["name"] for r in obj["metadata"].get("ownerReferences") or []] == refs

    if policy == "Background":
        cluster.wait_until(lambda: cluster.try_get("ConfigMap", "dependent") is None, 60, "dependent collected")
        # Another owner still exists: kept, with the dangling reference removed.
        cluster.wait_until(lambda: refs_are("co-owned", ["other-owner"]), 60, "co-owned keeps its live owner")
        return
    cluster.wait_until(lambda: refs_are("dependent", []) and refs_are("co-owned", ["other-owner"]), 60,
                       "owner references removed")


# -------------------------------------------------------------------------------------- pod update


def _idle_pod(name: str, **spec: Any) -> Obj:
    """A pod no scheduler binds (its scheduler does not exist), so nothing else writes it."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"schedulerName": "strength-absent-scheduler", "restartPolicy": "Always",
                     "containers": [{"name": "c", "image": "busybox:1.24"}], **spec}}


@pytest.mark.admission
@pytest.mark.parametrize(("new", "error"), [
    pytest.param(3599, None, id="lower"),
    pytest.param(3600, None, id="same"),
    pytest.param(3601, "spec.activeDeadlineSeconds: Invalid value: 3601: must be less than or equal to previous value",
                 id="higher"),
])
def test_pod_active_deadline_may_only_decrease(cluster: Cluster, request: pytest.FixtureRequest, new: int,
                                               error: str | None) -> None:
    name = f"deadline-{request.node.callspec.id}"
    cluster.apply(_idle_pod(name, activeDeadlineSeconds=3600))
    if error is None:
        assert cluster.patch("Pod", name, {"spec": {"activeDeadlineSeconds": new}})["spec"][
            "activeDeadlineSeconds"] == new
        return
    d = denial(lambda: cluster.patch("Pod", name, {"spec": {"activeDeadlineSeconds": new}}))
    assert _invalid(d, "Pod", name) == error
    assert cluster.get("Pod", name)["spec"]["activeDeadlineSeconds"] == 3600


@pytest.mark.admission
def test_pod_update_image_allowed_other_spec_forbidden(cluster: Cluster) -> None:
    cluster.apply(_idle_pod("pod-update"))
    patched = cluster.patch("Pod", "pod-update", {"spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}})
    assert patched["spec"]["containers"][0]["image"] == "busybox:1.36"
    d = denial(lambda: cluster.patch("Pod", "pod-update", {"spec": {"restartPolicy": "Never"}}))
    assert _invalid(d, "Pod", "pod-update").startswith(
        "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`")
    assert cluster.get("Pod", "pod-update")["spec"]["restartPolicy"] == "Always"


@pytest.mark.admission
@pytest.mark.parametrize(("tolerations", "error"), [
    pytest.param([{"key": "a", "operator": "Exists", "effect": "NoSchedule"},
                  {"key": "b", "operator": "Exists", "effect": "NoExecute"}], None, id="added"),
    pytest.param([{"key": "a", "operator": "Exists", "effect": "NoExecute"}],
                 "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds",
                 id="effect-changed"),
])
def test_pod_tolerations_may_only_grow(cluster: Cluster, request: pytest.FixtureRequest, tolerations: list[Obj],
                                       error: str | None) -> None:
    name = f"tolerations-{request.node.callspec.id}"
    cluster.apply(_idle_pod(name, tolerations=[{"key": "a", "operator": "Exists", "effect": "NoSchedule"}]))
    if error is None:
        patched = cluster.patch("Pod", name, {"spec": {"tolerations": tolerations}})
        assert [t["key"] for t in patched["spec"]["tolerations"]] == ["a", "b"]
        return
    d = denial(lambda: cluster.patch("Pod", name, {"spec": {"tolerations": tolerations}}))
    assert _invalid(d, "Pod", name).startswith(error)
    assert cluster.get("Pod", name)["spec"]["tolerations"][0]["effect"] == "NoSchedule"


@pytest.mark.admission
def test_pod_status_subresource(cluster: Cluster) -> None:
    """Status goes through ``/status`` (spec in that patch is ignored); status sent to the pod
    itself is ignored."""
    cluster.apply(_idle_pod("status-pod"))
    condition = {"type": "example.com/Checked", "status": "True"}
    cluster.patch("Pod", "status-pod", {"status": {"conditions": [condition]},
                                        "spec": {"activeDeadlineSeconds": 5}}, subresource="status")
    pod = plain(cluster.get("Pod", "status-pod"))
    assert condition in [{"type": c["type"], "status": c["status"]} for c in pod["status"]["conditions"]]
    assert "activeDeadlineSeconds" not in pod["spec"]
    cluster.patch("Pod", "status-pod", {"status": {"phase": "Failed"}})
    assert cluster.get("Pod", "status-pod")["status"].get("phase") != "Failed"


@pytest.mark.admission
def test_unscheduled_pod_is_deleted_at_once(cluster: Cluster) -> None:
    """A pod no node runs has no kubelet to wait for: DELETE removes it immediately."""
    cluster.apply(_idle_pod("unbound-delete", terminationGracePeriodSeconds=30))
    cluster.delete("Pod", "unbound-delete")
    assert cluster.try_get("Pod", "unbound-delete") is None


@pytest.mark.admission
def test_foreground_deletion_waits_for_dependents(cluster: Cluster) -> None:
    """Foreground: the owner stays (with the foregroundDeletion finalizer) until its blocking
    dependents are gone; a dependent held by its own finalizer holds the owner too."""
    owner = plain(cluster.apply(_cm("fg-owner"))[0])
    ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": "fg-owner", "uid": owner["metadata"]["uid"],
           "blockOwnerDeletion": True}
    cluster.apply(_cm("fg-dependent", ownerReferences=[ref], finalizers=["example.com/hold"]))
    cluster.delete("ConfigMap", "fg-owner", propagation_policy="Foreground")

    def dependent_marked() -> bool:
        dep = cluster.try_get("ConfigMap", "fg-dependent")
        return dep is not None and bool(dep["metadata"].get("deletionTimestamp"))

    cluster.wait_until(dependent_marked, 60, "dependent marked for deletion")
    held = plain(cluster.get("ConfigMap", "fg-owner"))
    assert held["metadata"]["deletionTimestamp"]
    assert held["metadata"]["finalizers"] == ["foregroundDeletion"]
    cluster.patch("ConfigMap", "fg-dependent", {"metadata": {"finalizers": None}})
    cluster.wait_until(lambda: cluster.try_get("ConfigMap", "fg-owner") is None, 60, "owner deleted")
    assert cluster.try_get("ConfigMap", "fg-dependent") is None


# --------------------------------------------------------------------------------- apply, re-apply


def _deployment(containers: list[Obj], strategy: Obj, volumes: list[Obj] | None = None) -> Obj:
    """A Deployment of no replicas (no pods, so only its own controller touches it)."""
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "reapplied"},
            "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "reapplied"}}, "strategy": strategy,
                     "template": {"metadata": {"labels": {"app": "reapplied"}},
                                  "spec": {"containers": containers, "volumes": volumes or []}}}}


def _container(name: str, *env: str) -> Obj:
    return {"name": name, "image": "busybox:1.24", "env": [{"name": e, "value": e.lower()} for e in env]}


def _names(items: list[Obj] | None) -> list[str]:
    return [i["name"] for i in items or []]


@pytest.mark.admission
def test_reapplied_manifest_wins_for_keyed_lists(cluster: Cluster) -> None:
    """Applying a changed manifest leaves exactly the manifest's list items, in its order:
    items dropped from the middle of a keyed list go, reordered items follow the manifest."""
    rolling = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}
    cluster.apply(_deployment([_container("a", "X", "Y", "Z", "V"), _container("b", "X"), _container("c", "X"),
                               _container("d", "X")], rolling))
    cluster.apply(_deployment([_container("a", "X", "Z", "V"), _container("c", "X", "W"), _container("d")], rolling))
    spec = cluster.get("Deployment", "reapplied")["spec"]["template"]["spec"]
    assert _names(spec["containers"]) == ["a", "c", "d"]
    assert [_names(c.get("env")) for c in spec["containers"]] == [["X", "Z", "V"], ["X", "W"], []]
    cluster.apply(_deployment([_container("d"), _container("c", "W", "X"), _container("a", "V", "Z", "X")], rolling))
    spec = cluster.get("Deployment", "reapplied")["spec"]["template"]["spec"]
    assert _names(spec["containers"]) == ["d", "c", "a"]
    assert [_names(c.get("env")) for c in spec["containers"]] == [[], ["W", "X"], ["V", "Z", "X"]]


@pytest.mark.admission
def test_reapplied_one_of_fields_replace_each_other(cluster: Cluster) -> None:
    """Fields that are one of several choices (the rollout strategy's type, a volume's source) switch
    cleanly when a manifest picks another: the old choice's fields go with it."""
    volume = [{"name": "data", "emptyDir": {}}]
    cluster.apply(_deployment([_container("a")], {"type": "RollingUpdate",
                                                  "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}, volume))
    cluster.apply(_deployment([_container("a")], {"type": "Recreate"},
                              [{"name": "data", "configMap": {"name": "some-config"}}]))
    spec = cluster.get("Deployment", "reapplied")["spec"]
    assert spec["strategy"] == {"type": "Recreate"}
    (data,) = spec["template"]["spec"]["volumes"]
    assert data["configMap"]["name"] == "some-config"
    assert "emptyDir" not in data


@pytest.mark.admission
def test_reapplied_manifest_drops_removed_keys(cluster: Cluster) -> None:
    cluster.apply(_cm("reapplied-cm", {"a": "1", "b": "2", "c": "3"}, labels={"x": "1", "y": "2"}))
    cluster.apply(_cm("reapplied-cm", {"a": "1", "c": "4"}, labels={"y": "2"}))
    cm = plain(cluster.get("ConfigMap", "reapplied-cm"))
    assert cm["data"] == {"a": "1", "c": "4"}
    assert cm["metadata"]["labels"] == {"y": "2"}


@pytest.mark.admission
def test_reapplied_custom_resource(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """A re-applied Queue manifest: changed values win, dropped keys go."""
    own_queue(request, cluster, "reapplied-queue")
    cluster.apply(queue_manifest("reapplied-queue", {"weight": 2, "parent": "root",
                                                     "capability": {"cpu": "4", "memory": "8Gi"}}))
    cluster.apply(queue_manifest("reapplied-queue", {"weight": 3, "parent": "root", "capability": {"cpu": "6"}}))
    spec = plain(cluster.get("Queue", "reapplied-queue"))["spec"]
    assert (spec["weight"], spec["capability"]) == (3, {"cpu": "6"})
