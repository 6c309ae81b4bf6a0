"""Label and field selectors, with Kubernetes' syntax and matching rules.

Label selectors come in two forms, both parsed into one immutable
``LabelSelector``:

* the string form kubectl and list/watch requests use
  (``parse_label_selector("app=web,tier!=db,env in (a,b),gpu,!spot")``);
* the structured form found in objects (``label_selector_from_dict`` over
  ``{"matchLabels": ..., "matchExpressions": [...]}``).

Matching follows ``k8s.io/apimachinery/pkg/labels``: ``!=`` and ``notin``
also match objects that lack the key; ``in`` and ``=`` require it; ``>`` and
``<`` (string form only) compare integer values and require both sides to be
integers. Requirements are kept sorted by key (then operator, then values), as
Kubernetes sorts them, so ``str(selector)`` is a canonical form that parses
back to an equal selector.

Field selectors (``parse_field_selector("spec.nodeName=,status.phase!=Failed")``)
compare a dotted field path of the object with a value, with ``=``, ``==``
and ``!=``; a missing field reads as the empty string, exactly as the API
server's pod field index treats an unbound pod's ``spec.nodeName``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "EVERYTHING",
    "FieldRequirement",
    "FieldSelector",
    "LabelSelector",
    "Requirement",
    "SelectorError",
    "label_selector_from_dict",
    "parse_field_selector",
    "parse_label_selector",
]


class SelectorError(ValueError):
    """A selector could not be parsed or is invalid; the message names the offending text."""


# --- validation of keys and values (k8s.io/apimachinery/pkg/util/validation) --------------------

_NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_VALUE_RE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_DNS_LABEL_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def _check_key(key: str, where: str) -> None:
    """Raise ``SelectorError`` unless ``key`` is a qualified name (``[prefix/]name``)."""
    prefix, slash, name = key.rpartition("/")
    ok = bool(name) and len(name) <= 63 and bool(_NAME_RE.match(name))
    if ok and slash:
        ok = (0 < len(prefix) <= 253
              and all(_DNS_LABEL_RE.match(part) for part in prefix.split(".")))
    if not ok:
        raise SelectorError(
            f"invalid label key {key!r} in {where}: a qualified name must consist of alphanumeric "
            "characters, '-', '_' or '.', start and end with an alphanumeric character (at most 63 "
            "characters), with an optional DNS subdomain prefix and '/'")


def _check_value(value: str, where: str) -> None:
    """Raise ``SelectorError`` unless ``value`` is a valid label value (empty allowed)."""
    if len(value) > 63 or not _VALUE_RE.match(value):
        raise SelectorError(
            f"invalid label value {value!r} in {where}: a valid label value must be empty or consist "
            "of alphanumeric characters, '-', '_' or '.', start and end with an alphanumeric "
            "character, at most 63 characters")


# --- label selectors -----------------------------------------------------------------------------

_OPERATORS = ("=", "==", "!=", "in", "notin", "exists", "!", ">", "<")
_OP_ORDER = {op: i for i, op in enumerate(_OPERATORS)}


@dataclass(frozen=True, slots=True)
class Requirement:
    """One label requirement: ``key``, an operator and (for set/value operators) ``values``.

    ``op`` is one of ``=``, ``==``, ``!=``, ``in``, ``notin``, ``exists``, ``!``
    (does not exist), ``>``, ``<``. ``values`` is sorted and duplicate-free.
    Build requirements with the parsers; the constructor trusts its input.
    """

    key: str
    op: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether ``labels`` satisfy this requirement (Kubernetes' ``Requirement.Matches``)."""
        op = self.op
        if op in ("=", "==", "in"):
            value = labels.get(self.key)
            return value is not None and value in self.values
        if op in ("!=", "notin"):
            value = labels.get(self.key)
            return value is None or value not in self.values
        if op == "exists":
            return self.key in labels
        if op == "!":
            return self.key not in labels
        value = labels.get(self.key)
        if value is None:
            return False
        try:
            have = int(value)
        except ValueError:
            return False
        want = int(self.values[0])
        return have > want if op == ">" else have < want

    def __str__(self) -> str:
        if self.op == "exists":
            return self.key
        if self.op == "!":
            return "!" + self.key
        if self.op in ("in", "notin"):
            return f"{self.key} {self.op} ({','.join(self.values)})"
        return f"{self.key}{self.op}{self.values[0]}"

    def _sort_key(self) -> tuple[str, int, tuple[str, ...]]:
        return (self.key, _OP_ORDER[self.op], self.values)


def _requirement(key: str, op: str, values: Iterable[str], where: str) -> Requirement:
    """A validated requirement (Kubernetes' ``labels.NewRequirement``)."""
    _check_key(key, where)
    vals = sorted(set(values))
    if op in ("in", "notin"):
        if not vals:
            raise SelectorError(f"for 'in', 'notin' operators, values set can't be empty (key {key!r} in {where})")
    elif op in ("=", "==", "!="):
        if len(vals) != 1:
            raise SelectorError(f"exact-match compatibility requires one single value (key {key!r} in {where})")
    elif op in ("exists", "!"):
        if vals:
            raise SelectorError(f"values set must be empty for exists and does not exist (key {key!r} in {where})")
    elif op in (">", "<"):
        if len(vals) != 1 or not re.fullmatch(r"[+-]?[0-9]+", vals[0]):
            raise SelectorError(
                f"for 'Gt', 'Lt' operators, exactly one integer value is required (key {key!r}, "
                f"values {vals!r} in {where})")
    else:
        raise SelectorError(f"operator {op!r} is not recognized (key {key!r} in {where})")
    if op not in (">", "<"):
        for value in vals:
            _check_value(value, where)
    # ``==`` means exactly ``=``; one spelling keeps equal selectors equal.
    return Requirement(key, "=" if op == "==" else op, tuple(vals))


class LabelSelector:
    """An immutable conjunction of label ``Requirement``s.

    The empty selector (no requirements) matches every object, including one
    without labels. Equal selectors compare equal and hash alike; ``str()``
    gives Kubernetes' canonical string form.
    """

    __slots__ = ("_hash", "_match_labels", "_rest", "requirements")

    def __init__(self, requirements: Iterable[Requirement] = ()) -> None:
        reqs = tuple(sorted(set(requirements), key=Requirement._sort_key))
        self.requirements: tuple[Requirement, ...] = reqs
        # Fast path: plain equality requirements become one dict lookup each.
        eq = [(r.key, r.values[0]) for r in reqs if r.op in ("=", "==") or (r.op == "in" and len(r.values) == 1)]
        self._match_labels: tuple[tuple[str, str], ...] = tuple(eq)
        self._rest: tuple[Requirement, ...] = tuple(
            r for r in reqs if not (r.op in ("=", "==") or (r.op == "in" and len(r.values) == 1)))
        self._hash = hash(reqs)

    @property
    def empty(self) -> bool:
        """True when the selector has no requirements (and so matches everything)."""
        return not self.requirements

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        """Whether an object with ``labels`` (``None`` = no labels) is selected."""
        if labels is None:
            labels = {}
        for key, value in self._match_labels:
            if labels.get(key) != value:
                return False
        return all(r.matches(labels) for r in self._rest)

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)

    def __repr__(self) -> str:
        return f"LabelSelector({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LabelSelector) and self.requirements == other.requirements

    def __hash__(self) -> int:
        return self._hash


EVERYTHING = LabelSelector()
"""The selector that matches every object."""


# Tokens of Kubernetes' label selector lexer: operators and parentheses are
# single tokens; everything else up to whitespace or a special character is
# an identifier (keys, values, and the keywords ``in`` / ``notin``).
_TOKEN_RE = re.compile(r"\s*(==|!=|=|!|\(|\)|,|>|<|[^\s!=(),<>]+)")


def _tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if m is None:  # only trailing whitespace is left
            if text[pos:].strip():
                raise SelectorError(f"unable to parse label selector {text!r} at position {pos}")
            break
        tokens.append(m.group(1))
        pos = m.end()
    return tokens


_SPECIAL = frozenset(("==", "!=", "=", "!", "(", ")", ",", ">", "<"))


class _SelectorParser:
    """A recursive-descent parser over the tokens of one label selector string."""

    def __init__(self, text: str) -> None:
        self.tokens = _tokenize(text)
        self.pos = 0
        self.where = f"label selector {text!r}"

    def _peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _ident(self, what: str) -> str:
        tok = self._peek()
        if tok is None:
            raise SelectorError(f"{self.where}: expected {what}, found end of string")
        if tok in _SPECIAL:
            raise SelectorError(f"{self.where}: expected {what}, found {tok!r}")
        self.pos += 1
        return tok

    def parse(self) -> LabelSelector:
        """Every requirement, separated by commas, with no trailing comma."""
        reqs: list[Requirement] = []
        while self._peek() is not None:
            reqs.append(self._requirement())
            tok = self._peek()
            if tok is None:
                break
            if tok != ",":
                raise SelectorError(f"{self.where}: expected ',' between requirements, found {tok!r}")
            self.pos += 1
            if self._peek() is None:
                raise SelectorError(f"{self.where}: expected a requirement after the trailing ','")
        return LabelSelector(reqs)

    def _requirement(self) -> Requirement:
        if self._peek() == "!":
            self.pos += 1
            return _requirement(self._ident("a label key after '!'"), "!", (), self.where)
        key = self._ident("a label key")
        op = self._peek()
        if op is None or op == ",":
            return _requirement(key, "exists", (), self.where)
        self.pos += 1
        if op in ("in", "notin"):
            return _requirement(key, op, self._value_set(op, key), self.where)
        if op in ("=", "==", "!=", ">", "<"):
            if self._peek() in (None, ","):
                value = ""  # ``a=`` selects the empty value, as Kubernetes parses it
            else:
                value = self._ident(f"a value after {op!r} for key {key!r}")
            return _requirement(key, op, (value,), self.where)
        raise SelectorError(f"{self.where}: expected an operator after key {key!r}, found {op!r}")

    def _value_set(self, op: str, key: str) -> list[str]:
        """The parenthesised values after ``in``/``notin``; an empty item is the empty value."""
        if self._peek() != "(":
            raise SelectorError(f"{self.where}: expected '(' after {op!r} for key {key!r}")
        start = self.pos + 1
        try:
            close = self.tokens.index(")", start)
        except ValueError:
            raise SelectorError(f"{self.where}: missing ')' in the values of key {key!r}") from None
        inner = self.tokens[start:close]
        self.pos = close + 1
        values: list[str] = []
        if not inner:
            return values
        item: list[str] = []
        for tok in [*inner, ","]:
            if tok == ",":
                values.append(item[0] if item else "")
                item = []
            elif tok in _SPECIAL or item:
                raise SelectorError(f"{self.where}: unexpected {tok!r} in the values of key {key!r}")
            else:
                item.append(tok)
        return values


def parse_label_selector(text: str) -> LabelSelector:
    """Parse the string form: ``a=b,c!=d,e in (x,y),f notin (z),g,!h,n>3`` (spaces allowed).

    The empty (or all-blank) string selects everything. Raises ``SelectorError``
    naming the selector and the offending token for anything else malformed.
    """
    if not isinstance(text, str):
        raise SelectorError(f"label selector must be a string, got {type(text).__name__}: {text!r}")
    return _SelectorParser(text).parse()


_EXPR_OPS = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}


def label_selector_from_dict(sel: Mapping[str, Any] | None) -> LabelSelector:
    """The selector an object's ``metav1.LabelSelector`` (``matchLabels`` + ``matchExpressions``) denotes.

    ``None`` and ``{}`` match everything (callers for which a missing selector
    means "nothing", as Kubernetes' ``LabelSelectorAsSelector(nil)`` does, must
    check for ``None`` themselves). Raises ``SelectorError`` naming the field.
    """
    if sel is None:
        return EVERYTHING
    if not isinstance(sel, Mapping):
        raise SelectorError(f"selector must be a mapping, got {type(sel).__name__}: {sel!r}")
    unknown = sorted(set(sel) - {"matchLabels", "matchExpressions"})
    if unknown:
        raise SelectorError(f"selector has unknown field(s) {unknown}: expected matchLabels, matchExpressions")
    reqs: list[Requirement] = []
    match_labels = sel.get("matchLabels") or {}
    if not isinstance(match_labels, Mapping):
        raise SelectorError(f"selector.matchLabels must be a mapping, got {match_labels!r}")
    for key in sorted(match_labels):
        value = match_labels[key]
        if not isinstance(value, str):
            raise SelectorError(f"selector.matchLabels[{key!r}] must be a string, got {value!r}")
        reqs.append(_requirement(str(key), "=", (value,), f"selector.matchLabels[{key!r}]"))
    exprs = sel.get("matchExpressions") or []
    if not isinstance(exprs, list | tuple):
        raise SelectorError(f"selector.matchExpressions must be a list, got {exprs!r}")
    for idx, expr in enumerate(exprs):
        where = f"selector.matchExpressions[{idx}]"
        if not isinstance(expr, Mapping):
            raise SelectorError(f"{where} must be a mapping, got {expr!r}")
        key, operator, values = expr.get("key"), expr.get("operator"), expr.get("values") or []
        if not isinstance(key, str):
            raise SelectorError(f"{where}.key must be a string, got {key!r}")
        if operator not in _EXPR_OPS:
            raise SelectorError(f"{where}.operator: {operator!r} is not a valid label selector operator "
                                "(In, NotIn, Exists, DoesNotExist)")
        if not isinstance(values, list | tuple) or not all(isinstance(v, str) for v in values):
            raise SelectorError(f"{where}.values must be a list of strings, got {values!r}")
        reqs.append(_requirement(key, _EXPR_OPS[operator], values, where))
    return LabelSelector(reqs)


# --- field selectors -----------------------------------------------------------------------------

_FIELD_PATH_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


@dataclass(frozen=True, slots=True)
class FieldRequirement:
    """One field requirement: dotted ``path``, ``op`` (``=`` or ``!=``) and ``value``; ``missing``
    is what an object without the field reads as (``""``, or e.g. ``false`` for a boolean)."""

    path: tuple[str, ...]
    op: str
    value: str
    missing: str = ""

    def matches(self, obj: Mapping[str, Any]) -> bool:
        """Compare the field (absent: ``missing``) with the value."""
        cur: Any = obj
        for part in self.path:
            cur = cur.get(part) if isinstance(cur, Mapping) else None
            if cur is None:
                break
        have = self.missing if cur is None else (cur if isinstance(cur, str) else _field_str(cur))
        return (have == self.value) == (self.op == "=")

    def __str__(self) -> str:
        return f"{'.'.join(self.path)}{self.op}{_escape_field_value(self.value)}"


def _field_str(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _escape_field_value(value: str) -> str:
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


class FieldSelector:
    """An immutable conjunction of ``FieldRequirement``s; empty matches everything."""

    __slots__ = ("requirements",)

    def __init__(self, requirements: Iterable[FieldRequirement] = ()) -> None:
        self.requirements: tuple[FieldRequirement, ...] = tuple(requirements)

    @property
    def empty(self) -> bool:
        """True when the selector has no requirements."""
        return not self.requirements

    def matches(self, obj: Mapping[str, Any]) -> bool:
        """Whether ``obj`` satisfies every requirement."""
        return all(r.matches(obj) for r in self.requirements)

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)

    def __repr__(self) -> str:
        return f"FieldSelector({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FieldSelector) and self.requirements == other.requirements

    def __hash__(self) -> int:
        return hash(self.requirements)


def _split_unescaped(text: str, sep: str) -> list[str]:
    """Split on ``sep`` not preceded by a backslash escape (escapes are kept)."""
    parts: list[str] = []
    cur: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            cur.append(text[i:i + 2])
            i += 2
            continue
        if ch == sep:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    parts.append("".join(cur))
    return parts


def _unescape(value: str, where: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "\\":
            if i + 1 >= len(value) or value[i + 1] not in "\\,=":
                raise SelectorError(f"{where}: invalid escape sequence in value {value!r}")
            out.append(value[i + 1])
            i += 2
            continue
        if ch in ",=":
            raise SelectorError(f"{where}: unescaped {ch!r} in value {value!r}")
        out.append(ch)
        i += 1
    return "".join(out)


def parse_field_selector(text: str) -> FieldSelector:
    """Parse ``path=value,path!=value`` (``==`` is ``=``; ``\\,`` ``\\=`` ``\\\\`` escape).

    Any dotted path of identifiers is accepted (``metadata.name``,
    ``metadata.namespace``, ``spec.nodeName``, ``status.phase``, ...); the empty
    string selects everything. Raises ``SelectorError`` naming the bad term.
    """
    if not isinstance(text, str):
        raise SelectorError(f"field selector must be a string, got {type(text).__name__}: {text!r}")
    if not text.strip():
        return FieldSelector()
    reqs: list[FieldRequirement] = []
    for term in _split_unescaped(text, ","):
        where = f"field selector {text!r}"
        m = re.match(r"^\s*([^=!\s]*)\s*(!=|==|=)(.*)$", term)
        if m is None:
            raise SelectorError(f"{where}: invalid selector term {term!r}: expected <field><op><value> "
                                "with op one of '=', '==', '!='")
        path, op, value = m.group(1), m.group(2), m.group(3)
        if not _FIELD_PATH_RE.match(path):
            raise SelectorError(f"{where}: invalid field path {path!r} in term {term!r}")
        reqs.append(FieldRequirement(tuple(path.split(".")), "!=" if op == "!=" else "=",
                                     _unescape(value, where)))
    return FieldSelector(reqs)
