"""Strategic merge patch: apply, two-way and three-way creation.

The table cases (``data/smp_cases.json``) are Kubernetes' own strategic-patch test cases, as
inputs and expected outputs, run against the ``mergeItem`` test type that upstream's tests use
(declared here as patch metadata). The tests below them exercise the built-in kinds' metadata.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from volcano.apiserver.gojson import go_str
from volcano.apiserver.patchmeta import FieldMeta, Schema, schema_for
from volcano.apiserver.smp import SMPError, strategic_merge_patch
from volcano.apiserver.smp_diff import PatchConflict, create_three_way_merge_patch, create_two_way_merge_patch

CASES = json.loads((Path(__file__).parent / "data" / "smp_cases.json").read_text())

_ITEM_FIELDS: dict[str, FieldMeta] = {}
ITEM = Schema("mergeItem", _ITEM_FIELDS)
RETAIN_ITEM = Schema("retainKeysMergeItem", {
    "mergingIntList": FieldMeta(("merge",)),
    "mergingList": FieldMeta(("merge",), "name", schema=ITEM),
    "nonMergingList": FieldMeta(schema=ITEM),
})
_ITEM_FIELDS.update(
    mergingList=FieldMeta(("merge",), "name", schema=ITEM),
    nonMergingList=FieldMeta(schema=ITEM),
    mergingIntList=FieldMeta(("merge",)),
    mergeItemPtr=FieldMeta(("merge",), "name", schema=ITEM),
    replacingItem=FieldMeta(("replace",)),
    retainKeysMap=FieldMeta(("retainKeys",), schema=RETAIN_ITEM),
    retainKeysMergingList=FieldMeta(("merge", "retainKeys"), "name", schema=ITEM),
)


def _sorted(value: Any, schema: Schema) -> Any:
    """Merged lists sorted by merge key (scalars deduplicated and sorted), recursively: upstream
    compares unordered cases this way, since merge order is not significant there."""
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        meta = schema.lookup(key)
        if key == "$retainKeys" or key.startswith("$deleteFromPrimitiveList"):
            item = sorted(item, key=go_str)
        elif isinstance(item, dict) and not key.startswith("$"):
            item = _sorted(item, meta.sub)
        elif isinstance(item, list) and item and meta.strategy == "merge" and not key.startswith("$"):
            if isinstance(item[0], dict):
                item = sorted((_sorted(e, meta.sub) for e in item), key=lambda e: go_str(e.get(meta.merge_key)))
            else:
                item = sorted({json.dumps(e): e for e in item}.values(), key=go_str)
        out[key] = item
    return out


def _same(got: Any, want: Any, ordered: bool) -> None:
    if not ordered:
        got, want = _sorted(got, ITEM), _sorted(want, ITEM)
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)


@pytest.mark.parametrize("case", CASES["apply"], ids=lambda c: c["id"])
def test_apply_upstream_case(case: dict[str, Any]) -> None:
    _same(strategic_merge_patch(case["original"], case["patch"], ITEM), case["expected"], case["ordered"])


@pytest.mark.parametrize("case", CASES["diff"], ids=lambda c: c["id"])
def test_two_way_upstream_case(case: dict[str, Any]) -> None:
    patch = create_two_way_merge_patch(case["original"], case["modified"], ITEM)
    _same(patch, case["two_way"], case["ordered"])
    _same(strategic_merge_patch(case["original"], patch, ITEM), case.get("two_way_result") or case["modified"],
          case["ordered"])


@pytest.mark.parametrize("case", CASES["diff"], ids=lambda c: c["id"])
def test_three_way_upstream_case(case: dict[str, Any]) -> None:
    args = (case["original"], case["modified"], case["current"], ITEM)
    if case["id"].startswith("conflict-"):
        with pytest.raises(PatchConflict):
            create_three_way_merge_patch(*args, overwrite=False)
    else:
        create_three_way_merge_patch(*args, overwrite=False)
    patch = create_three_way_merge_patch(*args, overwrite=True)
    _same(patch, case["three_way"], case["ordered"])
    _same(strategic_merge_patch(case["current"], patch, ITEM), case["result"], case["ordered"])


@pytest.mark.parametrize("case", CASES["errors"], ids=lambda c: c["id"])
def test_upstream_error_case(case: dict[str, Any]) -> None:
    with pytest.raises(SMPError) as err:
        strategic_merge_patch(case["original"], case["patch"], ITEM)
    assert case["error"] in err.value.message


def test_upstream_tables_cover_every_directive() -> None:
    text = json.dumps(CASES)
    for directive in ("$setElementOrder/", "$deleteFromPrimitiveList/", "$retainKeys", '"$patch": "delete"',
                      '"$patch": "replace"'):
        assert directive in text


# -- built-in kinds --------------------------------------------------------------------------------------
POD = schema_for("Pod")


def _pod(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "1"}}, "spec": spec}


def test_containers_merge_by_name_and_env_by_name() -> None:
    """Upstream puts items new to the live list before the live ones unless ``$setElementOrder`` says otherwise."""
    live = _pod(containers=[{"name": "a", "image": "x", "env": [{"name": "A", "value": "1"}]},
                            {"name": "b", "image": "y"}])
    patch = {"spec": {"containers": [{"name": "a", "env": [{"name": "B", "value": "2"}]}]}}
    out = strategic_merge_patch(live, patch, POD)
    assert out["spec"]["containers"] == [
        {"name": "a", "image": "x", "env": [{"name": "B", "value": "2"}, {"name": "A", "value": "1"}]},
        {"name": "b", "image": "y"}]


def test_ports_merge_by_container_port_and_tolerations_are_replaced() -> None:
    live = _pod(containers=[{"name": "a", "ports": [{"containerPort": 80}]}],
                tolerations=[{"key": "k1", "operator": "Exists"}])
    patch = {"spec": {"containers": [{"name": "a", "ports": [{"containerPort": 443}]}],
                      "tolerations": [{"key": "k2", "operator": "Exists"}]}}
    out = strategic_merge_patch(live, patch, POD)
    assert out["spec"]["containers"][0]["ports"] == [{"containerPort": 443}, {"containerPort": 80}]
    assert out["spec"]["tolerations"] == [{"key": "k2", "operator": "Exists"}]


def test_delete_directive_removes_one_container_and_null_deletes_a_label() -> None:
    live = _pod(containers=[{"name": "a"}, {"name": "b"}])
    patch = {"metadata": {"labels": {"a": None}}, "spec": {"containers": [{"name": "a", "$patch": "delete"}]}}
    out = strategic_merge_patch(live, patch, POD)
    assert out["spec"]["containers"] == [{"name": "b"}]
    assert out["metadata"]["labels"] == {}


def test_finalizers_merge_as_a_set_and_delete_from_primitive_list() -> None:
    live = {"metadata": {"name": "p", "finalizers": ["a", "b"]}}
    out = strategic_merge_patch(live, {"metadata": {"finalizers": ["c", "a"]}}, POD)
    assert out["metadata"]["finalizers"] == ["c", "a", "b"]
    out = strategic_merge_patch(live, {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}}, POD)
    assert out["metadata"]["finalizers"] == ["b"]


def test_set_element_order_reorders_containers() -> None:
    live = _pod(containers=[{"name": "a"}, {"name": "b"}, {"name": "c"}])
    patch = {"spec": {"$setElementOrder/containers": [{"name": "c"}, {"name": "a"}, {"name": "b"}]}}
    out = strategic_merge_patch(live, patch, POD)
    assert [c["name"] for c in out["spec"]["containers"]] == ["c", "a", "b"]


def test_retain_keys_clears_the_other_volume_source() -> None:
    live = _pod(volumes=[{"name": "v", "emptyDir": {}}])
    patch = {"spec": {"volumes": [{"name": "v", "hostPath": {"path": "/x"}, "$retainKeys": ["hostPath", "name"]}]}}
    out = strategic_merge_patch(live, patch, POD)
    assert out["spec"]["volumes"] == [{"name": "v", "hostPath": {"path": "/x"}}]


def test_list_replace_directive() -> None:
    live = _pod(containers=[{"name": "a"}, {"name": "b"}])
    out = strategic_merge_patch(live, {"spec": {"containers": [{"name": "z"}, {"$patch": "replace"}]}}, POD)
    assert out["spec"]["containers"] == [{"name": "z"}]


@pytest.mark.parametrize(("patch", "code", "text"), [
    ({"spec": {"containers": [{"image": "x"}]}}, 500, "does not contain declared merge key: name"),
    ({"spec": {"$setElementOrder/containers": "nope"}}, 500, "expected a []interface {}"),
    ({"spec": {"$retainKeys": "nope"}}, 400, "invalid patch format of retainKeys"),
    ({"spec": {"$retainKeys": ["containers"], "hostname": "h"}}, 400, "invalid patch format of retainKeys"),
    ({"spec": {"containers": [{"name": "a", "$patch": "merge"}]}}, 500, "merging lists cannot yet be specified"),
    ({"spec": {"$patch": "bogus"}}, 500, "unknown patch type: bogus in map"),
    ({"spec": {"containers": [["x"]]}}, 500, "list element types are not identical"),
])
def test_errors_carry_the_api_server_code(patch: dict[str, Any], code: int, text: str) -> None:
    live = _pod(containers=[{"name": "a"}], finalizers=["f"])
    with pytest.raises(SMPError) as err:
        strategic_merge_patch(live, patch, POD)
    assert err.value.code == code
    assert text in err.value.message


def test_list_of_lists_is_unprocessable() -> None:
    live = {"metadata": {"name": "p", "finalizers": [["a"]]}}
    with pytest.raises(SMPError) as err:
        strategic_merge_patch(live, {"metadata": {"finalizers": [["b"]]}}, POD)
    assert (err.value.code, err.value.message) == (422, "lists of lists are not supported")


def test_inputs_are_not_modified() -> None:
    live = _pod(containers=[{"name": "a"}, {"name": "b"}])
    patch = {"spec": {"containers": [{"name": "b", "$patch": "delete"}, {"name": "c"}]}}
    before = json.dumps([live, patch])
    strategic_merge_patch(live, patch, POD)
    assert json.dumps([live, patch]) == before
