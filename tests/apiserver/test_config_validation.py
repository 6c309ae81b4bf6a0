"""ConfigMap and Secret validation: config keys, Secret types, immutability (``validation.config``)."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver.validation.config import (
    config_key_errors,
    config_map_errors,
    config_map_update_errors,
    secret_errors,
    secret_update_errors,
)


@pytest.mark.parametrize(("key", "count"), [("a", 0), ("k" * 253, 0), ("k" * 254, 1), ("", 1), (".", 1),
                                            ("..", 1), ("..a", 1), (".a", 0), ("a..", 0), ("a b", 1),
                                            (".." + "k" * 252, 2)])
def test_config_keys(key: str, count: int) -> None:
    assert len(config_key_errors(key)) == count


def _texts(errors: list[Any]) -> list[str]:
    return [str(e) for e in errors]


def test_config_map_duplicate_and_order() -> None:
    errs = _texts(config_map_errors({"data": {"b": "", "a b": ""}, "binaryData": {"b": "", "c d": ""}}))
    assert [e.split(":")[0] for e in errs] == ["data[a b]", "data[b]", "binaryData[c d]"]
    assert errs[1].endswith("duplicate of key present in binaryData")


@pytest.mark.parametrize(("secret", "fields"), [
    ({"type": "kubernetes.io/service-account-token"}, ["metadata.annotations[kubernetes.io/service-account.name]"]),
    ({"type": "kubernetes.io/service-account-token",
      "metadata": {"annotations": {"kubernetes.io/service-account.name": "sa"}}}, []),
    ({"type": "kubernetes.io/dockercfg", "data": {}}, ["data[.dockercfg]"]),
    ({"type": "kubernetes.io/dockerconfigjson", "data": {".dockerconfigjson": "e30="}}, []),
    ({"type": "kubernetes.io/basic-auth", "data": {"username": ""}}, []),
    ({"type": "kubernetes.io/ssh-auth", "data": {"ssh-privatekey": "eA=="}}, []),
    ({"type": "kubernetes.io/ssh-auth", "data": {"ssh-privatekey": "!"}}, ["data[ssh-privatekey]"]),
    ({"type": "example.com/custom", "data": {}}, []),
])
def test_secret_types(secret: dict[str, Any], fields: list[str]) -> None:
    assert [e.field for e in secret_errors(secret)] == fields


def test_updates() -> None:
    assert config_map_update_errors({"data": {"a": "1"}}, {"data": {"a": "0"}}) == []
    frozen = {"immutable": True, "data": {"a": "0"}, "binaryData": {}}
    assert config_map_update_errors({**frozen, "binaryData": None}, frozen) == []  # null and {} are the same
    assert [e.field for e in config_map_update_errors({"binaryData": {"b": ""}}, frozen)] == \
        ["immutable", "data", "binaryData"]
    assert [e.field for e in secret_update_errors({"type": "Opaque"}, {})] == []
    assert _texts(secret_update_errors({"type": "x"}, {"type": "Opaque"})) == \
        ['type: Invalid value: "x": field is immutable']
