"""The Pod webhook's disruption-budget annotations at their boundaries: a percentage from 1% to
99%, a positive integer, and the int32 range where intstr stops reading an integer
(reference controllers §8: the jdb annotations)."""

from __future__ import annotations

import pytest

from tests.admission.test_pod import MAX, MIN, _pod
from volcano.admission.pod import validate_pod_create

PERCENT_ERROR = "it must be a valid percentage which between 1% ~ 99%"
INT_ERROR = "it must be a positive integer"


@pytest.mark.parametrize(("value", "error"), [
    ("0%", PERCENT_ERROR), ("1%", ""), ("2%", ""), ("98%", ""), ("99%", ""), ("100%", PERCENT_ERROR),
    ("0", INT_ERROR), ("1", ""), ("2", ""), ("2147483647", ""), ("2147483648", PERCENT_ERROR),
])
@pytest.mark.parametrize("key", [MIN, MAX])
def test_jdb_value_boundaries(key: str, value: str, error: str) -> None:
    message = validate_pod_create(_pod(**{key: value}))
    assert (error in message if error else message == ""), message
