"""API conformance: what a pod update may not do, as ``ValidatePodUpdate`` refuses it.

* ``ValidatePodSpecificAnnotations``/``ValidatePodSpecificAnnotationUpdates``: the mirror-pod annotation
  (``kubernetes.io/config.mirror``) needs ``spec.nodeName`` and may not be added to a pod that lacks it;
  ``controller.kubernetes.io/pod-deletion-cost`` must be a canonical 32-bit integer (no ``+``).
* ``activeDeadlineSeconds`` may not go from a value back to none (the bad value shown as ``"null"``).
* ``ValidateContainerUpdates``: containers may not be added or removed (and validation stops there).
* A mirror pod that names its node is created without a service account (the ServiceAccount admission
  plugin leaves mirror pods alone).
* ``ValidatePodTemplateSpec``: a template's labels and annotations (pod-specific ones included) are
  named straight under the template, in a Deployment and in a Volcano Job's task (``validatejob``).
* The Priority admission plugin: a pod may not give a ``preemptionPolicy`` other than the computed one.

Each refusal is 422 Invalid with exactly these causes, and the pod is unchanged. Pods use a scheduler
that does not exist, so nothing else writes them. Every case uses only the backend-neutral ``cluster``
fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import JOB_WEBHOOK, base_job, denial, outcome

__all__: list[str] = []

Obj = dict[str, Any]
MIRROR = "kubernetes.io/config.mirror"
COST = "controller.kubernetes.io/pod-deletion-cost"


def _pod(name: str, **spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"schedulerName": "cov-absent-scheduler", "containers": [{"name": "c", "image": "busybox:1.36"}],
                     **spec}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("spec", "patch", "patch_type", "cause"), [
    pytest.param({}, {"metadata": {"annotations": {MIRROR: "x"}}}, "merge",
                 f'[metadata.annotations[{MIRROR}]: Invalid value: "x": must set spec.nodeName if mirror pod '
                 f"annotation is set, metadata.annotations[{MIRROR}]: Forbidden: may not add mirror pod annotation]",
                 id="mirror"),
    pytest.param({}, {"metadata": {"annotations": {COST: "+10"}}}, "merge",
                 f'metadata.annotations[{COST}]: Invalid value: "+10": must be a 32bit integer', id="deletion-cost"),
    pytest.param({"activeDeadlineSeconds": 600}, {"spec": {"activeDeadlineSeconds": None}}, "merge",
                 'spec.activeDeadlineSeconds: Invalid value: "null": must not update from a positive integer to '
                 "nil value", id="deadline-to-nil"),
    pytest.param({}, {"spec": {"containers": [{"name": "d", "image": "busybox:1.36"}]}}, "strategic",
                 "spec.containers: Forbidden: pod updates may not add or remove containers", id="add-container"),
])
def test_pod_update_refusals(cluster: Cluster, spec: Obj, patch: Obj, patch_type: str, cause: str) -> None:
    """One refused change each: 422 naming the pod and its causes; the stored pod is unchanged."""
    made = cluster.create(_pod("upd", **spec))
    d = denial(lambda: cluster.patch("Pod", "upd", patch, patch_type=patch_type))
    assert (d.code, d.reason, d.message) == (422, "Invalid", f'Pod "upd" is invalid: {cause}'), d
    stored = cluster.get("Pod", "upd")
    assert stored["metadata"]["resourceVersion"] == made["metadata"]["resourceVersion"]
    assert [c["name"] for c in stored["spec"]["containers"]] == ["c"]
    assert stored["spec"].get("activeDeadlineSeconds") == spec.get("activeDeadlineSeconds")


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_mirror_pod_with_a_node_is_left_alone(cluster: Cluster) -> None:
    """A mirror pod naming its node is created, and the ServiceAccount admission plugin does not give it
    a service account (it leaves mirror pods' specs alone); a plain pod gets ``default``."""
    mirror = _pod("mirror", nodeName="cov-absent-node")
    mirror["metadata"]["annotations"] = {MIRROR: "x"}
    made = cluster.create(mirror)
    assert made["spec"]["nodeName"] == "cov-absent-node"
    assert not made["spec"].get("serviceAccountName") and not made["spec"].get("serviceAccount"), made["spec"]
    plain_pod = cluster.create(_pod("not-mirror"))
    assert plain_pod["spec"]["serviceAccountName"] == "default"


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_template_labels_and_annotations_are_validated(cluster: Cluster) -> None:
    """``ValidatePodTemplateSpec`` names a template's labels and annotations straight under the template
    (``spec.template.labels``, ``spec.template.annotations[...]``); Volcano's Job webhook runs the same
    validation on a task's template (``spec.task[0].template...``, each error followed by ``. ``)."""
    labels = {"app": "cov-tmpl"}
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "cov-tmpl"},
              "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                       "template": {"metadata": {"labels": {**labels, "-bad": "x"}, "annotations": {COST: "+1"}},
                                    "spec": {"schedulerName": "cov-absent-scheduler",
                                             "containers": [{"name": "c", "image": "busybox:1.36"}]}}}}
    d = denial(lambda: cluster.create(deploy))
    assert (d.code, d.reason) == (422, "Invalid"), d
    assert d.message == (
        'Deployment.apps "cov-tmpl" is invalid: [spec.template.labels: Invalid value: "-bad": name part must '
        "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), "
        f'spec.template.annotations[{COST}]: Invalid value: "+1": must be a 32bit integer]'), d.message
    assert cluster.try_get("Deployment", "cov-tmpl") is None
    job = base_job("cov-tmpl-job")
    job["spec"]["tasks"][0]["template"]["metadata"]["annotations"] = {COST: "007"}
    assert outcome(cluster, job, JOB_WEBHOOK) == (
        f'spec.task[0].template.annotations[{COST}]: Invalid value: "007": must be a 32bit integer.')


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_pod_may_not_choose_its_preemption_policy(cluster: Cluster) -> None:
    """The Priority admission plugin computes ``preemptionPolicy`` (``PreemptLowerPriority`` when no class
    and no default class exist): a pod giving another one is 403 Forbidden; the computed one is accepted."""
    d = denial(lambda: cluster.create(_pod("prio-never", preemptionPolicy="Never")))
    assert (d.code, d.reason, d.message) == (
        403, "Forbidden", 'pods "prio-never" is forbidden: the string value of PreemptionPolicy (Never) must not be '
        "provided in pod spec; priority admission controller computed PreemptLowerPriority from the given "
        "PriorityClass name"), d
    assert cluster.try_get("Pod", "prio-never") is None
    made = cluster.create(_pod("prio-lower", preemptionPolicy="PreemptLowerPriority"))
    assert (made["spec"]["preemptionPolicy"], made["spec"]["priority"]) == ("PreemptLowerPriority", 0)
