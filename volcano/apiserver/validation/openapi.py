"""Structural decoding of built-in kinds against Kubernetes' own OpenAPI schemas.

kube-apiserver decodes a request body into the kind's Go type before anything
else; a value of the wrong JSON type, an integer out of its ``int32``/``int64``
range, a fractional number in an integer field or a malformed quantity fails
the request with 400 BadRequest::

    Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string
    into Go struct field PodSpec.spec.containers of type []v1.Container

The schemas are Kubernetes' published OpenAPI definitions as the
``kubernetes-validate`` package ships them (``SCHEMA_VERSION``). At load they
become a decode schema: descriptions, ``required`` and ``enum`` dropped (the Go
decoder enforces neither; validation reports missing fields as 422), ``int32``
and ``int64`` formats turned into ranges, quantities checked by
``ParseQuantity``'s rules, RFC 3339 times by format. Unknown fields pass, as
Go's decoder ignores them.

Speed: a kind's decode schema is compiled on first use with ``fastjsonschema``
(about 20 µs per pod), with only the definitions it reaches; only when that refuses, ``jsonschema`` lists the errors
so the first one in document order is reported with the Go decoder's wording.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import cache, lru_cache
from importlib import resources
from typing import Any

import fastjsonschema
import jsonschema

from volcano.api.kinds import KindInfo
from volcano.apiserver.validation.quantity import quantity_error

__all__ = [
    "SCHEMA_VERSION",
    "TYPE_TESTS",
    "DecodeError",
    "StrictValidator",
    "base64_error_offset",
    "decode_errors",
    "definition_name",
    "definitions",
    "embedded_definitions",
    "is_rfc3339",
    "item_definition",
    "json_kind",
    "part_validators",
    "raw_definitions",
    "reachable_definitions",
    "status_decode_errors",
    "status_definition_name",
    "strict_integers",
]

SCHEMA_VERSION = "v1.32.0"
"""The Kubernetes version whose OpenAPI definitions are used (kubectl 1.32's server)."""

_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
_TIMES = ("io.k8s.apimachinery.pkg.apis.meta.v1.Time", "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime")
_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
_DROP = frozenset({"description", "required", "enum", "x-kubernetes-group-version-kind", "x-kubernetes-list-map-keys",
                   "x-kubernetes-list-type", "x-kubernetes-map-type", "x-kubernetes-patch-merge-key",
                   "x-kubernetes-patch-strategy", "x-kubernetes-unions", "default"})
_SCHEMA_DIALECT = "http://json-schema.org/draft-07/schema#"
_PARTIAL = "io.k8s.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata"


class DecodeError(Exception):
    """A decode failure: ``message`` is the decoder's text; ``field`` and ``value`` locate it."""

    def __init__(self, message: str, field: str, value: Any) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.value = value


def _convert(node: Any, drop: frozenset[str] = _DROP, ranges: bool = True) -> Any:
    """One definition as a decode schema (see the module docstring); ``drop`` names the keywords left out,
    ``ranges`` turns integer formats into ``minimum``/``maximum``."""
    if isinstance(node, list):
        return [_convert(v, drop, ranges) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in drop:
            continue
        if key == "$ref" and isinstance(value, str):
            out[key] = "#/definitions/" + value.rsplit("/", 1)[-1]
        elif key == "properties":
            out[key] = {name: _convert(sub, drop, ranges) for name, sub in value.items()}
        else:
            out[key] = _convert(value, drop, ranges)
    types = out.get("type")
    if ranges and out.get("format") in _RANGES and (types == "integer" or (isinstance(types, list)
                                                                            and "integer" in types)):
        out["minimum"], out["maximum"] = _RANGES[out.pop("format")]
    return out


@cache
def raw_definitions() -> dict[str, Any]:
    """Kubernetes' OpenAPI definitions by name, as ``kubernetes-validate`` ships them (loaded once): those of
    ``SCHEMA_VERSION``, or of the newest version the installed package ships when it no longer has that one."""
    schemas = resources.files("kubernetes_validate").joinpath("kubernetes-json-schema")
    root = schemas.joinpath(f"{SCHEMA_VERSION}-local")
    if not root.joinpath("_definitions.json").is_file():
        shipped = sorted((d.name for d in schemas.iterdir() if re.match(r"^v[0-9.]+-local$", d.name)),
                         key=lambda n: tuple(int(p) for p in n[1:-6].split(".")))
        root = schemas.joinpath(shipped[-1])
    raw: dict[str, Any] = json.loads(root.joinpath("_definitions.json").read_text())["$defs"]
    return raw


def embedded_definitions(quantity: dict[str, Any], int_or_string: dict[str, Any], time: dict[str, Any],
                         defaults: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Kubernetes' definitions as a CRD embeds them: ``required`` kept, integer formats kept, the given
    schemas for quantities, int-or-strings and times, and ``defaults`` (definition -> field -> value)."""
    keep = _DROP - {"required"}
    defs: dict[str, Any] = {name: _convert(schema, keep, ranges=False) for name, schema in raw_definitions().items()}
    defs[_QUANTITY] = quantity
    defs[_INT_OR_STRING] = int_or_string
    for name in _TIMES:
        defs[name] = time
    for name, fields in defaults.items():
        for field, value in fields.items():
            defs[name]["properties"][field] = {**defs[name]["properties"][field], "default": value}
    return defs


@cache
def definitions() -> dict[str, Any]:
    """Kubernetes' OpenAPI definitions by name, converted to decode schemas (loaded once)."""
    defs: dict[str, Any] = {name: _convert(schema) for name, schema in raw_definitions().items()}
    # null is not a quantity here: ``_normalise`` turns it into "0", as Quantity.UnmarshalJSON decodes it
    defs[_QUANTITY] = {"type": ["string", "number"], "format": "quantity"}
    defs[_INT_OR_STRING] = {"type": ["string", "integer", "null"]}
    for name in _TIMES:
        defs[name] = {"type": ["string", "null"], "format": "k8s-time"}
    defs[_PARTIAL] = {"type": "object", "properties": {
        "metadata": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}}}
    return defs




def definition_name(info: KindInfo) -> str:
    """The OpenAPI definition a kind decodes with: ``io.k8s.api.core.v1.Pod``, ``io.k8s.api.apps.v1.Deployment``;
    for a custom resource, ``PartialObjectMetadata`` (only its metadata has a Go type)."""
    return _definition_name(info.group, info.version, info.kind)


@cache
def _definition_name(api_group: str, version: str, kind: str) -> str:
    group = api_group.split(".", 1)[0] if api_group else "core"
    name = f"io.k8s.api.{group}.{version}.{kind}"
    return name if name in definitions() and not api_group.endswith(".volcano.sh") else _PARTIAL


def is_rfc3339(value: str) -> bool:
    """Whether ``value`` is an RFC 3339 time as ``metav1.Time`` decodes it (non-strings pass: their
    type is checked elsewhere). Memoised: objects carry the same few timestamps over and over."""
    if not isinstance(value, str):
        return True
    return _rfc3339_text(value)


@lru_cache(maxsize=4096)
def _rfc3339_text(value: str) -> bool:
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return bool(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$", value))


_BASE64_SYMBOLS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_NEWLINES = frozenset(b"\r\n")


def _skip_newlines(src: bytes, at: int) -> int:
    while at < len(src) and src[at] in _NEWLINES:
        at += 1
    return at


def base64_error_offset(text: str) -> int | None:
    """Where Go's ``base64.StdEncoding`` (what ``encoding/json`` decodes a ``[]byte`` field with)
    reports ``illegal base64 data at input byte N`` for ``text``, or None when it decodes.

    The input is read in quanta of four symbols; ``\\r`` and ``\\n`` are skipped anywhere; a
    quantum cut short by the end of the input is an error at the quantum's start; ``=`` may only
    end the input, after two or three symbols of a quantum (two need ``==``); anything after the
    padding but newlines is an error at its first byte."""
    src = text.encode()
    at = 0
    while True:
        symbols = 0
        while symbols < 4:
            if at == len(src):
                return None if symbols == 0 else at - symbols
            byte = src[at]
            at += 1
            if byte in _BASE64_SYMBOLS:
                symbols += 1
            elif byte in _NEWLINES:
                continue
            elif byte != ord("=") or symbols < 2:
                return at - 1
            else:
                return _padding_error(src, at, symbols)


def _padding_error(src: bytes, at: int, symbols: int) -> int | None:
    """The rest of ``base64_error_offset`` once a ``=`` ended a quantum of ``symbols`` symbols."""
    if symbols == 2:
        at = _skip_newlines(src, at)
        if at == len(src):
            return at
        if src[at] != ord("="):
            return at - 1
        at += 1
    at = _skip_newlines(src, at)
    return at if at < len(src) else None


_FORMATS: dict[str, Callable[[str], bool]] = {
    "quantity": lambda text: not isinstance(text, str) or quantity_error(text) is None,
    "k8s-time": is_rfc3339,
    "byte": lambda text: not isinstance(text, str) or base64_error_offset(text) is None,
}


def strict_integers(code: str) -> str:
    """Make the generated validator refuse floats where an integer is expected (Go's decoder does)."""
    return re.sub(r" and not \(isinstance\((\w+), float\) and \1\.is_integer\(\)\)", "", code)


def _strict_int(checker: Any, value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


StrictValidator = jsonschema.validators.extend(
    jsonschema.Draft7Validator,
    type_checker=jsonschema.Draft7Validator.TYPE_CHECKER.redefine("integer", _strict_int))
"""Draft 7 with integers that are ints only (a JSON ``1.0`` is not an integer to Go's decoder)."""


_LOCAL_REF = "#/definitions/"


def reachable_definitions(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Mapping[str, Any]:
    """The definitions of ``defs`` that ``schema`` refers to, directly or through one another (each
    ``$ref`` being ``#/definitions/<name>``), in ``defs``' order; ``defs`` itself when a reference
    has any other form. A schema compiled with these checks exactly what it checks with all of
    ``defs`` (it reaches no other; only the copy of the schema its exceptions carry, which no
    caller reads, is smaller), and compiles in a fraction of the time: a pod status property
    needs a dozen of the API's six hundred definitions."""
    needed: set[str] = set()
    todo: list[Any] = [schema]
    while todo:
        value = todo.pop()
        if isinstance(value, Mapping):
            ref = value.get("$ref")
            if ref is not None:
                if not isinstance(ref, str) or not ref.startswith(_LOCAL_REF) or ref[len(_LOCAL_REF):] not in defs:
                    return defs
                name = ref[len(_LOCAL_REF):]
                if name not in needed:
                    needed.add(name)
                    todo.append(defs[name])
            todo.extend(v for k, v in value.items() if k != "$ref")
        elif isinstance(value, list):
            todo.extend(value)
    return {name: value for name, value in defs.items() if name in needed}


def _fast(schema: Mapping[str, Any], name: str) -> Callable[[Any, Any], Any]:
    code = strict_integers(fastjsonschema.compile_to_code(
        {**schema, "definitions": reachable_definitions(schema, definitions()), "$schema": _SCHEMA_DIALECT},
        formats=_FORMATS))
    namespace: dict[str, Any] = {}
    exec(compile(code, f"<decode schema {name}>", "exec"), namespace)  # generated by fastjsonschema
    fn: Callable[[Any, Any], Any] = namespace["validate"]
    return fn


def _is_string(value: Any) -> bool:
    return isinstance(value, str)


def _is_string_or_null(value: Any) -> bool:
    return isinstance(value, str | None)


_TYPE_TESTS: dict[str, Callable[[Any], bool]] = {
    repr({"type": "string"}): _is_string,
    repr({"type": ["string", "null"]}): _is_string_or_null,
}
"""Property schemas that are only a JSON type test, and that test as the compiled schema runs it
(fastjsonschema's ``isinstance(data, str)``, ``isinstance(data, (str, NoneType))``)."""
TYPE_TESTS = frozenset(_TYPE_TESTS.values())
"""The checks ``part_validators`` gives such properties: cheaper to run than to look up in a memo."""


@cache
def part_validators(def_name: str) -> Mapping[str, Callable[[Any], bool]] | None:
    """For a definition that is only ``type`` (object) and ``properties`` (Pod, Node, Event,
    a custom resource's metadata, ...): each property's decode check (True when the value decodes).
    A mapping then decodes exactly when each of its properties does, since such a schema checks
    nothing across properties and ignores unknown ones. None for any other definition. Each check
    compiles its schema on its first call."""
    schema = definitions()[def_name]
    props = schema.get("properties")
    if set(schema) - {"type", "properties"} or not isinstance(props, dict) \
            or schema.get("type") not in ("object", ["object", "null"]):
        return None

    def accepts(sub: Mapping[str, Any], name: str) -> Callable[[Any], bool]:
        plain = _TYPE_TESTS.get(repr(dict(sub)))
        if plain is not None:  # the whole schema is a JSON type test: the compiled code's isinstance
            return plain
        compiled: list[Callable[[Any, Any], Any]] = []  # compiled on first use: most are never used

        def check(value: Any) -> bool:
            if not compiled:
                compiled.append(_fast(sub, name))
            try:
                compiled[0](value, _FORMATS)
            except fastjsonschema.JsonSchemaValueException:
                return False
            return True
        return check
    return {prop: accepts(sub, f"{def_name}.{prop}") for prop, sub in props.items()}


@cache
def item_definition(def_name: str, prop: str) -> str | None:
    """The definition of the items of ``def_name``'s property ``prop`` when that property's schema is
    only an array (or null) ``type`` and an ``items`` reference (``PodStatus.conditions``): a list then
    decodes exactly when each of its items decodes as that definition. None for any other schema."""
    sub = (definitions()[def_name].get("properties") or {}).get(prop)
    if not isinstance(sub, Mapping) or set(sub) != {"type", "items"} \
            or sub["type"] not in ("array", ["array", "null"]):
        return None
    items = sub["items"]
    if not isinstance(items, Mapping) or set(items) != {"$ref"} or not isinstance(items["$ref"], str):
        return None
    name: str = items["$ref"].rsplit("/", 1)[-1]
    return name


@cache
def _compiled(def_name: str) -> tuple[Callable[[Any], Any], Any]:
    schema = {**definitions()[def_name], "definitions": definitions(), "$schema": _SCHEMA_DIALECT}
    fast = _fast(definitions()[def_name], def_name)
    checker = jsonschema.FormatChecker(formats=())
    for name, fn in _FORMATS.items():
        checker.checks(name)(fn)
    slow = StrictValidator(schema, format_checker=checker)

    def validate(data: Any) -> Any:
        return fast(data, _FORMATS)
    return validate, slow


def decode_errors(info: KindInfo, obj: Mapping[str, Any]) -> DecodeError | None:
    """The first decode error of ``obj`` (a ``info`` object) in document order, or None.

    Integral floats in integer fields (YAML's ``2.0``) are turned into ints in place first,
    as a YAML-to-JSON client sends them.
    """
    return _decode(definition_name(info), obj, ())


def status_definition_name(info: KindInfo) -> str | None:
    """The definition of ``info``'s ``status`` property (``io.k8s.api.core.v1.PodStatus``), or None
    when the kind's definition has no status reference (its status is not decoded)."""
    return _status_definition_name(definition_name(info))


@cache
def _status_definition_name(def_name: str) -> str | None:
    prop = definitions()[def_name].get("properties", {}).get("status")
    if not isinstance(prop, Mapping) or not isinstance(prop.get("$ref"), str):
        return None
    name: str = prop["$ref"].rsplit("/", 1)[-1]
    return name


def status_decode_errors(info: KindInfo, status: Any) -> DecodeError | None:
    """Like ``decode_errors`` for a status write: only ``status`` is decoded (paths start at ``status``)."""
    def_name = status_definition_name(info)
    if def_name is None or status is None:
        return None
    return _decode(def_name, status, ("status",))


def _decode(def_name: str, obj: Any, prefix: tuple[str, ...]) -> DecodeError | None:
    fast, slow = _compiled(def_name)
    try:
        fast(obj)
        return None
    except fastjsonschema.JsonSchemaValueException:
        pass
    errors = list(slow.iter_errors(obj))
    if _normalise(obj, errors):
        errors = list(slow.iter_errors(obj))
    if not errors:
        return None
    first = min(errors, key=lambda e: _document_order(obj, list(e.absolute_path)))
    return _describe(def_name, first, prefix)


def _normalise(obj: Any, errors: list[jsonschema.ValidationError]) -> bool:
    """Fix in place what the Go decoder accepts and stores differently: an integral float in an integer
    field becomes an int (YAML's ``2.0``), a null quantity becomes ``"0"`` (Quantity.UnmarshalJSON
    leaves the zero quantity). True when anything changed."""
    fixed = False
    for err in errors:
        value = err.instance
        if err.validator != "type" or not err.path:
            continue
        types = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        if isinstance(value, float) and value.is_integer() and "integer" in types:
            new: Any = int(value)
        elif value is None and isinstance(err.schema, Mapping) and err.schema.get("format") == "quantity":
            new = "0"
        else:
            continue
        parent = obj
        *head, last = list(err.absolute_path)
        for key in head:
            parent = parent[key]
        parent[last] = new
        fixed = True
    return fixed


def _document_order(obj: Any, path: list[Any]) -> list[int]:
    order: list[int] = []
    node = obj
    for key in path:
        if isinstance(node, Mapping):
            order.append(list(node).index(key) if key in node else 0)
        elif isinstance(key, int):
            order.append(key)
        node = node[key] if isinstance(node, Mapping | list | tuple) else None
    return order


def _go_type(schema: Any) -> str:
    """The Go type a decode schema stands for (``[]v1.Container``, ``int32``, ``map[string]string``)."""
    if not isinstance(schema, Mapping):
        return "interface {}"
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        if name == _QUANTITY:
            return "resource.Quantity"
        if name == _INT_OR_STRING:
            return "intstr.IntOrString"
        package, _, short = name.rpartition(".")
        return f"{package.rsplit('.', 1)[-1]}.{short}"
    types = schema.get("type")
    kind = next((t for t in types if t != "null"), "") if isinstance(types, list) else types
    if kind == "array":
        return "[]" + _go_type(schema.get("items"))
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, Mapping):
            value = _go_type(extra)
            return "v1.ResourceList" if value == "resource.Quantity" else f"map[string]{value}"
        return "map[string]interface {}"
    if kind == "integer":
        lo = schema.get("minimum")
        return "int32" if lo == _RANGES["int32"][0] else "int64"
    return {"string": "string", "boolean": "bool", "number": "float64"}.get(str(kind), "interface {}")


def json_kind(value: Any) -> str:
    """What Go's JSON decoder calls a decoded JSON value in an unmarshal error: ``bool``,
    ``number``, ``string``, ``object`` or ``array``."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    return "array" if isinstance(value, list | tuple) else type(value).__name__


def _describe(def_name: str, err: jsonschema.ValidationError, prefix: tuple[str, ...]) -> DecodeError:
    """The Go decoder's message for ``err``: ``json: cannot unmarshal <what> into Go struct field
    <Struct>.<json path> of type <Go type>``, or the custom unmarshaller's own error."""
    defs = definitions()
    schema: Any = {"$ref": f"#/definitions/{def_name}"}
    struct = def_name.rsplit(".", 1)[-1]
    names: list[str] = list(prefix)
    shown: list[str] = list(prefix)
    for key in err.absolute_path:
        current = None
        while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str):
            ref_name = schema["$ref"].rsplit("/", 1)[-1]
            schema = defs[ref_name]
            current = ref_name.rsplit(".", 1)[-1]
        if isinstance(key, int):
            shown.append(f"[{key}]")
            schema = schema.get("items") if isinstance(schema, Mapping) else None
            continue
        props = schema.get("properties") if isinstance(schema, Mapping) else None
        if isinstance(props, Mapping) and key in props:
            if current is not None:
                struct = current
            names.append(str(key))
            shown.append(f".{key}" if shown else str(key))
            schema = props[key]
        else:
            shown.append(f"[{key}]")
            schema = schema.get("additionalProperties") if isinstance(schema, Mapping) else None
    field = "".join(shown)
    value = err.instance
    if err.validator == "format" and err.validator_value == "quantity":
        return DecodeError(quantity_error(str(value)) or "invalid quantity", field, value)
    if err.validator == "format" and err.validator_value == "byte":
        return DecodeError(f"illegal base64 data at input byte {base64_error_offset(str(value))}", field, value)
    if err.validator == "format":
        layout = "2006-01-02T15:04:05Z07:00"
        return DecodeError(f'parsing time "{value}" as "{layout}": cannot parse "{value}" as "2006"', field, value)
    target = _go_type(schema)
    if target == "resource.Quantity":  # Quantity.UnmarshalJSON parses whatever it is given
        return DecodeError(quantity_error(json.dumps(value)) or "invalid quantity", field, value)
    what = json_kind(value)
    if what == "number" and err.validator in ("minimum", "maximum", "type"):
        what = f"number {value}" if err.validator != "type" or isinstance(value, float) else what
    go_field = ".".join(names)
    message = f"json: cannot unmarshal {what} into Go struct field {struct}.{go_field} of type {target}" \
        if go_field else f"json: cannot unmarshal {what} into Go value of type {target}"
    return DecodeError(message, field, value)
