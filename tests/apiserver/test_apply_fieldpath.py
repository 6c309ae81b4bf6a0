"""Field paths: FieldsV1 encoding order and parsing, path strings, the field manager's entries."""

from __future__ import annotations

import json

import pytest

from volcano.api.kinds import resolve_kind
from volcano.apiserver.fieldpath import FieldsV1Error, ensure_named_fields, from_fields_v1, path_string, to_fields_v1
from volcano.apiserver.managed_fields import FieldManager, decode_entries


def test_fields_v1_orders_fields_then_keys_then_values_then_indexes() -> None:
    paths = {
        (("f", "spec"), ("f", "z")),
        (("f", "spec"), ("f", "a")),
        (("f", "spec"), ("f", "list"), ("i", 2)),
        (("f", "spec"), ("f", "list"), ("v", "x")),
        (("f", "spec"), ("f", "list"), ("v", 3)),
        (("f", "spec"), ("f", "list"), ("k", (("name", "b"),))),
        (("f", "spec"), ("f", "list"), ("k", (("name", "a"), ("port", 80)))),
        (("f", "spec"), ("f", "list"), ("k", (("name", "a"), ("port", 80))), ("f", "image")),
    }
    encoded = to_fields_v1(paths)
    assert json.dumps(encoded) == json.dumps({"f:spec": {
        "f:a": {},
        "f:list": {'k:{"name":"a","port":80}': {".": {}, "f:image": {}}, 'k:{"name":"b"}': {},
                   "v:3": {}, 'v:"x"': {}, "i:2": {}},
        "f:z": {}}})
    assert from_fields_v1(encoded) == paths


def test_path_strings_as_conflict_messages_print_them() -> None:
    assert path_string((("f", "spec"), ("f", "containers"), ("k", (("name", "c"),)), ("f", "image"))) == \
        '.spec.containers[name="c"].image'
    assert path_string((("f", "ports"), ("k", (("containerPort", 80), ("protocol", "TCP"))))) == \
        '.ports[containerPort=80,protocol="TCP"]'
    assert path_string((("f", "finalizers"), ("v", "x"))) == '.finalizers[="x"]'
    assert path_string((("f", "args"), ("i", 0))) == ".args[0]"


@pytest.mark.parametrize("bad", [[], {"x:y": {}}, {"f:a": 1}, {"k:[1]": {}}, {"i:x": {}}])
def test_malformed_fields_v1_is_rejected(bad: object) -> None:
    with pytest.raises(FieldsV1Error):
        from_fields_v1(bad)


def test_named_fields_become_members() -> None:
    deep = (("f", "spec"), ("f", "template"), ("f", "containers"), ("k", (("name", "c"),)), ("f", "image"))
    assert ensure_named_fields({deep}) == {deep, deep[:1], deep[:2], deep[:3]}  # not the list item deep[:4]


def test_malformed_managed_fields_are_ignored_as_upstream() -> None:
    for operation, fields_type in (("Frob", "FieldsV1"), ("Update", "FieldsV2")):
        entry = {"manager": "m", "operation": operation, "apiVersion": "v1", "fieldsType": fields_type}
        assert decode_entries([entry]) is None
    assert decode_entries("nope") is None
    good = decode_entries([{"manager": "m", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1",
                            "fieldsV1": {"f:spec": {"f:x": {}}}}])
    assert good is not None and [e.fields for e in good.values()] == [{(("f", "spec"), ("f", "x"))}]


def test_update_keeps_a_client_reset_of_managed_fields() -> None:
    fm = FieldManager(resolve_kind("ConfigMap"), lambda: "2024-01-01T00:00:00Z")
    live = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "uid": "u", "managedFields": [
        {"manager": "m", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:data": {"f:a": {}}}}]}, "data": {"a": "1"}}
    new = {**live, "metadata": {**live["metadata"], "managedFields": []}, "data": {"a": "2"}}
    fm.update(live, new, "other")
    assert "managedFields" not in new["metadata"]
