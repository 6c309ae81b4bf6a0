"""Kubernetes' validation of ConfigMaps and Secrets (``ValidateConfigMap``, ``ValidateSecret`` and
their ``...Update`` of ``pkg/apis/core/validation``).

* Every key of a ConfigMap's ``data`` and ``binaryData`` and of a Secret's ``data`` is a config
  key (``IsConfigMapKey``): at most 253 characters of ``[-._a-zA-Z0-9]``, not ``.`` or ``..``
  and not starting with ``..``; the error names ``data[<key>]`` with the key as its value. A
  ConfigMap key may not be in both ``data`` and ``binaryData``.
* A Secret's ``type`` asks for its keys: ``kubernetes.io/service-account-token`` the annotation
  ``kubernetes.io/service-account.name``; ``kubernetes.io/dockercfg`` ``.dockercfg``;
  ``kubernetes.io/dockerconfigjson`` ``.dockerconfigjson``; ``kubernetes.io/basic-auth``
  ``username`` or ``password``; ``kubernetes.io/ssh-auth`` a non-empty ``ssh-privatekey``;
  ``kubernetes.io/tls`` ``tls.crt`` and ``tls.key``. (The JSON inside a docker configuration is
  not parsed here.)
* On update a Secret's ``type`` is immutable, and an object stored with ``immutable: true`` keeps
  ``immutable`` and its data (``Forbidden: field is immutable when `immutable` is set``).

Keys are reported in sorted order (Go walks the map in random order).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any

from volcano.apiserver.validation.field import FieldError, forbidden, invalid, required

__all__ = ["config_key_errors", "config_map_errors", "config_map_update_errors", "secret_errors",
           "secret_update_errors"]

_KEY_FMT = "[-._a-zA-Z0-9]+"
_KEY_RE = re.compile(f"^{_KEY_FMT}$")
_KEY_MSG = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
            f"'KEY_NAME',  or 'key-name', regex used for validation is '{_KEY_FMT}')")
_MAX_KEY = 253
_IMMUTABLE = "field is immutable when `immutable` is set"
_SA_NAME = "kubernetes.io/service-account.name"
_REQUIRED_KEYS = {
    "kubernetes.io/dockercfg": (".dockercfg",),
    "kubernetes.io/dockerconfigjson": (".dockerconfigjson",),
    "kubernetes.io/tls": ("tls.crt", "tls.key"),
}


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def config_key_errors(key: str) -> list[str]:
    """``IsConfigMapKey``: what is wrong with ``key`` as a ConfigMap or Secret key (empty when valid)."""
    errs = []
    if len(key) > _MAX_KEY:
        errs.append(f"must be no more than {_MAX_KEY} characters")
    if not _KEY_RE.match(key):
        errs.append(_KEY_MSG)
    if key == ".":
        errs.append("must not be '.'")
    elif key == "..":
        errs.append("must not be '..'")
    elif key.startswith(".."):
        errs.append("must not start with '..'")
    return errs


def _key_errors(values: Mapping[str, Any], path: str) -> list[FieldError]:
    return [invalid(f"{path}[{key}]", key, msg) for key in sorted(values, key=str)
            for msg in config_key_errors(str(key))]


def config_map_errors(cm: Mapping[str, Any]) -> list[FieldError]:
    """Validation errors of a ConfigMap (see the module docstring)."""
    data, binary = _mapping(cm.get("data")), _mapping(cm.get("binaryData"))
    errs: list[FieldError] = []
    for key in sorted(data, key=str):
        errs.extend(_key_errors({key: None}, "data"))
        if key in binary:
            errs.append(invalid(f"data[{key}]", key, "duplicate of key present in binaryData"))
    errs.extend(_key_errors(binary, "binaryData"))
    return errs


def _decoded_length(value: Any) -> int:
    try:
        return len(base64.b64decode(value or "", validate=False))
    except (binascii.Error, ValueError, TypeError):
        return 0


def secret_errors(secret: Mapping[str, Any]) -> list[FieldError]:
    """Validation errors of a Secret (see the module docstring)."""
    data = _mapping(secret.get("data"))
    errs = _key_errors(data, "data")
    kind = secret.get("type") or "Opaque"
    if kind == "kubernetes.io/service-account-token":
        annotations = _mapping(_mapping(secret.get("metadata")).get("annotations"))
        if not annotations.get(_SA_NAME):
            errs.append(required(f"metadata.annotations[{_SA_NAME}]"))
    elif kind == "kubernetes.io/basic-auth":
        if "username" not in data and "password" not in data:
            errs.extend([required("data[username]"), required("data[password]")])
    elif kind == "kubernetes.io/ssh-auth":
        if not _decoded_length(data.get("ssh-privatekey")):
            errs.append(required("data[ssh-privatekey]"))
    else:
        errs.extend(required(f"data[{key}]") for key in _REQUIRED_KEYS.get(kind, ()) if key not in data)
    return errs


def _immutable_errors(new: Mapping[str, Any], old: Mapping[str, Any], parts: tuple[str, ...]) -> list[FieldError]:
    if old.get("immutable") is not True:
        return []
    errs = [] if new.get("immutable") is True else [forbidden("immutable", _IMMUTABLE)]
    errs.extend(forbidden(part, _IMMUTABLE) for part in parts
                if dict(_mapping(new.get(part))) != dict(_mapping(old.get(part))))
    return errs


def config_map_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """What an update of ConfigMap ``old`` to ``new`` may not change."""
    return _immutable_errors(new, old, ("data", "binaryData"))


def secret_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """What an update of Secret ``old`` to ``new`` may not change: ``type``, and the data of an immutable one."""
    new_type, old_type = new.get("type") or "Opaque", old.get("type") or "Opaque"
    errs = [] if new_type == old_type else [invalid("type", new_type, "field is immutable")]
    errs.extend(_immutable_errors(new, old, ("data",)))
    return errs
