"""Admission conformance: Pods (upstream "Pod Mutating E2E Test" and "Pod Validating E2E Test").

Mutating: Volcano's pod mutating webhook only changes pods when an admission configuration
with resource groups is loaded; upstream's CI (and a default install) has none, so every
mutating case asserts that the pod is left as Kubernetes' own defaulting makes it
(``schedulerName: default-scheduler``). Where upstream's check could never fail ("if an
affinity is present it has a node affinity"), the case asserts what it meant: nothing added.

Validating: for pods of the Volcano scheduler, the disruption-budget annotations
``volcano.sh/jdb-min-available`` / ``volcano.sh/jdb-max-unavailable`` must be a positive
integer or a percentage in 1%..99%, and not both. Pods of other schedulers are not checked.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod
from volcano.conformance.test_admission import POD_WEBHOOK, denial, plain, webhook_message

__all__: list[str] = []

Obj = dict[str, Any]
SUITE = "admission"
RESOURCE_GROUP = "volcano.sh/resource-group"
MIN_AVAILABLE = "volcano.sh/jdb-min-available"
MAX_UNAVAILABLE = "volcano.sh/jdb-max-unavailable"


# -------------------------------------------------------------------------------------- mutating


def _bare_pod(name: str, *, annotations: dict[str, str] | None = None, **spec: Any) -> Obj:
    """Upstream's mutating-test pod: one container ``test-container`` (busybox:1.24), nothing else."""
    meta: Obj = {"name": name}
    if annotations:
        meta["annotations"] = dict(annotations)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "test-container", "image": "busybox:1.24"}], **spec}}


def _create_pod(cluster: Cluster, manifest: Obj) -> Obj:
    """Create the pod and return it as created."""
    created: Obj = plain(cluster.apply(manifest)[0])
    assert created["metadata"]["name"] == manifest["metadata"]["name"]
    return created


def _no_resource_group_mutation(spec: Obj) -> None:
    """Nothing a resource group would add: no nodeSelector, no affinity, no NoSchedule toleration
    (Kubernetes itself only adds NoExecute not-ready/unreachable tolerations)."""
    assert not spec.get("nodeSelector"), spec.get("nodeSelector")
    assert not spec.get("affinity"), spec.get("affinity")
    assert not [t for t in spec.get("tolerations") or [] if t.get("effect") == "NoSchedule"], spec["tolerations"]


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should add nodeSelector for management namespace pods")
def test_no_node_selector_without_resource_groups(cluster: Cluster) -> None:
    created = _create_pod(cluster, _bare_pod("management-pod"))
    assert not created["spec"].get("nodeSelector")
    _no_resource_group_mutation(created["spec"])


@pytest.mark.admission
@pytest.mark.parametrize("group", [
    pytest.param(group, id=group, marks=pytest.mark.upstream(
        SUITE, f"Should add nodeSelector for pods with {group} resource-group annotation"))
    for group in ("cpu", "gpu")
])
def test_resource_group_annotation_without_config(cluster: Cluster, group: str) -> None:
    """With no resource group configured, the annotation is kept and no nodeSelector is added."""
    created = _create_pod(cluster, _bare_pod(f"{group}-pod", annotations={RESOURCE_GROUP: group}))
    assert not created["spec"].get("nodeSelector")
    assert created["metadata"]["annotations"][RESOURCE_GROUP] == group


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should add affinity for management namespace pods")
def test_no_affinity_without_resource_groups(cluster: Cluster) -> None:
    created = _create_pod(cluster, _bare_pod("affinity-pod"))
    # Upstream: "if an affinity is present, it has a node affinity" (vacuous with no config).
    assert not created["spec"].get("affinity")


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should not override existing affinity")
def test_existing_affinity_kept(cluster: Cluster) -> None:
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "custom-key", "operator": "In", "values": ["custom-value"]}]}]}}}
    created = _create_pod(cluster, _bare_pod("existing-affinity-pod", affinity=affinity))
    assert created["spec"]["affinity"] == affinity


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should add tolerations for management namespace pods")
def test_no_management_tolerations_without_resource_groups(cluster: Cluster) -> None:
    created = _create_pod(cluster, _bare_pod("tolerations-pod"))
    tolerations = created["spec"].get("tolerations") or []
    # Upstream's check passes whatever happens; what it meant: no management toleration added.
    assert not [t for t in tolerations if t.get("key") == "mng-taint-1" or t.get("effect") == "NoSchedule"]


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should append tolerations to existing ones")
def test_existing_tolerations_kept(cluster: Cluster) -> None:
    existing = {"key": "existing-taint", "operator": "Equal", "value": "existing-value", "effect": "NoSchedule"}
    created = _create_pod(cluster, _bare_pod("existing-tolerations-pod", tolerations=[existing]))
    tolerations = created["spec"]["tolerations"]
    assert tolerations[0] == existing
    assert [t for t in tolerations if t.get("effect") == "NoSchedule"] == [existing]


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should set scheduler name based on resource group")
def test_scheduler_name_without_resource_groups(cluster: Cluster) -> None:
    created = _create_pod(cluster, _bare_pod("scheduler-pod", annotations={RESOURCE_GROUP: "cpu"}))
    assert created["spec"]["schedulerName"] == "default-scheduler"


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should merge nodeSelector with existing ones")
def test_existing_node_selector_kept(cluster: Cluster) -> None:
    created = _create_pod(cluster, _bare_pod("merge-nodeselector-pod", annotations={RESOURCE_GROUP: "cpu"},
                                             nodeSelector={"existing-label": "existing-value"}))
    # With no resource group configured nothing is merged in: the selector is exactly the pod's own.
    assert created["spec"]["nodeSelector"] == {"existing-label": "existing-value"}


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should not mutate pods that don't match any resource group")
def test_unmatched_pod_not_mutated(cluster: Cluster) -> None:
    created = _create_pod(cluster, _bare_pod("normal-pod"))
    _no_resource_group_mutation(created["spec"])
    assert created["spec"]["schedulerName"] == "default-scheduler"


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should handle pods with custom annotation-based resource group matching")
def test_custom_resource_group_annotation_without_config(cluster: Cluster) -> None:
    created = _create_pod(cluster, _bare_pod("custom-annotation-pod", annotations={RESOURCE_GROUP: "custom-group"}))
    assert created["metadata"]["name"] == "custom-annotation-pod"
    assert created["metadata"]["annotations"][RESOURCE_GROUP] == "custom-group"
    _no_resource_group_mutation(created["spec"])
    assert created["spec"]["schedulerName"] == "default-scheduler"


@pytest.mark.admission
@pytest.mark.upstream(SUITE, "Should preserve existing scheduler name when already specified")
def test_existing_scheduler_name_kept(cluster: Cluster) -> None:
    created = _create_pod(cluster, _bare_pod("existing-scheduler-pod", schedulerName="custom-scheduler"))
    assert created["spec"]["schedulerName"] == "custom-scheduler"


# ------------------------------------------------------------------------------------ validating


def _volcano_pod(name: str, annotations: dict[str, str] | None, scheduler: str = "volcano") -> Obj:
    """Upstream's validating-test pod: nginx, 1 CPU request = limit, the given scheduler."""
    return pod(name, req={"cpu": "1"}, scheduler=scheduler, annotations=annotations)


def _admitted_and_runs(cluster: Cluster, name: str, annotations: dict[str, str] | None,
                       scheduler: str = "volcano") -> None:
    """The pod is admitted with its annotations intact, and then runs (upstream waits for Pending
    or Running, which holds the moment a pod exists; a valid pod on free nodes gets to Running)."""
    created = plain(cluster.apply(_volcano_pod(name, annotations, scheduler))[0])
    for key, value in (annotations or {}).items():
        assert created["metadata"]["annotations"][key] == value
    assert (created.get("status") or {}).get("phase", "Pending") in ("Pending", "Running")

    def running() -> bool:
        p = cluster.try_get("Pod", name)
        return p is not None and (p.get("status") or {}).get("phase") == "Running"

    cluster.wait_until(running, 300, f"pod {name} Running")


def _pod_denied(cluster: Cluster, name: str, annotations: dict[str, str]) -> str:
    d = denial(lambda: cluster.apply(_volcano_pod(name, annotations)))
    assert cluster.try_get("Pod", name) is None, f"denied pod {name} was stored"
    return webhook_message(d, POD_WEBHOOK)


def _case(upstream: str, case_id: str, *values: Any) -> Any:
    return pytest.param(*values, marks=pytest.mark.upstream(SUITE, upstream), id=case_id)


_PERCENT_RANGE = "it must be a valid percentage which between 1% ~ 99%"


@pytest.mark.admission
@pytest.mark.parametrize(("name", "annotations", "scheduler"), [
    _case("Should allow pod creation with valid annotations", "valid-min-available",
          "valid-pod", {MIN_AVAILABLE: "2"}, "volcano"),
    _case("Should allow pod creation with valid percentage annotation", "valid-percentage",
          "valid-percentage-pod", {MAX_UNAVAILABLE: "50%"}, "volcano"),
    _case("Should allow pod creation without annotations when using volcano scheduler", "no-annotations",
          "no-annotations-pod", None, "volcano"),
    _case("Should allow pod creation with non-volcano scheduler (bypass validation)", "non-volcano-scheduler",
          "non-volcano-scheduler-pod", {MIN_AVAILABLE: "-1"}, "default-scheduler"),
])
def test_allow_pod(cluster: Cluster, name: str, annotations: dict[str, str] | None, scheduler: str) -> None:
    _admitted_and_runs(cluster, name, annotations, scheduler=scheduler)


@pytest.mark.admission
@pytest.mark.parametrize(("name", "annotations", "expected"), [
    _case("Should reject pod creation with invalid negative annotation value", "negative",
          "invalid-negative-pod", {MIN_AVAILABLE: "-1"},
          'invalid value <"-1"> for volcano.sh/jdb-min-available, it must be a positive integer'),
    _case("Should reject pod creation with invalid zero annotation value", "zero",
          "invalid-zero-pod", {MIN_AVAILABLE: "0"},
          'invalid value <"0"> for volcano.sh/jdb-min-available, it must be a positive integer'),
    _case("Should reject pod creation with invalid percentage annotation (0%)", "zero-percent",
          "invalid-zero-percent-pod", {MAX_UNAVAILABLE: "0%"},
          f'invalid value <"0%"> for volcano.sh/jdb-max-unavailable, {_PERCENT_RANGE}'),
    _case("Should reject pod creation with invalid percentage annotation (100%)", "hundred-percent",
          "invalid-hundred-percent-pod", {MAX_UNAVAILABLE: "100%"},
          f'invalid value <"100%"> for volcano.sh/jdb-max-unavailable, {_PERCENT_RANGE}'),
    _case("Should reject pod creation with invalid string annotation", "string",
          "invalid-string-pod", {MIN_AVAILABLE: "invalid"},
          'invalid value strconv.Atoi: parsing "invalid": invalid syntax for volcano.sh/jdb-min-available'),
    _case("Should reject pod creation with multiple conflicting annotations", "both",
          "conflicting-annotations-pod", {MIN_AVAILABLE: "2", MAX_UNAVAILABLE: "50%"},
          "not allow configure multiple annotations <[volcano.sh/jdb-min-available volcano.sh/jdb-max-unavailable]> "
          "at same time"),
])
def test_reject_bad_disruption_annotations(cluster: Cluster, name: str, annotations: dict[str, str],
                                           expected: str) -> None:
    assert _pod_denied(cluster, name, annotations) == expected
