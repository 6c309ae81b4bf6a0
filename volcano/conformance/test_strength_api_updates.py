"""API conformance: what an update or a re-applied manifest may change, and what it leaves alone.

* A PriorityClass's ``description`` and labels change freely; ``value`` and ``preemptionPolicy``
  never (both refused in one answer, ``value`` first).
* Re-applying a manifest whose atomic list of objects (a template's ``tolerations``) gains a field
  in an item, and whose ``metadata.finalizers`` (a merged list of strings) drops one entry and adds
  another: the stored object is the manifest.
* Volcano's Job webhooks: a task with ``hostNetwork`` and its own ``dnsPolicy`` keeps it; a policy
  naming an event the CRD schema allows but the webhook does not (``PodRunning``) is refused by
  ``validatejob`` with its message and the lists of valid events and actions.

Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import JOB_WEBHOOK, denial, plain, pod_template, webhook_message

__all__: list[str] = []

Obj = dict[str, Any]


@pytest.mark.admission
def test_priority_class_metadata_may_change(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """An update that keeps ``value`` and ``preemptionPolicy`` is stored; one changing both is 422
    naming both, ``value`` first."""
    name = "strength-updates-pc"
    request.addfinalizer(lambda: cluster.delete("PriorityClass", name)
                         if cluster.try_get("PriorityClass", name) else None)
    cluster.create({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                    "value": 10, "preemptionPolicy": "Never"})
    changed = plain(cluster.patch("PriorityClass", name, {"description": "batch work", "value": 10,
                                                          "metadata": {"labels": {"tier": "batch"}}}))
    assert (changed["description"], changed["value"], changed["metadata"]["labels"]) == (
        "batch work", 10, {"tier": "batch"})
    d = denial(lambda: cluster.patch("PriorityClass", name, {"value": 9, "preemptionPolicy": "PreemptLowerPriority"}))
    assert (d.code, d.reason, d.message) == (
        422, "Invalid", f'PriorityClass.scheduling.k8s.io "{name}" is invalid: [value: Forbidden: may not be changed '
        'in an update., preemptionPolicy: Invalid value: "PreemptLowerPriority": field is immutable]'), d
    assert cluster.get("PriorityClass", name)["value"] == 10


def _deployment(tolerations: list[Obj], finalizers: list[str]) -> Obj:
    labels = {"app": "reapplied"}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "reapplied", "finalizers": finalizers},
            "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"schedulerName": "strength-absent-scheduler", "tolerations": tolerations,
                                           "containers": [{"name": "c", "image": "busybox:1.36"}]}}}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_reapplied_atomic_list_and_finalizers(cluster: Cluster) -> None:
    """The second manifest adds ``effect`` to the toleration and swaps finalizer ``a.example/one``
    for ``c.example/three``: the stored Deployment has exactly the manifest's lists."""
    first = _deployment([{"key": "k", "operator": "Exists"}], ["a.example/one", "b.example/two"])
    cluster.apply(first)
    second = _deployment([{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
                         ["b.example/two", "c.example/three"])
    cluster.apply(second)
    stored = plain(cluster.get("Deployment", "reapplied"))
    assert stored["spec"]["template"]["spec"]["tolerations"] == [{"key": "k", "operator": "Exists",
                                                                   "effect": "NoSchedule"}]
    assert stored["metadata"]["finalizers"] == ["b.example/two", "c.example/three"]
    cluster.patch("Deployment", "reapplied", {"metadata": {"finalizers": None}})


def _job(name: str, template: Obj, **spec: Any) -> Obj:
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": name},
            "spec": {"minAvailable": 1, "schedulerName": "volcano", "queue": "default",
                     "tasks": [{"name": "t", "replicas": 1, "template": template}], **spec}}


@pytest.mark.admission
def test_host_network_task_keeps_its_dns_policy(cluster: Cluster) -> None:
    """``mutatejob`` sets ``ClusterFirstWithHostNet`` only where the template names no dnsPolicy."""
    template = pod_template()
    template["spec"].update(hostNetwork=True, dnsPolicy="Default")
    made = plain(cluster.create(_job("host-network-dns", template)))
    assert made["spec"]["tasks"][0]["template"]["spec"]["dnsPolicy"] == "Default"


@pytest.mark.admission
def test_policy_event_the_webhook_refuses(cluster: Cluster) -> None:
    """``PodRunning`` passes the CRD schema's enumeration but not ``validatejob``: 403 with the
    webhook's multierror text, the bad event named, and the valid events and actions listed."""
    job = _job("policy-pod-running", pod_template(), policies=[{"event": "PodRunning", "action": "AbortJob"}])
    d = denial(lambda: cluster.create(job))
    assert (d.code, d.reason) == (403, "Forbidden"), d
    assert webhook_message(d, JOB_WEBHOOK) == (
        '1 error occurred:\n\t* spec.policies: Invalid value: "PodRunning": invalid policy event\n\n valid events '
        "are [* PodFailed PodEvicted PodPending Unknown TaskCompleted TaskFailed JobUpdated], valid actions are "
        "[AbortJob RestartJob RestartTask RestartPod RestartPartition TerminateJob CompleteJob ResumeJob];"), d
    assert cluster.try_get("Job", "policy-pod-running") is None
