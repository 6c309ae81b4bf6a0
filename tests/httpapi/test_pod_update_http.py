"""Pod update rules over HTTP with the official ``kubernetes`` client: what kube-apiserver refuses comes
back as a 422 Status naming the field; images, tolerations and metadata still change."""

from __future__ import annotations

import json

import pytest

from volcano.serve import ServedCluster

kubernetes = pytest.importorskip("kubernetes", reason="the official client tests need the 'kubernetes' package")
from kubernetes import client, config  # noqa: E402
from kubernetes.client.exceptions import ApiException  # noqa: E402

pytestmark = pytest.mark.kube_api(speed=0, nodes=1)


def test_pod_spec_is_immutable_but_for_images_and_tolerations(kube_api: ServedCluster) -> None:
    v1 = client.CoreV1Api(config.new_client_from_config(config_file=str(kube_api.kubeconfig)))
    v1.create_namespaced_pod("default", client.V1Pod(
        metadata=client.V1ObjectMeta(name="p"),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox:1")])))
    pod = v1.read_namespaced_pod("p", "default")
    pod.spec.containers[0].image = "busybox:2"
    pod.spec.tolerations = [*(pod.spec.tolerations or []),
                            client.V1Toleration(key="k", operator="Exists", effect="NoSchedule")]
    pod.metadata.labels = {"tier": "back"}
    replaced = v1.replace_namespaced_pod("p", "default", pod)
    assert replaced.spec.containers[0].image == "busybox:2" and replaced.metadata.labels == {"tier": "back"}

    replaced.spec.restart_policy = "Never"
    with pytest.raises(ApiException) as err:
        v1.replace_namespaced_pod("p", "default", replaced)
    status = json.loads(err.value.body)
    assert (err.value.status, status["reason"]) == (422, "Invalid")
    assert status["message"].startswith('Pod "p" is invalid: spec: Forbidden: pod updates may not change fields '
                                        "other than `spec.containers[*].image`")
    assert [c["field"] for c in status["details"]["causes"]] == ["spec"]

    with pytest.raises(ApiException) as err:
        v1.patch_namespaced_pod("p", "default", {"spec": {"containers": [{"name": "c", "image": "busybox:3"},
                                                                         {"name": "d", "image": "x"}]}})
    assert err.value.status == 422
    assert json.loads(err.value.body)["message"] == ('Pod "p" is invalid: spec.containers: Forbidden: pod updates '
                                                     "may not add or remove containers")
    assert v1.read_namespaced_pod("p", "default").metadata.resource_version == replaced.metadata.resource_version
