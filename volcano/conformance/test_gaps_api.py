"""API conformance: request outcomes a client reads that no other case pinned down.

* A PersistentVolumeClaim's ``storageClassName``, when not empty, must be a DNS subdomain
  (``ValidatePersistentVolumeClaimSpec`` applies ``ValidateClassName``): 422 ``spec.storageClassName:
  Invalid value`` with the subdomain message.
* A claim giving both ``dataSource`` and a ``dataSourceRef`` that names a namespace is 422 Invalid on the
  ``spec`` path (the two may not be combined, or, with cross-namespace sources switched off, they do not
  match), never a server error.
* ``controller.kubernetes.io/pod-deletion-cost`` is parsed as a base-10 int32 whose first character is a
  ``-`` or a digit (``GetDeletionCostFromPodAnnotations``): ``-5`` is accepted, ``+5`` is not.
* A JSON merge patch that is not an object replaces the whole document; decoding that into the object
  fails, which the patch handler reports as ``"" is invalid: patch: Invalid value: "<patched document>":
  <decode error>`` (422).
* A strategic merge patch of a Deployment's pod template merges a container's ``env`` by ``name``
  (``patchMergeKey: name``, ``patchStrategy: merge``): the variables it does not name stay.
* A pod template's ``priorityClassName`` must be a DNS subdomain (``ValidatePodSpec``): a Deployment naming
  ``Bad_Class`` is 422 on ``spec.template.spec.priorityClassName`` (no Priority admission runs for it).
* A malformed label selector on a list is 400 BadRequest whose message names what the parser found.
* A server-side apply to the ``status`` subresource records the applier's ``managedFields`` entry with
  ``subresource: status``.

Objects are claims, pods of a scheduler nobody runs, ConfigMaps and a Deployment of no replicas; every
case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import plain
from volcano.conformance.test_admission import denial
from volcano.conformance.test_cov_api_claims import GOOD, SUBDOMAIN

__all__: list[str] = []

Obj = dict[str, Any]
COST = "controller.kubernetes.io/pod-deletion-cost"


def _claim(name: str, spec: Obj) -> Obj:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": spec}


def _pod(name: str, annotations: dict[str, str]) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "annotations": annotations},
            "spec": {"schedulerName": "gaps-absent-scheduler",
                     "containers": [{"name": "c", "image": "busybox:1.36"}]}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_claims_storage_class_must_be_a_subdomain(cluster: Cluster) -> None:
    """``storageClassName: Fast_SSD`` is 422 naming the field, the value and the subdomain rule; nothing
    is stored; a valid class name is accepted."""
    d = denial(lambda: cluster.create(_claim("gaps-class", {**GOOD, "storageClassName": "Fast_SSD"})))
    assert (d.code, d.reason) == (422, "Invalid"), d
    assert d.message == (f'PersistentVolumeClaim "gaps-class" is invalid: spec.storageClassName: Invalid value: '
                         f'"Fast_SSD": {SUBDOMAIN}'), d.message
    assert cluster.try_get("PersistentVolumeClaim", "gaps-class") is None
    made = plain(cluster.create(_claim("gaps-class", {**GOOD, "storageClassName": "fast-ssd"})))
    assert made["spec"]["storageClassName"] == "fast-ssd"


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_data_source_with_a_cross_namespace_reference_is_invalid(cluster: Cluster) -> None:
    """``dataSource`` with a ``dataSourceRef`` in another namespace (naming another claim) is 422 Invalid on
    the ``spec`` path; nothing is stored."""
    spec = {**GOOD, "dataSource": {"kind": "PersistentVolumeClaim", "name": "gaps-a"},
            "dataSourceRef": {"kind": "PersistentVolumeClaim", "name": "gaps-b", "namespace": "gaps-elsewhere"}}
    d = denial(lambda: cluster.create(_claim("gaps-src", spec)))
    assert (d.code, d.reason) == (422, "Invalid"), d
    assert d.message.startswith('PersistentVolumeClaim "gaps-src" is invalid: spec: Invalid value: '), d.message
    assert cluster.try_get("PersistentVolumeClaim", "gaps-src") is None


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_negative_pod_deletion_cost_is_an_int32(cluster: Cluster) -> None:
    """A deletion cost of ``-5`` is a valid int32 and stored as given; ``+5`` is refused (422)."""
    made = plain(cluster.create(_pod("gaps-cost", {COST: "-5"})))
    assert made["metadata"]["annotations"][COST] == "-5"
    d = denial(lambda: cluster.create(_pod("gaps-cost-plus", {COST: "+5"})))
    assert (d.code, d.reason, d.message) == (
        422, "Invalid",
        f'Pod "gaps-cost-plus" is invalid: metadata.annotations[{COST}]: Invalid value: "+5": '
        "must be a 32bit integer"), d


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_merge_patch_that_is_not_an_object_names_the_patched_document(cluster: Cluster) -> None:
    """The merge patch ``[1]`` makes the document ``[1]``, which does not decode into an object: 422
    ``"" is invalid: patch: Invalid value: "[1]": json: cannot unmarshal array ...``; nothing changes."""
    cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "gaps-mp"}, "data": {"k": "v"}})
    d = denial(lambda: cluster.patch("ConfigMap", "gaps-mp", [1]))  # type: ignore[list-item]
    assert (d.code, d.reason, d.message) == (
        422, "Invalid", '"" is invalid: patch: Invalid value: "[1]": json: cannot unmarshal array into Go value '
                        "of type map[string]interface {}"), d
    assert cluster.get("ConfigMap", "gaps-mp")["data"] == {"k": "v"}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_strategic_merge_patch_merges_a_containers_env_by_name(cluster: Cluster) -> None:
    """Patching one variable of a Deployment's container keeps the container's other variables, in
    their order, and its other fields."""
    labels = {"app": "gaps-env"}
    cluster.create({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "gaps-env"},
        "spec": {"replicas": 0, "selector": {"matchLabels": labels}, "template": {
            "metadata": {"labels": labels},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36",
                                     "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}]}}}})
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "c", "env": [{"name": "B", "value": "3"}]}]}}}}
    patched = plain(cluster.patch("Deployment", "gaps-env", patch, patch_type="strategic"))
    container = patched["spec"]["template"]["spec"]["containers"][0]
    assert container["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "3"}], container
    assert container["image"] == "busybox:1.36"


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_an_apply_of_status_records_its_manager_for_the_subresource(cluster: Cluster) -> None:
    """A server-side apply of a claim's ``status`` by ``gaps-status`` leaves an ``Apply`` entry of that
    manager with ``subresource: status`` owning the applied field."""
    cluster.create(_claim("gaps-status", dict(GOOD)))
    body = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "gaps-status"},
            "status": {"phase": "Pending"}}
    applied = plain(cluster.patch("PersistentVolumeClaim", "gaps-status", body, subresource="status",
                                  patch_type="apply", field_manager="gaps-status"))
    entries = [e for e in applied["metadata"].get("managedFields") or [] if e["manager"] == "gaps-status"]
    assert len(entries) == 1, applied["metadata"].get("managedFields")
    entry = entries[0]
    assert (entry["operation"], entry.get("subresource"), entry["fieldsV1"]) == (
        "Apply", "status", {"f:status": {"f:phase": {}}}), entry
    stored = plain(cluster.get("PersistentVolumeClaim", "gaps-status"))
    assert [e for e in stored["metadata"]["managedFields"] if e["manager"] == "gaps-status"] == [entry], stored


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("containers", "problem"), [
    pytest.param([{"name": "c", "image": "busybox:1.36"}, {"image": "busybox:1.36"}],
                 'element 1: associative list with keys has an element that omits key field "name" '
                 "(and doesn't have default value)", id="no-name"),
    pytest.param([{"name": "c", "image": "busybox:1.36"}, "c"],
                 "element 1: associative list with keys may not have non-map elements", id="not-a-map"),
])
def test_an_applied_list_item_without_its_key_names_the_item(cluster: Cluster, containers: list[Any],
                                                             problem: str) -> None:
    """Server-side apply of a Deployment whose second container has no name (or is not a map) fails
    while the field manager types the applied configuration: 500 ``failed to create typed patch object
    (<namespace>/<name>; apps/v1, Kind=Deployment): <path>: element 1: ...``; nothing is stored."""
    labels = {"app": "gaps-key"}
    body = {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "gaps-key", "namespace": cluster.namespace},
            "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": {"containers": containers}}}}
    d = denial(lambda: cluster.patch("Deployment", "gaps-key", body, patch_type="apply", field_manager="gaps"))
    assert (d.code, d.message) == (
        500, f"failed to create typed patch object ({cluster.namespace}/gaps-key; apps/v1, Kind=Deployment): "
             f".spec.template.spec.containers: {problem}"), d
    assert cluster.try_get("Deployment", "gaps-key") is None


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_pod_templates_priority_class_name_must_be_a_subdomain(cluster: Cluster) -> None:
    """A Deployment whose template names priority class ``Bad_Class`` is 422 naming the template's field
    with the subdomain rule; nothing is stored."""
    labels = {"app": "gaps-prio"}
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "gaps-prio"},
            "spec": {"replicas": 0, "selector": {"matchLabels": labels}, "template": {
                "metadata": {"labels": labels},
                "spec": {"priorityClassName": "Bad_Class",
                         "containers": [{"name": "c", "image": "busybox:1.36"}]}}}}
    d = denial(lambda: cluster.create(body))
    assert (d.code, d.reason, d.message) == (
        422, "Invalid", f'Deployment.apps "gaps-prio" is invalid: spec.template.spec.priorityClassName: Invalid '
                        f'value: "Bad_Class": {SUBDOMAIN}'), d
    assert cluster.try_get("Deployment", "gaps-prio") is None


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_malformed_label_selector_names_what_the_parser_found(cluster: Cluster) -> None:
    """Listing with ``labelSelector=a b`` (a key, then another word where an operator belongs) is 400
    BadRequest; the parser's message names the stray ``b``."""
    d = denial(lambda: cluster.list_page("ConfigMap", label_selector="a b"))
    assert (d.code, d.reason) == (400, "BadRequest"), d
    assert "'b'" in (d.message or ""), d
