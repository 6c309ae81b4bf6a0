"""Tests for the garbage collector: ttlSecondsAfterFinished on Volcano Jobs."""

from __future__ import annotations

from typing import Any

import pytest

from tests.controllers.env import ControllerEnv
from volcano.apiserver import ApiError, ApiServer
from volcano.controllers.gc import GarbageCollector, expire_at_ms, needs_cleanup
from volcano.sim import SimClock


def _job(phase: str | None, ttl: int | None, transition: str | None = "2024-01-01T00:00:10Z") -> dict[str, Any]:
    spec: dict[str, Any] = {"minAvailable": 1, "tasks": []}
    if ttl is not None:
        spec["ttlSecondsAfterFinished"] = ttl
    state: dict[str, Any] = {}
    if phase:
        state["phase"] = phase
    if transition:
        state["lastTransitionTime"] = transition
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": "j", "namespace": "default"}, "spec": spec, "status": {"state": state}}


@pytest.mark.parametrize(("phase", "expected"), [
    ("Completed", True), ("Failed", True), ("Terminated", True), ("Aborted", False), ("Running", False),
    ("Pending", False), ("Completing", False), ("Terminating", False), ("Aborting", False), (None, False),
])
def test_needs_cleanup_by_phase(phase: str | None, expected: bool) -> None:
    assert needs_cleanup(_job(phase, 5)) is expected
    assert needs_cleanup(_job(phase, None)) is False


def test_expiry_is_finish_time_plus_ttl() -> None:
    clock = SimClock()
    assert expire_at_ms(_job("Completed", 30), clock) == 40_000
    assert expire_at_ms(_job("Completed", 30, transition=None), clock) is None
    assert expire_at_ms(_job("Completed", 30, transition="yesterday"), clock) is None
    assert expire_at_ms(_job("Aborted", 30), clock) is None


class _SpyServer(ApiServer):
    """Records the options of every delete."""

    deletes: list[tuple[str, str, dict[str, Any]]]

    def delete(self, kind: str, name: str, namespace: str | None = None, **kwargs: Any) -> Any:
        self.deletes.append((kind, name, kwargs))
        return super().delete(kind, name, namespace, **kwargs)


class _Env(ControllerEnv):
    def __init__(self) -> None:
        super().__init__(GarbageCollector, server_cls=_SpyServer)
        self.server.deletes = []
        self.gc = self.controllers[0]

    def job(self, name: str, ttl: int | None) -> None:
        job = _job(None, ttl)
        job["metadata"]["name"] = name
        del job["status"]
        self.server.create(job)

    def finish(self, name: str, phase: str, at_ms: int | None) -> None:
        status: dict[str, Any] = {"state": {"phase": phase}}
        if at_ms is not None:
            status["state"]["lastTransitionTime"] = self.server.timestamp(at_ms)
        self.server.patch("Job", name, {"status": status}, "default", subresource="status")

    def exists(self, name: str) -> bool:
        try:
            self.server.get("Job", name, "default")
        except ApiError as err:
            assert err.reason == "NotFound"
            return False
        return True


def test_completed_job_is_deleted_after_ttl_with_foreground_and_uid_precondition() -> None:
    env = _Env()
    env.job("done", ttl=30)
    uid = env.server.get("Job", "done", "default")["metadata"]["uid"]
    env.clock.run(5_000)
    env.finish("done", "Completed", env.clock.now_ms)
    env.clock.run(34_999)
    assert env.exists("done")
    env.clock.run(35_000)
    assert not env.exists("done")
    assert env.server.deletes == [("Job", "done", {"propagation_policy": "Foreground",
                                                   "preconditions": {"uid": uid}})]


@pytest.mark.parametrize("phase", ["Failed", "Terminated"])
def test_failed_and_terminated_jobs_expire_too(phase: str) -> None:
    env = _Env()
    env.job("j", ttl=1)
    env.finish("j", phase, 0)
    env.clock.run(999)
    assert env.exists("j")
    env.clock.run(1_000)
    assert not env.exists("j")


def test_ttl_zero_deletes_as_soon_as_finished() -> None:
    env = _Env()
    env.job("j", ttl=0)
    env.clock.run(2_000)
    env.finish("j", "Completed", 2_000)
    env.clock.run(2_000)
    assert not env.exists("j")


def test_aborted_or_ttl_less_jobs_are_kept() -> None:
    env = _Env()
    env.job("aborted", ttl=0)
    env.job("no-ttl", ttl=None)
    env.finish("aborted", "Aborted", 0)
    env.finish("no-ttl", "Completed", 0)
    env.clock.run(3_600_000)
    assert env.exists("aborted") and env.exists("no-ttl")
    assert env.server.deletes == []


def test_ttl_counts_from_the_finish_time_not_from_when_seen() -> None:
    env = _Env()
    env.job("j", ttl=10)
    env.clock.run(20_000)
    env.finish("j", "Completed", 5_000)  # finished 15 s ago: already expired
    env.clock.run(20_000)
    assert not env.exists("j")


def test_missing_finish_time_is_retried_until_known() -> None:
    env = _Env()
    env.job("j", ttl=1)
    env.finish("j", "Completed", None)
    env.clock.run(10_000)
    assert env.exists("j")
    env.finish("j", "Completed", 10_000)
    env.clock.run(11_000)
    assert not env.exists("j")
