"""``TaskSpec``'s pod-term fields: ``terms`` says whether the pod carries any pod affinity or
anti-affinity (required or preferred), and the lists a pod leaves empty are one shared empty
tuple (read-only; most pods have none)."""

from __future__ import annotations

from typing import Any

from volcano.conformance.lib.builders import pod
from volcano.scheduler.framework.task import TaskSpec

_TERM = {"labelSelector": {"matchLabels": {"app": "a"}}, "topologyKey": "kubernetes.io/hostname"}


def _with(affinity: dict[str, Any] | None, tolerations: list[dict[str, Any]] | None = None) -> TaskSpec:
    p = pod("p-0", req={"cpu": "1"}, tolerations=tolerations)
    if affinity is not None:
        p["spec"]["affinity"] = affinity
    return TaskSpec(p)


def test_terms_covers_required_and_preferred_affinity_and_anti_affinity() -> None:
    required = {"requiredDuringSchedulingIgnoredDuringExecution": [_TERM]}
    preferred = {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": _TERM}]}
    assert not _with(None).terms
    assert not _with({"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []}}).terms
    for kind in ("podAffinity", "podAntiAffinity"):
        assert _with({kind: required}).terms and _with({kind: preferred}).terms
    anti = _with({"podAntiAffinity": required})
    assert anti.pod_anti_affinity == [_TERM] and not anti.pod_affinity


def test_empty_term_and_toleration_lists_are_one_shared_empty_tuple() -> None:
    a, b = _with(None), _with({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": []}})
    assert a.tolerations == () and a.tolerations is b.tolerations is a.pod_affinity is b.pod_anti_affinity
    tol = [{"key": "k", "operator": "Exists"}]
    assert _with(None, tol).tolerations == tol
