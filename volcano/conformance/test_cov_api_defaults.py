"""API conformance: the defaults kube-apiserver writes into a Pod, a workload's pod template and a Secret.

``SetDefaults_PodSpec``/``SetDefaults_Container`` (``pkg/apis/core/v1/defaults.go``): ``restartPolicy``
``Always``, ``dnsPolicy`` ``ClusterFirst``, ``terminationGracePeriodSeconds`` 30,
``enableServiceLinks`` true, a container port's ``protocol`` ``TCP``, and a container's requests
copied from its limits for each resource it limits without requesting (a request given is kept).
A Deployment's pod template is defaulted the same way. A Secret's ``type`` defaults to ``Opaque`` and
its ``stringData`` is merged into ``data`` (base64), a ``stringData`` key winning, and not stored.

Every case uses only the backend-neutral ``cluster`` fixture; pods use a scheduler that does not exist.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import plain

__all__: list[str] = []

Obj = dict[str, Any]


def _container() -> Obj:
    return {"name": "c", "image": "busybox:1.36",
            "ports": [{"containerPort": 80}, {"containerPort": 53, "protocol": "UDP"}],
            "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}}}


def _check_spec(spec: Obj) -> None:
    assert (spec["restartPolicy"], spec["dnsPolicy"], spec["terminationGracePeriodSeconds"],
            spec["enableServiceLinks"]) == ("Always", "ClusterFirst", 30, True), spec
    container = spec["containers"][0]
    assert [(p["containerPort"], p["protocol"]) for p in container["ports"]] == [(80, "TCP"), (53, "UDP")]
    assert container["resources"] == {"limits": {"cpu": "1", "memory": "1Gi"},
                                      "requests": {"cpu": "500m", "memory": "1Gi"}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_pod_and_template_defaults(cluster: Cluster) -> None:
    """The same defaults for a Pod and for a Deployment's pod template; given values are kept."""
    pod = plain(cluster.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "defaulted"},
                                "spec": {"schedulerName": "cov-absent-scheduler", "containers": [_container()]}}))
    _check_spec(pod["spec"])
    labels = {"app": "cov-defaults"}
    deploy = plain(cluster.create({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "cov-defaults"},
        "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                 "template": {"metadata": {"labels": labels},
                              "spec": {"schedulerName": "cov-absent-scheduler", "containers": [_container()]}}}}))
    _check_spec(deploy["spec"]["template"]["spec"])
    kept = plain(cluster.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "kept"},
                                 "spec": {"schedulerName": "cov-absent-scheduler", "restartPolicy": "Never",
                                          "dnsPolicy": "Default", "terminationGracePeriodSeconds": 0,
                                          "enableServiceLinks": False,
                                          "containers": [{"name": "c", "image": "busybox:1.36"}]}}))
    assert (kept["spec"]["restartPolicy"], kept["spec"]["dnsPolicy"], kept["spec"]["terminationGracePeriodSeconds"],
            kept["spec"]["enableServiceLinks"]) == ("Never", "Default", 0, False)


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_secret_defaults_and_string_data(cluster: Cluster) -> None:
    """``type`` Opaque; ``stringData`` merged into ``data`` as base64 (winning over the same key) and
    not stored."""
    made = plain(cluster.create({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "cov-secret"},
                                 "data": {"a": "YWFh", "b": "YmJi"}, "stringData": {"b": "new", "c": ""}}))
    assert made["type"] == "Opaque"
    assert made["data"] == {"a": "YWFh", "b": "bmV3", "c": ""}
    assert "stringData" not in made
    assert "stringData" not in cluster.get("Secret", "cov-secret")
