"""Incremental gang progress (only the changed pod is synced unless the gang's answer flips)
decides exactly what re-evaluating every member after each change decides."""

from __future__ import annotations

import random

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from tests.sim.scenarios import random_scenario, run_scenario
from volcano.kubelet.gang import GangTable
from volcano.kubelet.stages import PodStages
from volcano.kubelet.state import PodState


def _always_full(self: PodStages, gkey: str, changed: PodState | None = None, *, full: bool = False) -> None:
    self._gangs.settle(gkey)
    for key in self._gangs.sorted_members(gkey):
        st = self._pods.get(key)
        if st is not None:
            self._sync_progress(st)


@settings(max_examples=8, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(st.integers(0, 10_000))
def test_incremental_gang_progress_matches_full_reevaluation(seed: int) -> None:
    scenario = random_scenario(random.Random(seed))
    fast = run_scenario(scenario)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(PodStages, "_reevaluate_group", _always_full)
        slow = run_scenario(scenario)
    assert fast.trace == slow.trace
    assert fast.store == slow.store


def test_settle_reports_a_flip_only_when_the_answer_changes() -> None:
    min_member = {"ns/g": 2}
    gangs = GangTable(min_member.get)
    gangs.join("ns/g", "a")
    gangs.join("ns/g", "b")
    assert gangs.settle("ns/g") and not gangs.ok("ns/g")  # first look: everyone is examined
    gangs.start("ns/g", "a")
    assert not gangs.settle("ns/g")
    gangs.start("ns/g", "b")
    assert gangs.settle("ns/g") and gangs.ok("ns/g")
    gangs.stop("ns/g", "a")
    gangs.succeed("ns/g", "a")  # a succeeded member still counts
    assert not gangs.settle("ns/g") and gangs.ok("ns/g")
    min_member.pop("ns/g")  # the PodGroup is gone: nobody progresses
    assert gangs.settle("ns/g") and not gangs.ok("ns/g")
    gangs.leave("ns/g", "a")
    gangs.leave("ns/g", "b")
    assert "ns/g" not in gangs and gangs.sorted_members("ns/g") == []


def test_a_one_member_group_is_kept_without_a_set_and_answers_the_same() -> None:
    min_member = {"ns/g": 1}
    gangs = GangTable(min_member.get)
    gangs.join("ns/g", "ns/a")
    assert gangs.members["ns/g"] == "ns/a"  # the key itself, not a set of one
    assert gangs.is_member("ns/g", "ns/a") and not gangs.is_member("ns/g", "a")  # no substring match
    assert gangs.sorted_members("ns/g") == ["ns/a"]
    assert gangs.settle("ns/g") and not gangs.ok("ns/g")
    gangs.start("ns/g", "ns/a")
    gangs.start("ns/g", "ns/a")  # twice: still one running member
    assert gangs.settle("ns/g") and gangs.ok("ns/g")
    gangs.join("ns/g", "ns/b")  # a second member makes it a set
    assert gangs.sorted_members("ns/g") == ["ns/a", "ns/b"] and gangs.is_member("ns/g", "ns/b")
    gangs.stop("ns/g", "ns/b")  # never running: nothing changes
    assert gangs.ok("ns/g")
    gangs.stop("ns/g", "ns/a")
    assert not gangs.ok("ns/g") and "ns/g" not in gangs.running
    gangs.leave("ns/g", "ns/a")
    gangs.leave("ns/g", "ns/b")
    assert "ns/g" not in gangs and not gangs.is_member("ns/g", "ns/a")
