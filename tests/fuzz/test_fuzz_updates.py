"""Fuzzing updates of stored Pods against kube-apiserver's Pod update rules (Hypothesis).

Each example creates a Pod from a real manifest's pod template (``fixtures/``,
``fixtures/upstream-examples``), then sends an update (PUT) that either makes
one change a Pod update may make (an image, a new toleration, a lower
``activeDeadlineSeconds``, a label, a removed scheduling gate) or mutates any
other spec field as the manifest fuzzer does (type swaps, removals, garbage
quantities, overflowing integers, unicode, deep nesting). Half the pods are
gated (a scheduling gate), where the node selector and node affinity may
narrow.

Properties: an allowed change is stored; any other update is refused with 400
or 422 and the store is unchanged, unless it changes nothing Kubernetes can
see (a zero value removed, a quantity rewritten), in which case the spec
outside the updatable fields is semantically what it was. Counts go into the
fuzz report (``update_*`` keys) with the manifest fuzzer's.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.test_fuzz_manifests import _INTS as INTS
from tests.fuzz.test_fuzz_manifests import _QUANTITIES as QUANTITIES
from tests.fuzz.test_fuzz_manifests import _SCALARS as SCALARS
from tests.fuzz.test_fuzz_manifests import COUNTS, EXAMPLES, MANIFESTS, _nested, _paths
from volcano.api.frozen import thaw
from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.validation.pod_update import semantic
from volcano.sim import RandomStreams, SimClock

_UPDATABLE = ("activeDeadlineSeconds", "tolerations", "schedulingGates")


def _templates() -> list[dict[str, Any]]:
    """Pod templates of the fixtures that a bare Pod accepts."""
    found: list[dict[str, Any]] = []
    for doc in MANIFESTS:
        spec = doc.get("spec") or {}
        templates = [t.get("template") for t in spec.get("tasks") or []] + [spec.get("template")]
        for template in templates:
            if isinstance(template, dict) and isinstance(template.get("spec"), dict):
                found.append(template)
    server = ApiServer(SimClock(), RandomStreams(0))
    valid = []
    for template in found:
        pod = _pod(template)
        try:
            server.create(pod)
        except ApiError:
            continue
        server.delete("Pod", "p", "default", grace_period_seconds=0)
        valid.append(template)
    return valid


def _pod(template: dict[str, Any], gated: bool = False) -> dict[str, Any]:
    meta = template.get("metadata") or {}
    spec = copy.deepcopy(template["spec"])
    if gated:
        spec["schedulingGates"] = [{"name": "example.com/gate"}]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default", "labels": dict(meta.get("labels") or {}),
                         "annotations": dict(meta.get("annotations") or {})},
            "spec": spec}


TEMPLATES = _templates()


@st.composite
def allowed_edits(draw: st.DrawFn) -> tuple[str, Any]:
    """A change a Pod update may make: (what, its argument)."""
    how = draw(st.sampled_from(["image", "toleration", "deadline", "label", "ungate"]))
    return how, draw(st.integers(1, 10**6))


@st.composite
def other_edits(draw: st.DrawFn, spec: dict[str, Any]) -> tuple[tuple[Any, ...], str, Any]:
    paths = [p for p in _paths(spec) if p[0] not in _UPDATABLE and p[-1] != "image"]
    path = draw(st.sampled_from(paths))
    how = draw(st.sampled_from(["swap", "remove", "quantity", "int", "unicode", "nest"]))
    value = {"swap": st.one_of(SCALARS, st.just([]), st.just({}), st.lists(SCALARS, max_size=3)),
             "remove": st.none(), "quantity": st.sampled_from(QUANTITIES), "int": st.sampled_from(INTS),
             "unicode": st.text(min_size=1, max_size=20),
             "nest": st.sampled_from([5, 50, 2000]).map(_nested)}[how]
    return path, how, draw(value)


def _apply_allowed(pod: dict[str, Any], how: str, n: int) -> None:
    spec = pod["spec"]
    if how == "image":
        spec["containers"][n % len(spec["containers"])]["image"] = f"registry.example/img:{n}"
    elif how == "toleration":
        spec.setdefault("tolerations", []).append({"key": f"k{n}", "operator": "Exists", "effect": "NoSchedule"})
    elif how == "deadline":
        old = spec.get("activeDeadlineSeconds")
        spec["activeDeadlineSeconds"] = n if old is None else max(1, min(old, n))
    elif how == "label":
        pod["metadata"].setdefault("labels", {})[f"fuzz-{n}"] = "x"
    else:
        spec.pop("schedulingGates", None)


def _outside_updatable(spec: Any, gated: bool) -> Any:
    """The spec without what an update may change (a gated pod's node selector and node affinity too)."""
    skip = (*_UPDATABLE, "nodeSelector", "affinity") if gated else _UPDATABLE
    out = {k: v for k, v in (spec or {}).items() if k not in skip}
    for group in ("containers", "initContainers"):
        if isinstance(out.get(group), list):
            out[group] = [{k: v for k, v in c.items() if k != "image"} if isinstance(c, dict) else c
                          for c in out[group]]
    return semantic(out)


@settings(max_examples=max(50, EXAMPLES // 2), deadline=None, derandomize=EXAMPLES <= 1000,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_pod_update_is_allowed_or_refused_as_kube_apiserver_does(data: st.DataObject) -> None:
    template = data.draw(st.sampled_from(TEMPLATES))
    server = ApiServer(SimClock(), RandomStreams(0))
    stored = server.create(_pod(template, gated=data.draw(st.booleans())))
    edit = thaw(stored)
    if data.draw(st.booleans()):
        how, n = data.draw(allowed_edits())
        _apply_allowed(edit, how, n)
        out = server.update(edit)  # an allowed change must be stored
        assert out["spec"] == server.get("Pod", "p", "default")["spec"]
        _count("update_allowed_stored")
        return
    path, how, value = data.draw(other_edits(edit["spec"]))
    parent: Any = edit["spec"]
    for key in path[:-1]:
        parent = parent[key]
    if how == "remove":
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    before = server.get("Pod", "p", "default")
    try:
        out = server.update(edit)
    except ApiError as err:
        assert err.code in (400, 422), f"{how} {path}: unexpected {err!r}"
        assert server.get("Pod", "p", "default") is before, f"{how} {path}: store changed"
        _count(f"update_refused_{err.code}")
        return
    gated = bool(before["spec"].get("schedulingGates"))
    assert _outside_updatable(out["spec"], gated) == _outside_updatable(before["spec"], gated), \
        f"{how} {path}: changed"
    _count("update_no_visible_change")


def _count(outcome: str) -> None:
    COUNTS["update_tried"] += 1
    COUNTS[outcome] += 1


@pytest.fixture(scope="module", autouse=True)
def _report_updates() -> Any:
    """Rewrite the fuzz report with the update counts once this module is done."""
    yield
    target = os.environ.get("FUZZ_REPORT")
    if target and Path(target).exists():
        report = json.loads(Path(target).read_text())
        report.update({k: v for k, v in COUNTS.items() if k.startswith("update_")})
        Path(target).write_text(json.dumps(dict(sorted(report.items())), indent=2) + "\n")
    print(f"\nfuzz updates: { {k: v for k, v in sorted(COUNTS.items()) if k.startswith('update_')} }")
