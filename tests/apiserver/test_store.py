"""Store semantics: metadata, create/get/list, update, status subresource, merge patch, immutability."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from volcano.api.frozen import thaw
from volcano.api.kinds import kind_for_object
from volcano.apiserver import CONFLICT_MESSAGE, ApiError, ApiServer
from volcano.apiserver.validation import apply_defaults
from volcano.sim import RandomStreams, SimClock

from .conftest import pod

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_create_sets_server_metadata(server: ApiServer, clock: SimClock) -> None:
    clock.run(until_ms=61_500)
    before = int(server.resource_version)
    out = server.create(pod("p1"))
    meta = out["metadata"]
    assert meta["namespace"] == "default"
    assert meta["uid"] and len(meta["uid"]) == 36
    assert meta["resourceVersion"] == str(before + 1)
    assert meta["generation"] == 1
    assert meta["creationTimestamp"] == "2024-01-01T00:01:01Z"
    assert out["status"] == {"phase": "Pending", "qosClass": "BestEffort"}


def test_uids_are_deterministic_per_seed() -> None:
    a = ApiServer(SimClock(), RandomStreams(7)).create(pod("p"))
    b = ApiServer(SimClock(), RandomStreams(7)).create(pod("p"))
    c = ApiServer(SimClock(), RandomStreams(8)).create(pod("p"))
    assert a["metadata"]["uid"] == b["metadata"]["uid"] != c["metadata"]["uid"]


def test_resource_version_is_one_global_counter(server: ApiServer) -> None:
    a = server.create(pod("a"))
    q = server.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "q"},
                       "spec": {"weight": 1}})
    b = server.create(pod("b"))
    rvs = [int(o["metadata"]["resourceVersion"]) for o in (a, q, b)]
    assert rvs == [rvs[0], rvs[0] + 1, rvs[0] + 2]


def test_generate_name(server: ApiServer) -> None:
    out = server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "cm-"}})
    name = out["metadata"]["name"]
    assert name.startswith("cm-") and len(name) == 8
    assert out["metadata"]["generateName"] == "cm-"


def test_cluster_scoped_kind_drops_namespace(server: ApiServer) -> None:
    out = server.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "namespace": "x"}})
    assert "namespace" not in out["metadata"]
    assert server.get("Node", "n1", namespace="whatever") is out


def test_missing_namespace_is_not_found(server: ApiServer) -> None:
    with pytest.raises(ApiError) as err:
        server.create(pod("p", namespace="nope"))
    assert err.value.code == 404 and err.value.message == 'namespaces "nope" not found'
    server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "nope"}})
    assert server.create(pod("p", namespace="nope"))["metadata"]["namespace"] == "nope"


def test_create_namespace_argument(server: ApiServer) -> None:
    assert server.create(pod("p"), namespace="kube-system")["metadata"]["namespace"] == "kube-system"
    with pytest.raises(ApiError) as err:
        server.create(pod("q", namespace="default"), namespace="kube-system")
    assert err.value.code == 400


def test_already_exists_and_not_found(server: ApiServer) -> None:
    server.create(pod("p"))
    with pytest.raises(ApiError) as err:
        server.create(pod("p"))
    assert (err.value.code, err.value.reason, err.value.message) == (409, "AlreadyExists", 'pods "p" already exists')
    with pytest.raises(ApiError) as err:
        server.get("Pod", "missing")
    assert (err.value.code, err.value.reason, err.value.message) == (404, "NotFound", 'pods "missing" not found')
    with pytest.raises(ApiError) as err:
        server.get("PodGroup", "missing")
    assert err.value.message == 'podgroups.scheduling.volcano.sh "missing" not found'


@pytest.mark.parametrize("bad, code, field", [
    ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "Bad_Name"}}, 422, "metadata.name"),
    ({"apiVersion": "v1", "kind": "Pod", "metadata": {}}, 422, "metadata.name"),
    ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": 1}}}, 400, "metadata.labels"),
    ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "ownerReferences": [{"name": "x"}]}}, 422,
     "metadata.ownerReferences.uid: Invalid value: \"\": uid must not be empty"),
    # A JSON null in the list decodes as an empty reference (Go's decoder leaves the zero value).
    ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "ownerReferences": [None]}}, 422,
     "metadata.ownerReferences.apiVersion: Invalid value: \"\": version must not be empty"),
])
def test_malformed_objects_name_the_field(server: ApiServer, bad: dict[str, Any], code: int, field: str) -> None:
    """A value that does not decode is 400 BadRequest, an invalid one 422 Invalid; both name the field."""
    with pytest.raises(ApiError) as err:
        server.create(bad)
    assert err.value.code == code and field in err.value.message


def test_unknown_kind_is_bad_request(server: ApiServer) -> None:
    with pytest.raises(ApiError) as err:
        server.create({"apiVersion": "v9", "kind": "Gizmo", "metadata": {"name": "g"}})
    assert err.value.code == 400 and "Gizmo" in err.value.message
    with pytest.raises(ApiError) as err:
        server.get("gizmos", "g")
    assert err.value.code == 404


def test_list_sorted_with_selectors(server: ApiServer) -> None:
    server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}})
    for ns, name, app in [("default", "z", "web"), ("a", "y", "db"), ("default", "b", "db"), ("a", "c", "web")]:
        server.create({**pod(name, ns), "metadata": {"name": name, "namespace": ns, "labels": {"app": app}}})
    out = server.list("Pod")
    assert out["kind"] == "PodList" and out["apiVersion"] == "v1"
    assert out["metadata"]["resourceVersion"] == server.resource_version
    assert [(o["metadata"]["namespace"], o["metadata"]["name"]) for o in out["items"]] == [
        ("a", "c"), ("a", "y"), ("default", "b"), ("default", "z")]
    assert [o["metadata"]["name"] for o in server.list("pods", "default")["items"]] == ["b", "z"]
    assert [o["metadata"]["name"] for o in server.list("Pod", label_selector="app=db")["items"]] == ["y", "b"]
    server.bind("z", "default", "n1")
    assert [o["metadata"]["name"] for o in server.list("Pod", field_selector="spec.nodeName=n1")["items"]] == ["z"]
    assert [o["metadata"]["name"] for o in
            server.list("Pod", label_selector="app in (web)", field_selector="metadata.namespace=a")["items"]] == ["c"]
    with pytest.raises(ApiError) as err:
        server.list("Pod", label_selector="app in (")
    assert err.value.code == 400


def test_everything_returned_is_frozen(server: ApiServer) -> None:
    created = server.create(pod("p"))
    with pytest.raises(TypeError):
        created["metadata"]["name"] = "x"
    got = server.get("Pod", "p")
    with pytest.raises(TypeError):
        got["spec"]["containers"].append({})
    listing = server.list("Pod")
    with pytest.raises(TypeError):
        listing["items"][0]["status"]["phase"] = "Running"
    with pytest.raises(TypeError):
        listing["items"].append({})


def test_input_is_copied_not_retained(server: ApiServer) -> None:
    manifest = pod("p")
    snapshot = copy.deepcopy(manifest)
    server.create(manifest)
    assert manifest == snapshot  # the caller's dict was not modified
    manifest["spec"]["containers"][0]["image"] = "changed"
    assert server.get("Pod", "p")["spec"]["containers"][0]["image"] == "busybox"


def _strip_server_fields(obj: Any) -> dict[str, Any]:
    out = thaw(obj)
    for field in ("uid", "resourceVersion", "generation", "creationTimestamp"):
        out["metadata"].pop(field, None)
    return out


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.yaml")), ids=lambda p: p.name)
def test_fixture_manifests_round_trip(server: ApiServer, path: Path) -> None:
    for doc in yaml.safe_load_all(path.read_text()):
        if not doc:
            continue
        stored = server.create(copy.deepcopy(doc))
        expected = copy.deepcopy(doc)
        for field in ("uid", "resourceVersion", "generation", "creationTimestamp"):
            expected["metadata"].pop(field, None)
        expected["metadata"].setdefault("namespace", "default")
        apply_defaults(kind_for_object(expected), expected)  # the CRD's structural defaults
        assert _strip_server_fields(stored) == expected
        assert server.get(doc["kind"] + "." + doc["apiVersion"].split("/")[0], doc["metadata"]["name"]) is stored


def test_update_optimistic_concurrency(server: ApiServer) -> None:
    first = server.create(pod("p"))
    edit = thaw(first)
    edit["metadata"]["labels"] = {"a": "b"}
    second = server.update(edit)
    assert second["metadata"]["labels"] == {"a": "b"}
    assert int(second["metadata"]["resourceVersion"]) > int(first["metadata"]["resourceVersion"])
    stale = thaw(first)
    stale["metadata"]["labels"] = {"c": "d"}
    with pytest.raises(ApiError) as err:
        server.update(stale)
    assert err.value.code == 409 and err.value.reason == "Conflict"
    assert err.value.message == f'Operation cannot be fulfilled on pods "p": {CONFLICT_MESSAGE}'
    del stale["metadata"]["resourceVersion"]
    assert server.update(stale)["metadata"]["labels"] == {"c": "d"}  # unconditional
    stale["metadata"]["resourceVersion"] = ""
    stale["metadata"]["labels"] = {"e": "f"}
    assert server.update(stale)["metadata"]["labels"] == {"e": "f"}


def test_update_missing_is_not_found(server: ApiServer) -> None:
    with pytest.raises(ApiError) as err:
        server.update(pod("ghost"))
    assert err.value.code == 404


def test_noop_update_does_not_bump(server: ApiServer) -> None:
    first = server.create(pod("p"))
    again = server.update(thaw(first))
    assert again is first


def test_generation_tracks_spec_only(server: ApiServer) -> None:
    job = server.create({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "j"},
                         "spec": {"minAvailable": 1, "tasks": []}})
    edit = thaw(job)
    edit["metadata"]["labels"] = {"x": "y"}
    job = server.update(edit)
    assert job["metadata"]["generation"] == 1
    edit = thaw(job)
    edit["status"] = {"state": {"phase": "Running"}}
    job = server.update_status(edit)
    assert job["metadata"]["generation"] == 1 and job["status"]["state"]["phase"] == "Running"
    edit = thaw(job)
    edit["spec"]["minAvailable"] = 2
    job = server.update(edit)
    assert job["metadata"]["generation"] == 2


def test_status_subresource_rules(server: ApiServer) -> None:
    # A CRD with a status subresource drops status on create.
    q = server.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "q"},
                       "spec": {"weight": 1}, "status": {"state": "Open"}})
    assert "status" not in q
    q = server.update_status({**thaw(q), "status": {"state": "Open"}})
    assert q["status"] == {"state": "Open"}
    # update ignores status; update_status ignores everything else.
    edit = thaw(q)
    edit["status"] = {"state": "Closed"}
    edit["spec"]["weight"] = 5
    q = server.update(edit)
    assert q["status"] == {"state": "Open"} and q["spec"]["weight"] == 5
    edit = thaw(q)
    edit["status"] = {"state": "Closed"}
    edit["spec"]["weight"] = 9
    edit["metadata"]["labels"] = {"ignored": "yes"}
    q = server.update_status(edit)
    assert q["status"] == {"state": "Closed"} and q["spec"]["weight"] == 5 and "labels" not in q["metadata"]


def test_podgroup_has_no_status_subresource(server: ApiServer) -> None:
    pg = server.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                        "metadata": {"name": "pg"}, "spec": {"minMember": 1}, "status": {"phase": "Pending"}})
    assert pg["status"] == {"phase": "Pending"}
    edit = thaw(pg)
    edit["status"]["phase"] = "Inqueue"
    pg = server.update(edit)
    assert pg["status"]["phase"] == "Inqueue"
    assert pg["metadata"]["generation"] == 2  # without a status subresource, status is part of the object
    for write in (lambda: server.update_status({**thaw(pg), "status": {"phase": "Running"}}),
                  lambda: server.patch("PodGroup", "pg", {"status": {"phase": "Running"}}, subresource="status")):
        with pytest.raises(ApiError) as err:
            write()
        assert (err.value.code, err.value.reason) == (404, "NotFound")
        assert err.value.message == 'podgroups.scheduling.volcano.sh "pg" not found'
    assert server.get("PodGroup", "pg")["status"]["phase"] == "Inqueue"


def test_builtin_kind_without_status_subresource_has_no_status_path(server: ApiServer) -> None:
    server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}})
    with pytest.raises(ApiError) as err:
        server.patch("ConfigMap", "cm", {"status": {"x": 1}}, subresource="status")
    assert err.value.code == 404 and err.value.message == "the server could not find the requested resource"


def test_pod_update_keeps_status(server: ApiServer) -> None:
    p = server.create(pod("p"))
    edit = thaw(p)
    edit["status"]["phase"] = "Running"
    assert server.update(edit)["status"]["phase"] == "Pending"
    assert server.update_status(edit)["status"]["phase"] == "Running"


def test_update_cannot_change_server_fields(server: ApiServer) -> None:
    p = server.create(pod("p"))
    edit = thaw(p)
    edit["metadata"]["creationTimestamp"] = "1999-01-01T00:00:00Z"
    edit["metadata"]["labels"] = {"a": "b"}
    out = server.update(edit)
    assert out["metadata"]["uid"] == p["metadata"]["uid"]
    assert out["metadata"]["creationTimestamp"] == p["metadata"]["creationTimestamp"]
    # a uid in the object is a precondition: another object's uid is a 409 Conflict, nothing stored
    forged = thaw(out)
    forged["metadata"]["uid"] = "forged"
    with pytest.raises(ApiError) as err:
        server.update(forged)
    assert err.value.code == 409
    assert "Precondition failed: UID in precondition: forged, UID in object meta: " in err.value.message
    assert server.get("Pod", "p") is out


def test_merge_patch(server: ApiServer) -> None:
    server.create({**pod("p"), "metadata": {"name": "p", "labels": {"a": "1", "b": "2"}}})
    out = server.patch("Pod", "p", {"metadata": {"labels": {"a": None, "c": "3"}}, "status": {"phase": "Running"}})
    assert out["metadata"]["labels"] == {"b": "2", "c": "3"}
    assert out["status"]["phase"] == "Pending"  # status ignored on the main resource
    out = server.patch("Pod", "p", {"status": {"phase": "Running", "podIP": "10.0.0.1"}}, subresource="status")
    assert out["status"] == {"phase": "Running", "podIP": "10.0.0.1", "qosClass": "BestEffort"}
    assert out["metadata"]["labels"] == {"b": "2", "c": "3"}
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", {"metadata": {"resourceVersion": "1"}})
    assert err.value.reason == "Conflict"
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "nope", {})
    assert err.value.code == 404
    with pytest.raises(ApiError) as err:
        server.patch("Pod", "p", {}, subresource="scale")
    assert err.value.code == 400


def test_bootstrap_objects(server: ApiServer) -> None:
    names = [o["metadata"]["name"] for o in server.list("Namespace")["items"]]
    assert names == ["default", "kube-node-lease", "kube-public", "kube-system"]
    assert server.get("PriorityClass", "system-cluster-critical")["value"] == 2000000000
    empty = ApiServer(SimClock(), RandomStreams(0), bootstrap=False)
    assert empty.list("Namespace")["items"] == []


def test_timestamp(server: ApiServer, clock: SimClock) -> None:
    assert server.timestamp(0) == "2024-01-01T00:00:00Z"
    assert server.timestamp(3_661_999) == "2024-01-01T01:01:01Z"
    clock.run(until_ms=86_400_000)
    assert server.timestamp() == "2024-01-02T00:00:00Z" and server.now_ms == 86_400_000
