"""preempt: the vectorised "cannot fit even with every victim gone" pre-check
skips nodes without changing any decision (compared with the check disabled)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scheduler.harness import conf, node, opt, pc, pg, pod, queue, res, run
from volcano.scheduler.actions import Preempt
from volcano.scheduler.framework.action import ActionRegistry


def _conf() -> Any:
    return conf(["preempt"], [opt("priority", "taskOrder", "jobOrder", "preemptable", "jobStarving"),
                              opt("gang", "jobPipelined", "jobStarving"), opt("conformance", "preemptable")])


def _scenario(layout: list[tuple[int, int]], pending: list[int]) -> dict[str, Any]:
    """``layout``: per node (low-priority cpus, high-priority cpus) running;
    ``pending``: cpus of each pending high-priority one-pod job."""
    pods, groups = [], []
    for i, (low, high) in enumerate(layout):
        for k in range(low):
            groups.append(pg(f"l{i}-{k}", "ns", "default", 1, "Running", pc_name="low"))
            pods.append(pod("ns", f"l{i}-{k}", node_name=f"n{i}", phase="Running", req=res(1), group=f"l{i}-{k}"))
        if high:
            groups.append(pg(f"h{i}", "ns", "default", 1, "Running", pc_name="high"))
            pods.append(pod("ns", f"h{i}", node_name=f"n{i}", phase="Running", req=res(high), group=f"h{i}"))
    for j, cpus in enumerate(pending):
        groups.append(pg(f"p{j}", "ns", "default", 1, "Inqueue", pc_name="high"))
        pods.append(pod("ns", f"p{j}", req=res(cpus), group=f"p{j}"))
    return {"nodes": [node(f"n{i}", res(4)) for i in range(len(layout))], "queues": [queue("default")],
            "pods": pods, "podgroups": groups, "pcs": [pc("low", 1), pc("high", 100)]}


class _Unchecked(Preempt):
    """Preempt with the pre-check disabled: every candidate node is searched."""

    asked: ClassVar[list[int]] = []

    def could_fit(self, ssn: Any, task: Any, rows: np.ndarray) -> np.ndarray:
        self.asked.append(len(rows))
        return np.ones(len(rows), dtype=bool)


def _decisions(scenario: dict[str, Any], *, precheck: bool = True) -> tuple[list[str], dict[str, str | None]]:
    registry = None if precheck else ActionRegistry([_Unchecked])
    r = run(_conf(), action_registry=registry, **scenario)
    placed = {t.key: t.node_name for j in r.session.jobs.values() for t in j.tasks.values()
              if t.status.name == "Pipelined"}
    return r.evicted, placed


def test_full_nodes_are_skipped_and_the_rest_still_preempts() -> None:
    scenario = _scenario([(0, 4), (0, 4), (2, 2), (4, 0)], [2, 1])
    evicted, placed = _decisions(scenario)
    assert evicted and set(placed.values()) <= {"n2", "n3"}
    _Unchecked.asked.clear()
    assert _decisions(scenario, precheck=False) == (evicted, placed)
    assert _Unchecked.asked  # the search really ran without the pre-check


@settings(max_examples=40, deadline=None)
@given(layout=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)).map(lambda t: (t[0], min(t[1], 4 - t[0]))),
                       min_size=1, max_size=5),
       pending=st.lists(st.integers(1, 4), min_size=1, max_size=4))
def test_precheck_changes_no_decision(layout: list[tuple[int, int]], pending: list[int]) -> None:
    scenario = _scenario(layout, pending)
    assert _decisions(scenario) == _decisions(scenario, precheck=False)
