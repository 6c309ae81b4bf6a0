"""Kubernetes resource quantities: exact parsing and canonical formatting.

A quantity is ``<sign><number><suffix>`` as ``k8s.io/apimachinery``'s
``resource.Quantity`` accepts it:

* number: ``12``, ``1.5``, ``1.``, ``.5`` with an optional ``+``/``-`` sign;
* suffix: binary ``Ki Mi Gi Ti Pi Ei`` (powers of 1024), decimal
  ``n u m "" k M G T P E`` (powers of 1000), or a decimal exponent ``e3``,
  ``E-2``.

Values are parsed into exact ``fractions.Fraction`` numbers: no float ever
takes part. The rest of the project counts resources in integer milli-units
(``to_milli``), rounding up as Kubernetes' ``MilliValue`` does, and prints them
back in Kubernetes' canonical form (``format_milli``).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache

__all__ = [
    "QuantityError",
    "QuantityRangeError",
    "format_milli",
    "parse_quantity",
    "to_milli",
]


class QuantityError(ValueError):
    """A value is not a valid Kubernetes quantity; the message names the value."""


class QuantityRangeError(QuantityError):
    """A valid quantity too large for a component's fixed-width arithmetic (the API server stores
    it, as a real one does; the component cannot use the object and skips it)."""


_QUANTITY_RE = re.compile(
    r"^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+|n|u|m|k|M|G|T|P|E|)$")

_SUFFIX: dict[str, Fraction] = {
    **{suffix: Fraction(10) ** exp for suffix, exp in (("n", -9), ("u", -6), ("m", -3), ("", 0), ("k", 3),
                                                      ("M", 6), ("G", 9), ("T", 12), ("P", 15), ("E", 18))},
    **{suffix: Fraction(2) ** (10 * i) for i, suffix in enumerate(("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"), start=1)},
}
"""Each suffix's multiplier: the decimal SI suffixes and the binary ones."""

# Exponents beyond this are rejected rather than building astronomically large integers.
_MAX_EXPONENT = 100

_GRAMMAR = r"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def _error(value: object) -> QuantityError:
    return QuantityError(f"quantities must match the regular expression {_GRAMMAR}: {value!r}")


@lru_cache(maxsize=8192)
def _parse_str(text: str) -> Fraction:
    m = _QUANTITY_RE.match(text)
    if m is None:
        raise _error(text)
    sign, number, suffix = m.groups()
    whole, _, frac = number.partition(".")
    value = Fraction(int((whole or "0") + frac), 10 ** len(frac))
    if suffix not in _SUFFIX:  # a decimal exponent: e3, E-2
        exponent = int(suffix[1:])
        if abs(exponent) > _MAX_EXPONENT:
            # Valid for the API server (its decimal type holds it); beyond the components' arithmetic.
            raise QuantityRangeError(f"quantity exponent out of range (|e| <= {_MAX_EXPONENT}): {text!r}")
        value *= Fraction(10) ** exponent
    else:
        value *= _SUFFIX[suffix]
    return -value if sign == "-" else value


def parse_quantity(value: str | int | float | Fraction) -> Fraction:
    """The exact value of a quantity (``"100m"`` -> 1/10, ``"2Gi"`` -> 2147483648).

    Integers and finite floats (as YAML gives them for ``cpu: 2`` or
    ``cpu: 0.5``) are accepted too; a float is taken at its shortest decimal
    representation (``0.1`` is exactly 1/10). Raises ``QuantityError`` naming
    the value otherwise.
    """
    if isinstance(value, bool):
        raise _error(value)
    if isinstance(value, str):
        return _parse_str(value)
    if isinstance(value, int | Fraction):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _error(value)
        return Fraction(repr(value))
    raise _error(value)


def _ceil_away_from_zero(value: Fraction) -> int:
    return math.ceil(value) if value >= 0 else math.floor(value)


@lru_cache(maxsize=8192)
def _milli_of_str(text: str) -> int:
    return _ceil_away_from_zero(_parse_str(text) * 1000)


def to_milli(value: str | int | float | Fraction) -> int:
    """The quantity in integer milli-units (``"1"`` -> 1000, ``"1Ki"`` -> 1024000).

    A value finer than a milli-unit is rounded away from zero, as Kubernetes'
    ``MilliValue`` rounds (``"1n"`` -> 1, ``"1.0001"`` -> 1001).
    """
    if isinstance(value, str):
        return _milli_of_str(value)
    return _ceil_away_from_zero(parse_quantity(value) * 1000)


_DECIMAL_SUFFIXES = ((18, "E"), (15, "P"), (12, "T"), (9, "G"), (6, "M"), (3, "k"))
_BINARY_SUFFIXES = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


def format_milli(milli: int, *, binary: bool = False) -> str:
    """Kubernetes' canonical string for ``milli`` milli-units.

    Decimal (the default): the largest power-of-1000 suffix that keeps the
    number an integer (``500`` -> ``"500m"``, ``1500`` -> ``"1500m"``,
    ``2000`` -> ``"2"``, ``4_000_000`` -> ``"4k"``). With ``binary=True``
    (memory-like values) a whole number of at least 1024 uses the largest
    power-of-1024 suffix that keeps it an integer (``2147483648000`` ->
    ``"2Gi"``, ``1536000`` -> ``"1536"``, as Kubernetes prints ``1.5Ki``);
    smaller or fractional values fall back to the decimal form.
    """
    if isinstance(milli, bool) or not isinstance(milli, int):
        raise QuantityError(f"milli-units must be an integer, got {milli!r}")
    sign = "-" if milli < 0 else ""
    amount = abs(milli)
    if amount == 0:
        return "0"
    if binary and amount % 1000 == 0 and amount >= 1024 * 1000:
        whole = amount // 1000
        index = 0
        while whole % 1024 == 0 and index < len(_BINARY_SUFFIXES) - 1:
            whole //= 1024
            index += 1
        return f"{sign}{whole}{_BINARY_SUFFIXES[index]}"
    if amount % 1000:
        return f"{sign}{amount}m"
    whole = amount // 1000
    for exponent, suffix in _DECIMAL_SUFFIXES:
        if whole % 10**exponent == 0:
            return f"{sign}{whole // 10**exponent}{suffix}"
    return f"{sign}{whole}"
