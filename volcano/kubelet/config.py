"""Kubelet settings and the pod annotations that describe simulated work.

Every scenario, test and benchmark describes what a pod's containers do with
three annotations (the contract between workloads and the simulated kubelet):

``sim.volcano.sh/duration``
    How much work the containers do: a Go-style duration (``500ms``, ``30s``,
    ``2m``, ``1h``, ``1.5s``, ``1m30s``) or a plain number of seconds
    (``90``, ``2.5``). Absent: the containers run until the pod is deleted.
``sim.volcano.sh/progress``
    ``alone`` (default): work advances whenever the containers run.
    ``gang``: work advances only while at least ``minMember`` pods of the pod's
    PodGroup (annotation ``scheduling.k8s.io/group-name``) run.
``sim.volcano.sh/exit-code``
    The exit code when the work is done (default 0, range 0..255).

``parse_sim_spec`` reads them from a pod; a malformed value raises
``SimAnnotationError`` naming the annotation and the value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from volcano.api.well_known import GROUP_NAME, SIM_DURATION, SIM_EXIT_CODE, SIM_PROGRESS

__all__ = [
    "PROGRESS_ALONE",
    "PROGRESS_GANG",
    "KubeletConfig",
    "SimAnnotationError",
    "SimSpec",
    "parse_duration_ms",
    "parse_sim_spec",
]

PROGRESS_ALONE = "alone"
PROGRESS_GANG = "gang"

_UNIT_MS = {"ms": Fraction(1), "s": Fraction(1000), "m": Fraction(60_000), "h": Fraction(3_600_000)}
_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
_PLAIN = re.compile(rf"^\+?{_NUMBER}$")
_GO_DURATION = re.compile(rf"^\+?(?:{_NUMBER}(?:ms|s|m|h))+$")
_GO_PART = re.compile(rf"({_NUMBER})(ms|s|m|h)")


class SimAnnotationError(ValueError):
    """A ``sim.volcano.sh/*`` annotation has a value the kubelet cannot use."""


def parse_duration_ms(value: str | int | float) -> int:
    """Milliseconds of a duration: ``30s``, ``2m``, ``1h``, ``1.5s``, ``250ms``,
    ``1m30s``, or a plain number of seconds (``90``, ``2.5``).

    Fractions of a millisecond round up. Negative or malformed values raise
    ``SimAnnotationError`` naming the value.
    """
    if isinstance(value, bool):
        raise SimAnnotationError(f"invalid duration {value!r}")
    if isinstance(value, int | float):
        if value < 0 or value != value or value in (float("inf"),):
            raise SimAnnotationError(f"invalid duration {value!r}: must be a finite number >= 0")
        total = Fraction(value) * 1000
    elif isinstance(value, str):
        text = value.strip()
        if _PLAIN.match(text):
            total = Fraction(text.lstrip("+")) * 1000
        elif _GO_DURATION.match(text):
            total = sum((Fraction(num) * _UNIT_MS[unit] for num, unit in _GO_PART.findall(text)), Fraction(0))
        else:
            raise SimAnnotationError(
                f"invalid duration {value!r}: expected e.g. '30s', '2m', '1h', '1.5s', '250ms' or seconds as a number")
    else:
        raise SimAnnotationError(f"invalid duration {value!r}: expected a string or a number")
    return -((-total.numerator) // total.denominator)


@dataclass(frozen=True, slots=True)
class SimSpec:
    """What a pod's containers do: ``duration_ms`` (None = until deleted),
    ``gang`` progress or not, the ``exit_code`` when done, and the PodGroup name
    (None when the pod names none)."""

    duration_ms: int | None
    gang: bool
    exit_code: int
    group: str | None


def parse_sim_spec(pod: Mapping[str, Any]) -> SimSpec:
    """Read the simulation annotations of ``pod`` (see the module docstring)."""
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    raw_duration = annotations.get(SIM_DURATION)
    duration: int | None = None
    if raw_duration is not None:
        try:
            duration = parse_duration_ms(raw_duration)
        except SimAnnotationError as err:
            raise SimAnnotationError(f"annotation {SIM_DURATION}: {err}") from None
    progress = annotations.get(SIM_PROGRESS, PROGRESS_ALONE)
    if progress not in (PROGRESS_ALONE, PROGRESS_GANG):
        raise SimAnnotationError(
            f"annotation {SIM_PROGRESS}: invalid value {progress!r}: expected 'alone' or 'gang'")
    raw_exit = annotations.get(SIM_EXIT_CODE, "0")
    try:
        exit_code = int(str(raw_exit).strip())
    except ValueError:
        exit_code = -1
    if not 0 <= exit_code <= 255:
        raise SimAnnotationError(
            f"annotation {SIM_EXIT_CODE}: invalid value {raw_exit!r}: expected an integer 0..255")
    group = annotations.get(GROUP_NAME) or None
    return SimSpec(duration, progress == PROGRESS_GANG, exit_code, group)


@dataclass(frozen=True, slots=True)
class KubeletConfig:
    """Timing of the simulated kubelet and node lifecycle, in simulated ms.

    ``start_delay_ms``: from the kubelet seeing a bound pod (or a container
    exiting under a restart policy) to its containers running.
    ``stop_delay_ms``: when set, a deleted pod's containers stop this long after
    the deletion if that is sooner than the grace period (a workload that exits
    promptly on SIGTERM); None = they run for the whole grace period.
    ``node_eviction_timeout_ms``: how long pods stay on a failed node before
    they are evicted (Kubernetes' default toleration of
    ``node.kubernetes.io/unreachable`` is 300 s).
    """

    start_delay_ms: int = 1000
    stop_delay_ms: int | None = None
    node_eviction_timeout_ms: int = 300_000

    def __post_init__(self) -> None:
        for name in ("start_delay_ms", "stop_delay_ms", "node_eviction_timeout_ms"):
            value = getattr(self, name)
            if value is None and name == "stop_delay_ms":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"KubeletConfig.{name} must be an integer >= 0 (ms), got {value!r}")
