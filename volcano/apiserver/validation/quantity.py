"""Quantity decoding as ``resource.ParseQuantity`` reports it.

``quantity_error`` answers with the error text Kubernetes' parser gives for a
malformed quantity string (``quantities must match the regular expression
'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'``, ``unable to parse quantity's
suffix``), or None for a valid one. Validity is the project's exact parser
(``volcano.api.quantity``), so what decodes here is what every component can
read.
"""

from __future__ import annotations

import re
from functools import lru_cache

from volcano.api.quantity import QuantityError, parse_quantity

__all__ = ["FORMAT_WRONG", "SUFFIX", "quantity_error"]

_SPLIT = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
FORMAT_WRONG = f"quantities must match the regular expression '{_SPLIT}'"
"""``resource.ErrFormatWrong``."""
SUFFIX = "unable to parse quantity's suffix"
"""``resource.ErrSuffix``."""

_SPLIT_RE = re.compile(_SPLIT)
_NUMBER_RE = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)")


@lru_cache(maxsize=4096)
def quantity_error(text: str) -> str | None:
    """The ParseQuantity error for ``text``, or None when it is a valid quantity."""
    try:
        parse_quantity(text)
        return None
    except (QuantityError, ValueError, TypeError):
        pass
    m = _SPLIT_RE.match(text)
    if m is None:
        return FORMAT_WRONG
    number = _NUMBER_RE.match(text)
    if number is None or number.end() != len(m.group(1)):
        return FORMAT_WRONG  # "1.5.5Gi": the scanner stops at the second dot
    return SUFFIX
