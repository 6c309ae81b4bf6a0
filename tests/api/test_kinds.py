"""Tests for volcano.api.kinds: the served kinds and name resolution."""

from __future__ import annotations

import pytest

from volcano.api.kinds import KINDS, UnknownKindError, kind_for_object, resolve_kind

RESOLVE = [
    ("Pod", "Pod", ""),
    ("pods", "Pod", ""),
    ("pod", "Pod", ""),
    ("Job", "Job", "batch.volcano.sh"),
    ("jobs", "Job", "batch.volcano.sh"),
    ("Job.batch", "Job", "batch"),
    ("jobs.batch", "Job", "batch"),
    ("Job.batch.volcano.sh", "Job", "batch.volcano.sh"),
    ("jobs.batch.volcano.sh", "Job", "batch.volcano.sh"),
    ("PodGroup", "PodGroup", "scheduling.volcano.sh"),
    ("podgroups", "PodGroup", "scheduling.volcano.sh"),
    ("Queue", "Queue", "scheduling.volcano.sh"),
    ("queues.scheduling.volcano.sh", "Queue", "scheduling.volcano.sh"),
    ("PriorityClass", "PriorityClass", "scheduling.k8s.io"),
    ("NODES", "Node", ""),
    ("deployments", "Deployment", "apps"),
    ("Command", "Command", "bus.volcano.sh"),
    ("vcjob", "Job", "batch.volcano.sh"),
    ("vj", "Job", "batch.volcano.sh"),
    ("pg", "PodGroup", "scheduling.volcano.sh"),
    ("pg.scheduling.volcano.sh", "PodGroup", "scheduling.volcano.sh"),
    ("podgroup-v1beta1", "PodGroup", "scheduling.volcano.sh"),
    ("q", "Queue", "scheduling.volcano.sh"),
    ("po", "Pod", ""),
    ("PO", "Pod", ""),
    ("no", "Node", ""),
    ("ns", "Namespace", ""),
    ("deploy", "Deployment", "apps"),
    ("rs", "ReplicaSet", "apps"),
    ("pc", "PriorityClass", "scheduling.k8s.io"),
]


@pytest.mark.parametrize(("name", "kind", "group"), RESOLVE, ids=[c[0] for c in RESOLVE])
def test_resolve_kind(name: str, kind: str, group: str) -> None:
    info = resolve_kind(name)
    assert (info.kind, info.group) == (kind, group)


@pytest.mark.parametrize("name", ["Gadget", "", "jobs.nope"])
def test_unknown_kind(name: str) -> None:
    with pytest.raises(UnknownKindError, match="doesn't have a resource type"):
        resolve_kind(name)


def test_keys_and_api_versions_unique() -> None:
    keys = [k.key for k in KINDS]
    assert len(keys) == len(set(keys))
    assert resolve_kind("Pod").key == "Pod" and resolve_kind("Pod").api_version == "v1"
    assert resolve_kind("Job").key == "Job.batch.volcano.sh"
    assert resolve_kind("Job").api_version == "batch.volcano.sh/v1alpha1"
    assert resolve_kind("PodGroup").key == "PodGroup.scheduling.volcano.sh"
    assert resolve_kind("Queue").namespaced is False and resolve_kind("Pod").namespaced is True
    assert resolve_kind("ConfigMap").has_status is False


def test_every_kind_resolves_by_key_and_object() -> None:
    for info in KINDS:
        assert resolve_kind(info.key) is info
        assert kind_for_object({"apiVersion": info.api_version, "kind": info.kind}) is info


OBJECT_ERRORS = [
    ("no-kind", {"apiVersion": "v1"}, "no 'kind'"),
    ("no-apiVersion", {"kind": "Pod"}, "no 'apiVersion'"),
    ("wrong-version", {"apiVersion": "v2", "kind": "Pod"}, "no matches for kind 'Pod' in version 'v2'"),
    ("volcano-job-wrong-group", {"apiVersion": "batch/v1alpha1", "kind": "Job"}, "no matches"),
]


@pytest.mark.parametrize(("obj", "fragment"), [c[1:] for c in OBJECT_ERRORS], ids=[c[0] for c in OBJECT_ERRORS])
def test_kind_for_object_errors(obj: dict[str, object], fragment: str) -> None:
    with pytest.raises(UnknownKindError, match=fragment):
        kind_for_object(obj)


def test_short_names_are_unique_and_never_shadow_a_kind_or_plural() -> None:
    shorts = [s for k in KINDS for s in k.short_names]
    assert len(shorts) == len(set(shorts))
    names = {k.kind.lower() for k in KINDS} | {k.plural for k in KINDS}
    assert not names & set(shorts)


def test_discovery_facts() -> None:
    pod = resolve_kind("Pod")
    assert (pod.singular, pod.resource, pod.categories) == ("pod", "pods", ("all",))
    assert [name for name, _, _ in pod.subresources] == ["binding", "eviction", "log"]
    assert resolve_kind("Job").resource == "jobs.batch.volcano.sh"
    assert "deletecollection" not in resolve_kind("Namespace").verbs
    assert resolve_kind("PodGroup").has_status is False and resolve_kind("PodGroup").subresources == ()
