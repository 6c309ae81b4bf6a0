"""Fuzzing the API server and the cluster with mutated real manifests (Hypothesis).

Each example takes a manifest from ``fixtures/`` or ``fixtures/upstream-examples``
and applies one to three mutations: a value swapped for one of another type, a
field removed, a garbage or huge quantity, a negative or overflowing integer,
unicode text, deep nesting, or a wrong kind. Property: the create is either
refused with 400 BadRequest or 422 Invalid (403 for a webhook denial) and the
store is unchanged, or the object is stored and the cluster runs ten simulated
minutes without any component raising, with the conformance invariants
holding.

``FUZZ_EXAMPLES`` sets the number of examples (CI: 200; ``make fuzz``:
10,000); the counts are written to ``out/fuzz/report.json`` when ``FUZZ_REPORT``
names a file.
"""

from __future__ import annotations

import copy
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from volcano.api.manifest import load_manifests
from volcano.apiserver import ApiError
from volcano.conformance.lib.invariants import check_invariants
from volcano.testbed import FakeCluster

ROOT = Path(__file__).resolve().parents[2] / "fixtures"
MANIFESTS: list[dict[str, Any]] = []
for _path in sorted([*ROOT.glob("*.yaml"), *(ROOT / "upstream-examples").glob("*.yaml")]):
    MANIFESTS.extend(doc for doc in load_manifests(_path) if isinstance(doc, dict) and doc.get("kind"))

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "200"))
COUNTS: Counter[str] = Counter()
WATCHED = ("Pod", "PodGroup", "Node", "Queue")

_QUANTITIES = ["lots", "1.5.5Gi", "-1", "-500m", "1e400", "99999999999999999999Ei", "", "1kk", "0x10", " 1", "1Gb",
               "NaN", "∞", "1e-30"]
_INTS = [-1, -(2**31) - 1, 2**31, 2**63, -(2**63) - 1, 10**30, 0, 1.5, 2.0]
_TEXT = st.text(min_size=0, max_size=20)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), _TEXT,
                     st.sampled_from(_QUANTITIES), st.sampled_from(_INTS))


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    if len(prefix) > 30:
        return out
    if isinstance(node, dict):
        for key in node:
            out.append((*prefix, key))
            out.extend(_paths(node[key], (*prefix, key)))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            out.append((*prefix, i))
            out.extend(_paths(item, (*prefix, i)))
    return out


def _nested(depth: int) -> Any:
    value: Any = "deep"
    for i in range(depth):
        value = {"n": value} if i % 2 else [value]
    return value


@st.composite
def mutated_manifests(draw: st.DrawFn) -> tuple[dict[str, Any], list[str]]:
    """A real manifest with one to three mutations, and their descriptions."""
    obj = copy.deepcopy(draw(st.sampled_from(MANIFESTS)))
    notes: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(obj) if p[:2] != ("metadata", "name")]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent: Any = obj
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        how = draw(st.sampled_from(["swap", "remove", "quantity", "int", "unicode", "nest", "kind"]))
        if how == "remove":
            del parent[last]
        elif how == "swap":
            parent[last] = draw(st.one_of(_SCALARS, st.just([]), st.just({}), st.lists(_SCALARS, max_size=3),
                                          st.dictionaries(_TEXT, _SCALARS, max_size=3)))
        elif how == "quantity":
            parent[last] = draw(st.sampled_from(_QUANTITIES))
        elif how == "int":
            parent[last] = draw(st.sampled_from(_INTS))
        elif how == "unicode":
            parent[last] = draw(st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=30))
        elif how == "nest":
            parent[last] = _nested(draw(st.sampled_from([5, 50, 2000])))
        else:
            obj["kind"] = draw(st.sampled_from(["Pod", "Job", "PodGroup", "Queue", "Node", "Deployment", "Nope"]))
        notes.append(f"{how} {'.'.join(map(str, path))}")
    return obj, notes


def _cluster() -> tuple[FakeCluster, list[tuple[float, str, str, dict[str, Any]]]]:
    c = FakeCluster(seed=0)
    c.add_nodes(3, cpu="8", memory="16Gi", gpu=2)
    history: list[tuple[float, str, str, dict[str, Any]]] = []
    for kind in WATCHED:
        c.server.watch(kind, lambda ev, k=kind: history.append((c.clock.now_ms / 1000, k, ev.type, ev.object)),
                       resource_version="0")
    return c, history


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 1000,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated_manifests())
def test_mutated_manifest_is_refused_or_runs_clean(case: tuple[dict[str, Any], list[str]]) -> None:
    obj, notes = case
    c, history = _cluster()
    COUNTS["tried"] += 1
    before = c.server.resource_version
    snapshot = c.server.snapshot()
    try:
        c.server.create(obj)
    except ApiError as err:
        assert err.code in (400, 403, 404, 409, 422), f"{notes}: unexpected {err!r}"
        COUNTS[f"refused_{err.code}"] += 1
        assert c.server.resource_version == before and c.server.snapshot() == snapshot, f"{notes}: store changed"
        return
    COUNTS["stored"] += 1
    c.run(600)  # ten simulated minutes; any exception out of a component fails the example
    violations = check_invariants(history)
    assert not violations, f"{notes}: {violations}"


@pytest.fixture(scope="module", autouse=True)
def _report() -> Any:
    yield
    COUNTS["crashes"] = 0  # any crash fails the test run before this point
    target = os.environ.get("FUZZ_REPORT")
    if target:
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        Path(target).write_text(json.dumps(dict(sorted(COUNTS.items())), indent=2) + "\n")
    print(f"\nfuzz: {dict(sorted(COUNTS.items()))}")
