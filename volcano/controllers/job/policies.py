"""Lifecycle-policy resolution: which action a request triggers, and after what delay.

``resolve_action`` follows Volcano's ``applyPolicies``: an explicit action wins;
internal events, requests for another incarnation of the job (uid mismatch)
and outdated requests (pod created under an older job version) only sync;
otherwise the triggering task's policies are scanned before the job-level ones,
first match wins. A policy matches on its events (``event`` plus ``events``,
``*`` matching anything; ``PodPending`` only when the policy has a timeout) or
else on ``exitCode``. A match yields the policy's action and its ``timeout``
(the delay before the action runs).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from volcano.controllers.job.constants import (
    ACTION_SYNC_JOB,
    EVENT_ANY,
    EVENT_COMMAND_ISSUED,
    EVENT_OUT_OF_SYNC,
    EVENT_POD_PENDING,
    EVENT_POD_RUNNING,
)
from volcano.controllers.job.request import Request

__all__ = ["INTERNAL_EVENTS", "PolicyError", "parse_duration_ms", "policy_events", "resolve_action"]

INTERNAL_EVENTS: frozenset[str] = frozenset({EVENT_OUT_OF_SYNC, EVENT_COMMAND_ISSUED, EVENT_POD_RUNNING})
"""Events that never trigger a policy (they only sync the job)."""

_UNIT_MS: dict[str, float] = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "μs": 1e-3, "ms": 1.0, "s": 1000.0,
                              "m": 60_000.0, "h": 3_600_000.0}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


class PolicyError(ValueError):
    """A lifecycle policy field has a value the controller cannot interpret."""


def parse_duration_ms(value: Any) -> int:
    """A Go ``time.Duration`` string (``"5m"``, ``"1h30m"``, ``"1.5s"``, ``"300ms"``) in milliseconds.

    Raises ``PolicyError`` naming the value when it is not a duration.
    """
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise PolicyError(f"policy timeout {value!r} is not a duration string such as '5m'")
    if isinstance(value, int | float):
        # A bare number is nanoseconds, as a Go Duration serialised as an integer.
        return int(value // 1_000_000)
    text = value.strip()
    sign = 1
    if text and text[0] in "+-":
        sign = -1 if text[0] == "-" else 1
        text = text[1:]
    if text == "0":
        return 0
    pos, total = 0, 0.0
    while pos < len(text):
        m = _PART.match(text, pos)
        if m is None:
            raise PolicyError(f"policy timeout {value!r} is not a duration string such as '5m'")
        total += float(m.group(1)) * _UNIT_MS[m.group(2)]
        pos = m.end()
    if pos == 0:
        raise PolicyError(f"policy timeout {value!r} is not a duration string such as '5m'")
    return sign * int(total)


def policy_events(policy: Mapping[str, Any]) -> list[str]:
    """The events a policy lists: ``events`` followed by ``event`` (when set)."""
    events = [str(e) for e in (policy.get("events") or [])]
    if policy.get("event"):
        events.append(str(policy["event"]))
    return events


def _match(policies: Sequence[Mapping[str, Any]], req: Request) -> tuple[str, int] | None:
    for policy in policies:
        events = policy_events(policy)
        has_timeout = policy.get("timeout") not in (None, "")
        if events and req.event and (req.event in events or EVENT_ANY in events) and (
                req.event != EVENT_POD_PENDING or has_timeout):
            return str(policy.get("action", "")), parse_duration_ms(policy["timeout"]) if has_timeout else 0
        exit_code = policy.get("exitCode")
        if exit_code is not None and int(exit_code) == req.exit_code:
            return str(policy.get("action", "")), parse_duration_ms(policy["timeout"]) if has_timeout else 0
    return None


def resolve_action(job: Mapping[str, Any], req: Request) -> tuple[str, int]:
    """The action ``req`` triggers on ``job`` and its delay in ms (0 = run now)."""
    if req.action:
        return req.action, 0
    if req.event in INTERNAL_EVENTS:
        return ACTION_SYNC_JOB, 0
    meta = job.get("metadata") or {}
    if req.job_uid and req.job_uid != meta.get("uid"):
        return ACTION_SYNC_JOB, 0
    status = job.get("status") or {}
    if req.job_version < int(status.get("version") or 0):
        return ACTION_SYNC_JOB, 0
    spec = job.get("spec") or {}
    if req.task_name:
        for task in spec.get("tasks") or []:
            if task.get("name") == req.task_name:
                found = _match(task.get("policies") or [], req)
                if found is not None:
                    return found
                break
    found = _match(spec.get("policies") or [], req)
    return found if found is not None else (ACTION_SYNC_JOB, 0)
