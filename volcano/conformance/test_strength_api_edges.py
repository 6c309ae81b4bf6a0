"""API conformance: edges of decoding, validation and patching a client meets one at a time.

* Decoding as Go does: a null quantity is the zero quantity (stored ``"0"``); a number where a
  list item (an ``EnvVar``) or a map (``ResourceList``) is expected is 400 naming the Go type.
* A custom resource's ``int32`` field one past its range is 422 from the CRD schema.
* A pod's ``schedulerName`` must be a DNS subdomain; host port 1 is the lowest valid port.
* A patch may not change ``metadata.uid`` (422, immutable).
* A strategic merge patch of ``finalizers`` (a merged list of strings) drops duplicates.

Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial, plain

__all__: list[str] = []

Obj = dict[str, Any]
SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
             "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")


def _pod(name: str, container: Obj | None = None, **spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"schedulerName": "strength-absent-scheduler",
                     "containers": [{"name": "c", "image": "busybox:1.36", **(container or {})}], **spec}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_null_quantity_is_zero(cluster: Cluster) -> None:
    """``requests: {cpu: null}`` decodes to the zero quantity and is stored as ``"0"``."""
    made = plain(cluster.create(_pod("null-cpu", {"resources": {"requests": {"cpu": None}}})))
    assert made["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "0"}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("container", "detail"), [
    pytest.param({"env": [{"name": "A", "value": "x"}, 5]},
                 "json: cannot unmarshal number into Go struct field Container.spec.containers.env of type v1.EnvVar",
                 id="env-item"),
    pytest.param({"resources": {"requests": "1"}},
                 "json: cannot unmarshal string into Go struct field ResourceRequirements.spec.containers.resources"
                 ".requests of type v1.ResourceList", id="resource-list"),
    pytest.param({"args": ["a", 1]},
                 "json: cannot unmarshal number into Go struct field Container.spec.containers.args of type string",
                 id="args-item"),
])
def test_undecodable_container_fields(cluster: Cluster, container: Obj, detail: str) -> None:
    """A field of the wrong JSON type inside a list or map: 400 naming the Go type, nothing stored."""
    d = denial(lambda: cluster.create(_pod("undecodable", container)))
    assert (d.code, d.reason, d.message) == (
        400, "BadRequest", f'Pod in version "v1" cannot be handled as a Pod: {detail}'), d
    assert cluster.try_get("Pod", "undecodable") is None


@pytest.mark.admission
def test_int32_field_beyond_its_range(cluster: Cluster) -> None:
    """An update of a PodGroup's ``minMember`` (format int32) to 2^31: 422 from the CRD schema (the
    Volcano webhook that decodes a PodGroup into its Go type runs on create only); 2^31 - 1 is
    within the range."""
    cluster.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                    "metadata": {"name": "int32-range"}, "spec": {"minMember": 1, "queue": "default"}})
    d = denial(lambda: cluster.patch("PodGroup", "int32-range", {"spec": {"minMember": 2**31}}))
    assert (d.code, d.reason) == (422, "Invalid"), d
    assert d.message == ('PodGroup.scheduling.volcano.sh "int32-range" is invalid: spec.minMember: Invalid value: '
                         '2147483648: spec.minMember in body must be of type int32: "2147483648"'), d.message
    assert cluster.get("PodGroup", "int32-range")["spec"]["minMember"] == 1


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_pod_scheduler_name_and_lowest_host_port(cluster: Cluster) -> None:
    """A schedulerName that is not a DNS subdomain is 422; host port 1 is stored."""
    d = denial(lambda: cluster.create(_pod("bad-scheduler", schedulerName="Bad_Name")))
    assert (d.code, d.reason) == (422, "Invalid"), d
    assert d.message == f'Pod "bad-scheduler" is invalid: spec.schedulerName: Invalid value: "Bad_Name": {SUBDOMAIN}'
    made = plain(cluster.create(_pod("host-port-1", {"ports": [{"containerPort": 80, "hostPort": 1}]})))
    assert made["spec"]["containers"][0]["ports"][0]["hostPort"] == 1


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_patch_may_not_change_uid(cluster: Cluster) -> None:
    """A merge patch of ``metadata.uid`` to another value: 422, the uid is immutable."""
    made = plain(cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "uid-cm"},
                                 "data": {"k": "v"}}))
    d = denial(lambda: cluster.patch("ConfigMap", "uid-cm", {"metadata": {"uid": "another-uid"}}))
    assert (d.code, d.reason, d.message) == (
        422, "Invalid", 'ConfigMap "uid-cm" is invalid: metadata.uid: Invalid value: "another-uid": field is immutable')
    assert cluster.get("ConfigMap", "uid-cm")["metadata"]["uid"] == made["metadata"]["uid"]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_strategic_patch_of_finalizers_drops_duplicates(cluster: Cluster) -> None:
    """A strategic merge patch listing finalizers twice: each value once, in the patch's order."""
    cluster.create({"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "dup-fin", "finalizers": ["example.com/a"]}, "data": {"k": "v"}})
    patch = {"metadata": {"finalizers": ["example.com/b", "example.com/b", "example.com/a", "example.com/c",
                                        "example.com/b"]}}
    merged = plain(cluster.patch("ConfigMap", "dup-fin", patch, patch_type="strategic"))
    assert merged["metadata"]["finalizers"] == ["example.com/b", "example.com/a", "example.com/c"]
    cluster.patch("ConfigMap", "dup-fin", {"metadata": {"finalizers": None}})
