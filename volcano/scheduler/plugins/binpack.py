"""The binpack plugin: prefer nodes that are fuller after placing the task (best fit).

For every resource the task requests (at least upstream's 0.1-unit
tolerance, ``pods`` included) that has a binpack weight ``w``, a node scores
``w * (request + used) / allocatable`` (0 when the node has none of it or the
weight is 0); if any such resource would overflow the node, the node's whole
score is 0. The weighted sum is divided by the sum of the weights and scaled
by ``100 * binpack.weight``. ``used`` counts every task holding the node
(allocated, binding, bound, running, releasing; not pipelined).

Scores are computed for all requested node rows at once (numpy), summing
resources in the order cpu, memory, then the other names sorted, which fixes
the floating-point summation order upstream leaves to Go's map order.

Arguments (upstream names and defaults): ``binpack.weight`` (1; 0 disables
the plugin), ``binpack.cpu`` (1), ``binpack.memory`` (1), ``binpack.resources``
(comma-separated extra resource names) and ``binpack.resources.<name>`` (1).
A negative resource weight is replaced by 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from volcano.scheduler.framework.plugin import Arguments, Plugin
from volcano.scheduler.framework.points import NODE_ORDER
from volcano.scheduler.framework.quota import ordered_names, tolerance

if TYPE_CHECKING:
    from volcano.scheduler.framework.model import TaskInfo
    from volcano.scheduler.framework.session import Session

__all__ = ["BinpackPlugin", "BinpackWeights", "binpack_scores", "parse_binpack_arguments"]

MAX_NODE_SCORE = 100


@dataclass(frozen=True)
class BinpackWeights:
    """The plugin weight and the per-resource weights."""

    weight: int = 1
    resources: Mapping[str, int] = field(default_factory=lambda: {"cpu": 1, "memory": 1})


def parse_binpack_arguments(args: Arguments) -> BinpackWeights:
    """Read the ``binpack.*`` arguments as upstream does (wrong types keep the default)."""
    weight = args.get_int("binpack.weight", 1)
    cpu = args.get_int("binpack.cpu", 1)
    memory = args.get_int("binpack.memory", 1)
    resources: dict[str, int] = {"cpu": cpu if cpu >= 0 else 1, "memory": memory if memory >= 0 else 1}
    for raw in args.get_str("binpack.resources", "").split(","):
        name = raw.strip()
        if not name or name in resources:
            continue
        w = args.get_int(f"binpack.resources.{name}", 1)
        resources[name] = w if w >= 0 else 1
    return BinpackWeights(weight, resources)


_Plan = tuple[list[tuple[int | None, int, int]], int]
"""(column or None, request, weight) per scored resource in summation order, and the weight sum."""


def _plan(request: Mapping[str, int], names: Sequence[str], weights: BinpackWeights) -> _Plan:
    index = {name: i for i, name in enumerate(names)}
    parts: list[tuple[int | None, int, int]] = []
    weight_sum = 0
    for name in ordered_names(k for k, v in request.items() if v >= tolerance(k)):
        w = weights.resources.get(name)
        if w is None:
            continue
        parts.append((index.get(name), request[name], w))
        weight_sum += w
    return parts, weight_sum


def _scores(plan: _Plan, alloc: npt.NDArray[np.int64], used: npt.NDArray[np.int64],
            weights: BinpackWeights) -> npt.NDArray[np.float64]:
    n = alloc.shape[0]
    score = np.zeros(n, dtype=np.float64)
    overflow = np.zeros(n, dtype=np.bool_)
    parts, weight_sum = plan
    for col, req, w in parts:
        if col is None or w == 0:  # the node has none of it (or no weight): adds nothing
            continue
        cap = alloc[:, col]
        after = used[:, col] + req
        counted = cap != 0
        overflow |= counted & (after > cap)
        score += np.where(counted, (after * w) / np.where(counted, cap, 1), 0.0)  # no division by 0
    if weight_sum > 0:
        score /= weight_sum
    score *= float(MAX_NODE_SCORE * weights.weight)
    score[overflow] = 0.0
    return score


def binpack_scores(request: Mapping[str, int], names: Sequence[str], alloc: npt.NDArray[np.int64],
                   used: npt.NDArray[np.int64], weights: BinpackWeights) -> npt.NDArray[np.float64]:
    """Binpack scores of the node rows of ``alloc``/``used`` (columns named by ``names``) for ``request``."""
    return _scores(_plan(request, names, weights), alloc, used, weights)


class BinpackPlugin(Plugin):
    """Registers ``node_order`` with the binpack score (nothing when ``binpack.weight`` is 0)."""

    name = "binpack"
    ARGUMENTS = frozenset({"binpack.weight", "binpack.cpu", "binpack.memory", "binpack.resources"})
    ARGUMENT_PREFIXES = ("binpack.resources.",)

    def open(self, ssn: Session) -> None:
        """Parse the weights and register the scorer."""
        self.weights = parse_binpack_arguments(self.args)
        self._ssn = ssn
        self._plans: dict[object, _Plan] = {}
        if self.weights.weight != 0:
            ssn.add_fn(NODE_ORDER, self.score, row_local=True)  # reads only the row and the requests

    def score(self, task: TaskInfo, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
        """Scores of node ``rows`` for ``task``."""
        table = self._ssn.table
        plan = self._plans.get(task.spec.sched_sig)
        if plan is None:
            plan = self._plans[task.spec.sched_sig] = _plan(task.spec.requests, table.space.names, self.weights)
        return _scores(plan, table.alloc[rows], table.used[rows], self.weights)
