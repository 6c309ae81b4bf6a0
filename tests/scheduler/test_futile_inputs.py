"""A carried waiting gang's visit inputs are kept in its memo and compared by identity.

Allocate sorts a job's Pending tasks every session, and the futile-visit memo
(``actions.futile``) compares the job's key (statuses and nodes of every task, the tasks taken)
and task specs with the recorded visit's, both per task. For a job no task of which moved since
it was built (carried from the same inputs), both are functions of the job as built: allocate
keeps the sorted tasks in the job's memo (``allocate._pending``), the memo keeps the key and specs
(``FutileMemo._inputs``), and an entry that compared equal once takes the objects, so that later
sessions compare them by identity. Exactness is the property of ``test_allocate_futile`` (which
runs carried sessions against the reference path); here a fixed gang shows that the kept objects
are used, and that sessions still decide and close exactly as the reference path.

A replay moves tasks and back and gives the placed ones a transaction; the carry puts such a job
back as built by undoing just that (``JobInfo.undo_replay``) instead of restoring every task: the
job it hands the next session equals one built afresh.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.scheduler.test_allocate_futile import _count_replays, _session, _waiting_gang
from tests.scheduler.test_job_carry import _job_view
from volcano.scheduler.actions import allocate, futile
from volcano.scheduler.framework.carry import JobCarry
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.state import State
from volcano.scheduler.plugins import default_registry


def test_a_carried_waiting_gang_is_replayed_from_its_kept_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    hits = _count_replays(monkeypatch)
    inputs: list[Any] = []
    pending: list[Any] = []
    made, sorted_ = futile.FutileMemo._inputs, allocate._pending

    def spy_inputs(self: futile.FutileMemo, job: Any, taken: Any) -> Any:
        out = made(self, job, taken)
        if job.uid == "ns/big":
            inputs.append(out)
        return out

    def spy_pending(ssn: Any, job: Any) -> Any:
        out = sorted_(ssn, job)
        if job.uid == "ns/big" and ssn.reuse:  # the memo's path (the reference path keeps nothing)
            pending.append(out)
        return out

    monkeypatch.setattr(futile.FutileMemo, "_inputs", spy_inputs)
    monkeypatch.setattr(allocate, "_pending", spy_pending)
    world, conf = _waiting_gang()
    carry = JobCarry()
    for k in range(5):
        fast = _session(world, conf, True, carry, world.shared, k)
        assert fast == _session(world, conf, False, None, {}, k)
    assert hits == [False, True, True, True, True]
    assert len(inputs) == 5  # recorded after the first visit, then one per replay
    first, kept = inputs[0], inputs[1]
    assert first == kept and first[0] is not kept[0]  # made anew after the visit moved tasks, equal
    assert all(later[0] is kept[0] and later[1] is kept[1] for later in inputs[2:])
    entry = State(world.shared).get(futile.FUTILE_VISITS)["ns/big"]
    assert entry.job_key is kept[0] and entry.specs is kept[1]
    # The tasks in order: sorted in the first session (before its visit moved tasks), then kept.
    assert [len(p) for p in pending] == [16] * 5
    assert all(p is pending[0] for p in pending[1:])


def test_the_carry_undoes_a_replay_instead_of_restoring_every_task() -> None:
    world, conf = _waiting_gang()
    carry = JobCarry()
    restored = []
    for k in range(4):
        _session(world, conf, True, carry, world.shared, k)
        restored.append(carry.restored)
    # Restored task by task after the placing visit of session 0, undone after each replay.
    assert restored == [0, 1, 1, 1]
    carried = Session(world.snapshot(world.shared), conf, default_registry(), uid="session-4", carry=carry)
    built = Session(world.snapshot({}), conf, default_registry(), uid="session-4")
    assert carry.restored == 1 and carried.jobs["ns/big"] is not built.jobs["ns/big"]
    for uid, job in carried.jobs.items():
        assert _job_view(job) == _job_view(built.jobs[uid]), uid
    assert not carried.jobs["ns/big"].moved
