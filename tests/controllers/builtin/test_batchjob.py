"""Tests for the minimal batch/v1 Job controller."""

from __future__ import annotations

from typing import Any

import pytest

from tests.controllers.env import ControllerEnv, assert_made_from_template, given
from volcano.apiserver.faults import inject_stored_object
from volcano.controllers.builtin.batchjob import BatchJobController, failure_backoff_ms
from volcano.sim import RandomStreams, Trace


class _Env(ControllerEnv):
    def __init__(self) -> None:
        super().__init__(BatchJobController)

    def pods(self, phase: str | None = None) -> list[dict[str, Any]]:
        return [p for p in self.items("Pod") if phase is None or (p.get("status") or {}).get("phase") == phase]

    def finish(self, pod: dict[str, Any], phase: str) -> None:
        self.set_phase("Pod", pod["metadata"]["name"], phase)

    def status(self) -> dict[str, Any]:
        return dict(self.server.get("Job.batch", "work", "default").get("status") or {})


def _job(completions: int | None = 3, parallelism: int | None = 2, backoff: int | None = None) -> dict[str, Any]:
    spec = {"template": {"metadata": {"labels": {"app": "work"}},
                         "spec": {"schedulerName": "volcano", "restartPolicy": "Never",
                                  "containers": [{"name": "c", "image": "busybox"}]}},
            **given(completions=completions, parallelism=parallelism, backoffLimit=backoff)}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "work", "namespace": "default"},
            "spec": spec}


def test_backoff_schedule() -> None:
    assert [failure_backoff_ms(n) for n in range(7)] == [0, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000]
    assert failure_backoff_ms(50) == 360_000


def test_runs_to_completion_with_parallelism() -> None:
    env = _Env()
    job, pods = env.make(_job())
    assert len(pods) == 2
    uid = job["metadata"]["uid"]
    assert_made_from_template(pods, job, "batch/v1", "Job")
    for pod in pods:
        assert pod["metadata"]["labels"]["batch.kubernetes.io/controller-uid"] == uid
        assert pod["metadata"]["labels"]["job-name"] == "work"
    assert env.status()["active"] == 2 and env.status()["startTime"]
    env.finish(pods[0], "Succeeded")
    env.finish(pods[1], "Succeeded")
    env.settle()
    # One completion left: exactly one more pod.
    assert len(env.pods()) == 3 and env.status()["succeeded"] == 2 and env.status()["active"] == 1
    env.finish(env.pods("Pending")[0], "Succeeded")
    env.settle()
    status = env.status()
    assert status["succeeded"] == 3 and status["active"] == 0 and status["failed"] == 0
    assert [(c["type"], c["status"]) for c in status["conditions"]] == [("Complete", "True")]
    assert status["completionTime"]
    env.settle(10_000)
    assert len(env.pods()) == 3  # nothing after completion


def test_failed_pods_replaced_with_backoff_until_limit() -> None:
    env = _Env()
    env.server.create(_job(completions=1, parallelism=1, backoff=1))
    env.settle()
    env.finish(env.pods()[0], "Failed")
    env.settle(9_000)
    assert len(env.pods()) == 1  # within the 10 s backoff
    env.settle(1_100)
    assert len(env.pods()) == 2
    assert env.status()["failed"] == 1
    env.finish(env.pods("Pending")[0], "Failed")
    env.settle(60_000)
    status = env.status()
    assert status["failed"] == 2 and status["active"] == 0
    failed = [c for c in status["conditions"] if c["type"] == "Failed"]
    assert failed and failed[0]["reason"] == "BackoffLimitExceeded"
    assert failed[0]["message"] == "Job has reached the specified backoff limit"
    assert len(env.pods()) == 2


def test_work_queue_mode_completes_when_one_succeeds_and_none_active() -> None:
    env = _Env()
    env.server.create(_job(completions=None, parallelism=3))
    env.settle()
    pods = env.pods()
    assert len(pods) == 3
    env.finish(pods[0], "Succeeded")
    env.settle()
    assert len(env.pods()) == 3  # no new pod once one succeeded, others keep running
    assert "conditions" not in env.status()
    env.finish(pods[1], "Succeeded")
    env.finish(pods[2], "Succeeded")
    env.settle()
    assert env.status()["conditions"][0]["type"] == "Complete"


@pytest.mark.parametrize("parallelism", [0, 1])
def test_counts_survive_pod_deletion(parallelism: int) -> None:
    env = _Env()
    env.server.create(_job(completions=2, parallelism=1))
    env.settle()
    first = env.pods()[0]
    env.finish(first, "Succeeded")
    env.settle()
    env.server.delete("Pod", first["metadata"]["name"], "default")
    env.settle()
    assert env.status()["succeeded"] == 1
    assert len(env.pods()) == 1
    if parallelism:
        env.server.patch("Job.batch", "work", {"spec": {"parallelism": 2}}, "default")
        env.settle()
        assert len(env.pods()) == 1  # only one completion left


def test_malformed_spec_is_skipped_with_a_trace_naming_field_and_value() -> None:
    env = _Env()
    trace = Trace()
    # A second instance on the same shared informers: both skip the job, neither crashes.
    BatchJobController(env.server, env.informers, env.clock, streams=RandomStreams(1), trace=trace).start()
    job = _job()
    job["spec"]["parallelism"] = "lots"
    inject_stored_object(env.server, job)  # the server refuses it now; one written before validation existed
    env.settle()
    assert env.pods() == []
    records = trace.records(event="InvalidSpec")
    assert records and "spec.parallelism" in records[0].detail and "'lots'" in records[0].detail
