"""The scheduler cache's helpers for ``rebound``: ``_same_but`` agrees with the plain definition
(same keys outside ``skip``, values identical or equal) on random mappings, and the generated
``_clone_task`` copies every slot of a parsed ``TaskSpec`` as it is."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.api.frozen import freeze
from volcano.scheduler.cache.cache import _clone_task, _same_but
from volcano.scheduler.framework.model import TaskSpec

_KEYS = st.sampled_from(["a", "b", "c", "d"])
_VALUES = st.one_of(st.integers(0, 2), st.sampled_from([1.0, True, "1", None]), st.lists(st.integers(0, 1), max_size=2))


def _reference(a: Mapping[str, Any], b: Mapping[str, Any], skip: frozenset[str]) -> bool:
    if a.keys() - skip != b.keys() - skip:
        return False
    return all(b[k] is v or b[k] == v for k, v in a.items() if k not in skip)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, max_size=4), st.dictionaries(_KEYS, _VALUES, max_size=4),
       st.frozensets(_KEYS, max_size=2), st.booleans())
def test_same_but_is_the_plain_definition(a: dict[str, Any], b: dict[str, Any], skip: frozenset[str],
                                          overlap: bool) -> None:
    if overlap:  # mostly-equal pairs: b is a with a few entries redrawn
        b = {**a, **b} if len(b) < 2 else {**a, **dict(list(b.items())[:1])}
    assert _same_but(a, b, skip) == _reference(a, b, skip)
    assert _same_but(a, a, skip)


def test_clone_copies_every_slot() -> None:
    pod = freeze({"apiVersion": "v1", "kind": "Pod",
                  "metadata": {"name": "job-t-0", "namespace": "default", "uid": "u", "labels": {"a": "b"},
                               "annotations": {"scheduling.k8s.io/group-name": "pg"}},
                  "spec": {"schedulerName": "volcano", "tolerations": [{"key": "k", "operator": "Exists"}],
                           "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}]},
                  "status": {"phase": "Pending"}})
    spec = TaskSpec(pod)
    copy = _clone_task(spec)
    assert copy is not spec and type(copy) is TaskSpec
    for slot in TaskSpec.__slots__:
        assert getattr(copy, slot) is getattr(spec, slot), slot
