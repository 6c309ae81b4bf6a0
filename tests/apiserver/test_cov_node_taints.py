"""Unit tests of ``validateNodeTaints`` and ``IsQualifiedName`` as kube-apiserver applies them: an empty
taint key is two Invalid errors (empty, and not matching the pattern), a bad value is one error whose
messages are joined by ";", a repeated key and effect is a Duplicate with the detail "taints must be
unique by key and effect pair" (and is not counted again)."""

from __future__ import annotations

from volcano.apiserver.validation.cluster import node_errors
from volcano.apiserver.validation.names import qualified_name_errors

PATTERN = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
           "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


def _texts(*taints: dict[str, str]) -> list[str]:
    return [str(e) for e in node_errors({"spec": {"taints": list(taints)}})]


def test_empty_name_part_fails_twice() -> None:
    assert qualified_name_errors("") == ["name part must be non-empty", PATTERN]
    assert qualified_name_errors("example.com/") == ["name part must be non-empty", PATTERN]
    assert qualified_name_errors("a") == []


def test_taint_key_value_and_effect() -> None:
    assert _texts({"key": "", "effect": "NoSchedule"}) == [
        'spec.taints[0].key: Invalid value: "": name part must be non-empty',
        f'spec.taints[0].key: Invalid value: "": {PATTERN}']
    long_bad = "-" * 64
    texts = _texts({"key": "k", "value": long_bad, "effect": "NoExecute"})
    assert len(texts) == 1
    assert texts[0].startswith(f'spec.taints[0].value: Invalid value: "{long_bad}": must be no more than 63 '
                               "characters;a valid label must be an empty string")
    assert _texts({"key": "k"}) == ["spec.taints[0].effect: Required value"]
    assert _texts({"key": "k", "effect": "Sometimes"}) == [
        'spec.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", '
        '"PreferNoSchedule", "NoExecute"']
    assert _texts({"key": "k", "value": "v" * 63, "effect": "PreferNoSchedule"}) == []


def test_duplicates_by_key_and_effect() -> None:
    dup = ('spec.taints[{i}]: Duplicate value: core.Taint{{Key:"k", Value:"{v}", Effect:"NoSchedule", '
           "TimeAdded:<nil>}}: taints must be unique by key and effect pair")
    assert _texts({"key": "k", "value": "a", "effect": "NoSchedule"},
                  {"key": "k", "value": "a", "effect": "NoExecute"},
                  {"key": "k", "value": "b", "effect": "NoSchedule"},
                  {"key": "k", "value": "c", "effect": "NoSchedule"}) == [
        dup.format(i=2, v="b"), dup.format(i=3, v="c")]
