"""Fault injection: the seed scenarios end as they do without faults.

With 5% of the components' writes failing (409/429/500/504), every watch dropped
every three simulated minutes and the watch history compacted every five,
each Volcano seed scenario must reach the same end state as its fault-free
run: every job present and in the same final phase with the same number of
succeeded pods (none lost, duplicated or stuck), and no gang ever partially
bound (the conformance invariants over the whole run).
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver.faults import FaultPlan
from volcano.conformance.lib.invariants import check_invariants
from volcano.demo.scenarios import SCENARIOS, VOLCANO, Scenario
from volcano.testbed import FakeCluster

PLAN = FaultPlan(write_failure_rate=0.05, watch_drop_every_ms=180_000, compact_every_ms=300_000)
TOTALS: dict[str, int] = {"faults": 0, "failed_writes": 0, "watch_drops": 0, "jobs": 0, "jobs_lost": 0}


def _end_state(c: FakeCluster) -> dict[str, Any]:
    """Volcano Job -> (phase, pods succeeded, pods in total); every other pod -> its phase."""
    out: dict[str, Any] = {}
    pods = c.list("Pod")
    for job in c.list("Job"):
        name = job["metadata"]["name"]
        mine = [p for p in pods if (p["metadata"].get("annotations") or {}).get("volcano.sh/job-name") == name]
        succeeded = sum(1 for p in mine if p["status"].get("phase") == "Succeeded")
        out[name] = ((job.get("status") or {}).get("state", {}).get("phase", ""), succeeded, len(mine))
    for pod in pods:
        if not (pod["metadata"].get("annotations") or {}).get("volcano.sh/job-name"):
            out[f"pod/{pod['metadata']['name']}"] = pod["status"].get("phase")
    return out


def _run(scenario: Scenario, faults: FaultPlan | None) -> tuple[FakeCluster, dict[str, Any], list[str]]:
    c = FakeCluster(seed=0, faults=faults)
    scenario.nodes(c)
    history: list[tuple[float, str, str, dict[str, Any]]] = []
    for kind in ("Pod", "PodGroup", "Node", "Queue"):
        c.server.watch(kind, lambda ev, k=kind: history.append((c.now, k, ev.type, ev.object)), resource_version="0")
    expected = scenario.submit(c, VOLCANO)
    while c.now < scenario.horizon_s:
        c.run(300)
        jobs = [v for k, v in _end_state(c).items() if not k.startswith("pod/")]
        pods = [v for k, v in _end_state(c).items() if k.startswith("pod/")]
        if jobs and len(jobs) == len(expected) and all(phase == "Completed" for phase, _, _ in jobs):
            break
        if not jobs and pods and all(phase in ("Succeeded", "Failed") for phase in pods):
            break
    return c, _end_state(c), check_invariants(history)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.key in ("tf-gpu", "spark", "ps-worker-2",
                                                                          "fair-share")], ids=lambda s: s.key)
def test_scenario_with_faults_ends_as_without(scenario: Scenario) -> None:
    _, clean, clean_violations = _run(scenario, None)
    faulty, state, violations = _run(scenario, PLAN)
    assert not clean_violations and not violations
    assert faulty.faults is not None
    stats = faulty.faults.stats
    assert stats.failed_writes and stats.watches_dropped  # faults were really injected
    assert state == clean, f"fault-free {clean} != with faults {state}"
    TOTALS["faults"] += stats.injected
    TOTALS["failed_writes"] += sum(stats.failed_writes.values())
    TOTALS["watch_drops"] += stats.watches_dropped
    TOTALS["jobs"] += len([k for k in clean if not k.startswith("pod/")])
    TOTALS["jobs_lost"] += len(set(clean) - set(state))
    print(f"\nfaults {scenario.key}: {stats} jobs {len(state)} totals {TOTALS}")


def test_fault_plan_rejects_bad_knobs() -> None:
    with pytest.raises(ValueError, match="write_failure_rate"):
        FaultPlan(write_failure_rate=1.5)
    with pytest.raises(ValueError, match="write_failure_codes"):
        FaultPlan(write_failure_codes=(418,))
    with pytest.raises(ValueError, match="watch_drop_every_ms"):
        FaultPlan(watch_drop_every_ms=0)
