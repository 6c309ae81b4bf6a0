"""Pure parts of the HTTP front end: routes, ages, table cells, paging, pod logs, scale, params."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.api.kinds import resolve_kind
from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.paging import decode_continue, encode_continue, paginate
from volcano.apiserver.podlog import pod_log
from volcano.apiserver.scale import get_scale, patch_scale
from volcano.httpapi.params import DeleteOptions, Query
from volcano.httpapi.routes import Router
from volcano.httpapi.tables import _pod_status, human_duration, to_table
from volcano.sim import RandomStreams, SimClock


@pytest.mark.parametrize(("path", "expected"), [
    ("/api/v1/pods", ("Pod", None, None, None)),
    ("/api/v1/namespaces/ns1/pods/p/", ("Pod", "ns1", "p", None)),
    ("/api/v1/namespaces/ns1/pods/p/binding", ("Pod", "ns1", "p", "binding")),
    ("/api/v1/namespaces/ns1", ("Namespace", None, "ns1", None)),
    ("/api/v1/namespaces/ns1/finalize", ("Namespace", None, "ns1", "finalize")),
    ("/api/v1/nodes/n1/status", ("Node", None, "n1", "status")),
    ("/apis/batch.volcano.sh/v1alpha1/namespaces/d/jobs/j", ("Job.batch.volcano.sh", "d", "j", None)),
    ("/apis/batch/v1/namespaces/d/jobs", ("Job.batch", "d", None, None)),
    ("/apis/scheduling.volcano.sh/v1beta1/queues/q/status", ("Queue.scheduling.volcano.sh", None, "q", "status")),
    ("/apis/apps/v1/namespaces/d/deployments/x/scale", ("Deployment.apps", "d", "x", "scale")),
])
def test_routes_come_from_the_kind_table(path: str, expected: tuple[Any, ...]) -> None:
    target = Router().match(path)
    assert target is not None
    assert (target.info.key, target.namespace, target.name, target.subresource) == expected


@pytest.mark.parametrize("path", [
    "/apis/scheduling.volcano.sh/v1beta1/namespaces/d/podgroups/pg/status",  # the CRD has no status subresource
    "/api/v1/pods/p",  # a namespaced item needs its namespace
    "/api/v1/namespaces/d/nodes",  # a cluster-scoped kind inside a namespace
    "/api/v1/namespaces/d/pods/p/exec", "/api/v2/pods", "/apis/nope/v1/things", "/api", "/",
])
def test_unknown_paths_match_nothing(path: str) -> None:
    assert Router().match(path) is None


@pytest.mark.parametrize(("seconds", "text"), [
    (0, "0s"), (45, "45s"), (119, "119s"), (150, "2m30s"), (600, "10m"), (10799, "179m"), (10800, "3h"),
    (28799, "7h59m"), (28800, "8h"), (172799, "47h"), (172800, "2d"), (691201, "8d"), (63072001, "2y"),
    (252460800, "8y"), (-1, "0s"), (-5, "<invalid>"),
])
def test_ages_read_as_kubectl_prints_them(seconds: int, text: str) -> None:
    assert human_duration(seconds) == text


def _pod(phase: str = "Running", **status: Any) -> dict[str, Any]:
    return {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}, "status": {"phase": phase, **status}}


def test_pod_status_cell_follows_container_states() -> None:
    assert _pod_status(_pod("Pending")) == "Pending"
    waiting = _pod("Pending", containerStatuses=[{"state": {"waiting": {"reason": "ContainerCreating"}}}])
    assert _pod_status(waiting) == "ContainerCreating"
    done = _pod("Succeeded", containerStatuses=[{"state": {"terminated": {"reason": "Completed", "exitCode": 0}}}])
    assert _pod_status(done) == "Completed"
    code = _pod("Failed", containerStatuses=[{"state": {"terminated": {"exitCode": 3}}}])
    assert _pod_status(code) == "ExitCode:3"
    deleting = _pod()
    deleting["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    assert _pod_status(deleting) == "Terminating"


def test_queue_table_has_name_and_parent_only() -> None:
    clock = SimClock()
    table = to_table(resolve_kind("Queue"), [{"metadata": {"name": "q1"}, "spec": {"parent": "root"}}], clock)
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "PARENT"]
    assert table["rows"][0]["cells"] == ["q1", "root"]


def test_continue_tokens_round_trip_and_pages_cover_everything() -> None:
    assert decode_continue(encode_continue(42, ("ns", "b"))) == (42, ("ns", "b"))
    with pytest.raises(ApiError) as err:
        decode_continue("not-a-token")
    assert err.value.code == 400
    objs = [{"metadata": {"namespace": "ns", "name": f"o{i}"}} for i in range(7)]
    seen, token = [], None
    while True:
        page = paginate(objs, 9, limit=3, continue_=token, filtered=False)
        seen += [o["metadata"]["name"] for o in page.items]
        token = page.metadata.get("continue")
        if token is None:
            break
        assert page.metadata["resourceVersion"] == "9"
    assert seen == [f"o{i}" for i in range(7)]


def test_pod_log_lines_follow_the_lifecycle() -> None:
    clock = SimClock()
    pod = {"metadata": {"name": "p", "annotations": {"sim.volcano.sh/duration": "30s"}},
           "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "img"}]},
           "status": {"containerStatuses": [{"name": "c", "state": {"terminated": {
               "startedAt": clock.timestamp(1000), "finishedAt": clock.timestamp(31000), "exitCode": 0,
               "reason": "Completed"}}}]}}
    clock.run(40_000)
    text = pod_log(pod, clock)
    assert text.splitlines() == [
        "volcano-sim: container c (img) started on node n1: simulated work 30s (progress: alone)",
        "volcano-sim: container c exited with code 0 (Completed)"]
    assert pod_log(pod, clock, tail_lines=1).count("\n") == 1
    assert pod_log(pod, clock, timestamps=True).startswith("2024-01-01T00:00:01.000000000Z volcano-sim")
    with pytest.raises(ApiError, match="previous terminated container"):
        pod_log(pod, clock, previous=True)
    with pytest.raises(ApiError, match="is not valid for pod p"):
        pod_log(pod, clock, container="x")
    unscheduled = {"metadata": {"name": "u"}, "spec": {"containers": [{"name": "c"}]}, "status": {}}
    assert pod_log(unscheduled, clock) == ""


def test_scale_reads_and_writes_spec_replicas() -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    server.create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                   "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                            "template": {"metadata": {"labels": {"app": "web"}},
                                         "spec": {"containers": [{"name": "c", "image": "x"}]}}}})
    scale = get_scale(server, "Deployment", "web", "default")
    assert scale["spec"] == {"replicas": 1} and scale["status"]["selector"] == "app=web"
    assert patch_scale(server, "Deployment", "web", "default", {"spec": {"replicas": 4}})["spec"]["replicas"] == 4
    assert server.get("Deployment", "web", "default")["spec"]["replicas"] == 4
    with pytest.raises(ApiError) as err:
        patch_scale(server, "Deployment", "web", "default", {"spec": {"replicas": -1}})
    assert err.value.code == 422
    with pytest.raises(ApiError) as missing:
        get_scale(server, "Pod", "x", "default")
    assert missing.value.code == 404


def test_delete_options_from_body_and_query() -> None:
    opts = DeleteOptions.read(Query({"gracePeriodSeconds": "5"}), {"propagationPolicy": "Foreground"})
    assert (opts.grace_period_seconds, opts.propagation_policy, opts.dry_run) == (5, "Foreground", False)
    assert DeleteOptions.read(Query({}), {"orphanDependents": True}).propagation_policy == "Orphan"
    assert DeleteOptions.read(Query({"dryRun": "All"}), None).dry_run
    for bad in ({"propagationPolicy": "Sideways"}, {"gracePeriodSeconds": "x"}, {"dryRun": ["Some"]}, [1]):
        with pytest.raises(ApiError):
            DeleteOptions.read(Query({}), bad)
    with pytest.raises(ApiError) as err:
        Query({"limit": "-3"}).integer("limit")
    assert err.value.code == 400 and "limit" in err.value.message


def test_a_bound_claims_row_shows_its_volumes_capacity_and_modes() -> None:
    from volcano.httpapi.tables import to_table
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": "data", "namespace": "default", "creationTimestamp": "1970-01-01T00:00:00Z",
                          "deletionTimestamp": "1970-01-01T00:00:00Z"},
             "spec": {"accessModes": ["ReadWriteOnce"], "volumeName": "pv-1", "storageClassName": "standard",
                      "volumeAttributesClassName": "", "resources": {"requests": {"storage": "1Gi"}}},
             "status": {"phase": "Bound", "capacity": {"storage": "2Gi"},
                        "accessModes": ["ReadWriteOncePod", "ReadWriteOnce", "ReadOnlyMany"]}}
    table = to_table(resolve_kind("PersistentVolumeClaim"), [claim], SimClock())
    # kube-apiserver's printer: Terminating while deleted, the bound volume's capacity (not the request)
    # and its access modes in the fixed RWO, ROX, RWX, RWOP order; an empty attributes class is "", not <unset>
    cells = table["rows"][0]["cells"]
    assert cells[:7] + cells[8:] == ["data", "Terminating", "pv-1", "2Gi", "RWO,ROX,RWOP", "standard", "", "<unset>"]
