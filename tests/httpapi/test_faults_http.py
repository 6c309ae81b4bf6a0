"""Faults over HTTP (``volcano serve --fault-*``): the official ``kubernetes`` client sees failed writes as
Status bodies of their codes and dropped watches, and Volcano jobs still complete, each exactly once."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from volcano.apiserver.faults import FaultPlan
from volcano.serve import ServedCluster

kubernetes = pytest.importorskip("kubernetes", reason="the official client tests need the 'kubernetes' package")
from kubernetes import client, config, watch  # noqa: E402
from kubernetes.client.exceptions import ApiException  # noqa: E402

GROUP, VERSION = "batch.volcano.sh", "v1alpha1"
REASONS = {409: "Conflict", 429: "TooManyRequests", 500: "InternalError", 504: "Timeout"}
T = TypeVar("T")


def _api(served: ServedCluster) -> client.ApiClient:
    return config.new_client_from_config(config_file=str(served.kubeconfig))


def _retrying(call: Callable[[], T], *, attempts: int = 20) -> T:
    """What a careful client does: retry 429, 500 and 504 (bounded)."""
    for _ in range(attempts - 1):
        try:
            return call()
        except ApiException as err:
            if err.status not in (429, 500, 504):
                raise
            time.sleep(0.01)
    return call()


@pytest.mark.kube_api(speed=0, nodes=0, api_only=True, faults=FaultPlan(write_failure_rate=0.3))
def test_failed_writes_answer_with_their_status(kube_api: ServedCluster) -> None:
    v1 = client.CoreV1Api(_api(kube_api))
    _retrying(lambda: v1.create_namespaced_config_map("default", client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="cm"), data={"n": "0"})))
    seen: dict[int, dict[str, Any]] = {}
    for i in range(200):  # bounded: each code has a 7.5% chance per replace
        current = v1.read_namespaced_config_map("cm", "default")
        current.data = {"n": str(i)}
        try:
            v1.replace_namespaced_config_map("cm", "default", current)
        except ApiException as err:
            seen.setdefault(err.status, json.loads(err.body))
        if len(seen) == 4:
            break
    assert sorted(seen) == [409, 429, 500, 504]
    for code, body in seen.items():
        assert (body["kind"], body["status"], body["code"], body["reason"]) == ("Status", "Failure", code,
                                                                               REASONS[code])
    assert seen[409]["message"] == ('Operation cannot be fulfilled on configmaps "cm": the object has been '
                                    "modified; please apply your changes to the latest version and try again")
    assert seen[409]["details"] == {"name": "cm", "kind": "configmaps"}
    assert seen[429]["details"] == {"retryAfterSeconds": 1}
    assert seen[500]["message"] == 'Internal error occurred: update configmaps "cm": injected fault'
    assert seen[500]["details"] == {"causes": [{"message": 'update configmaps "cm": injected fault'}]}
    stats = kube_api.faults.stats if kube_api.faults is not None else None
    assert stats is not None and set(stats.failed_writes) == {409, 429, 500, 504}


def _job(name: str, replicas: int) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Job", "metadata": {"name": name},
            "spec": {"minAvailable": replicas, "schedulerName": "volcano", "queue": "default",
                     "tasks": [{"name": "t", "replicas": replicas, "template": {
                         "metadata": {"annotations": {"sim.volcano.sh/duration": "600s"}},
                         "spec": {"restartPolicy": "Never", "containers": [{
                             "name": "c", "image": "busybox",
                             "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}}]}}


def _create(co: client.CustomObjectsApi, body: dict[str, Any]) -> None:
    """Create with retries; a 504 may have stored the job, so AlreadyExists after one is success."""
    timed_out = False
    for _ in range(20):
        try:
            co.create_namespaced_custom_object(GROUP, VERSION, "default", "jobs", body)
            return
        except ApiException as err:
            if err.status == 409 and timed_out:
                return
            if err.status not in (429, 500, 504):
                raise
            timed_out = timed_out or err.status == 504
    raise AssertionError(f"could not create {body['metadata']['name']}")


class _Watcher:
    """Follows job phases like a reflector: watch from the last resourceVersion, again after a drop
    (an ERROR event, raised by the client as a 500), relist after 410 Gone."""

    def __init__(self, co: client.CustomObjectsApi) -> None:
        self.co = co
        self.phases: dict[str, str] = {}
        self.drops = 0
        self.relists = 0
        self.rv = self._relist()

    def _relist(self) -> str:
        listing = self.co.list_namespaced_custom_object(GROUP, VERSION, "default", "jobs")
        for job in listing["items"]:
            self._see(job)
        return str(listing["metadata"]["resourceVersion"])

    def _see(self, job: dict[str, Any]) -> None:
        self.phases[job["metadata"]["name"]] = str(((job.get("status") or {}).get("state") or {}).get("phase"))

    def follow(self, done: Callable[[dict[str, str]], bool], deadline: float) -> None:
        while not done(self.phases):
            assert time.monotonic() < deadline, f"jobs did not complete: {self.phases}"
            w = watch.Watch()
            try:
                for event in w.stream(self.co.list_namespaced_custom_object, GROUP, VERSION, "default", "jobs",
                                      resource_version=self.rv, timeout_seconds=5):
                    self.rv = str(event["object"]["metadata"]["resourceVersion"])
                    self._see(event["object"])
                    if done(self.phases) or time.monotonic() > deadline:
                        w.stop()
            except ApiException as err:
                if err.status == 410:
                    self.relists += 1
                    self.rv = self._relist()
                elif err.status == 500:
                    self.drops += 1
                else:
                    raise


@pytest.mark.kube_api(speed=30, nodes=2, cpu="4", faults=FaultPlan(
    write_failure_rate=0.05, watch_drop_every_ms=15_000, compact_every_ms=60_000))
def test_jobs_complete_once_despite_faults(kube_api: ServedCluster) -> None:
    api = _api(kube_api)
    co, v1 = client.CustomObjectsApi(api), client.CoreV1Api(api)
    names = {"a": 2, "b": 3, "c": 2}
    for name, replicas in names.items():
        _create(co, _job(name, replicas))
    watcher = _Watcher(co)
    # The jobs run 600 simulated s (20 wall s at this pace, 40 watch drops): under load the client
    # may take longer than one drop interval to watch again, so a short run could see no drop at all.
    watcher.follow(lambda phases: all(phases.get(n) == "Completed" for n in names), time.monotonic() + 240)
    for name, replicas in names.items():
        pods = v1.list_namespaced_pod("default", label_selector=f"volcano.sh/job-name={name}").items
        assert len(pods) == replicas, f"job {name}: {[p.metadata.name for p in pods]}"  # none lost, none twice
        assert {p.status.phase for p in pods} == {"Succeeded"}
    assert watcher.drops >= 1  # the client really lost its watch, and recovered
    http, inside = kube_api.faults, kube_api.cluster.faults if kube_api.cluster is not None else None
    assert http is not None and http.stats.watches_dropped >= 1
    assert inside is not None and inside.stats.failed_writes and inside.stats.watches_dropped >= 1


def test_fault_flags_build_the_plan() -> None:
    from volcano.cli import build_parser
    from volcano.cli.serve import _fault_plan

    parser = build_parser()
    assert _fault_plan(parser.parse_args(["serve"])) is None
    plan = _fault_plan(parser.parse_args(["serve", "--fault-write-rate", "0.05", "--fault-write-codes", "429,500",
                                          "--fault-watch-drop-seconds", "120", "--fault-compact-seconds", "0.5"]))
    assert plan == FaultPlan(write_failure_rate=0.05, write_failure_codes=(429, 500), watch_drop_every_ms=120_000,
                             compact_every_ms=500)
    from volcano.cli.serve import _describe
    assert _describe(plan) == "writes 5% fail (429,500), watches dropped every 120s, history compacted every 0.5s"
    for argv, message in [
        (["--fault-write-rate", "1.5"], "--fault-\\*: write_failure_rate must be within \\[0, 1\\], got 1.5"),
        (["--fault-write-rate", "0.1", "--fault-write-codes", "404"], "write_failure_codes must be among"),
        (["--fault-write-rate", "0.1", "--fault-write-codes", "x"], "--fault-write-codes x: must be comma-sep"),
        (["--fault-watch-drop-seconds", "-1"], "--fault-watch-drop-seconds -1.0: must be a number of seconds > 0"),
    ]:
        with pytest.raises(ValueError, match=message):
            _fault_plan(parser.parse_args(["serve", *argv]))


def test_serve_refuses_a_bad_fault_flag_without_a_traceback() -> None:
    import subprocess
    import sys

    cli = [sys.executable, "-c", "import sys; from volcano.cli import main; sys.exit(main(sys.argv[1:]))"]
    proc = subprocess.run([*cli, "serve", "--fault-write-rate", "2"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "error: --fault-*: write_failure_rate must be within [0, 1], got 2.0" in proc.stderr
    assert "Traceback" not in proc.stderr
