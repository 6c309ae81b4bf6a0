"""Argument types and the error every ``volcano`` command reports.

The types are for ``argparse`` (``type=``): each returns the parsed value or
raises ``argparse.ArgumentTypeError`` with a message naming the value, which
the parser prints as ``error: argument --flag: <message>`` (exit status 2).
"""

from __future__ import annotations

import argparse
import math

from volcano.api.quantity import parse_quantity

__all__ = ["CliError", "count", "quantity", "seconds"]


class CliError(Exception):
    """A failure a command reports as ``error: <where>: <message>`` (exit status 1).

    ``where`` names the file (``<stdin>`` for ``-``) or the flag at fault.
    """

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


def count(text: str) -> int:
    """A whole number >= 0 (``--nodes``, ``--gpu``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}")
    return value


def quantity(text: str) -> str:
    """A Kubernetes quantity >= 0 (``--cpu 500m``, ``--memory 16Gi``), returned as given."""
    try:
        value = parse_quantity(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a Kubernetes quantity such as 4, 500m or 16Gi, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a quantity >= 0, got {text!r}")
    return text


def seconds(text: str) -> float:
    """A finite number of seconds > 0 (``--seconds``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value
