"""Go's ``flag`` package (``FlagSet`` with ``ContinueOnError``) and the ``strconv`` parsers behind its
bool and int flags, as Volcano's job plugins use them to read ``spec.plugins[<name>]``.

* ``parse_bool`` is ``strconv.ParseBool``: exactly ``1 t T TRUE true True`` and ``0 f F FALSE false
  False``; anything else is a syntax error.
* ``parse_int`` is ``strconv.ParseInt(s, 0, 64)``: an optional sign, then ``0x``/``0X`` (hex),
  ``0o``/``0O`` (octal), ``0b``/``0B`` (binary), a leading ``0`` (octal) or decimal; underscores
  only as Go's integer literals allow them (between digits, or after a base prefix); no spaces.
  On error Go still returns a value: 0 for a syntax error, the nearest bound when out of range.
* ``parse_flags`` is ``FlagSet.Parse``: ``-f`` and ``--f``, ``-f=v``; a boolean flag alone means
  true and takes its value only after ``=``; another flag takes the next argument when it has no
  ``=``; parsing stops at the first non-flag argument (or a lone ``-``) and after ``--``. The first
  error ends parsing; the flags before it keep their values, and the flag that failed keeps what
  its ``Set`` stored (``false`` for a bad boolean, Go's value beside the error for a bad int).
  ``-h``/``-help`` not defined as flags stop parsing with ``flag: help requested``. Error
  messages are Go's (``%q`` quoting).

Volcano's plugins log a parse error (``klog.Errorf("plugin %s flagset parse failed, err: %v")``)
and go on with whatever was parsed: the Job is not failed for it.

    >>> parse_flags(["--port", "0o17", "--on=T", "rest", "--port=1"], {"port": 22, "on": False})
    ({'port': 15, 'on': True}, None)
    >>> parse_flags(["--port=0x10", "--on=yes"], {"port": 22, "on": True})
    ({'port': 16, 'on': False}, 'invalid boolean value "yes" for -on: parse error')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ERR_HELP", "NumError", "go_quote", "parse_bool", "parse_flags", "parse_int"]

ERR_HELP = "flag: help requested"
"""The message of Go's ``flag.ErrHelp``."""
_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})
_DIGITS = frozenset("0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")


class NumError(ValueError):
    """``strconv.NumError``: ``value`` is what Go returns beside the error; ``out_of_range`` tells
    ``ErrRange`` from ``ErrSyntax``."""

    def __init__(self, func: str, text: str, out_of_range: bool, value: int | bool) -> None:
        self.func, self.text, self.out_of_range, self.value = func, text, out_of_range, value
        why = "value out of range" if out_of_range else "invalid syntax"
        super().__init__(f"strconv.{func}: parsing {go_quote(text)}: {why}")


def go_quote(text: str) -> str:
    """Go's ``strconv.Quote`` for the messages (``%q``): double quotes, Go escapes."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch in "\a\b\f\n\r\t\v":
            out.append({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                        "\v": "\\v"}[ch])
        elif ch.isprintable():
            out.append(ch)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def parse_bool(text: str) -> bool:
    """``strconv.ParseBool`` (``NumError`` with value False when ``text`` is not one of the twelve)."""
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise NumError("ParseBool", text, False, False)


def _lower(ch: str) -> str:
    return ch.lower() if "A" <= ch <= "Z" else ch


def _underscore_ok(text: str) -> bool:
    """Go's ``underscoreOK``: underscores only between digits or after a base prefix."""
    saw, i = "^", 0
    if text[:1] in ("+", "-"):
        text = text[1:]
    hexa = False
    if len(text) >= 2 and text[0] == "0" and _lower(text[1]) in ("b", "o", "x"):
        i, saw, hexa = 2, "0", _lower(text[1]) == "x"
    while i < len(text):
        ch = text[i]
        i += 1
        if ch in _DIGITS or (hexa and ch in _HEX):
            saw = "0"
            continue
        if ch == "_":
            if saw != "0":
                return False
            saw = "_"
            continue
        if saw == "_":
            return False
        saw = "!"
    return saw != "_"


def _parse_uint(text: str, bit_size: int, func: str, whole: str) -> int:
    """``strconv.ParseUint(text, 0, bit_size)``; errors name ``func`` and ``whole``."""
    max_val = (1 << bit_size) - 1
    if not text:
        raise NumError(func, whole, False, 0)
    base, digits = 10, text
    if text[0] == "0":
        prefix = _lower(text[1]) if len(text) >= 3 else ""
        base = {"b": 2, "o": 8, "x": 16}.get(prefix, 8)
        digits = text[2:] if prefix in ("b", "o", "x") else text[1:]
    n, underscores = 0, False
    for ch in digits:
        if ch == "_":
            underscores = True
            continue
        if ch in _DIGITS:
            d = ord(ch) - ord("0")
        elif "a" <= _lower(ch) <= "z":
            d = ord(_lower(ch)) - ord("a") + 10
        else:
            raise NumError(func, whole, False, 0)
        if d >= base:
            raise NumError(func, whole, False, 0)
        n = n * base + d
        if n > max_val:
            raise NumError(func, whole, True, max_val)
    if underscores and not _underscore_ok(text):
        raise NumError(func, whole, False, 0)
    return n


def parse_int(text: str, bit_size: int = 64) -> int:
    """``strconv.ParseInt(text, 0, bit_size)`` (see the module docstring); ``NumError.value`` is 0
    for a syntax error and the bound for a value out of range, as Go returns them."""
    if not text:
        raise NumError("ParseInt", text, False, 0)
    neg, body = text[0] == "-", text[1:] if text[0] in "+-" else text
    try:
        un = _parse_uint(body, bit_size, "ParseInt", text)
    except NumError as exc:
        if not exc.out_of_range:
            raise
        un = exc.value  # out of range as unsigned: clamped below
    cutoff = 1 << (bit_size - 1)
    if not neg and un >= cutoff:
        raise NumError("ParseInt", text, True, cutoff - 1)
    if neg and un > cutoff:
        raise NumError("ParseInt", text, True, -cutoff)
    return -un if neg else un


def parse_flags(args: Sequence[Any], defaults: Mapping[str, Any]) -> tuple[dict[str, Any], str | None]:
    """Go's ``FlagSet.Parse`` in ``ContinueOnError`` mode over ``defaults`` (flag name -> default, a
    bool, int or str: the flag's type). Returns the values and the error message, None when every
    argument parsed (see the module docstring)."""
    values = dict(defaults)
    items = [str(a) for a in args]
    i = 0
    while i < len(items):
        arg = items[i]
        if len(arg) < 2 or arg[0] != "-":
            break
        minuses = 2 if arg[1] == "-" else 1
        if arg == "--":
            break
        name = arg[minuses:]
        if not name or name[0] in "-=":
            return values, f"bad flag syntax: {arg}"
        i += 1
        name, has_value, value = name.partition("=")
        if name not in defaults:
            if name in ("help", "h"):
                return values, ERR_HELP
            return values, f"flag provided but not defined: -{name}"
        default = defaults[name]
        if isinstance(default, bool):
            try:
                values[name] = parse_bool(value) if has_value else True
            except NumError:
                values[name] = False
                return values, f"invalid boolean value {go_quote(value)} for -{name}: parse error"
            continue
        if not has_value:
            if i >= len(items):
                return values, f"flag needs an argument: -{name}"
            value = items[i]
            i += 1
        if isinstance(default, int):
            try:
                values[name] = parse_int(value)
            except NumError as exc:
                values[name] = exc.value
                why = "value out of range" if exc.out_of_range else "parse error"
                return values, f"invalid value {go_quote(value)} for flag -{name}: {why}"
        else:
            values[name] = value
    return values, None
