"""kubectl wait's JSONPath subset and conditions (``volcano.api.jsonpath``)."""

from __future__ import annotations

import doctest

import pytest

from volcano.api import jsonpath
from volcano.api.jsonpath import JsonPathError, find, parse_wait_jsonpath, text, wait_check

POD = {"status": {"phase": "Running", "ready": True, "count": 2,
                  "conditions": [{"type": "Ready", "status": "True"}, {"type": "PodScheduled", "status": "False"}]},
       "spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}}


def test_module_examples() -> None:
    result = doctest.testmod(jsonpath)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize(("arg", "expected"), [
    ("{.status.phase}=Running", ("{.status.phase}", "Running")),
    (".status.phase=Running", (".status.phase", "Running")),
    ("{.status.phase}", ("{.status.phase}", None)),
    ('{.status.conditions[?(@.type=="Ready")].status}=True',
     ('{.status.conditions[?(@.type=="Ready")].status}', "True")),
    ("{.metadata.labels.a}=b=c", ("{.metadata.labels.a}", "b=c")),
])
def test_parse_wait_jsonpath(arg: str, expected: tuple[str, str | None]) -> None:
    assert parse_wait_jsonpath(arg) == expected


@pytest.mark.parametrize(("expr", "values"), [
    ("{.status.phase}", ["Running"]),
    ("status.phase", ["Running"]),
    ("{.status['phase']}", ["Running"]),
    ("{.spec.containers[1].name}", ["b"]),
    ("{.spec.containers[-1].name}", ["b"]),
    ("{.spec.containers[5].name}", []),
    ("{.spec.containers[*].name}", ["a", "b"]),
    ("{.spec.containers.*.image}", ["x", "y"]),
    ('{.status.conditions[?(@.type=="Ready")].status}', ["True"]),
    ("{.status.conditions[?(@.type!='Ready')].type}", ["PodScheduled"]),
    ("{.status.conditions[?(@.reason)].type}", []),
    ("{.status.missing.deeper}", []),
])
def test_find(expr: str, values: list[object]) -> None:
    assert find(POD, expr) == values


@pytest.mark.parametrize("bad", ["", "{.a[?(@.b>1)]}", "{.a[x]}", "{..a}", "{.a[1}", "{.a b}"])
def test_malformed_expressions_name_the_expression(bad: str) -> None:
    with pytest.raises(JsonPathError) as err:
        parse_wait_jsonpath(bad)
    assert repr(bad) in str(err.value) or "expected" in str(err.value)


def test_text_renders_as_kubectl_compares() -> None:
    assert [text(v) for v in ("x", True, False, 2, 2.0, 2.5, None, {"b": 1, "a": [1]})] == [
        "x", "true", "false", "2", "2", "2.5", "null", '{"a":[1],"b":1}']


def test_wait_check() -> None:
    assert wait_check(jsonpath="{.status.ready}=true")(POD) == (True, "{.status.ready}=true")
    assert wait_check(jsonpath="{.status.count}=3")(POD) == (False, "{.status.count}=2")
    assert wait_check(jsonpath="{.status.nothing}")(POD) == (False, "{.status.nothing} absent")
    assert wait_check(condition="ready")(POD) == (True, "condition ready=True")
    assert wait_check(condition="PodScheduled=False")(POD)[0]
    assert wait_check(condition="Other")(POD) == (False, "no condition Other")
    assert wait_check(delete=True)(POD)[0] is False
    with pytest.raises(ValueError, match="more than one"):
        wait_check(jsonpath="{.spec.containers[*].name}=a")(POD)
    with pytest.raises(ValueError, match="exactly one"):
        wait_check()
