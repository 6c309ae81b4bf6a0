"""Unit tests of ``isDataSourceEqualDataSourceRef`` as ``pvc_errors`` applies it: kind and name compare
as Go strings (absent is ""), the apiGroup pointers compare deeply (absent and "" differ)."""

from __future__ import annotations

from typing import Any

from volcano.apiserver.validation.pvc import pvc_errors

MISMATCH = "spec: Invalid value: spec.dataSource: must match dataSourceRef"


def _texts(spec: dict[str, Any]) -> list[str]:
    obj = {"metadata": {"name": "c", "namespace": "default"},
           "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, **spec}}
    return [str(e) for e in pvc_errors(obj)]


def test_absent_and_empty_names_are_equal() -> None:
    texts = _texts({"dataSource": {"kind": "PersistentVolumeClaim", "name": ""},
                    "dataSourceRef": {"kind": "PersistentVolumeClaim"}})
    assert MISMATCH not in texts
    assert texts == ["spec.dataSource.name: Required value", "spec.dataSourceRef.name: Required value"]


def test_api_group_absent_and_empty_differ() -> None:
    texts = _texts({"dataSource": {"kind": "PersistentVolumeClaim", "name": "a"},
                    "dataSourceRef": {"kind": "PersistentVolumeClaim", "name": "a", "apiGroup": ""}})
    assert texts == [MISMATCH]


def test_names_and_kinds_compared() -> None:
    same = {"kind": "PersistentVolumeClaim", "name": "a"}
    assert _texts({"dataSource": same, "dataSourceRef": dict(same)}) == []
    assert _texts({"dataSource": same, "dataSourceRef": {**same, "name": "b"}}) == [MISMATCH]
    snap = {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot", "name": "a"}
    assert _texts({"dataSource": snap, "dataSourceRef": {**snap, "kind": "VolumeSnapshotContent"}}) == [MISMATCH]
