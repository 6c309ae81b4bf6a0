"""Policy resolution (reference §3.3) and policy timeouts."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from volcano.controllers.job.policies import PolicyError, parse_duration_ms, resolve_action
from volcano.controllers.job.request import Request


def make_job(policies: list[dict[str, Any]] | None = None, task_policies: list[dict[str, Any]] | None = None,
             version: int = 0) -> dict[str, Any]:
    return {"metadata": {"name": "j", "uid": "u1"}, "status": {"version": version},
            "spec": {"policies": policies or [],
                     "tasks": [{"name": "t", "policies": task_policies or []}, {"name": "other"}]}}


def req(event: str = "", **kw: Any) -> Request:
    return Request("ns", "j", event=event, **kw)


def test_explicit_action_wins() -> None:
    assert resolve_action(make_job([{"event": "*", "action": "AbortJob"}]), req("PodFailed", action="ResumeJob")) \
        == ("ResumeJob", 0)


@pytest.mark.parametrize("event", ["OutOfSync", "CommandIssued", "PodRunning"])
def test_internal_events_only_sync(event: str) -> None:
    assert resolve_action(make_job([{"event": "*", "action": "AbortJob"}]), req(event)) == ("SyncJob", 0)


def test_uid_mismatch_and_outdated_version_sync() -> None:
    job = make_job([{"event": "PodFailed", "action": "AbortJob"}], version=2)
    assert resolve_action(job, req("PodFailed", job_version=1)) == ("SyncJob", 0)
    assert resolve_action(job, req("PodFailed", job_version=2)) == ("AbortJob", 0)
    assert resolve_action(job, req("PodFailed", job_version=2, job_uid="other")) == ("SyncJob", 0)


def test_task_policy_before_job_policy_and_only_for_its_task() -> None:
    job = make_job([{"event": "PodFailed", "action": "AbortJob"}], [{"event": "PodFailed", "action": "RestartJob"}])
    assert resolve_action(job, req("PodFailed", task_name="t")) == ("RestartJob", 0)
    assert resolve_action(job, req("PodFailed", task_name="other")) == ("AbortJob", 0)


def test_events_list_any_and_first_match() -> None:
    job = make_job([{"events": ["PodEvicted", "PodFailed"], "action": "TerminateJob"},
                    {"event": "*", "action": "RestartJob"}])
    assert resolve_action(job, req("PodFailed")) == ("TerminateJob", 0)
    assert resolve_action(job, req("Unknown")) == ("RestartJob", 0)
    assert resolve_action(job, req("")) == ("SyncJob", 0)


def test_pod_pending_needs_timeout() -> None:
    assert resolve_action(make_job([{"event": "PodPending", "action": "AbortJob"}]), req("PodPending")) \
        == ("SyncJob", 0)
    assert resolve_action(make_job([{"event": "*", "action": "AbortJob"}]), req("PodPending")) == ("SyncJob", 0)
    assert resolve_action(make_job([{"event": "PodPending", "action": "AbortJob", "timeout": "90s"}]),
                          req("PodPending")) == ("AbortJob", 90_000)


def test_exit_code_policy() -> None:
    job = make_job([{"exitCode": 3, "action": "RestartJob"}])
    assert resolve_action(job, req("PodFailed", exit_code=3)) == ("RestartJob", 0)
    assert resolve_action(job, req("PodFailed", exit_code=1)) == ("SyncJob", 0)


@pytest.mark.parametrize(("text", "ms"), [("5m", 300_000), ("1h30m", 5_400_000), ("1.5s", 1500), ("300ms", 300),
                                          ("0", 0), ("2h", 7_200_000)])
def test_parse_duration(text: str, ms: int) -> None:
    assert parse_duration_ms(text) == ms


@pytest.mark.parametrize("bad", ["5", "abc", "m5", "", True])
def test_parse_duration_rejects(bad: Any) -> None:
    with pytest.raises(PolicyError, match="policy timeout"):
        parse_duration_ms(bad)


@given(st.integers(0, 99), st.integers(0, 59), st.integers(0, 59))
def test_duration_round_trip(h: int, m: int, s: int) -> None:
    assert parse_duration_ms(f"{h}h{m}m{s}s") == ((h * 60 + m) * 60 + s) * 1000
