"""Tests for the binpack plugin: upstream's argument parsing and score table."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from volcano.scheduler.framework.conf import PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.model import NodeSpec, QueueInfo, TaskSpec
from volcano.scheduler.framework.plugin import Arguments, PluginRegistry
from volcano.scheduler.framework.points import NODE_ORDER
from volcano.scheduler.framework.resources import ResourceSpace
from volcano.scheduler.framework.session import Session, Snapshot
from volcano.scheduler.plugins.binpack import BinpackPlugin, BinpackWeights, binpack_scores, parse_binpack_arguments

GPU, FOO = "nvidia.com/gpu", "example.com/foo"


def test_arguments() -> None:
    w = parse_binpack_arguments(Arguments({
        "binpack.weight": 10, "binpack.cpu": 5, "binpack.memory": 2,
        "binpack.resources": "nvidia.com/gpu, example.com/foo",
        "binpack.resources.nvidia.com/gpu": 7, "binpack.resources.example.com/foo": -3}))
    assert w.weight == 10
    assert dict(w.resources) == {"cpu": 5, "memory": 2, GPU: 7, FOO: 1}
    assert parse_binpack_arguments(Arguments({"binpack.cpu": "x"})).resources["cpu"] == 1


def _node(name: str, alloc: dict[str, str]) -> dict[str, Any]:
    return {"metadata": {"name": name}, "status": {"allocatable": alloc}}


def _pod(name: str, req: dict[str, str], node: str = "") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "c1", "uid": f"c1-{name}",
                         "annotations": {"scheduling.k8s.io/group-name": "pg1"}},
            "spec": {"nodeName": node, "containers": [{"resources": {"requests": req}}]},
            "status": {"phase": "Pending"}}


def _session(args: dict[str, Any]) -> Session:
    nodes = [_node("n1", {"cpu": "2", "memory": "4Gi"}), _node("n2", {"cpu": "4", "memory": "16Gi", GPU: "4"}),
             _node("n3", {"cpu": "2", "memory": "4Gi", FOO: "16"})]
    pods = [_pod("p1", {"cpu": "1", "memory": "1Gi"}, "n1"), _pod("p2", {"cpu": "1500m"}, "n3"),
            _pod("p3", {"cpu": "2", "memory": "10Gi", GPU: "2"}), _pod("p4", {"cpu": "3", "memory": "4Gi", FOO: "3"})]
    pg = {"metadata": {"name": "pg1", "namespace": "c1"}, "spec": {"queue": "c1"}, "status": {"phase": "Inqueue"}}
    conf = SchedulerConf(actions=("allocate",), tiers=(Tier((PluginOption("binpack", {}, args),)),))
    snap = Snapshot(space=ResourceSpace([GPU, FOO]), nodes=[NodeSpec(n) for n in nodes], podgroups=[(pg, 0)],
                    tasks=[TaskSpec(p) for p in pods],
                    queues=[QueueInfo({"metadata": {"name": "c1"}, "status": {"state": "Open"}})])
    return Session(snap, conf, PluginRegistry([BinpackPlugin]))


ARGS_A = {"binpack.weight": 10, "binpack.cpu": 2, "binpack.memory": 3, "binpack.resources": f"{GPU}, {FOO}",
          f"binpack.resources.{GPU}": 7, f"binpack.resources.{FOO}": 8}
ARGS_B = {"binpack.weight": 1, "binpack.cpu": 1, "binpack.memory": 1, "binpack.resources": GPU,
          f"binpack.resources.{GPU}": 23}


@pytest.mark.parametrize(("args", "expected"), [
    (ARGS_A, {"p1": [700, 137.5, 0], "p2": [0, 375, 0], "p3": [0, 531.25, 0], "p4": [0, 173.076923076, 0]}),
    (ARGS_B, {"p1": [75, 15.625, 0], "p2": [0, 37.5, 0], "p3": [0, 50.5, 0], "p4": [0, 50, 0]}),
], ids=["weights-10-2-3-7-8", "weights-1-1-1-23"])
def test_node_scores_upstream_table(args: dict[str, Any], expected: dict[str, list[float]]) -> None:
    ssn = _session(args)
    job = ssn.jobs["c1/pg1"]
    rows = np.arange(len(ssn.table), dtype=np.intp)
    for task in job.tasks.values():
        got = ssn.node_scores(task, rows)
        assert got.tolist() == pytest.approx(expected[task.name], abs=1e-6), task.name


def test_zero_weight_registers_nothing_and_overflow_zeroes_node() -> None:
    assert not _session({"binpack.weight": 0}).has(NODE_ORDER)
    alloc = np.array([[2000, 0], [1000, 0]], dtype=np.int64)
    used = np.zeros((2, 2), dtype=np.int64)
    scores = binpack_scores({"cpu": 1500}, ["cpu", "memory"], alloc, used, BinpackWeights())
    assert scores.tolist() == [75.0, 0.0]
