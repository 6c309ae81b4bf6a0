"""``iteration_key``: paths in structured-merge-diff's ``Set.Iterate`` order (an apply conflict's order)."""

from __future__ import annotations

from volcano.apiserver.fieldpath import Path, iteration_key, path_string


def _ordered(paths: list[Path]) -> list[str]:
    return [path_string(p) for p in sorted(paths, key=iteration_key)]


def test_a_levels_members_come_before_its_children() -> None:
    paths: list[Path] = [(("f", "a"), ("f", "z")), (("f", "b"),), (("f", "a"),)]
    assert _ordered(paths) == [".a", ".b", ".a.z"]


def test_list_map_keys_compare_as_values_and_fields_before_items() -> None:
    port = (("f", "spec"), ("f", "ports"))
    paths: list[Path] = [(*port, ("k", (("port", 10000),)), ("f", "name")),
                         (*port, ("k", (("port", 8080),)), ("f", "name")),
                         (("f", "spec"), ("f", "type"))]
    assert _ordered(paths) == [".spec.type", ".spec.ports[port=8080].name", ".spec.ports[port=10000].name"]
