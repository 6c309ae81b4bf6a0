"""Exact errors and answers of kubectl's three-way strategic merge patch (``smp_diff``) for inputs a
manifest can hold: a merge list mixing maps and other values is refused naming both lists; a first
apply (no last-applied original) deletes nothing, a later one deletes what the manifest dropped."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver.patchmeta import schema_for
from volcano.apiserver.smp import SMPError
from volcano.apiserver.smp_diff import create_three_way_merge_patch, create_two_way_merge_patch
from volcano.apiserver.threeway import create_three_way_json_merge_patch


def _pod(*containers: Any, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": list(containers), **spec}}


@pytest.mark.parametrize(("bad", "shown"), [
    ("c", "c"), (["c"], "[c]"), (None, "<nil>"), (True, "true"), (1.5, "1.5"), (3, "3"),
])
def test_a_merge_list_element_that_is_not_a_map(bad: Any, shown: str) -> None:
    """The element types of the two lists are checked together first (so the per-list map check after it
    never fires): ``list element types are not identical`` with both lists in Go's ``%v``."""
    good = {"name": "a", "image": "x"}
    with pytest.raises(SMPError) as err:
        create_three_way_merge_patch(_pod(good), _pod(good, bad), _pod(good), schema_for("Pod"))
    assert err.value.message == (f"list element types are not identical: [[map[image:x name:a]] "
                                 f"[map[image:x name:a] {shown}]]")
    if bad is None:
        return  # first in its list, Go's check would dereference its nil type
    with pytest.raises(SMPError) as err:
        create_two_way_merge_patch(_pod(bad), _pod(good), schema_for("Pod"))
    assert err.value.message == ("lists of lists are not supported" if isinstance(bad, list) else
                                 f"list element types are not identical: [[{shown}] [map[image:x name:a]]]")


@pytest.mark.parametrize("original", [None, {}])
def test_without_an_original_nothing_is_deleted(original: Any) -> None:
    live = _pod({"name": "a", "image": "x"}, hostname="h")
    modified = _pod({"name": "a", "image": "y"})
    patch = create_three_way_merge_patch(original, modified, live, schema_for("Pod"))
    assert patch == {"spec": {"$setElementOrder/containers": [{"name": "a"}],
                              "containers": [{"image": "y", "name": "a"}]}}


def test_with_an_original_a_dropped_field_is_deleted() -> None:
    live = _pod({"name": "a", "image": "x"}, hostname="h")
    original = _pod({"name": "a", "image": "x"}, hostname="h")
    modified = _pod({"name": "a", "image": "x"})
    assert create_three_way_merge_patch(original, modified, live, schema_for("Pod")) == {"spec": {"hostname": None}}


def _cr(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "n"}, "spec": spec}


@pytest.mark.parametrize(("original", "modified", "current", "patch"), [
    # the list changed since the last apply and on the server: sent once, whole
    ({"l": [1, 2], "m": {"a": 1}}, {"l": [1, 3], "m": {"a": 2}}, {"l": [1, 4], "m": {"a": 3}, "x": 1},
     {"spec": {"l": [1, 3], "m": {"a": 2}}}),
    (None, {"l": [1, 3]}, {"l": [1, 4], "x": 1}, {"spec": {"l": [1, 3]}}),
    ({"l": [1, 2], "gone": 5}, {"l": [1, 2, 3]}, {"l": [1, 2], "gone": 5}, {"spec": {"gone": None, "l": [1, 2, 3]}}),
    ({"l": [{"a": 1}]}, {"l": [{"a": 2}]}, {"l": [{"a": 1}]}, {"spec": {"l": [{"a": 2}]}}),
    ({"l": [1]}, {"l": [1]}, {"l": [1]}, {}),
])
def test_three_way_json_merge_patch_of_lists(original: Any, modified: dict[str, Any], current: dict[str, Any],
                                             patch: dict[str, Any]) -> None:
    out = create_three_way_json_merge_patch(None if original is None else _cr(original), _cr(modified),
                                            _cr(current))
    assert out == patch
