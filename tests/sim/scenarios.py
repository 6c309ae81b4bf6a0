"""Random small cluster scenarios, and what a run of one leaves behind (trace and store).

A ``Scenario`` is data: a cluster shape and a list of timed steps (apply a
manifest, delete a Job, send a Command, fail or recover a node). ``random_scenario``
draws one from a ``random.Random``; ``run_scenario`` plays it on a fresh
``FakeCluster`` and returns the decision trace and every stored object, so that two
runs (two code paths, two settings) can be compared trace for trace and store for
store. Tests that prove an optimisation changes nothing observable use it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import generate_latest

from volcano.api.kinds import KINDS
from volcano.conformance.lib.builders import Task, job, pod, pod_group, queue
from volcano.testbed import FakeCluster

__all__ = ["Outcome", "Scenario", "Step", "random_scenario", "run_scenario"]

Obj = dict[str, Any]


@dataclass(frozen=True)
class Step:
    """One thing done to the cluster at ``at_ms``: ``kind`` is ``apply`` (``arg`` a manifest),
    ``delete`` (``arg`` a Job name), ``command`` (``arg`` a (Job name, action) pair: a Command
    targeting the Job as it is then), ``fail``/``recover`` (``arg`` a node name)."""

    at_ms: int
    kind: str
    arg: Any


@dataclass
class Scenario:
    """A cluster shape and its timed steps, run for ``horizon_ms`` of simulated time."""

    nodes: int
    cpu: str
    steps: list[Step] = field(default_factory=list)
    horizon_ms: int = 300_000
    seed: int = 0


@dataclass
class Outcome:
    """What a run leaves behind: the trace lines, every stored object (as sorted JSON), the
    scheduler's metrics (Prometheus text), both schedulers' cycle counts and the runs the clock skipped."""

    trace: list[str]
    store: dict[str, list[str]]
    now_ms: int
    metrics: str = ""
    cycles: tuple[int, int] = (0, 0)
    skipped: int = 0


_POLICIES: tuple[list[Obj] | None, ...] = (
    None,
    [{"event": "PodFailed", "action": "RestartJob"}],
    [{"event": "PodEvicted", "action": "RestartJob"}],
    [{"event": "TaskCompleted", "action": "CompleteJob"}],
    [{"event": "PodFailed", "action": "AbortJob"}],
    [{"event": "PodFailed", "action": "RestartTask"}],
)


def _task(rng: random.Random, name: str, depends: str | None) -> Task:
    rep = rng.randint(1, 4)
    duration = rng.choice([None, "5s", "20s", "45s", "90s"])
    exit_code = 1 if duration is not None and rng.random() < 0.2 else 0
    return Task(name=name, rep=rep, min=rng.randint(1, rep), req={"cpu": rng.choice(["500m", "1", "2"])},
                duration=duration, exit_code=exit_code, gang_progress=duration is not None and rng.random() < 0.3,
                restart_policy=rng.choice(["Never", "OnFailure"]), policies=rng.choice(_POLICIES),
                max_retry=rng.choice([None, 1, 2]), grace_seconds=rng.choice([0, 3, 30]),
                depends_on=[depends] if depends else None)


def _job(rng: random.Random, name: str, queues: list[str]) -> Obj:
    tasks: list[Task] = []
    for t in range(rng.randint(1, 2)):
        depends = tasks[0].name if t and rng.random() < 0.3 else None
        tasks.append(_task(rng, f"t{t}", depends))
    return job(name, tasks, queue=rng.choice(queues), policies=rng.choice(_POLICIES), max_retry=rng.choice([None, 2]),
               min_success=rng.choice([None, None, 1]))


def _command(cluster: FakeCluster, target: str, action: str) -> Obj:
    uid = cluster.get("Job", target)["metadata"]["uid"]
    return {"apiVersion": "bus.volcano.sh/v1alpha1", "kind": "Command", "metadata": {"generateName": f"{target}-"},
            "action": action, "target": {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": target,
                                         "uid": uid}}


def random_scenario(rng: random.Random, *, horizon_ms: int = 300_000) -> Scenario:
    """A small random scenario: 1-4 nodes, up to 2 extra queues, 1-4 Volcano Jobs, plain
    PodGroups with pods, and now and then a Job deletion, a Command or a node failure."""
    sc = Scenario(nodes=rng.randint(1, 4), cpu=rng.choice(["2", "4", "8"]), horizon_ms=horizon_ms,
                  seed=rng.randint(0, 3))
    queues = ["default"]
    for i in range(rng.randint(0, 2)):
        queues.append(f"q{i}")
        sc.steps.append(Step(0, "apply", queue(f"q{i}", weight=rng.randint(1, 3))))
    late = max(1, horizon_ms // 2)
    for j in range(rng.randint(1, 4)):
        name = f"job{j}"
        at = rng.choice([1000, rng.randrange(1000, late)])
        sc.steps.append(Step(at, "apply", _job(rng, name, queues)))
        roll = rng.random()
        if roll < 0.15:
            sc.steps.append(Step(at + rng.randrange(1000, late), "delete", name))
        elif roll < 0.35:
            action = rng.choice(["AbortJob", "RestartJob", "TerminateJob", "ResumeJob"])
            sc.steps.append(Step(at + rng.randrange(1000, late), "command", (name, action)))
    for g in range(rng.randint(0, 2)):
        members = rng.randint(1, 3)
        at = rng.randrange(1000, late)
        sc.steps.append(Step(at, "apply", pod_group(f"pg{g}", min_member=members, queue=rng.choice(queues))))
        for k in range(members + rng.randint(0, 1)):
            sc.steps.append(Step(at, "apply", pod(f"pg{g}-{k}", group=f"pg{g}", req={"cpu": "1"},
                                                  duration=rng.choice([None, "10s", "60s"]))))
    if rng.random() < 0.2:
        at = rng.randrange(1000, late)
        sc.steps.append(Step(at, "fail", "node-0"))
        sc.steps.append(Step(at + rng.randrange(1000, 400_000), "recover", "node-0"))
    sc.steps.sort(key=lambda s: s.at_ms)
    return sc


def _dump(cluster: FakeCluster) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for info in KINDS:
        items = cluster.server.list(info.key)["items"]
        if items:
            out[info.key] = [json.dumps(obj, sort_keys=True, default=str) for obj in items]
    return out


def _metrics(cluster: FakeCluster) -> str:
    """The scheduler's metrics as Prometheus text, without the ``_created`` samples (wall time)."""
    text = generate_latest(cluster.scheduler.metrics.registry).decode()
    return "\n".join(line for line in text.splitlines() if "_created" not in line)


def run_scenario(sc: Scenario, make: Callable[[int], FakeCluster] | None = None,
                 run: Callable[[FakeCluster, int], None] | None = None) -> Outcome:
    """Play ``sc`` on ``make(seed)`` (default ``FakeCluster(seed)``), advancing time with
    ``run(cluster, until_ms)`` (default ``cluster.clock.run``); errors a step meets
    (an admission refusal, a missing object) are recorded in the outcome's trace."""
    cluster = make(sc.seed) if make is not None else FakeCluster(seed=sc.seed)
    advance = run or (lambda c, until: c.clock.run(until))
    cluster.add_nodes(sc.nodes, cpu=sc.cpu, memory="16Gi")
    notes: list[str] = []
    for step in sc.steps:
        if step.at_ms > cluster.clock.now_ms:
            advance(cluster, step.at_ms)
        try:
            if step.kind == "apply":
                cluster.apply(step.arg)
            elif step.kind == "command":
                cluster.apply(_command(cluster, *step.arg))
            elif step.kind == "delete":
                cluster.delete("Job", step.arg)
            elif step.kind == "fail":
                cluster.fail_node(step.arg)
            elif step.kind == "recover":
                cluster.recover_node(step.arg)
        except Exception as exc:  # a refused step is part of the outcome
            notes.append(f"{cluster.clock.now_ms} step {step.kind} failed: {type(exc).__name__}: {exc}")
    advance(cluster, sc.horizon_ms)
    return Outcome(cluster.trace.lines() + notes, _dump(cluster), cluster.clock.now_ms,
                   _metrics(cluster),
                   (cluster.scheduler.cycles, cluster.default_scheduler.cycles), cluster.clock.skipped_runs)
