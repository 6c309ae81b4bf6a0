"""Exact update rules of a bound PersistentVolumeClaim's size (``pvc_update_errors``): shrinking is checked
against ``status.capacity`` only when that capacity parses; growing, or keeping, the size is never refused;
``volumeMode`` may not change."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver.validation.pvc import pvc_update_errors

LESS = "spec.resources.requests.storage: Forbidden: field can not be less than status.capacity"


def _claim(storage: str, **status: Any) -> dict[str, Any]:
    return {"spec": {"accessModes": ["ReadWriteOnce"], "volumeMode": "Filesystem",
                     "resources": {"requests": {"storage": storage}}},
            "status": {"phase": "Bound", **status}}


@pytest.mark.parametrize(("new", "capacity", "errors"), [
    ("512Mi", {"storage": "512Mi"}, [LESS]),       # down to the capacity itself: refused
    ("256Mi", {"storage": "512Mi"}, [LESS]),
    ("768Mi", {"storage": "512Mi"}, []),          # below the old request, above the capacity
    ("512Mi", {"storage": "not-a-size"}, []),     # a capacity that does not parse: not checked
    ("512Mi", {"storage": 5}, []),               # a number is bytes: 512Mi is above 5
    ("512Mi", {}, []),                             # no capacity recorded: 0
    ("2Gi", {"storage": "1Gi"}, []),
    ("1Gi", {"storage": "1Gi"}, []),
])
def test_shrinking_a_bound_claim(new: str, capacity: dict[str, Any], errors: list[str]) -> None:
    old = _claim("1Gi", capacity=capacity)
    assert [str(e) for e in pvc_update_errors(_claim(new), old)] == errors


def test_volume_mode_may_not_change() -> None:
    old = _claim("1Gi")
    new = _claim("1Gi")
    new["spec"]["volumeMode"] = "Block"
    errors = [str(e) for e in pvc_update_errors(new, old)]
    assert errors[-1] == 'volumeMode: Invalid value: "Block": field is immutable'
