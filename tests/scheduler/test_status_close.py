"""The one-pass session close (``Session.reuse``) derives exactly what the plain reading derives.

At every session of random clusters (the carried-model scenarios of ``test_job_carry``:
gangs arriving, pods finishing, failing and deleted, nodes and queues changing, with and
without preempt and reclaim) and of a small trace replay, the closed session's outcome is
derived both ways, ``_close_jobs`` + ``_queue_allocated`` and ``_close_jobs_reference`` +
``_queue_allocated_reference``, and compared part by part: every job's status (key order
included), the PodGroup writes (the very job objects, in order), the events, the pod
conditions (the very task objects) and the queue writes. The change test on stripped
conditions is also compared with ``status_changed`` on random statuses.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import volcano.scheduler.scheduler as scheduler_module
from tests.scheduler.test_job_carry import PREEMPT_CONF, _play, scenarios
from tests.scheduler.test_status_changed import _STATUS
from volcano.conformance.lib.builders import pod, pod_group, queue
from volcano.replay import ReplayConfig, SyntheticSpec, replay, synthetic_trace
from volcano.scheduler.framework import status as status_module
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.status import SessionOutcome, session_outcome, status_changed
from volcano.scheduler.plugins import gang as gang_module
from volcano.testbed import FakeCluster


@dataclasses.dataclass
class Seen:
    """What the compared sessions held (so that the comparison is not vacuous)."""

    sessions: int = 0
    reused: int = 0
    statuses: int = 0
    podgroups: int = 0
    events: int = 0
    pod_conditions: int = 0
    queues: int = 0


def _view(out: SessionOutcome) -> tuple[Any, ...]:
    return (json.dumps(dict(out.statuses), default=str),  # key order included
            [(id(job), json.dumps(st, default=str)) for job, st in out.podgroups],
            list(out.events),
            [(id(task), json.dumps(cond), nominated) for task, cond, nominated in out.pod_conditions],
            json.dumps(out.queues))


def reference_outcome(ssn: Session) -> SessionOutcome:
    """The closed session's outcome by the plain reading, whatever ``ssn.reuse`` says."""
    out = SessionOutcome()
    for job, etype, reason, message in ssn.job_events:
        out.events.append(status_module.Event("PodGroup", job.namespace, job.name, etype, reason, message))
    status_module._close_jobs_reference(ssn, out)
    status_module._queue_allocated_reference(ssn, out)
    return out


def assert_gang_conditions(ssn: Session) -> None:
    """Each job's condition of this session (its ``transitionID`` and time the session's) is the one
    the gang plugin's verdict on the job, worked out afresh, sets: a memo reused by the gang
    plugin's close gave what its reading of the job gives."""
    if "gang" not in ssn.plugins:
        return
    now = ssn.timestamp()
    for job in ssn.jobs.values():
        mine = [(c["type"], c["reason"], c["message"]) for c in job.conditions
                if c.get("transitionID") == ssn.uid and c.get("lastTransitionTime") == now]
        verdict = gang_module._verdict(ssn, job) if job.tasks else None
        if verdict is None:
            assert mine == [], job.uid
        elif verdict[0] == "Scheduled":
            assert mine == [("Scheduled", "tasks in gang are ready to be scheduled", "")], job.uid
        else:
            assert mine == [("Unschedulable", "NotEnoughResources", verdict[2])], job.uid


def _checking_close(seen: Seen) -> Callable[[Session], SessionOutcome]:
    def close(ssn: Session) -> SessionOutcome:
        ssn.close()
        out = session_outcome(ssn)
        if ssn.reuse:
            assert_gang_conditions(ssn)
            ref = reference_outcome(ssn)
            assert _view(out) == _view(ref)
            seen.sessions += 1
            seen.reused += getattr(out.statuses, "reused", 0)
            seen.statuses += len(out.statuses)
            seen.podgroups += len(out.podgroups)
            seen.events += len(out.events)
            seen.pod_conditions += len(out.pod_conditions)
            seen.queues += len(out.queues)
        return out
    return close


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios)
def test_the_one_pass_close_equals_the_plain_reading(scenario: tuple[int, list[Any], bool]) -> None:
    nodes, ops, preempt = scenario
    seen = Seen()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scheduler_module, "close_session", _checking_close(seen))
        cluster = FakeCluster(seed=1, scheduler_conf=PREEMPT_CONF if preempt else None)
        _play(cluster, nodes, ops)
    assert seen.sessions > 0


def test_a_replay_closes_the_same_both_ways() -> None:
    """A busy trace replay (gangs waiting, jobs finishing, queues moving): every session compared,
    and every part of the outcome was exercised."""
    seen = Seen()
    trace = synthetic_trace(3, SyntheticSpec(nodes=6, hours=0.5, jobs=60, duration_median_s=300))
    config = ReplayConfig(nodes=6, seed=3, seconds=2400, queue_weights={"prod": 4, "dev": 2})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scheduler_module, "close_session", _checking_close(seen))
        replay(trace, config)
    assert seen.sessions > 50
    assert min(seen.reused, seen.statuses, seen.podgroups, seen.events, seen.pod_conditions, seen.queues) > 0, seen


@settings(max_examples=400, deadline=None)
@given(_STATUS, _STATUS, st.data())
def test_the_stripped_change_test_is_status_changed(new: dict[str, Any], old: dict[str, Any],
                                                    data: st.DataObject) -> None:
    if data.draw(st.booleans()):  # often: the same conditions but for the times
        old = {**old, "conditions": [{**c, "transitionID": "other"} for c in new.get("conditions") or []]}
    assert status_module._changed(new, old) == status_changed(new, old)


def test_queue_sums_pad_vectors_built_when_the_space_was_narrower() -> None:
    """Jobs whose allocated vectors have different widths (built before a resource name was seen)
    sum as the padded vectors do, up the queue tree."""
    import numpy as np

    from volcano.scheduler.framework.resources import ResourceSpace

    space = ResourceSpace()
    narrow = np.array([1000, 2048, 1000], dtype=np.int64)
    space.register("nvidia.com/gpu")
    wide = np.array([500, 0, 1000, 2000], dtype=np.int64)
    queues = {name: SimpleNamespace(obj={"status": {}}, parent=parent)
              for name, parent in (("root", None), ("a", "root"))}
    ssn: Any = SimpleNamespace(space=space, queues=queues, carry=None)
    for vecs in ([narrow, wide], [narrow, narrow], [narrow]):
        out = SessionOutcome()
        status_module._queue_allocated(ssn, out, {"a": list(vecs), "gone": [wide]})
        total = sum(space.fit(v) for v in vecs)
        expected = space.to_resources(total).to_k8s()
        assert out.queues == {"a": expected, "root": expected}


def test_a_reused_close_sees_an_unschedulable_condition_of_this_session_uid() -> None:
    """A running gang whose PodGroup still carries the Unschedulable condition of an earlier
    session: when a session's uid comes round to that condition's ``transitionID`` again (a
    restarted scheduler counts its sessions from one), the phase is Unknown, memo or not."""
    seen = Seen()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scheduler_module, "close_session", _checking_close(seen))
        cluster = FakeCluster(seed=1)
        cluster.add_nodes(1, cpu="4", memory="16Gi")
        cluster.apply([pod_group("g", min_member=2), *(pod(f"g-{k}", group="g", req={"cpu": "3"}) for k in range(2))])
        cluster.clock.run(cluster.clock.now_ms + 5000)
        cluster.add_nodes(1, prefix="extra-", cpu="4", memory="16Gi")
        for i in range(5):  # a new queue a second: the scheduler runs a session each time
            cluster.apply(queue(f"q{i}", weight=1))
            cluster.clock.run(cluster.clock.now_ms + 1000)
        status = cluster.get("PodGroup", "g")["status"]
        assert status["phase"] == "Running"
        old = next(c["transitionID"] for c in status["conditions"]
                   if c["type"] == "Unschedulable" and c["status"] == "True")
        reused = seen.reused
        cluster.scheduler.cycles = int(old.rsplit("-", 1)[1]) - 1
        cluster.apply(queue("last", weight=1))
        cluster.clock.run(cluster.clock.now_ms + 1000)
    assert reused > 0 and seen.reused == reused  # the job was passed over before, not in that session
    assert cluster.get("PodGroup", "g")["status"]["phase"] == "Unknown"


def test_memos_are_kept_only_under_close_hooks_that_keep_them() -> None:
    """The base hook (none) and gang's keep the close memo; a hook of any other class, a gang
    subclass's own included, turns the memo off for the session."""
    from volcano.scheduler.framework.plugin import Arguments, Plugin
    from volcano.scheduler.plugins.gang import GangPlugin

    class Quiet(Plugin):
        name = "quiet"

    class Noisy(Plugin):
        name = "noisy"

        def close(self, ssn: Session) -> None:
            """Would change jobs."""

    class MyGang(GangPlugin):
        def close(self, ssn: Session) -> None:
            """Gang's, and more."""

    def keeps(*classes: type[Plugin]) -> bool:
        ssn: Any = SimpleNamespace(plugins={c.__name__: c(Arguments({})) for c in classes})
        return status_module._hooks_keep_memos(ssn, {})

    assert keeps(GangPlugin, Quiet) and keeps()
    assert not keeps(GangPlugin, Noisy) and not keeps(MyGang)
