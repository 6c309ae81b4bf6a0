"""The last-applied annotation (kubectl client-side apply), byte for byte: what kubectl writes for a
manifest holding every JSON value type (ints up to int64, floats in every Go spelling: integral,
fractional, exponent forms on both sides of Go's 1e-6 and 1e21 switches, negative zero; quantities,
booleans, nulls, nested and empty lists and maps, HTML characters and line separators), with
``"annotations":{}`` added when the manifest has none, the annotation itself left out, keys sorted,
and the trailing newline of Go's ``json.Encoder``; and the server-side applier ``kubectl`` keeping an
existing annotation in step with what it applied."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.api.frozen import thaw
from volcano.apiserver import ApiServer
from volcano.apiserver.threeway import LAST_APPLIED, last_applied_configuration, with_last_applied

EVERY_TYPE: dict[str, Any] = {
    "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"},
    "spec": {
        "ints": [0, -1, 9007199254740993, 9223372036854775807],
        "floats": [10.0, 1.5, 0.1, 1e21, 1e20, 1e-7, 1.5e-10, 0.000001, -0.0, 123456789.0, 2.5e-6, 100.0, 2e20,
                   -1.25e-9, 5e-324, 1.7976931348623157e308, 999999999999999999999.0],
        "quantities": ["500m", "1Gi", "1e3", "0.5"],
        "flags": [True, False],
        "nothing": None,
        "nested": [[1, [2.0, {"z": None, "a": []}]], {}],
        "text": "<a>&\u2028\u2029é",
    },
}
EVERY_TYPE_TEXT = (
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"annotations":{},"name":"x"},"spec":{'
    '"flags":[true,false],'
    '"floats":[10,1.5,0.1,1e+21,100000000000000000000,1e-7,1.5e-10,0.000001,-0,123456789,0.0000025,100,'
    '200000000000000000000,-1.25e-9,5e-324,1.7976931348623157e+308,1e+21],'
    '"ints":[0,-1,9007199254740993,9223372036854775807],'
    '"nested":[[1,[2,{"a":[],"z":null}]],{}],'
    '"nothing":null,'
    '"quantities":["500m","1Gi","1e3","0.5"],'
    '"text":"\\u003ca\\u003e\\u0026\\u2028\\u2029é"}}\n')


def test_every_value_type_as_kubectl_writes_it() -> None:
    assert last_applied_configuration(EVERY_TYPE) == EVERY_TYPE_TEXT


@pytest.mark.parametrize(("value", "text"), [
    (10.0, "10"), (1e21, "1e+21"), (1e20, "100000000000000000000"), (999999999999999900000.0, "999999999999999900000"),
    (1e-6, "0.000001"), (9.99e-7, "9.99e-7"), (1e-10, "1e-10"), (-0.0, "-0"), (0.0, "0"), (-2.5, "-2.5"),
    (3, "3"), (True, "true"), (None, "null"), ("1.0", '"1.0"'),
])
def test_each_number_spelling(value: Any, text: str) -> None:
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "annotations": {"k": "v"}},
                "v": value}
    assert last_applied_configuration(manifest) == (
        '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"annotations":{"k":"v"},"name":"x"},"v":' + text + "}\n")


def test_the_annotation_leaves_itself_out_and_the_manifest_untouched() -> None:
    manifest = {"kind": "ConfigMap", "apiVersion": "v1",
                "metadata": {"name": "x", "annotations": {LAST_APPLIED: "old", "b": "2", "a": "1"}}}
    before = thaw(manifest)
    text = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"annotations":{"a":"1","b":"2"},"name":"x"}}\n'
    assert last_applied_configuration(manifest) == text
    assert manifest == before
    modified = with_last_applied(manifest)
    assert modified == {"kind": "ConfigMap", "apiVersion": "v1",
                        "metadata": {"name": "x", "annotations": {LAST_APPLIED: text, "b": "2", "a": "1"}}}
    assert manifest == before


def test_server_side_apply_by_kubectl_refreshes_an_existing_annotation(server: ApiServer) -> None:
    first = with_last_applied({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"},
                               "data": {"a": "1"}})
    server.create(first)
    config = {"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "cm", "labels": {"w": "1"}}, "data": {"a": "2"}, "binaryData": None}
    server.server_side_apply("ConfigMap", "cm", config, field_manager="kubectl", force=True)
    assert server.get("ConfigMap", "cm")["metadata"]["annotations"] == {
        LAST_APPLIED: '{"apiVersion":"v1","binaryData":null,"data":{"a":"2"},"kind":"ConfigMap",'
                      '"metadata":{"labels":{"w":"1"},"name":"cm"}}\n'}
    server.server_side_apply("ConfigMap", "cm", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"},
                                                  "data": {"a": "3"}}, field_manager="someone", force=True)
    assert server.get("ConfigMap", "cm")["metadata"]["annotations"][LAST_APPLIED].startswith(
        '{"apiVersion":"v1","binaryData":null,"data":{"a":"2"}')  # only the kubectl applier refreshes it


def test_server_side_apply_by_kubectl_adds_no_annotation(server: ApiServer) -> None:
    server.server_side_apply("ConfigMap", "cm", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"},
                                                  "data": {"a": "1"}}, field_manager="kubectl")
    assert "annotations" not in server.get("ConfigMap", "cm")["metadata"]
