"""Exact answers to patch and apply bodies a client can send: an apply body that is not UTF-8 (go-yaml's
reader refuses it: 400 with its complaint), a JSON patch body that is not UTF-8 (Go's JSON decoder
replaces each bad byte with U+FFFD), and Go's ``%v`` of the floats patch errors quote."""

from __future__ import annotations

import pytest

from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.gojson import go_json, go_str
from volcano.apiserver.patching import utf8_problem
from volcano.sim import RandomStreams, SimClock

PREFIX = "error decoding YAML: error converting YAML to JSON: yaml: "
APPLY = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"k":"%s"}}'


@pytest.mark.parametrize(("raw", "problem"), [
    (b"\xff", "invalid leading UTF-8 octet"),
    (b"\x80", "invalid leading UTF-8 octet"),       # a trailing octet where a sequence starts
    (b"\xf8\x88\x80\x80\x80", "invalid leading UTF-8 octet"),  # five-octet forms are gone
    (b"\xc3", "incomplete UTF-8 octet sequence"),   # the body ends inside the sequence (the apply body
    (b"\xe2\x82", "incomplete UTF-8 octet sequence"),  # ends right after the bytes here)
    (b"\xc3A", "invalid trailing UTF-8 octet"),
    (b"\xe2\x28\xa1", "invalid trailing UTF-8 octet"),
    (b"\xc0\xaf", "invalid length of a UTF-8 sequence"),  # an overlong '/'
    (b"\xe0\x80\xaf", "invalid length of a UTF-8 sequence"),
    (b"\xf0\x80\x80\xaf", "invalid length of a UTF-8 sequence"),
    (b"\xed\xa0\x80", "invalid Unicode character"),  # a UTF-16 surrogate
    (b"\xf4\x90\x80\x80", "invalid Unicode character"),  # above U+10FFFF
])
def test_utf8_problem_names_go_yamls_complaint(raw: bytes, problem: str) -> None:
    assert utf8_problem(b"ok: " + raw) == problem
    assert utf8_problem(b"ok: \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 " + raw) == problem  # after é € 😀


def test_utf8_problem_accepts_well_formed_text() -> None:
    assert utf8_problem("key: é € 😀 \U0010ffff \ud7ff\ue000".encode()) is None
    assert utf8_problem(b"") is None


@pytest.mark.parametrize(("raw", "problem"), [
    (b"\xff", "invalid leading UTF-8 octet"),
    (b"\xe2\x28\xa1", "invalid trailing UTF-8 octet"),
    (b"\xc0\xaf", "invalid length of a UTF-8 sequence"),
    (b"\xed\xa0\x80", "invalid Unicode character"),
])
def test_apply_body_of_invalid_utf8_is_a_400(raw: bytes, problem: str) -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    for body in (APPLY.replace(b"%s", raw), bytearray(APPLY.replace(b"%s", raw))):
        with pytest.raises(ApiError) as err:
            server.server_side_apply("ConfigMap", "cm", body, "default", field_manager="m")
        assert (err.value.code, err.value.reason, err.value.message) == (400, "BadRequest", PREFIX + problem)
    with pytest.raises(ApiError):
        server.get("ConfigMap", "cm", "default")  # nothing stored


def test_apply_body_of_valid_utf8_bytes_is_decoded() -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    body = APPLY.replace(b"%s", "é€😀".encode())
    obj, created = server.server_side_apply("ConfigMap", "cm", bytearray(body), "default", field_manager="m")
    assert created
    assert obj["data"] == {"k": "é€😀"}


def test_json_patch_body_of_invalid_utf8_is_replaced() -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"k": "v"}})
    out = server.patch("ConfigMap", "cm", b'{"data":{"k":"a\xffb"}}', "default")
    assert out["data"] == {"k": "a\ufffdb"}
    out = server.patch("ConfigMap", "cm", b'[{"op":"replace","path":"/data/k","value":"\xfe"}]', "default",
                       patch_type="json")
    assert out["data"] == {"k": "\ufffd"}


@pytest.mark.parametrize(("value", "text"), [
    (1e21, "1e+21"),
    (1e22, "1e+22"),
    (-2e22, "-2e+22"),
    (1.5e300, "1.5e+300"),
    (1.25e21, "1.25e+21"),
    (1e100, "1e+100"),
    (1e-5, "1e-05"),
    (1.5e-7, "1.5e-07"),
    (2.5e-300, "2.5e-300"),
    (0.0001, "0.0001"),
    (2.5, "2.5"),
    (-0.5, "-0.5"),
    (3.0, "3"),
])
def test_go_str_of_floats(value: float, text: str) -> None:
    assert go_str(value) == text
    assert go_str({"v": value}) == f"map[v:{text}]"
    assert go_str([value, None, True]) == f"[{text} <nil> true]"


@pytest.mark.parametrize(("value", "text"), [
    ({"b": 1, "a": [True, None, 1.5, "x"]}, '{"a":[true,null,1.5,"x"],"b":1}'),
    ({"html": "<a href='x'>&</a>"}, '{"html":"\\u003ca href=\'x\'\\u003e\\u0026\\u003c/a\\u003e"}'),
    ("line\u2028para\u2029", '"line\\u2028para\\u2029"'),
    ("é😀", '"é😀"'),
    ({}, "{}"),
    ([], "[]"),
])
def test_go_json(value: object, text: str) -> None:
    assert go_json(value) == text


def test_go_json_of_a_value_too_deep_raises() -> None:
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(RecursionError):
        go_json(deep)
