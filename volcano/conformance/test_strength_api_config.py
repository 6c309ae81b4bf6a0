"""API conformance: ConfigMaps and Secrets as kube-apiserver decodes and validates them.

* Every key of ``data`` (and a ConfigMap's ``binaryData``) is a config key: ``[-._a-zA-Z0-9]+``, not
  ``.``/``..``, not starting with ``..``; a ConfigMap key may not be in both maps. 422 names
  ``data[<key>]`` with the key as its value; nothing is stored.
* A Secret's ``type`` asks for its keys (``kubernetes.io/tls``: ``tls.crt`` and ``tls.key``;
  ``kubernetes.io/basic-auth``: ``username`` or ``password``; ``kubernetes.io/ssh-auth``: a
  non-empty ``ssh-privatekey``), and may not change on update.
* ``immutable: true`` freezes the data and the flag itself (422 Forbidden); labels still change.
* ``[]byte`` values are base64 as Go's ``StdEncoding`` reads it: padded values are stored,
  newlines inside are skipped, a value cut short or with bytes after its padding is 400 naming
  the byte.

Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial, plain

__all__: list[str] = []

Obj = dict[str, Any]
KEY = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
       "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')")
FROZEN = "Forbidden: field is immutable when `immutable` is set"


def _cm(name: str, **fields: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, **fields}


def _secret(name: str, **fields: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, **fields}


def _refused(cluster: Cluster, obj: Obj) -> str:
    """The causes of the 422 refusing to create ``obj`` (nothing stored)."""
    name, kind = obj["metadata"]["name"], obj["kind"]
    d = denial(lambda: cluster.create(obj))
    assert (d.code, d.reason) == (422, "Invalid"), d
    prefix = f'{kind} "{name}" is invalid: '
    assert d.message.startswith(prefix), d.message
    assert cluster.try_get(kind, name) is None
    return d.message[len(prefix):]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("key", "causes"), [
    pytest.param("bad key", f'data[bad key]: Invalid value: "bad key": {KEY}', id="space"),
    pytest.param("a/b", f'data[a/b]: Invalid value: "a/b": {KEY}', id="slash"),
    pytest.param(".", "data[.]: Invalid value: \".\": must not be '.'", id="dot"),
    pytest.param("..", "data[..]: Invalid value: \"..\": must not be '..'", id="dot-dot"),
    pytest.param("..x", "data[..x]: Invalid value: \"..x\": must not start with '..'", id="dot-dot-prefix"),
    pytest.param("k" * 254, f'data[{"k" * 254}]: Invalid value: "{"k" * 254}": must be no more than 253 characters',
                 id="too-long"),
])
def test_config_map_keys(cluster: Cluster, key: str, causes: str) -> None:
    """A ConfigMap key that is not a config key is 422 naming it; one of 253 characters, ``.x`` and
    ``x..y`` are keys."""
    assert _refused(cluster, _cm("cm-keys", data={key: "v"})) == causes
    made = plain(cluster.create(_cm("cm-keys", data={"k" * 253: "v", ".x": "v", "x..y": "v", "A-b_c.D": "v"})))
    assert sorted(made["data"]) == sorted(["k" * 253, ".x", "x..y", "A-b_c.D"])


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_config_map_key_in_both_maps(cluster: Cluster) -> None:
    """A key in both ``data`` and ``binaryData`` is refused on ``data``; a bad ``binaryData`` key on
    ``binaryData``; each error in one answer."""
    causes = _refused(cluster, _cm("cm-both", data={"same": "v"}, binaryData={"same": "eA==", "bad key": "eA=="}))
    assert causes == ('[data[same]: Invalid value: "same": duplicate of key present in binaryData, '
                      f'binaryData[bad key]: Invalid value: "bad key": {KEY}]'), causes


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_secret_keys_and_types(cluster: Cluster) -> None:
    """Secret keys are config keys; each type asks for its own keys; a present key satisfies it."""
    assert _refused(cluster, _secret("s-keys", data={"a b": "eA=="})) == f'data[a b]: Invalid value: "a b": {KEY}'
    assert _refused(cluster, _secret("s-tls", type="kubernetes.io/tls", data={"tls.crt": "eA=="})) == \
        "data[tls.key]: Required value"
    assert _refused(cluster, _secret("s-basic", type="kubernetes.io/basic-auth", data={})) == \
        "[data[username]: Required value, data[password]: Required value]"
    assert _refused(cluster, _secret("s-ssh", type="kubernetes.io/ssh-auth", data={"ssh-privatekey": ""})) == \
        "data[ssh-privatekey]: Required value"
    basic = plain(cluster.create(_secret("s-basic", type="kubernetes.io/basic-auth", stringData={"password": "p"})))
    assert basic["type"] == "kubernetes.io/basic-auth" and sorted(basic["data"]) == ["password"]
    tls = plain(cluster.create(_secret("s-tls", type="kubernetes.io/tls", data={"tls.crt": "eA==", "tls.key": ""})))
    assert sorted(tls["data"]) == ["tls.crt", "tls.key"]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_secret_type_is_immutable(cluster: Cluster) -> None:
    """A Secret's type may not change (its default, Opaque, included); its data may."""
    cluster.create(_secret("s-type", data={"a": "eA=="}))
    d = denial(lambda: cluster.patch("Secret", "s-type", {"type": "kubernetes.io/basic-auth",
                                                          "data": {"username": "dQ=="}}))
    assert (d.code, d.message) == (
        422, 'Secret "s-type" is invalid: type: Invalid value: "kubernetes.io/basic-auth": field is immutable'), d
    patched = plain(cluster.patch("Secret", "s-type", {"data": {"a": "eQ=="}}))
    assert (patched["type"], patched["data"]) == ("Opaque", {"a": "eQ=="})


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize("kind", ["ConfigMap", "Secret"])
def test_immutable_data(cluster: Cluster, kind: str) -> None:
    """``immutable: true``: the data and the flag may not change (each refusal names its field);
    labels may; a mutable object may become immutable."""
    name = f"frozen-{kind.lower()}"
    data = {"k": "eA=="}
    make = _cm if kind == "ConfigMap" else _secret
    cluster.create(make(name, data=data))
    frozen = plain(cluster.patch(kind, name, {"immutable": True}))
    assert frozen["immutable"] is True
    d = denial(lambda: cluster.patch(kind, name, {"data": {"k": "eQ=="}}))
    assert (d.code, d.message) == (422, f'{kind} "{name}" is invalid: data: {FROZEN}'), d
    d = denial(lambda: cluster.patch(kind, name, {"immutable": False, "data": {"other": "eQ=="}}))
    assert (d.code, d.message) == (422, f'{kind} "{name}" is invalid: [immutable: {FROZEN}, data: {FROZEN}]'), d
    labelled = plain(cluster.patch(kind, name, {"metadata": {"labels": {"a": "b"}}}))
    assert labelled["metadata"]["labels"] == {"a": "b"} and labelled["data"] == data


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_immutable_binary_data(cluster: Cluster) -> None:
    """A frozen ConfigMap's ``binaryData`` may not change either."""
    cluster.create(_cm("frozen-binary", binaryData={"b": "eA=="}, immutable=True))
    d = denial(lambda: cluster.patch("ConfigMap", "frozen-binary", {"binaryData": {"b": "eQ=="}}))
    assert (d.code, d.message) == (422, f'ConfigMap "frozen-binary" is invalid: binaryData: {FROZEN}'), d


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize("value", ["eA==", "eHk=", "eHl6", "eA=\n=", "e\nA==\n", ""])
def test_padded_base64_is_stored(cluster: Cluster, value: str) -> None:
    """Values Go's StdEncoding decodes (padding of one or two ``=``, none on a full quantum, newlines
    anywhere, empty) are stored as sent."""
    made = plain(cluster.create(_secret("b64-ok", data={"k": value})))
    assert made["data"]["k"] == value


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("value", "byte"), [
    pytest.param("eA=", 3, id="half-padding"), pytest.param("eA", 0, id="no-padding"),
    pytest.param("eA==x", 4, id="after-padding"), pytest.param("eHk=eA==", 4, id="padding-inside"),
    pytest.param("e A==", 1, id="space")])
def test_bad_base64_is_bad_request(cluster: Cluster, value: str, byte: int) -> None:
    """A ConfigMap's ``binaryData`` value Go's StdEncoding refuses: 400 naming the byte, nothing stored."""
    d = denial(lambda: cluster.create(_cm("b64-bad", binaryData={"k": value})))
    assert (d.code, d.reason, d.message) == (
        400, "BadRequest",
        f'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte {byte}'), d
    assert cluster.try_get("ConfigMap", "b64-bad") is None
