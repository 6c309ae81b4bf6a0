"""What goes over the wire: JSON and YAML bodies, content types, ``metav1.Status`` bodies.

JSON is encoded and decoded with ``orjson`` (the store's frozen objects are
``dict``/``list`` subclasses, which it serialises natively); YAML bodies
(``application/yaml``, ``application/apply-patch+yaml``) are read with
PyYAML's safe loader. A body that does not decode is a 400 ``BadRequest``
naming the content type and the parser's complaint, never a traceback.
"""

from __future__ import annotations

from typing import Any

import orjson
import yaml

from volcano.apiserver.errors import ApiError, bad_request

__all__ = [
    "APPLY_PATCH",
    "JSON",
    "JSON_PATCH",
    "MERGE_PATCH",
    "PATCH_TYPES",
    "STRATEGIC_MERGE_PATCH",
    "decode_body",
    "dumps",
    "error_status",
    "media_type",
    "success_status",
]

JSON = "application/json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
APPLY_PATCH_CBOR = "application/apply-patch+cbor"
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH)
"""The patch content types a real API server accepts, in the order its 415 message lists them."""

_YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", APPLY_PATCH)
_DECODABLE = (JSON, *_YAML_TYPES, "text/plain", "application/octet-stream")
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def media_type(content_type: str | None) -> str:
    """The media type of a ``Content-Type`` header, lower-cased, parameters dropped."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def dumps(obj: Any) -> bytes:
    """``obj`` as compact JSON bytes."""
    return orjson.dumps(obj)


def decode_body(body: bytes, content_type: str | None) -> Any:
    """The value of a request body: YAML for the YAML media types (JSON is YAML), else JSON.

    An empty body is None. Malformed input is 400 BadRequest naming the parser's complaint.
    """
    if not body.strip():
        return None
    kind = media_type(content_type)
    if kind and kind not in _DECODABLE and not kind.endswith("+json"):
        hint = " (this server does not decode protobuf: create from a manifest, e.g. kubectl apply -f)" \
            if "protobuf" in kind else ""
        raise ApiError(415, "UnsupportedMediaType",
                       f"the body of the request was in an unknown format - accepted media types include: "
                       f'application/json, application/yaml (got "{kind}"){hint}')
    if kind in _YAML_TYPES:
        try:
            return orjson.loads(body)  # kubectl sends JSON even for apply-patch+yaml
        except orjson.JSONDecodeError:
            pass
        try:
            return yaml.load(body.decode("utf-8"), Loader=_Loader)
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise bad_request(f"error decoding YAML: {_one_line(exc)}") from None
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise bad_request(f"error decoding JSON body ({kind or 'no content type'}): {_one_line(exc)}") from None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]


def error_status(err: ApiError) -> dict[str, Any]:
    """The ``metav1.Status`` body of a failed request."""
    return err.status()


def success_status(code: int = 200, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """A ``metav1.Status`` body reporting success (``pods/binding`` answers 201 with one)."""
    out: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
    if details is not None:
        out["details"] = details
    out["code"] = code
    return out


def check_mapping(value: Any, what: str) -> dict[str, Any]:
    """``value`` when it is a JSON object, else 400 naming ``what`` and the type received."""
    if not isinstance(value, dict):
        raise bad_request(f"{what} must be a JSON object, got {type(value).__name__}")
    return value


def unsupported_media_type(content_type: str | None) -> ApiError:
    """415 for a PATCH whose content type is not a patch type (the message lists the supported ones)."""
    return ApiError(415, "UnsupportedMediaType",
                    f"the body of the request was in an unknown format - accepted media types include: "
                    f"{', '.join(PATCH_TYPES)}, {APPLY_PATCH_CBOR} (got {content_type or 'none'!r})")
