"""Argument types and the error every ``volcano`` command reports.

The types are for ``argparse`` (``type=``): each returns the parsed value or
raises ``argparse.ArgumentTypeError`` with a message naming the value, which
the parser prints as ``error: argument --flag: <message>`` (exit status 2).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import TypeVar

from volcano.api.quantity import parse_quantity

__all__ = ["CliError", "count", "quantity", "seconds"]

T = TypeVar("T")


class CliError(Exception):
    """A failure a command reports as ``error: <where>: <message>`` (exit status 1).

    ``where`` names the file (``<stdin>`` for ``-``) or the flag at fault.
    """

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


def _checked(text: str, parse: Callable[[str], T], ok: Callable[[T], bool], expected: str, *,
             unparsable: str | None = None) -> T:
    """``parse(text)`` when it parses and passes ``ok``; else ``ArgumentTypeError`` "expected
    <expected>, got '<text>'" (``unparsable`` in place of ``expected`` when ``text`` does not parse)."""
    try:
        value = parse(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {unparsable or expected}, got {text!r}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def count(text: str) -> int:
    """A whole number >= 0 (``--nodes``, ``--gpu``)."""
    return _checked(text, int, lambda v: v >= 0, "a whole number >= 0")


def quantity(text: str) -> str:
    """A Kubernetes quantity >= 0 (``--cpu 500m``, ``--memory 16Gi``), returned as given."""
    _checked(text, parse_quantity, lambda v: v >= 0, "a quantity >= 0",
             unparsable="a Kubernetes quantity such as 4, 500m or 16Gi")
    return text


def seconds(text: str) -> float:
    """A finite number of seconds > 0 (``--seconds``)."""
    return _checked(text, float, lambda v: math.isfinite(v) and v > 0, "a number of seconds > 0")
