"""Job traces: the CSV format users feed to ``volcano replay`` and a seeded synthetic generator.

A trace is a list of ``TraceJob`` sorted by submit time. The CSV has a header
row naming at least these columns (any order; extra columns are ignored, an
optional ``name`` column names the jobs):

=============  =============================================================
``submit_s``   submit time in seconds from the start of the replay (>= 0)
``gang_size``  pods in the job; all must run at once (PodGroup minMember)
``cpu``        CPU request of each pod (a Kubernetes quantity: ``4``, ``500m``)
``memory``     memory request of each pod (a quantity: ``16Gi``)
``gpu``        ``nvidia.com/gpu`` request of each pod (a whole number >= 0)
``duration_s`` how long each pod works once running, in seconds (> 0)
``queue``      the Volcano queue (a DNS-1123 label such as ``research``)
=============  =============================================================

A bad row is refused with ``TraceError`` naming the line and the column:
``line 7, column gpu: expected a whole number >= 0, got '1.5'``.

``synthetic_trace`` draws a trace from one seed: Poisson arrivals over the
simulated span, power-of-two gang sizes with a heavy (geometric in the
exponent) tail capped at the cluster size, lognormal durations, and queues
drawn in proportion to their weights. Its randomness comes from one named
stream of ``volcano.sim.RandomStreams`` seeding a ``numpy`` Generator, so the
same seed gives the same trace on every machine.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from volcano.api.quantity import parse_quantity
from volcano.sim import RandomStreams

__all__ = ["COLUMNS", "DEFAULT_QUEUES", "SyntheticSpec", "TraceError", "TraceJob", "read_trace", "synthetic_trace",
           "write_trace"]

COLUMNS = ("submit_s", "gang_size", "cpu", "memory", "gpu", "duration_s", "queue")
"""The columns every trace CSV must have (``name`` is optional)."""

DEFAULT_QUEUES: tuple[tuple[str, int], ...] = (("prod", 4), ("research", 3), ("dev", 2), ("batch", 1))
"""The synthetic trace's queues and their weights."""

_QUEUE_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_JOB_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


class TraceError(ValueError):
    """A trace that cannot be used; the message names the line and column at fault."""


@dataclass(frozen=True)
class TraceJob:
    """One job of a trace: ``gang_size`` pods of ``cpu``/``memory``/``gpu`` each, submitted at
    ``submit_s`` to ``queue``, each pod working ``duration_s`` seconds once running."""

    name: str
    submit_s: float
    gang_size: int
    cpu: str
    memory: str
    gpu: int
    duration_s: float
    queue: str

    @property
    def gpus(self) -> int:
        """GPUs the whole gang holds while it runs."""
        return self.gang_size * self.gpu


def _number(text: str, where: str, *, whole: bool, positive: bool) -> float:
    bound = "> 0" if positive else ">= 0"
    kind = "a whole number" if whole else "a number of seconds"
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        raise TraceError(f"{where}: expected {kind} {bound}, got {text!r}") from None
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise TraceError(f"{where}: expected {kind} {bound}, got {text!r}")
    return value


def _quantity(text: str, where: str) -> str:
    try:
        value = parse_quantity(text)
    except ValueError:
        raise TraceError(f"{where}: expected a Kubernetes quantity such as 4, 500m or 16Gi, got {text!r}") from None
    if value < 0:
        raise TraceError(f"{where}: expected a quantity >= 0, got {text!r}")
    return text


def _row(line: int, row: dict[str, str], index: int) -> TraceJob:
    def cell(column: str) -> str:
        value = row.get(column)
        if value is None or not value.strip():
            raise TraceError(f"line {line}, column {column}: missing value")
        return value.strip()

    def at(column: str) -> str:
        return f"line {line}, column {column}"

    submit_s = _number(cell("submit_s"), at("submit_s"), whole=False, positive=False)
    gang_size = int(_number(cell("gang_size"), at("gang_size"), whole=True, positive=True))
    cpu, memory = _quantity(cell("cpu"), at("cpu")), _quantity(cell("memory"), at("memory"))
    gpu = int(_number(cell("gpu"), at("gpu"), whole=True, positive=False))
    duration_s = _number(cell("duration_s"), at("duration_s"), whole=False, positive=True)
    queue = cell("queue")
    if not _QUEUE_NAME.match(queue) or len(queue) > 63:
        raise TraceError(f"{at('queue')}: expected a queue name (lower-case letters, digits and '-'), got {queue!r}")
    name = (row.get("name") or "").strip() or f"job-{index}"
    if not _JOB_NAME.match(name) or len(name) > 50:
        raise TraceError(f"{at('name')}: expected a job name (lower-case letters, digits and '-', "
                         f"at most 50 characters), got {name!r}")
    return TraceJob(name=name, submit_s=submit_s, gang_size=gang_size, cpu=cpu, memory=memory, gpu=gpu,
                    duration_s=duration_s, queue=queue)


def read_trace(source: str | Path | Iterable[str]) -> list[TraceJob]:
    """Parse a trace CSV (a path, or the lines of one) into jobs sorted by submit time (stable).

    ``TraceError`` names the first bad line and column; a file that cannot be read is ``OSError``.
    """
    if isinstance(source, str | Path):
        with open(source, newline="", encoding="utf-8") as f:
            return read_trace(list(f))
    reader = csv.DictReader(source)
    header = [h.strip() for h in (reader.fieldnames or [])]
    if not header:
        raise TraceError("line 1: empty trace: expected a header row with columns " + ",".join(COLUMNS))
    reader.fieldnames = header
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise TraceError(f"line 1: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                         f"(expected {','.join(COLUMNS)})")
    jobs: list[TraceJob] = []
    names: set[str] = set()
    for row in reader:
        line = reader.line_num
        if None in row:
            raise TraceError(f"line {line}: {len(header) + len(row[None])} values for {len(header)} columns")
        job = _row(line, row, len(jobs))
        if job.name in names:
            raise TraceError(f"line {line}, column name: duplicate job name {job.name!r}")
        names.add(job.name)
        jobs.append(job)
    jobs.sort(key=lambda j: j.submit_s)
    return jobs


def _seconds(value: float) -> str:
    """``30`` for 30.0, else the shortest text that reads back as the same float."""
    return str(int(value)) if value == int(value) else repr(float(value))


def write_trace(jobs: Sequence[TraceJob], target: str | Path | None = None) -> str:
    """The trace as CSV text (with a ``name`` column); also written to ``target`` when given."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("name", *COLUMNS))
    for j in jobs:
        writer.writerow((j.name, _seconds(j.submit_s), j.gang_size, j.cpu, j.memory, j.gpu, _seconds(j.duration_s),
                         j.queue))
    text = out.getvalue()
    if target is not None:
        Path(target).write_text(text, encoding="utf-8")
    return text


@dataclass(frozen=True)
class SyntheticSpec:
    """The shape of a synthetic trace.

    ``jobs`` arrive as a Poisson process over ``hours`` (the arrival rate is
    ``jobs / (hours * 3600)``). A gang has ``2**k`` pods, ``P(k) ∝ gang_tail**k``,
    capped at ``nodes``; gangs of ``gpus_per_node`` pods or more take whole
    nodes (``gpus_per_node`` GPUs per pod), smaller ones 1, 2, 4 or 8 GPUs per
    pod. Durations are lognormal (median ``duration_median_s``, shape
    ``duration_sigma``), capped at ``hours``. Queues are drawn in proportion
    to their weights.
    """

    nodes: int = 1000
    gpus_per_node: int = 8
    hours: float = 24.0
    jobs: int = 20000
    gang_tail: float = 0.45
    duration_median_s: float = 480.0
    duration_sigma: float = 1.5
    queues: tuple[tuple[str, int], ...] = DEFAULT_QUEUES


_SMALL_GPUS = np.array([1, 2, 4, 8])
_SMALL_GPU_P = np.array([0.4, 0.2, 0.15, 0.25])


def synthetic_trace(seed: int, spec: SyntheticSpec | None = None) -> list[TraceJob]:
    """A trace drawn from ``seed`` with the shape ``spec`` (default: 1,000 nodes of 8 GPUs,
    24 hours, 20,000 jobs). Pods of ``gpu`` GPUs ask for ``12 * gpu`` CPUs (4 at least) and
    ``96Gi * gpu`` of memory (16Gi at least) (the node shape of ``replay.node_shape``)."""
    spec = spec or SyntheticSpec()
    if spec.jobs < 0 or spec.nodes < 1 or spec.hours <= 0 or spec.gpus_per_node < 1:
        raise ValueError(f"synthetic trace: invalid shape {spec}")
    rng = np.random.default_rng(RandomStreams(seed).stream("replay-trace").getrandbits(128))
    span_s = spec.hours * 3600.0
    n = spec.jobs
    # n arrivals of a Poisson process conditioned on n in the span: sorted uniform times.
    submits = np.sort(rng.uniform(0.0, span_s, size=n))
    max_k = math.floor(math.log2(spec.nodes))
    weights = spec.gang_tail ** np.arange(max_k + 1)
    ks = rng.choice(max_k + 1, size=n, p=weights / weights.sum())
    gangs = np.minimum(2 ** ks, spec.nodes)
    small = rng.choice(_SMALL_GPUS, size=n, p=_SMALL_GPU_P)
    gpus = np.where(gangs >= spec.gpus_per_node, spec.gpus_per_node, np.minimum(small, spec.gpus_per_node))
    durations = np.minimum(rng.lognormal(math.log(spec.duration_median_s), spec.duration_sigma, size=n), span_s)
    names = [q for q, _ in spec.queues]
    qw = np.array([w for _, w in spec.queues], dtype=float)
    queues = rng.choice(len(names), size=n, p=qw / qw.sum())
    jobs = []
    for i in range(n):
        g = int(gpus[i])
        jobs.append(TraceJob(name=f"job-{i}", submit_s=round(float(submits[i]), 3), gang_size=int(gangs[i]),
                             cpu=str(max(4, 12 * g)), memory=f"{max(16, 96 * g)}Gi", gpu=g,
                             duration_s=max(1.0, round(float(durations[i]), 3)), queue=names[int(queues[i])]))
    return jobs
