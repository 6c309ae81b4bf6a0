"""The nesting limit (``MAX_DEPTH``) at the limit and one step on each side: 101 nested objects
and arrays (the root at depth 0, the innermost at depth ``MAX_DEPTH``) are accepted, 102 are not."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver.validation import MAX_DEPTH, too_deep


def _nested(levels: int) -> Any:
    value: Any = "leaf"
    for i in range(levels):
        value = {"n": value} if i % 2 else [value]
    return value


@pytest.mark.parametrize(("levels", "refused"), [(MAX_DEPTH, False), (MAX_DEPTH + 1, False), (MAX_DEPTH + 2, True)])
def test_nesting_limit(levels: int, refused: bool) -> None:
    assert too_deep(_nested(levels)) is refused
