"""The overcommit plugin: admit jobs (enqueue) against the whole cluster, overcommitted by a factor.

``idle = total * factor - Σ node used`` (may go negative). A job with
``minResources`` is enqueueable when ``inqueue + minResources <= idle`` on
the dimensions it asks for (``pods`` ignored, strict); ``inqueue`` starts as
the full ``minResources`` of every Inqueue job plus what Running jobs that
reached ``minMember`` still reserve, and grows as jobs are enqueued. A job
without ``minResources`` is always admitted. A rejection records the
PodGroup event ``Unschedulable`` with ``resource in cluster is overused``
(followed by ``: overused <resource>, ...``).

Argument ``overcommit-factor`` (default 1.2; below 1.0 means the default). The
factor is applied exactly, reading it as the decimal it was written as
(``1.2`` is 6/5), where upstream multiplies IEEE doubles.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING

from volcano.scheduler.framework.plugin import Plugin
from volcano.scheduler.framework.points import JOB_ENQUEUEABLE, JOB_ENQUEUED, PERMIT, REJECT
from volcano.scheduler.framework.quota import Num, add, fits_on_requested, format_resource_names, sub
from volcano.scheduler.framework.quota_state import deduct_gated, job_reserved, vec_to_dict

if TYPE_CHECKING:
    from volcano.scheduler.framework.model import JobInfo
    from volcano.scheduler.framework.session import Session

__all__ = ["DEFAULT_FACTOR", "OvercommitPlugin", "enqueue_check", "overcommit_factor", "overcommitted_idle"]

DEFAULT_FACTOR = Fraction(6, 5)
"""The default overcommit factor, 1.2."""


def overcommit_factor(value: float) -> Fraction:
    """The factor as an exact fraction of its decimal form; values below 1 give the default 1.2."""
    if value < 1.0:
        return DEFAULT_FACTOR
    return Fraction(repr(float(value)))


def overcommitted_idle(total: Mapping[str, Num], used: Mapping[str, Num], factor: Fraction) -> dict[str, Num]:
    """``total * factor - used`` per dimension (negative entries kept)."""
    return sub({name: value * factor for name, value in total.items()}, used)


def enqueue_check(inqueue: Mapping[str, Num], min_resources: Mapping[str, Num],
                  idle: Mapping[str, Num]) -> tuple[bool, list[str]]:
    """Whether ``inqueue + min_resources <= idle`` on the dimensions ``min_resources`` asks for; failing names."""
    return fits_on_requested(add(inqueue, min_resources), idle, min_resources)


class OvercommitPlugin(Plugin):
    """Registers ``job_enqueueable`` and ``job_enqueued`` (see the module docstring)."""

    name = "overcommit"
    ARGUMENTS = frozenset({"overcommit-factor"})

    def open(self, ssn: Session) -> None:
        """Compute the overcommitted idle and the already-admitted demand."""
        self._ssn = ssn
        names = ssn.space.names
        self.factor = overcommit_factor(self.args.get_float("overcommit-factor", 1.2))
        total = vec_to_dict(names, ssn.space.fit(ssn.total).tolist())
        used = vec_to_dict(names, ssn.table.used.sum(axis=0).tolist()) if len(ssn.table) else {}
        self.idle = overcommitted_idle(total, used, self.factor)
        self.inqueue: dict[str, Num] = {}
        for job in ssn.jobs.values():
            if job.min_resources is None:
                continue
            if job.phase == "Inqueue":
                self.inqueue = add(self.inqueue, deduct_gated(job.min_resources, job))
            elif job.phase == "Running":
                self.inqueue = add(self.inqueue, job_reserved(job, names))
        ssn.add_fn(JOB_ENQUEUEABLE, self.job_enqueueable)
        ssn.add_fn(JOB_ENQUEUED, self.job_enqueued)

    def job_enqueueable(self, job: JobInfo) -> int:
        """Permit when the job's minResources still fit the overcommitted idle."""
        if job.min_resources is None:
            return PERMIT
        ok, failing = enqueue_check(self.inqueue, job.min_resources, self.idle)
        if ok:
            return PERMIT
        self._ssn.podgroup_event(job, "Normal", "Unschedulable",
                                 format_resource_names("resource in cluster is overused", "overused", failing))
        return REJECT

    def job_enqueued(self, job: JobInfo) -> None:
        """Count the admitted job's minResources (less gated tasks) as in-queue demand."""
        if job.min_resources is not None:
            self.inqueue = add(self.inqueue, deduct_gated(job.min_resources, job))
