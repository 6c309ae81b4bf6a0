"""Tests for volcano.api.manifest: loading and structural validation of manifests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from volcano.api.frozen import freeze
from volcano.api.manifest import ManifestError, load_manifests

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": []}}
QUEUE_YAML = """\
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: q1
spec:
  weight: 1
"""
JOB_YAML = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  generateName: job-
spec:
  minAvailable: 1
"""


def test_multi_document_text_skips_empty_documents() -> None:
    text = f"---\n{QUEUE_YAML}---\n---\n# only a comment\n---\n{JOB_YAML}"
    objs = load_manifests(text)
    assert [o["kind"] for o in objs] == ["Queue", "Job"]
    assert objs[0]["spec"] == {"weight": 1}
    assert objs[1]["metadata"] == {"generateName": "job-"}


def test_empty_text_gives_nothing() -> None:
    assert load_manifests("") == []
    assert load_manifests("---\n---\n") == []


def test_dict_and_list_inputs_are_copied() -> None:
    objs = load_manifests(POD)
    assert objs == [POD]
    objs[0]["metadata"]["name"] = "changed"
    assert load_manifests(POD)[0]["metadata"]["name"] == "p"
    assert load_manifests([POD, None, freeze(POD)]) == [POD, POD]
    assert type(load_manifests(freeze(POD))[0]["metadata"]) is dict


def test_file_and_directory(tmp_path: Path) -> None:
    (tmp_path / "b.yaml").write_text(QUEUE_YAML)
    (tmp_path / "a.json").write_text(json.dumps(POD))
    (tmp_path / "c.yml").write_text(JOB_YAML)
    (tmp_path / "notes.txt").write_text("not a manifest")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "d.yaml").write_text(QUEUE_YAML)
    kinds = [o["kind"] for o in load_manifests(tmp_path)]
    assert kinds == ["Pod", "Queue", "Job"]  # sorted by file name, not recursive
    assert load_manifests(str(tmp_path / "b.yaml"))[0]["metadata"]["name"] == "q1"
    assert load_manifests(tmp_path / "a.json") == [POD]


def test_v1_list_is_expanded() -> None:
    lst = {"apiVersion": "v1", "kind": "List", "items": [POD, {**POD, "metadata": {"name": "p2"}}]}
    assert [o["metadata"]["name"] for o in load_manifests(lst)] == ["p", "p2"]


def test_repository_fixtures_load() -> None:
    root = Path(__file__).resolve().parents[2] / "fixtures"
    files = sorted(root.glob("*.yaml"))
    if not files:
        pytest.skip("no fixtures in this checkout")
    for file in files:
        assert all("kind" in o for o in load_manifests(file))


ERROR_CASES: list[tuple[str, Any, int | None, str | None, str]] = [
    ("missing-kind", "apiVersion: v1\nmetadata: {name: a}\n", 0, "kind", "missing field 'kind'"),
    ("missing-apiVersion", "kind: Pod\nmetadata: {name: a}\n", 0, "apiVersion", "missing field 'apiVersion'"),
    ("missing-name", "apiVersion: v1\nkind: Pod\nmetadata: {labels: {a: b}}\n", 0, "metadata.name",
     "missing field 'metadata.name'"),
    ("missing-metadata", "apiVersion: v1\nkind: Pod\n", 0, "metadata", "missing field 'metadata'"),
    ("name-not-string", "apiVersion: v1\nkind: Pod\nmetadata: {name: 3}\n", 0, "metadata.name", "must be a string"),
    ("kind-not-string", "apiVersion: v1\nkind: [Pod]\nmetadata: {name: a}\n", 0, "kind", "must be a string"),
    ("non-mapping", "- a\n- b\n", 0, None, "expected a mapping"),
    ("scalar-doc", "just text\n", 0, None, "expected a mapping"),
    ("second-document", f"{QUEUE_YAML}---\n{QUEUE_YAML}---\nkind: Pod\n", 2, "apiVersion", "missing field"),
    ("unknown-kind", "apiVersion: v1\nkind: Gadget\nmetadata: {name: a}\n", 0, "kind", "unknown kind 'Gadget'"),
    ("wrong-version", "apiVersion: batch.volcano.sh/v1\nkind: Job\nmetadata: {name: a}\n", 0, "kind",
     "'batch.volcano.sh/v1'"),
    ("yaml-syntax", f"{QUEUE_YAML}---\nkind: Pod\nmetadata: {{name: a\n", 1, None, "YAML syntax error at line"),
    ("list-bad-item", {"apiVersion": "v1", "kind": "List", "items": [POD, {"kind": "Pod"}]}, 0, "items[1].apiVersion",
     "items[1]: missing field 'apiVersion'"),
]


@pytest.mark.parametrize(("source", "index", "field", "fragment"), [c[1:] for c in ERROR_CASES],
                         ids=[c[0] for c in ERROR_CASES])
def test_errors_name_document_and_field(source: Any, index: int | None, field: str | None, fragment: str) -> None:
    with pytest.raises(ManifestError) as info:
        load_manifests(source)
    err = info.value
    assert err.index == index
    assert err.field == field
    assert fragment in str(err)
    assert f"document {index} (0-based)" in str(err)
    assert err.source in ("<string>", "<object>")
    assert str(err).startswith(err.source)


def test_yaml_syntax_error_reports_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: [x\n")
    with pytest.raises(ManifestError) as info:
        load_manifests(path)
    assert info.value.source == str(path)
    assert str(path) in str(info.value) and "line" in str(info.value)


def test_json_syntax_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"apiVersion": "v1",\n "kind": }')
    with pytest.raises(ManifestError, match=r"JSON syntax error at line 2"):
        load_manifests(path)


def test_error_in_second_file_names_that_file(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(QUEUE_YAML)
    (tmp_path / "b.yaml").write_text(f"{QUEUE_YAML}---\napiVersion: v1\nkind: Pod\nmetadata: {{}}\n")
    with pytest.raises(ManifestError) as info:
        load_manifests(tmp_path)
    assert info.value.source == str(tmp_path / "b.yaml")
    assert info.value.index == 1 and info.value.field == "metadata.name"


def test_missing_path() -> None:
    with pytest.raises(ManifestError, match="no such file"):
        load_manifests(Path("does/not/exist.yaml"))
    with pytest.raises(ManifestError, match="no such file"):
        load_manifests("does/not/exist.yaml")


def test_unsupported_source_type() -> None:
    with pytest.raises(ManifestError, match="cannot load manifests from a int"):
        load_manifests(3)  # type: ignore[arg-type]
