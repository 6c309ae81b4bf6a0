"""The REST surface over loopback: discovery, CRUD, subresources, errors (paused clock: deterministic)."""

from __future__ import annotations

import json

import pytest

from tests.httpapi.helpers import Http, job, pod
from volcano.serve import ServedCluster

pytestmark = pytest.mark.kube_api(speed=0, nodes=2)

JOBS = "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
PODS = "/api/v1/namespaces/default/pods"
PGS = "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups"


# -- discovery -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/version", "/version/"])
def test_version_is_1_32(http: Http, path: str) -> None:
    status, body = http.json("GET", path)
    assert status == 200 and (body["major"], body["minor"]) == ("1", "32")


def test_health_endpoints(http: Http) -> None:
    for path in ("/healthz", "/livez", "/readyz", "/readyz/"):
        status, _h, body = http.request("GET", path)
        assert (status, body) == (200, b"ok")


def test_legacy_discovery_lists_groups_with_preferred_version(http: Http) -> None:
    status, body = http.json("GET", "/apis")
    groups = {g["name"]: g for g in body["groups"]}
    assert status == 200
    assert groups["batch.volcano.sh"]["preferredVersion"] == {"groupVersion": "batch.volcano.sh/v1alpha1",
                                                              "version": "v1alpha1"}
    assert set(groups) >= {"apps", "scheduling.volcano.sh", "batch.volcano.sh", "scheduling.k8s.io"}


def test_resource_lists_carry_short_names_verbs_and_subresources(http: Http) -> None:
    _s, core = http.json("GET", "/api/v1")
    by_name = {r["name"]: r for r in core["resources"]}
    assert core["groupVersion"] == "v1"
    assert by_name["pods"]["shortNames"] == ["po"] and "watch" in by_name["pods"]["verbs"]
    assert by_name["pods/binding"]["verbs"] == ["create"] and "shortNames" not in by_name["pods/status"]
    _s, sched = http.json("GET", "/apis/scheduling.volcano.sh/v1beta1")
    names = {r["name"]: r for r in sched["resources"]}
    assert names["podgroups"]["shortNames"] == ["pg", "podgroup-v1beta1"]
    assert "podgroups/status" not in names  # the PodGroup CRD has no status subresource
    assert names["queues"]["namespaced"] is False and "queues/status" in names


def test_aggregated_discovery_answers_with_its_content_type(http: Http) -> None:
    accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
    status, headers, payload = http.request("GET", "/apis", headers={"Accept": accept})
    body = json.loads(payload)
    assert status == 200 and "as=APIGroupDiscoveryList" in headers["content-type"]
    assert body["kind"] == "APIGroupDiscoveryList"
    vc = next(i for i in body["items"] if i["metadata"]["name"] == "batch.volcano.sh")
    jobs = vc["versions"][0]["resources"][0]
    assert jobs["resource"] == "jobs" and jobs["shortNames"] == ["vcjob", "vj"]
    _s, plain_headers, _b = http.request("GET", "/apis")
    assert plain_headers["content-type"] == "application/json"


def test_openapi_v3_declares_field_validation_on_patch(http: Http) -> None:
    _s, root = http.json("GET", "/openapi/v3")
    url = root["paths"]["apis/batch.volcano.sh/v1alpha1"]["serverRelativeURL"]
    status, doc = http.json("GET", url)
    op = doc["paths"]["/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs/{name}"]["patch"]
    assert status == 200 and op["x-kubernetes-group-version-kind"]["kind"] == "Job"
    assert {"name": "fieldValidation", "in": "query"}.items() <= op["parameters"][0].items()
    assert http.json("GET", "/openapi/v2")[0] == 404


# -- CRUD ----------------------------------------------------------------------------------------------
def test_create_get_list_update_delete_a_custom_resource(http: Http) -> None:
    status, created = http.json("POST", JOBS, job("j1"))
    assert status == 201 and created["metadata"]["uid"] and created["metadata"]["resourceVersion"]
    status, got = http.json("GET", f"{JOBS}/j1")
    assert status == 200 and got["metadata"]["uid"] == created["metadata"]["uid"]
    status, listed = http.json("GET", JOBS)
    assert listed["kind"] == "JobList" and listed["apiVersion"] == "batch.volcano.sh/v1alpha1"
    assert [j["metadata"]["name"] for j in listed["items"]] == ["j1"]
    stale = dict(got, metadata={**got["metadata"], "resourceVersion": "1"})
    status, err = http.json("PUT", f"{JOBS}/j1", stale)
    assert status == 409 and err["reason"] == "Conflict"
    status, deleted = http.json("DELETE", f"{JOBS}/j1", {"propagationPolicy": "Background"})
    assert status == 200 and deleted["kind"] == "Status" and deleted["status"] == "Success"
    assert deleted["details"] == {"name": "j1", "kind": "jobs", "group": "batch.volcano.sh",
                                  "uid": created["metadata"]["uid"]}
    assert http.json("GET", f"{JOBS}/j1")[0] == 404


def test_delete_of_a_pod_returns_the_pod(http: Http) -> None:
    http.json("POST", PODS, pod("p1"))
    status, body = http.json("DELETE", f"{PODS}/p1")
    assert status == 200 and body["kind"] == "Pod" and body["metadata"]["name"] == "p1"


def test_create_in_a_missing_namespace_is_404_namespaces(http: Http) -> None:
    status, err = http.json("POST", "/api/v1/namespaces/nons/pods", pod("p"))
    assert status == 404 and err["message"] == 'namespaces "nons" not found'
    assert err["details"] == {"name": "nons", "kind": "namespaces"}


def test_already_exists_is_409(http: Http) -> None:
    http.json("POST", PODS, pod("p1"))
    status, err = http.json("POST", PODS, pod("p1"))
    assert (status, err["reason"], err["message"]) == (409, "AlreadyExists", 'pods "p1" already exists')


def test_label_and_field_selectors_and_pages(http: Http) -> None:
    for i in range(5):
        http.json("POST", PODS, pod(f"p{i}", app="a" if i % 2 else "b"))
    _s, sel = http.json("GET", f"{PODS}?labelSelector=app%3Da")
    assert [p["metadata"]["name"] for p in sel["items"]] == ["p1", "p3"]
    _s, by_name = http.json("GET", f"{PODS}?fieldSelector=metadata.name%3Dp2")
    assert [p["metadata"]["name"] for p in by_name["items"]] == ["p2"]
    _s, first = http.json("GET", f"{PODS}?limit=2")
    assert [p["metadata"]["name"] for p in first["items"]] == ["p0", "p1"]
    assert first["metadata"]["remainingItemCount"] == 3
    seen = [p["metadata"]["name"] for p in first["items"]]
    token = first["metadata"]["continue"]
    while token:
        _s, page = http.json("GET", f"{PODS}?limit=2&continue={token}")
        assert page["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
        seen += [p["metadata"]["name"] for p in page["items"]]
        token = page["metadata"].get("continue")
    assert seen == [f"p{i}" for i in range(5)]
    assert http.json("GET", f"{PODS}?limit=2&continue=garbage")[0] == 400


def test_dry_run_create_and_delete_store_nothing(http: Http, kube_api: ServedCluster) -> None:
    rv = kube_api.call(lambda: kube_api.server.resource_version)
    status, body = http.json("POST", f"{PODS}?dryRun=All", pod("dry"))
    assert status == 201 and body["metadata"]["name"] == "dry"
    assert http.json("GET", f"{PODS}/dry")[0] == 404
    http.json("POST", PODS, pod("real"))
    status, _b = http.json("DELETE", f"{PODS}/real?dryRun=All")
    assert status == 200 and http.json("GET", f"{PODS}/real")[0] == 200
    assert kube_api.call(lambda: kube_api.server.resource_version) == str(int(rv) + 1)
    assert http.json("POST", f"{PODS}?dryRun=Some", pod("x"))[0] == 400


def test_deletecollection_by_label(http: Http) -> None:
    for i in range(3):
        http.json("POST", PODS, pod(f"p{i}", app="x" if i < 2 else "y"))
    status, body = http.json("DELETE", f"{PODS}?labelSelector=app%3Dx")
    assert status == 200 and body["kind"] == "PodList" and len(body["items"]) == 2
    _s, left = http.json("GET", PODS)
    assert [p["metadata"]["name"] for p in left["items"]] == ["p2"]


def test_merge_patch_and_status_subresources(http: Http) -> None:
    http.json("POST", PODS, pod("p1"))
    status, patched = http.json("PATCH", f"{PODS}/p1", {"metadata": {"labels": {"extra": "1"}}},
                                headers={"Content-Type": "application/merge-patch+json"})
    assert status == 200 and patched["metadata"]["labels"]["extra"] == "1"
    status, _b = http.json("PATCH", f"{PODS}/p1/status", {"status": {"message": "hi"}},
                           headers={"Content-Type": "application/merge-patch+json"})
    assert status == 200
    http.json("POST", PGS, {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                            "metadata": {"name": "pg1"}, "spec": {"minMember": 1}})
    assert http.json("GET", f"{PGS}/pg1/status")[0] == 404  # no status subresource on PodGroup
    assert http.json("GET", f"{PGS}/pg1")[0] == 200


def test_binding_answers_201_status_and_binds(http: Http) -> None:
    http.json("POST", PODS, dict(pod("p1"), spec={"schedulerName": "none",
                                                 "containers": [{"name": "c", "image": "x"}]}))
    body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p1"},
            "target": {"apiVersion": "v1", "kind": "Node", "name": "node-0"}}
    status, reply = http.json("POST", f"{PODS}/p1/binding", body)
    assert (status, reply["kind"], reply["status"], reply["code"]) == (201, "Status", "Success", 201)
    assert http.json("GET", f"{PODS}/p1")[1]["spec"]["nodeName"] == "node-0"
    assert http.json("POST", f"{PODS}/p1/binding", body)[0] == 409


# -- tables --------------------------------------------------------------------------------------------
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"


def test_table_of_jobs_has_the_crd_printer_columns(http: Http) -> None:
    http.json("POST", JOBS, job("j1"))
    status, table = http.json("GET", JOBS, headers={"Accept": TABLE})
    assert status == 200 and table["kind"] == "Table"
    names = [(c["name"], c["priority"]) for c in table["columnDefinitions"]]
    assert names == [("Name", 0), ("STATUS", 0), ("minAvailable", 0), ("RUNNINGS", 0), ("AGE", 0), ("QUEUE", 1)]
    row = table["rows"][0]
    assert row["cells"][0] == "j1" and row["cells"][4] == "0s" and row["cells"][5] == "default"
    assert row["object"]["kind"] == "PartialObjectMetadata" and row["object"]["metadata"]["name"] == "j1"


def test_single_get_as_table_is_one_row(http: Http) -> None:
    http.json("POST", PODS, pod("p1"))
    _s, table = http.json("GET", f"{PODS}/p1", headers={"Accept": TABLE})
    assert [c["name"] for c in table["columnDefinitions"]][:5] == ["Name", "Ready", "Status", "Restarts", "Age"]
    assert table["rows"][0]["cells"][:4] == ["p1", "0/1", "Pending", "0"]


# -- errors --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("method", "path", "body", "ctype", "code", "reason"), [
    ("POST", PODS, b"{not json", "application/json", 400, "BadRequest"),
    ("POST", PODS, b"- a\n  b: [", "application/yaml", 400, "BadRequest"),
    ("POST", PODS, b"[1, 2]", "application/json", 400, "BadRequest"),
    ("GET", "/api/v1/namespaces/default/widgets", None, None, 404, "NotFound"),
    ("GET", "/nothing/here", None, None, 404, "NotFound"),
    ("POST", f"{PODS}/p1", b"{}", "application/json", 405, "MethodNotAllowed"),
    ("PUT", "/version", b"{}", "application/json", 405, "MethodNotAllowed"),
    ("PATCH", f"{PODS}/p1", b"{}", "text/plain", 415, "UnsupportedMediaType"),
])
def test_errors_are_status_bodies(http: Http, method: str, path: str, body: bytes | None, ctype: str | None,
                                  code: int, reason: str) -> None:
    http.json("POST", PODS, pod("p1"))
    headers = {"Content-Type": ctype} if ctype else {}
    status, hdrs, payload = http.request(method, path, body, headers)
    err = json.loads(payload)
    assert status == code and hdrs["content-type"] == "application/json"
    assert (err["kind"], err["status"], err["reason"], err["code"]) == ("Status", "Failure", reason, code)
    assert "Traceback" not in payload.decode()


def test_body_over_3_mib_is_413_and_the_server_keeps_serving(http: Http, kube_api: ServedCluster) -> None:
    big = b'{"a": "' + b"x" * (3 * 1024 * 1024) + b'"}'
    status, _h, payload = http.request("POST", PODS, big, {"Content-Type": "application/json"})
    assert status == 413 and json.loads(payload)["reason"] == "RequestEntityTooLarge"
    fresh = Http(kube_api.url)
    assert fresh.json("GET", "/version")[0] == 200
    fresh.close()


@pytest.mark.kube_api(speed=0, nodes=0, token="s3cret")
def test_token_is_required_on_every_request(kube_api: ServedCluster) -> None:
    client = Http(kube_api.url)
    status, err = client.json("GET", PODS)
    assert status == 401 and err["reason"] == "Unauthorized"
    assert client.json("GET", PODS, headers={"Authorization": "Bearer wrong"})[0] == 401
    assert client.json("GET", PODS, headers={"Authorization": "Bearer s3cret"})[0] == 200
    assert client.json("GET", "/version")[0] == 200  # public, as on a real cluster
    client.close()


def test_node_table_has_status_roles_age_version(http: Http) -> None:
    _s, table = http.json("GET", "/api/v1/nodes", headers={"Accept": TABLE})
    wanted = [(c["name"], c["priority"]) for c in table["columnDefinitions"]][:5]
    assert wanted == [("Name", 0), ("Status", 0), ("Roles", 0), ("Age", 0), ("Version", 0)]
    assert table["rows"][0]["cells"][:5] == ["node-0", "Ready", "<none>", "0s", "v1.32.0"]


def test_log_follow_streams_until_the_container_exits(http: Http, kube_api: ServedCluster) -> None:
    body = pod("worker")
    body["metadata"]["annotations"] = {"sim.volcano.sh/duration": "5s"}
    http.json("POST", PODS, body)
    kube_api.run_until(lambda c: c.get("Pod", "worker")["status"]["phase"] == "Running", timeout=30)
    conn = Http(kube_api.url).conn
    conn.request("GET", f"{PODS}/worker/log?follow=true")
    resp = conn.getresponse()
    assert resp.status == 200
    first = resp.readline().decode()
    assert "container c (busybox) started on node" in first and "simulated work 5s" in first
    kube_api.run(10)  # the work ends: the exit line arrives and the stream ends
    rest = resp.read().decode()
    assert rest == "volcano-sim: container c exited with code 0 (Completed)\n"
    conn.close()


def test_claim_table_has_kube_apiservers_columns(http: Http) -> None:
    claims = "/api/v1/namespaces/default/persistentvolumeclaims"
    base = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    http.json("POST", claims, {**base, "metadata": {"name": "plain"}})
    annotated = {**base, "metadata": {"name": "annotated",
                                      "annotations": {"volume.beta.kubernetes.io/storage-class": "fast"}}}
    http.json("POST", claims, annotated)
    _s, table = http.json("GET", claims, headers={"Accept": TABLE})
    assert [(c["name"], c["priority"]) for c in table["columnDefinitions"]] == [
        ("Name", 0), ("Status", 0), ("Volume", 0), ("Capacity", 0), ("Access Modes", 0), ("StorageClass", 0),
        ("VolumeAttributesClass", 0), ("Age", 0), ("VolumeMode", 1)]
    rows = {r["cells"][0]: r["cells"] for r in table["rows"]}
    # unbound: no capacity or access modes yet; the defaulted volume mode; the annotation names the class
    assert rows["plain"] == ["plain", "Pending", "", "", "", "", "<unset>", "0s", "Filesystem"]
    assert rows["annotated"][5] == "fast"
