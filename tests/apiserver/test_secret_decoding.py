"""Secrets as kube-apiserver decodes them: ``stringData`` merged into ``data`` and dropped, ``type``
defaulted to ``Opaque``, and every ``[]byte`` field (a Secret's ``data``, a ConfigMap's ``binaryData``)
base64 as Go's ``StdEncoding`` reads it, a bad value refused with 400 naming the byte."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from volcano.apiserver.errors import ApiError
from volcano.apiserver.validation.openapi import base64_error_offset
from volcano.testbed import FakeCluster


def _secret(**fields: object) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, **fields}


def test_string_data_is_merged_into_data_and_dropped() -> None:
    c = FakeCluster(seed=0)
    c.client.create(_secret(data={"a": "eA==", "b": "eQ=="}, stringData={"a": "hello", "c": "ü"}))
    stored = c.get("Secret", "s")
    assert "stringData" not in stored
    assert stored["data"] == {"a": base64.b64encode(b"hello").decode(), "b": "eQ==",
                              "c": base64.b64encode("ü".encode()).decode()}
    assert stored["type"] == "Opaque"


def test_a_given_type_is_kept() -> None:
    c = FakeCluster(seed=0)
    c.client.create(_secret(type="kubernetes.io/basic-auth", stringData={"username": "u", "password": "p"}))
    assert c.get("Secret", "s")["type"] == "kubernetes.io/basic-auth"


@pytest.mark.parametrize(("value", "offset"), [
    ("not base64!", 3), ("eA", 0), ("eA=", 3), ("ab=c", 2), ("eA==x", 4), ("=", 0), ("ü", 0)])
def test_bad_base64_is_the_decoders_400(value: str, offset: int) -> None:
    c = FakeCluster(seed=0)
    with pytest.raises(ApiError) as err:
        c.client.create(_secret(data={"k": value}))
    assert err.value.code == 400
    assert err.value.message == ('Secret in version "v1" cannot be handled as a Secret: '
                                 f"illegal base64 data at input byte {offset}")
    assert c.client.list("Secret", "default")["items"] == []


def test_config_map_binary_data_is_checked_too() -> None:
    c = FakeCluster(seed=0)
    c.client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ok"}, "binaryData": {"a": "eA=="}})
    with pytest.raises(ApiError) as err:
        c.client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bad"},
                         "binaryData": {"a": "eA"}})
    assert err.value.code == 400 and err.value.message.endswith("illegal base64 data at input byte 0")


@given(raw=st.binary(max_size=64), breaks=st.lists(st.integers(0, 100), max_size=4))
def test_every_padded_encoding_decodes_with_newlines_anywhere(raw: bytes, breaks: list[int]) -> None:
    text = base64.b64encode(raw).decode()
    for at in sorted(breaks, reverse=True):
        text = text[:at] + "\n" + text[at:]
    assert base64_error_offset(text) is None


@given(raw=st.binary(min_size=1, max_size=64), data=st.data())
def test_a_foreign_byte_is_reported_where_it_is(raw: bytes, data: st.DataObject) -> None:
    text = base64.b64encode(raw).decode().rstrip("=")
    at = data.draw(st.integers(0, len(text) - 1))
    bad = data.draw(st.sampled_from(" !-_.*~"))
    assert base64_error_offset(text[:at] + bad + text[at + 1:]) == at
