"""Exact Job status fields a client reads back (upstream ``createJobIOIfNotExist``, ``killJob``): the
``volume-pvc-<claim>`` keys of ``status.controlledResources``, the ``PVCError`` event of a missing claim, and
``runningDuration``."""

from __future__ import annotations

from .conftest import Cluster, job, task

PVC_SPEC = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}


def _claim(cluster: Cluster, name: str) -> None:
    cluster.server.create({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                           "metadata": {"name": name, "namespace": "default"}, "spec": PVC_SPEC})


def test_a_generated_claim_is_recorded_and_survives_a_kill(cluster: Cluster) -> None:
    """A ``volumeClaim`` volume is created as ``<job>-pvc-<suffix>`` and recorded under ``volume-pvc-<name>``;
    the plugin keys go with the kill of an abort, the volume key stays."""
    name = "gen"
    cluster.submit(job(name, [task("t", 1)], plugins={"env": []},
                       volumes=[{"mountPath": "/d", "volumeClaim": PVC_SPEC}]))
    cluster.set_pg_phase(name)
    claim = cluster.job(name)["spec"]["volumes"][0]["volumeClaimName"]
    assert cluster.status(name)["controlledResources"] == {"plugin-env": "env", f"volume-pvc-{claim}": claim}
    cluster.command(name, "AbortJob")
    cluster.run(5_000)
    assert cluster.status(name)["controlledResources"] == {f"volume-pvc-{claim}": claim}


def test_a_missing_named_claim_is_a_warning_event_and_keeps_the_job_without_pods(cluster: Cluster) -> None:
    name = "missing"
    cluster.submit(job(name, [task("t", 1)], volumes=[{"mountPath": "/d", "volumeClaimName": "nope"}]))
    cluster.run(2_000)
    events = [(e["type"], e["message"]) for e in cluster.events("PVCError")]
    assert events and set(events) == {(
        "Warning", "Failed to create PVC, err: pvc nope is not found, the job will be in the Pending state until "
        "the PVC is created")}
    assert cluster.pods(name) == {}
    assert cluster.podgroup(name) is None  # the claims come before the PodGroup
    assert cluster.phase(name) == "Pending"


def test_an_existing_named_claim_is_recorded_too(cluster: Cluster) -> None:
    """Upstream records every volume's claim, an existing named one included (``createJobIOIfNotExist``
    sets ``volume-pvc-<name>`` after the existence check)."""
    _claim(cluster, "shared")
    name = "named"
    cluster.submit(job(name, [task("t", 1)], volumes=[{"mountPath": "/d", "volumeClaimName": "shared"}]))
    cluster.set_pg_phase(name)
    assert cluster.status(name).get("controlledResources") == {"volume-pvc-shared": "shared"}


def test_a_kill_writes_the_running_duration(cluster: Cluster) -> None:
    """``runningDuration`` = ``state.lastTransitionTime`` less ``creationTimestamp`` in Go's form."""
    name = "ran"
    cluster.submit(job(name, [task("t", 1)]))
    cluster.set_pg_phase(name)
    cluster.set_pods(name, "Running")
    cluster.run(61_000)
    cluster.command(name, "AbortJob")
    cluster.run(5_000)
    status = cluster.status(name)
    assert status["state"]["phase"] == "Aborted"
    created = cluster.clock.parse_timestamp(cluster.job(name)["metadata"]["creationTimestamp"]) or 0
    moved = cluster.clock.parse_timestamp(status["state"]["lastTransitionTime"]) or 0
    assert moved - created >= 61_000
    minutes, seconds = divmod((moved - created) // 1000, 60)
    assert status["runningDuration"] == f"{minutes}m{seconds}s"
