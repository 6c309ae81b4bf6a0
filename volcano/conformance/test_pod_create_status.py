"""Pod create conformance: the status the API server's pod strategy writes, and scheduling gates.

* Every new Pod's ``status.qosClass`` is its QoS class (``GetPodQOS``): no cpu or memory request
  or limit is ``BestEffort``; cpu and memory limits in every container, with requests equal to them
  (defaulting copies a missing request from its limit), ``Guaranteed``; anything else ``Burstable``.
* A Pod created with ``spec.schedulingGates`` carries the condition ``PodScheduled=False``, reason
  ``SchedulingGated``, message ``Scheduling is blocked due to non-empty scheduling gates``, and no
  scheduler places it (kube-scheduler's SchedulingGates PreEnqueue plugin) until every gate is
  removed; then it is bound.

Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import NGINX, plain, pod
from volcano.conformance.lib.waits import bound

__all__: list[str] = []

Obj = dict[str, Any]


def _bare(name: str, resources: Obj, *, init: Obj | None = None) -> Obj:
    spec: Obj = {"containers": [{"name": "main", "image": NGINX, "resources": resources}],
                 "restartPolicy": "Never", "schedulerName": "default-scheduler"}
    if init is not None:
        spec["initContainers"] = [{"name": "init", "image": NGINX, "resources": init}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


@pytest.mark.scheduling_base
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("name", "resources", "init", "expected"), [
    ("qos-none", {}, None, "BestEffort"),
    ("qos-zero", {"requests": {"cpu": "0"}, "limits": {"memory": "0"}}, None, "BestEffort"),
    ("qos-gpu-only", {"limits": {"nvidia.com/gpu": "1"}}, None, "BestEffort"),
    ("qos-limits", {"limits": {"cpu": "1", "memory": "1Gi"}}, None, "Guaranteed"),
    ("qos-equal", {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "0.5", "memory": "1Gi"}},
     None, "Guaranteed"),
    ("qos-cpu-limit", {"limits": {"cpu": "1"}}, None, "Burstable"),
    ("qos-below", {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}},
     None, "Burstable"),
    ("qos-init-none", {"limits": {"cpu": "1", "memory": "1Gi"}}, {}, "Burstable"),
    ("qos-init-request", {}, {"requests": {"memory": "64Mi"}}, "Burstable"),
])
def test_a_new_pod_has_its_qos_class(cluster: Cluster, name: str, resources: Obj, init: Obj | None,
                                     expected: str) -> None:
    """``status.qosClass`` as returned by the create and as stored."""
    created = plain(cluster.create(_bare(name, resources, init=init)))
    assert (created.get("status") or {}).get("qosClass") == expected, created.get("status")
    stored = plain(cluster.get("Pod", name))
    assert stored["status"]["qosClass"] == expected
    cluster.delete("Pod", name)


def _scheduled(obj: Obj) -> list[Obj]:
    return [c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == "PodScheduled"]


@pytest.mark.scheduling_base
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize("scheduler", ["default-scheduler", "volcano"])
def test_a_gated_pod_waits_for_its_gates_to_be_removed(cluster: Cluster, scheduler: str) -> None:
    """The gated pod is created with the ``SchedulingGated`` condition; a pod created after it is
    bound while it stays unbound; once a JSON patch empties its gates it is bound too."""
    gated = pod("gated-first", req={"cpu": "100m"}, scheduler=scheduler)
    gated["spec"]["schedulingGates"] = [{"name": "example.com/one"}, {"name": "example.com/two"}]
    created = plain(cluster.create(gated))
    conditions = _scheduled(created)
    assert len(conditions) == 1, created.get("status")
    condition = conditions[0]
    assert (condition["status"], condition.get("reason"), condition.get("message")) == \
        ("False", "SchedulingGated", "Scheduling is blocked due to non-empty scheduling gates")
    assert condition.get("lastTransitionTime"), condition
    cluster.create(pod("gated-later", req={"cpu": "100m"}, scheduler=scheduler))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "gated-later")), 120, "the later, ungated pod is bound")
    assert not bound(cluster.get("Pod", "gated-first"))
    cluster.patch("Pod", "gated-first", [{"op": "replace", "path": "/spec/schedulingGates", "value": []}],
                  patch_type="json")
    cluster.wait_until(lambda: bound(cluster.get("Pod", "gated-first")), 120, "the pod is bound once ungated")
    for name in ("gated-first", "gated-later"):
        cluster.delete("Pod", name)
