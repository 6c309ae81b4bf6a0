"""Tests for volcano.api.accessors: shape-tolerant reads of objects."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.api import accessors as a

POD: dict[str, Any] = {
    "metadata": {"name": "p", "namespace": "ns", "labels": {"x": "1"}, "annotations": {"y": "2"},
                 "ownerReferences": [{"kind": "ReplicaSet", "uid": "u0"},
                                     {"kind": "Job", "uid": "u1", "controller": True}]},
    "status": {"phase": "Running"},
}


def test_reads_a_well_formed_object() -> None:
    assert (a.name(POD), a.namespace(POD), a.key(POD)) == ("p", "ns", "ns/p")
    assert a.labels(POD) == {"x": "1"} and a.annotations(POD) == {"y": "2"}
    assert a.phase(POD) == "Running"
    assert a.controller_of(POD) == {"kind": "Job", "uid": "u1", "controller": True}


def test_volcano_job_phase_lives_under_state() -> None:
    assert a.phase({"status": {"state": {"phase": "Completed"}}}) == "Completed"


@pytest.mark.parametrize("obj", [
    {}, {"metadata": None, "status": None}, {"metadata": "x", "status": ["y"]},
    {"metadata": {"name": 5, "labels": "a=b", "ownerReferences": "u"}, "status": {"phase": 3, "state": "s"}},
    {"metadata": {"ownerReferences": ["u", {"controller": "true"}]}},
], ids=["empty", "nulls", "wrong-types", "wrong-leaves", "bad-refs"])
def test_malformed_parts_read_as_empty(obj: dict[str, Any]) -> None:
    assert a.meta(obj) == {} or isinstance(a.meta(obj), dict)
    assert a.name(obj) == "" and a.key(obj) == "" and a.phase(obj) == ""
    assert a.labels(obj) == {} and a.annotations(obj) == {}
    assert a.controller_of(obj) is None


def test_cluster_scoped_key_is_the_name() -> None:
    assert a.key({"metadata": {"name": "node-0"}}) == "node-0"
