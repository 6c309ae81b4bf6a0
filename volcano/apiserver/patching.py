"""PATCH requests: the four patch types, their bodies and their errors.

A PATCH names its type by Content-Type, and ``normalize_patch_type`` accepts either that media
type or a short name:

=====================  ===========================================  ==========================
short name             media type                                   how
=====================  ===========================================  ==========================
``merge`` (default)    ``application/merge-patch+json``             RFC 7386 (``patch.merge_patch``)
``json``               ``application/json-patch+json``              RFC 6902 (the ``jsonpatch`` library)
``strategic``          ``application/strategic-merge-patch+json``   ``smp.strategic_merge_patch``
``apply``              ``application/apply-patch+yaml``             server-side apply (``managed_fields``)
=====================  ===========================================  ==========================

Custom resources (Volcano's CRDs) do not take strategic merge patch: 415 UnsupportedMediaType
naming the accepted types, as the CRD handler answers. Errors carry the API server's codes: a body
that does not decode is 400; a JSON patch whose operation fails (a ``test`` that does not hold, a
missing path, an unknown ``op``) is 422 with upstream's generic message; more than 10,000 operations
is 413; ``force`` outside apply and apply without ``fieldManager`` are 422 on ``PatchOptions``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import jsonpatch
import yaml

from volcano.api.frozen import thaw
from volcano.api.kinds import KindInfo
from volcano.apiserver.errors import CONFLICT_MESSAGE, ApiError, bad_request, conflict, status_cause
from volcano.apiserver.gojson import go_json, json_category
from volcano.apiserver.meta import resource_name
from volcano.apiserver.patch import merge_patch
from volcano.apiserver.patchmeta import is_custom_resource, schema_for
from volcano.apiserver.smp import SMPError, strategic_merge_patch

__all__ = [
    "MAX_JSON_PATCH_OPERATIONS",
    "MEDIA_TYPES",
    "apply_patch",
    "check_patch_options",
    "decode_apply_body",
    "normalize_patch_type",
    "supported_media_types",
    "utf8_problem",
]

MEDIA_TYPES: dict[str, str] = {
    "json": "application/json-patch+json",
    "merge": "application/merge-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    "apply": "application/apply-patch+yaml",
}
"""Short name -> media type."""
_BY_MEDIA = {media: short for short, media in MEDIA_TYPES.items()}
MAX_JSON_PATCH_OPERATIONS = 10000
_FIELD_MANAGER_MAX = 128


def supported_media_types(info: KindInfo) -> list[str]:
    """The patch media types the kind accepts, in the order the API server lists them."""
    names = ("json", "merge", "apply") if is_custom_resource(info.key) else ("json", "merge", "strategic", "apply")
    return [MEDIA_TYPES[n] for n in names]


def unsupported_media_type(info: KindInfo) -> ApiError:
    """415 for a patch type the kind does not accept."""
    return ApiError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media "
                    "types include: " + ", ".join(supported_media_types(info)))


def normalize_patch_type(info: KindInfo, patch_type: str | None) -> str:
    """The short name of ``patch_type`` (a short name or a media type, ``; charset=`` ignored);
    415 when the kind does not accept it."""
    text = (patch_type or "merge").split(";", 1)[0].strip().lower()
    short = text if text in MEDIA_TYPES else _BY_MEDIA.get(text)
    if short is None or MEDIA_TYPES[short] not in supported_media_types(info):
        raise unsupported_media_type(info)
    return short




def check_patch_options(patch_type: str, field_manager: str | None, force: bool | None) -> None:
    """Upstream ``ValidatePatchOptions``: ``force`` only with apply; apply needs a ``fieldManager``;
    a field manager is at most 128 bytes of printable characters. Every error is listed in one 422."""
    causes: list[str] = []
    if patch_type != "apply" and force is not None:
        causes.append("force: Forbidden: may not be specified for non-apply patch")
    if patch_type == "apply" and not field_manager:
        causes.append("fieldManager: Required value: is required for apply patch")
    causes.extend(field_manager_errors(field_manager))
    if causes:
        raise _patch_options_invalid(*causes)


_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
               "\v": "\\v", '"': '\\"', "\\": "\\\\"}


def go_quote(text: str) -> str:
    """Go's ``strconv.Quote`` (``%q``) of ``text``: printable characters as they are, the usual
    backslash escapes, other bytes below 0x80 as ``\\xNN`` and other characters as ``\\uNNNN``."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif ch.isprintable():
            out.append(ch)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def field_manager_errors(field_manager: str | None) -> list[str]:
    """Upstream ``ValidateFieldManager``: one error when longer than 128 bytes, and one per
    character that is not printable (``invalid character U+0009 (at position 3)``, the position a
    byte offset as Go ranges over a string)."""
    if not field_manager:
        return []
    errors = []
    if len(field_manager.encode()) > _FIELD_MANAGER_MAX:
        errors.append(f"fieldManager: Too long: may not be more than {_FIELD_MANAGER_MAX} bytes")
    offset = 0
    for ch in field_manager:
        if not ch.isprintable():
            errors.append(f"fieldManager: Invalid value: {go_quote(field_manager)}: invalid character "
                          f"U+{ord(ch):04X} (at position {offset})")
        offset += len(ch.encode())
    return errors


def check_field_manager(field_manager: str | None, error: Callable[..., ApiError]) -> None:
    """Upstream ``ValidateFieldManager`` (``error(*causes)`` builds the exception to raise)."""
    causes = field_manager_errors(field_manager)
    if causes:
        raise error(*causes)


def options_invalid(kind: str) -> Callable[..., ApiError]:
    """The 422 builder for ``<kind>.meta.k8s.io`` options (``CreateOptions``, ``UpdateOptions``): one
    cause alone, several as ``[a, b]`` (Kubernetes' error aggregate)."""
    def error(*causes: str) -> ApiError:
        text = causes[0] if len(causes) == 1 else "[" + ", ".join(causes) + "]"
        return ApiError(422, "Invalid", f'{kind}.meta.k8s.io "" is invalid: {text}',
                        {"group": "meta.k8s.io", "kind": kind, "causes": [status_cause(c) for c in causes]})
    return error


_patch_options_invalid = options_invalid("PatchOptions")


def check_patched(info: KindInfo, old: dict[str, Any] | None, new: dict[str, Any], name: str, ns: str) -> None:
    """The patched object still names the request's object (400), and its resourceVersion, when it
    carries one, is the stored one (409 Conflict)."""
    meta = new.get("metadata")
    if not isinstance(meta, dict):
        raise bad_request(f"patch of {resource_name(info)} {name!r}: metadata must stay a mapping")
    if meta.get("name", name) != name:
        raise bad_request(f"the name of the object ({meta.get('name')}) does not match the name on the URL "
                          f"({name})")
    given = meta.get("namespace")
    if info.namespaced and given and given != ns:
        raise bad_request("the namespace of the provided object does not match the namespace sent on the request")
    want = meta.get("resourceVersion")
    if want not in (None, "") and (old is None or str(want) != old["metadata"]["resourceVersion"]):
        raise conflict(resource_name(info), name, CONFLICT_MESSAGE)


def _decode_json(body: Any, what: str) -> Any:
    if isinstance(body, bytes | bytearray):
        body = body.decode("utf-8", errors="replace")
    if isinstance(body, str):
        try:
            return json.loads(body)
        except ValueError as exc:
            raise bad_request(f"error decoding {what}: {exc}") from None
    return body


def decode_apply_body(info: KindInfo, body: Any) -> dict[str, Any]:
    """An apply body for ``info``: a mapping, or YAML/JSON text, of that kind and apiVersion, without
    ``managedFields`` (400 otherwise, with upstream's messages)."""
    config = _decode_apply_mapping(body)
    if config.get("apiVersion") != info.api_version or config.get("kind") != info.kind:
        group_version = str(config.get("apiVersion") or "/")
        group_version = group_version if "/" in group_version else "/" + group_version
        raise bad_request(f"invalid object type: {group_version}, Kind={config.get('kind') or ''}")
    meta = config.setdefault("metadata", {})
    if not isinstance(meta, dict):
        raise bad_request("error decoding YAML: metadata must be a mapping")
    if meta.get("managedFields") is not None:
        raise bad_request("metadata.managedFields must be nil")
    return config


def _decode_apply_mapping(body: Any) -> dict[str, Any]:
    if isinstance(body, bytes | bytearray):
        try:
            body = bytes(body).decode("utf-8")
        except UnicodeDecodeError:
            problem = utf8_problem(bytes(body)) or "invalid Unicode character"
            raise bad_request(f"error decoding YAML: error converting YAML to JSON: yaml: {problem}") from None
    if isinstance(body, str):
        try:
            body = yaml.safe_load(body)
        except yaml.YAMLError as exc:
            raise bad_request(f"error decoding YAML: {exc}") from None
    if not isinstance(body, dict):
        raise bad_request(f"error decoding YAML: cannot unmarshal {_go_kind(body)} into Go value of type "
                          "map[string]interface {}")
    return thaw(body)


def utf8_problem(data: bytes) -> str | None:
    """What go-yaml's reader says of the first malformed UTF-8 sequence in ``data`` (it checks each
    sequence's leading octet, its length, its trailing octets, then its value), or None when every
    sequence is well formed. An apply body is YAML, so unlike a JSON body (whose decoder replaces bad
    sequences with U+FFFD) a malformed one is refused."""
    pos = 0
    while pos < len(data):
        octet = data[pos]
        width = 1 if octet < 0x80 else 2 if octet & 0xE0 == 0xC0 else 3 if octet & 0xF0 == 0xE0 \
            else 4 if octet & 0xF8 == 0xF0 else 0
        if width == 0:
            return "invalid leading UTF-8 octet"
        if pos + width > len(data):
            return "incomplete UTF-8 octet sequence"
        value = octet & (0x7F, 0x1F, 0x0F, 0x07)[width - 1]
        for trailing in data[pos + 1:pos + width]:
            if trailing & 0xC0 != 0x80:
                return "invalid trailing UTF-8 octet"
            value = (value << 6) | (trailing & 0x3F)
        if value < (0, 0, 0x80, 0x800, 0x10000)[width]:
            return "invalid length of a UTF-8 sequence"
        if 0xD800 <= value <= 0xDFFF or value > 0x10FFFF:
            return "invalid Unicode character"
        pos += width
    return None


_YAML_DECODER_TYPES = {"map": "object", "list": "array", "string": "string", "bool": "bool", "null": "null"}


def _go_kind(value: Any) -> str:
    """How the YAML-to-JSON decoder names a value it cannot unmarshal into an object."""
    return _YAML_DECODER_TYPES.get(json_category(value), "number")


def apply_patch(info: KindInfo, current: dict[str, Any], body: Any, patch_type: str) -> dict[str, Any]:
    """``current`` patched by ``body`` (a decoded value or JSON text) of type ``merge``, ``json`` or
    ``strategic``; a new plain dict."""
    if patch_type == "json":
        return _json_patch(current, _decode_json(body, "patch"))
    if patch_type == "strategic":
        patch = _decode_json(body, "patch")
        if not isinstance(patch, dict):
            raise bad_request(f"json: cannot unmarshal {_go_kind(patch)} into Go value of type "
                              "map[string]interface {}")
        try:
            return strategic_merge_patch(current, patch, schema_for(info.key))
        except SMPError as exc:
            raise _smp_error(exc) from None
    patch = _decode_json(body, "patch")
    if patch is None:
        raise bad_request("Invalid JSON Patch")
    if not isinstance(patch, dict):
        raise _not_an_object(patch)
    return merge_patch(current, patch)


def _not_an_object(patch: Any) -> ApiError:
    """What the API server answers when a merge patch replaces the whole object with a non-object."""
    cause = (f"patch: Invalid value: {json.dumps(go_json(patch))}: json: cannot unmarshal {_go_kind(patch)} into "
             "Go value of type map[string]interface {}")
    return ApiError(422, "Invalid", f'"" is invalid: {cause}', {"causes": [{"field": "patch", "message": cause}]})


def _smp_error(exc: SMPError) -> ApiError:
    if exc.code == 400:
        return bad_request(exc.message)
    if exc.code == 422:
        return ApiError(422, "Invalid", "the server rejected our request due to an error in our request",
                        empty_details=True)
    return ApiError(500, "", exc.message)


def _json_patch(current: dict[str, Any], ops: Any) -> dict[str, Any]:
    if not isinstance(ops, list):
        raise bad_request(f"json: cannot unmarshal {_go_kind(ops)} into Go value of type jsonpatch.Patch")
    for op in ops:
        if not isinstance(op, dict):
            raise bad_request(f"json: cannot unmarshal {_go_kind(op)} into Go value of type jsonpatch.Operation")
    if len(ops) > MAX_JSON_PATCH_OPERATIONS:
        raise ApiError(413, "RequestEntityTooLarge", "Request entity too large: The allowed maximum operations in a "
                       f"JSON patch is {MAX_JSON_PATCH_OPERATIONS}, got {len(ops)}")
    document = thaw(current)
    try:
        patched = jsonpatch.JsonPatch(ops).apply(document, in_place=True)
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, KeyError, TypeError, ValueError,
            IndexError):
        # Upstream answers every failed operation with this generic 422 (NewGenericServerResponse).
        raise ApiError(422, "Invalid", "the server rejected our request due to an error in our request",
                        empty_details=True) from None
    if not isinstance(patched, dict):
        raise _not_an_object(patched)
    return patched
