"""A custom resource's schema check by parts (remembering top-level values that passed) gives the
full check's answer: on random PodGroups, Queues and Jobs, valid or not, repeated so that
remembered values come back (also as equal values of other types), the errors are the same."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from volcano.apiserver.validation.crd import _full_schema_errors, schema_errors

_leaf = st.sampled_from([1, 1.0, True, 0, -1, 2**40, "1", "", "default", None, "2024-01-01T00:00:00Z", "yesterday"])
_junk = st.recursive(_leaf, lambda inner: st.one_of(st.lists(inner, max_size=2),
                                                     st.dictionaries(st.sampled_from(["a", "phase", "minMember"]),
                                                                     inner, max_size=2)), max_leaves=5)


@st.composite
def objects(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    kind = draw(st.sampled_from(["PodGroup.scheduling.volcano.sh", "Queue.scheduling.volcano.sh",
                                 "Job.batch.volcano.sh"]))
    spec: dict[str, Any] = {}
    for field in draw(st.lists(st.sampled_from(["minMember", "queue", "weight", "reclaimable", "minAvailable",
                                                "priorityClassName", "tasks", "capability"]), max_size=3)):
        spec[field] = draw(st.one_of(_leaf, _junk))
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": kind.split(".")[0],
                           "metadata": {"name": draw(st.sampled_from(["a", "b"]))}, "spec": spec}
    if draw(st.booleans()):
        obj["status"] = draw(st.one_of(st.just({"phase": "Running", "conditions": [
            {"type": "Scheduled", "status": "True", "lastTransitionTime": draw(_leaf)}]}), _junk))
    if draw(st.integers(0, 4)) == 0:
        obj[draw(st.sampled_from(["spec", "metadata", "extra"]))] = draw(_junk)
    return kind, obj


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(objects(), min_size=1, max_size=6))
def test_by_parts_is_the_full_check(batch: list[tuple[str, dict[str, Any]]]) -> None:
    for kind, obj in batch + batch:
        assert schema_errors(kind, copy.deepcopy(obj)) == _full_schema_errors(kind, copy.deepcopy(obj), None)
