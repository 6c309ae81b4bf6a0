"""The nodeorder plugin: kube-scheduler's resource scores, weighted, over all node rows at once.

Implemented scorers (each 0-100, multiplied by its weight argument; a weight
of 0 disables the scorer):

* ``leastrequested.weight`` (1): NodeResourcesFit LeastAllocated over cpu and
  memory with equal weights: per resource ``(alloc - req) * 100 // alloc``
  (0 when the request exceeds the node, resources with no allocatable are
  skipped), averaged with integer division, as Kubernetes does.
* ``mostrequested.weight`` (0): MostAllocated: ``min(req, alloc) * 100 // alloc``.
* ``balancedresource.weight`` (1): BalancedAllocation over cpu, memory and
  ``nvidia.com/gpu``: ``int((1 - std(fractions)) * 100)`` with fractions capped
  at 1, resources with no allocatable skipped, and ``nvidia.com/gpu`` only for
  pods that request it (Kubernetes leaves out an extended resource the pod does
  not request); skipped entirely for pods that request none of these resources.

``req`` is what the node already holds plus the task. Documented deviation:
Kubernetes counts 100m cpu / 200Mi memory for containers that request none
(for Least/MostAllocated); here the incoming task gets those defaults when it
requests no cpu or memory, while the node's existing pods count with their
actual requests.

``nodeaffinity.weight`` (2), ``tainttoleration.weight`` (3) and
``podaffinity.weight`` (2) add kube-scheduler's NodeAffinity (preferred
terms), TaintToleration (PreferNoSchedule) and InterPodAffinity (preferred
terms) scores, each normalised over the scored nodes
(``volcano.scheduler.plugins.affinity_scores``).

``imagelocality.weight`` (1) adds kube-scheduler's ImageLocality score, not
normalised (Volcano multiplies the raw score by the weight): for every init and
regular container whose image (``:latest`` added when it has no tag) a node lists
in ``status.images``, the image's size times the share of the session's nodes that
list it, summed, clamped to [23 MiB, 1000 MiB x containers] and scaled to 0-100.
Topology spread scores are not implemented yet; ``podtopologyspread.weight`` is
accepted and ignored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from volcano.scheduler.framework.plugin import Plugin
from volcano.scheduler.framework.points import NODE_ORDER
from volcano.scheduler.plugins.affinity_scores import AffinityScorers

if TYPE_CHECKING:
    from volcano.scheduler.framework.model import TaskInfo
    from volcano.scheduler.framework.session import Session

__all__ = [
    "DEFAULT_WEIGHTS",
    "NodeorderPlugin",
    "balanced_allocation",
    "image_locality",
    "image_states",
    "least_allocated",
    "most_allocated",
    "normalized_image_name",
]

MAX = 100
DEFAULT_MILLI_CPU = 100
DEFAULT_MEMORY = 200 * 1024 * 1024 * 1000  # 200Mi in milli-units

DEFAULT_WEIGHTS: Mapping[str, int] = {
    "leastrequested.weight": 1, "mostrequested.weight": 0, "nodeaffinity.weight": 2, "podaffinity.weight": 2,
    "balancedresource.weight": 1, "tainttoleration.weight": 3, "imagelocality.weight": 1,
    "podtopologyspread.weight": 2,
}
"""Upstream's scorer weights by argument name."""

MIB = 1024 * 1024
MIN_IMAGE_THRESHOLD = 23 * MIB
"""ImageLocality's floor: image sums below it score 0."""
MAX_CONTAINER_IMAGE_THRESHOLD = 1000 * MIB
"""ImageLocality's ceiling per container: sums above it (times the containers) score 100."""

IntMatrix = npt.NDArray[np.int64]
FloatVec = npt.NDArray[np.float64]


def _resource_average(requested: IntMatrix, alloc: IntMatrix, most: bool) -> npt.NDArray[np.int64]:
    """Kubernetes' equal-weight resource scorer over the columns of ``requested``/``alloc`` (one row per node)."""
    has = alloc != 0
    if has.all() and alloc.shape[1]:  # the usual case, fewer array passes (same integers)
        if most:
            score = (np.minimum(requested, alloc) * MAX) // alloc
        else:
            score = np.where(requested > alloc, 0, ((alloc - requested) * MAX) // alloc)
        average: npt.NDArray[np.int64] = score.sum(axis=1) // alloc.shape[1]
        return average
    safe = np.where(has, alloc, 1)
    if most:
        score = (np.minimum(requested, alloc) * MAX) // safe
    else:
        score = np.where(requested > alloc, 0, ((alloc - requested) * MAX) // safe)
    total = np.where(has, score, 0).sum(axis=1)
    weight_sum = has.sum(axis=1)
    return np.where(weight_sum > 0, total // np.maximum(weight_sum, 1), 0)


def least_allocated(requested: IntMatrix, alloc: IntMatrix) -> npt.NDArray[np.int64]:
    """LeastAllocated scores (0-100) of every node row; columns are the scored resources (cpu, memory)."""
    return _resource_average(requested, alloc, most=False)


def most_allocated(requested: IntMatrix, alloc: IntMatrix) -> npt.NDArray[np.int64]:
    """MostAllocated scores (0-100) of every node row."""
    return _resource_average(requested, alloc, most=True)


def balanced_allocation(requested: IntMatrix, alloc: IntMatrix) -> npt.NDArray[np.int64]:
    """BalancedAllocation scores (0-100): ``int((1 - std(req/alloc)) * 100)`` over resources the node has."""
    has = alloc != 0
    k = alloc.shape[1]
    if k and has.all():  # the usual case: the same floating-point operations, fewer passes
        frac = np.minimum(requested / alloc, 1.0)
        if k == 2:
            std = np.abs(frac[:, 0] - frac[:, 1]) / 2
        else:
            mean = frac.sum(axis=1) / k
            std = np.sqrt(((frac - mean[:, None]) ** 2).sum(axis=1) / k)
        balanced: npt.NDArray[np.int64] = ((1.0 - std) * MAX).astype(np.int64)
        return balanced
    frac = np.where(has, requested / np.where(has, alloc, 1), 0.0)
    frac = np.minimum(frac, 1.0)
    count = has.sum(axis=1)
    safe = np.maximum(count, 1)
    mean = frac.sum(axis=1) / safe
    var = (np.where(has, (frac - mean[:, None]) ** 2, 0.0)).sum(axis=1) / safe
    std = np.sqrt(var)
    with np.errstate(invalid="ignore"):  # Kubernetes uses |f1 - f2| / 2 for exactly two resources
        hi = np.where(has, frac, -np.inf).max(axis=1)
        lo = np.where(has, frac, np.inf).min(axis=1)
        std = np.where(count == 2, (hi - lo) / 2, std)
    std = np.where(count == 0, 0.0, std)
    return ((1.0 - std) * MAX).astype(np.int64)


def normalized_image_name(name: str) -> str:
    """Kubernetes' ``normalizedImageName``: ``:latest`` added when the name carries no tag."""
    return name + ":latest" if name.rfind(":") <= name.rfind("/") else name


def image_states(listings: Iterable[Sequence[tuple[str, int]]]) -> dict[str, tuple[int, int]]:
    """Image name -> (size in bytes, how many nodes list it) over each node's ``node_images``
    listing (the scheduler cache's image state summaries; the size is the last listing's)."""
    out: dict[str, tuple[int, int]] = {}
    for listing in listings:
        for name, size in listing:
            out[name] = (size, out.get(name, (0, 0))[1] + 1)
    return out


def image_locality(images: Sequence[str], listings: Sequence[Sequence[tuple[str, int]]],
                   states: Mapping[str, tuple[int, int]], total_nodes: int) -> npt.NDArray[np.int64]:
    """ImageLocality scores (0-100), one per node listing (``node_images``), for a pod whose
    containers (init and regular) run ``images``."""
    out = np.zeros(len(listings), dtype=np.int64)
    if not images or total_nodes <= 0:
        return out
    wanted = [normalized_image_name(i) for i in images]
    top = MAX_CONTAINER_IMAGE_THRESHOLD * len(images)
    for row, listing in enumerate(listings):
        names = {name for name, _ in listing}
        total = 0
        for name in wanted:
            if name in names:
                size, count = states[name]
                total += int(float(size) * (float(count) / float(total_nodes)))
        total = min(max(total, MIN_IMAGE_THRESHOLD), top)
        out[row] = 100 * (total - MIN_IMAGE_THRESHOLD) // (top - MIN_IMAGE_THRESHOLD)
    return out


def _pod_images(pod: Mapping[str, Any]) -> tuple[str, ...]:
    spec = pod.get("spec") or {}
    return tuple(str(c.get("image") or "") for key in ("initContainers", "containers") for c in spec.get(key) or [])


class NodeorderPlugin(Plugin):
    """Registers ``node_order`` with the weighted resource scores (see the module docstring)."""

    name = "nodeorder"
    ARGUMENTS = frozenset(DEFAULT_WEIGHTS)

    def open(self, ssn: Session) -> None:
        """Read the weights and register the scorer."""
        self.weights = {k: self.args.get_int(k, v) for k, v in DEFAULT_WEIGHTS.items()}
        self._ssn = ssn
        index = ssn.space.index
        self._fit_cols = [index["cpu"], index["memory"]]
        self._balanced_names: Sequence[str] = ("cpu", "memory", "nvidia.com/gpu")
        self._prefs = AffinityScorers(ssn, self.weights)
        self._plans: dict[object, tuple[npt.NDArray[np.int64] | None, list[int], npt.NDArray[np.int64] | None]] = {}
        # Row-local when the normalised scorers (node affinity, taint toleration, pod
        # affinity) are flat for the task: the resource scorers read only the row's
        # allocatable/used and the task's requests.
        # ImageLocality: only when some node lists images (else it scores 0 everywhere).
        # Each node's listing is parsed once per Node version (``NodeSpec.images``).
        self._listings = [n.spec.images for n in ssn.nodes] if self.weights["imagelocality.weight"] else []
        self._image_states = image_states(self._listings)
        self._image_scores: dict[tuple[str, ...], npt.NDArray[np.int64]] = {}
        ssn.add_fn(NODE_ORDER, self.score, row_local=self._row_local)

    def _row_local(self, task: TaskInfo) -> bool:
        """The affinity scorers' row-locality, and no image listed by any node (an image's score
        reads how many nodes list it, and the task's images are not in its signature)."""
        return not self._image_states and self._prefs.row_local(task)

    def _images(self, task: TaskInfo, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.int64] | None:
        """ImageLocality of ``rows`` for ``task`` (None when no node lists images)."""
        if not self._image_states:
            return None
        images = _pod_images(task.spec.pod)
        scores = self._image_scores.get(images)
        if scores is None:
            scores = self._image_scores[images] = image_locality(images, self._listings, self._image_states,
                                                                 len(self._listings))
        return scores[rows]

    def _plan(self, task: TaskInfo) -> tuple[npt.NDArray[np.int64] | None, list[int], npt.NDArray[np.int64] | None]:
        """Per task signature: the incoming cpu/memory for the fit scorers (None when
        disabled), and the balanced-allocation columns and incoming amounts (None when
        skipped)."""
        plan = self._plans.get(task.spec.sched_sig)
        if plan is None:
            req = task.spec.requests
            wl, wm, wb = (self.weights[k] for k in ("leastrequested.weight", "mostrequested.weight",
                                                    "balancedresource.weight"))
            fit = np.array([req.get("cpu") or DEFAULT_MILLI_CPU, req.get("memory") or DEFAULT_MEMORY],
                           dtype=np.int64) if wl or wm else None
            index, names = self._ssn.space.index, self._ssn.space.names
            # An extended resource the task requests none of is left out (Kubernetes scores it (0, 0)).
            cols = [index[n] for n in self._balanced_names if n in index and (n in ("cpu", "memory") or req.get(n))]
            bal = np.array([req.get(names[c], 0) for c in cols], dtype=np.int64) \
                if wb and any(req.get(n) for n in self._balanced_names) else None
            plan = self._plans[task.spec.sched_sig] = (fit, cols, bal)
        return plan

    def score(self, task: TaskInfo, rows: npt.NDArray[np.intp]) -> FloatVec:
        """The weighted sum of the enabled scorers for node ``rows``."""
        table = self._ssn.table
        fit, bal_cols, bal = self._plan(task)
        total = np.zeros(len(rows), dtype=np.float64)
        used, alloc = table.used[rows], table.alloc[rows]
        if fit is not None:
            cols = self._fit_cols
            requested, capacity = used[:, cols] + fit, alloc[:, cols]
            wl, wm = self.weights["leastrequested.weight"], self.weights["mostrequested.weight"]
            if wl:
                total += least_allocated(requested, capacity) * wl
            if wm:
                total += most_allocated(requested, capacity) * wm
        if bal is not None:
            total += balanced_allocation(used[:, bal_cols] + bal, alloc[:, bal_cols]) * self.weights[
                "balancedresource.weight"]
        total += self._prefs.score(task, rows)
        images = self._images(task, rows)
        if images is not None:
            total += images * self.weights["imagelocality.weight"]
        return total
