"""A schema is compiled with only the definitions it reaches (``reachable_definitions``): for every
kind's definition and each of its properties (the parts the decode checks compile alone), the status
types' properties and every CRD schema and status part, the generated validator is the one compiled
with all the definitions, function for function, but for the copy of the schema each exception
carries (``definition=``, which no caller reads): the same checks in the same order, so the same
verdict on every value. A reference of another form keeps every definition."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

import fastjsonschema
import pytest

from volcano.apiserver.validation import crd
from volcano.apiserver.validation.crd_schemas import CRD_SCHEMAS
from volcano.apiserver.validation.openapi import (
    _FORMATS,
    _SCHEMA_DIALECT,
    definitions,
    reachable_definitions,
)

_CORE = ("io.k8s.api.core.v1.Pod", "io.k8s.api.core.v1.PodSpec", "io.k8s.api.core.v1.PodStatus",
         "io.k8s.api.core.v1.Node", "io.k8s.api.core.v1.NodeStatus", "io.k8s.api.core.v1.Event",
         "io.k8s.api.apps.v1.ReplicaSet", "io.k8s.api.batch.v1.Job")


class _NoDefinitionData(ast.NodeTransformer):
    def visit_keyword(self, node: ast.keyword) -> ast.keyword:
        if node.arg == "definition":
            node.value = ast.Constant(None)
        return node


def _code(schema: Mapping[str, Any], defs: Mapping[str, Any], **options: Any) -> str:
    code = fastjsonschema.compile_to_code({**schema, "definitions": defs, "$schema": _SCHEMA_DIALECT}, **options)
    return ast.dump(_NoDefinitionData().visit(ast.parse(code)))


def _parts(name: str) -> list[Mapping[str, Any]]:
    schema = definitions()[name]
    return [schema, *(schema.get("properties") or {}).values()]


@pytest.mark.parametrize("name", _CORE)
def test_a_kinds_schema_and_its_parts_compile_the_same_with_the_definitions_they_reach(name: str) -> None:
    defs = definitions()
    pruned = 0
    for schema in _parts(name):
        reached = reachable_definitions(schema, defs)
        assert _code(schema, reached, formats=_FORMATS) == _code(schema, defs, formats=_FORMATS)
        pruned += len(reached) < len(defs)
    assert pruned  # some part compiles with fewer definitions


@pytest.mark.parametrize("kind_key", sorted(CRD_SCHEMAS))
def test_a_crd_schema_and_its_status_compile_the_same_with_the_definitions_they_reach(kind_key: str) -> None:
    defs = crd._definitions(True)
    schema = CRD_SCHEMAS[kind_key]
    roots = [crd._to_json_schema(schema, True)]
    if "status" in schema.get("properties", {}):
        roots.append(crd._to_json_schema({"type": "object", "properties": {"status": schema["properties"]["status"]}},
                                         True))
    for root in roots:
        reached = reachable_definitions(root, defs)
        assert set(reached) <= set(defs)
        assert _code(root, reached, use_default=False) == _code(root, defs, use_default=False)


def test_the_reached_definitions_follow_references_through_one_another_and_keep_their_order() -> None:
    defs = {"a": {"$ref": "#/definitions/b"}, "b": {"type": "object", "properties": {"c": {"$ref": "#/definitions/c"}}},
            "c": {"type": "string"}, "d": {"type": "string"}}
    reached = reachable_definitions({"items": [{"$ref": "#/definitions/c"}, {"$ref": "#/definitions/a"}]}, defs)
    assert list(reached) == ["a", "b", "c"]
    assert reachable_definitions({"type": "string"}, defs) == {}
    assert reachable_definitions({"$ref": "other.json#/x"}, defs) is defs
    assert reachable_definitions({"$ref": "#/definitions/missing"}, defs) is defs
