"""API conformance: what the server's JSON decoding refuses before any validation runs, and how.

A typed object is decoded into its Go struct first; a value of the wrong JSON type is a 400 BadRequest
``<Kind> in version "v1" cannot be handled as a <Kind>: json: cannot unmarshal <json type> into Go struct
field <Struct>.<path> of type <Go type>`` and nothing is stored:

* ``ObjectMeta`` maps and lists: a label value that is a number or a bool (``of type string``), labels
  that are a string and annotations that are a list (``of type map[string]string``), ownerReferences that
  are an object (``of type []v1.OwnerReference``), an owner reference's ``apiVersion`` that is a number
  (``OwnerReference.metadata.ownerReferences.apiVersion``). A null label value decodes as ``""``.
* typed fields below ``metadata``: the innermost Go struct names the error, the path runs from the
  object's root through list fields without indices (a Deployment's pod template adds
  ``spec.template``), the type is the Go one (``int32``, ``int64`` for a pointer, ``bool``, ``string`` for a
  string map's value or a list's item, ``[]v1.ContainerPort``, ``v1.ResourceList``); a number out of
  the ``int32`` range or with a fraction is quoted as sent (``number 80.5``).
* ``resource.Quantity`` strings: ``ParseQuantity``'s two errors, the format one (the scanner meets a
  character no part of a quantity may hold: ``5Gx``, ``1.5.5``, ``abc``) quoting the quantity regular
  expression, and the suffix one (the text scans but names no suffix: ``5KM``, ``5e+``, ``5i``).
* A decoded quantity is written back in canonical form (``0.1`` CPU as ``100m``, ``1024Ki`` as ``1Mi``):
  a strict expected failure, the server stores the text as sent.

Pods name a scheduler nobody runs, so nothing else writes them.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import plain
from volcano.conformance.test_admission import denial

__all__: list[str] = []

Obj = dict[str, Any]
FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
SUFFIX = "unable to parse quantity's suffix"


def _cm(name: str, **meta: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **meta}, "data": {"k": "v"}}


def _pod(name: str, requests: list[dict[str, str]]) -> Obj:
    containers = [{"name": f"c{i}", "image": "busybox:1.36", "resources": {"requests": r}}
                  for i, r in enumerate(requests)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"schedulerName": "kinds-absent-scheduler", "containers": containers}}


def _bad_request(cluster: Cluster, obj: Obj) -> str:
    kind, name = obj["kind"], obj["metadata"]["name"]
    d = denial(lambda: cluster.create(obj))
    assert (d.code, d.reason) == (400, "BadRequest"), d
    prefix = f'{kind} in version "v1" cannot be handled as a {kind}: '
    assert d.message.startswith(prefix), d.message
    assert cluster.try_get(kind, name) is None
    return d.message[len(prefix):]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_metadata_of_the_wrong_json_type_is_bad_request(cluster: Cluster) -> None:
    """Each ObjectMeta field of the wrong JSON type names that type, the Go field path and the Go type;
    a null label value is stored as the empty string."""
    meta = "json: cannot unmarshal {} into Go struct field ObjectMeta.metadata.{} of type {}"
    assert _bad_request(cluster, _cm("kinds-l-num", labels={"a": 1})) == meta.format("number", "labels", "string")
    assert _bad_request(cluster, _cm("kinds-l-bool", labels={"a": True})) == meta.format("bool", "labels", "string")
    assert _bad_request(cluster, _cm("kinds-l-text", labels="a=b")) == (
        meta.format("string", "labels", "map[string]string"))
    assert _bad_request(cluster, _cm("kinds-a-list", annotations=["a"])) == (
        meta.format("array", "annotations", "map[string]string"))
    assert _bad_request(cluster, _cm("kinds-o-map", ownerReferences={"a": "b"})) == (
        meta.format("object", "ownerReferences", "[]v1.OwnerReference"))
    assert _bad_request(cluster, _cm("kinds-o-num", ownerReferences=[{"apiVersion": 1}])) == (
        "json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.apiVersion "
        "of type string")
    made = plain(cluster.create(_cm("kinds-l-null", labels={"a": None, "b": "x"})))
    assert made["metadata"]["labels"] == {"a": "", "b": "x"}
    assert cluster.get("ConfigMap", "kinds-l-null")["metadata"]["labels"] == {"a": "", "b": "x"}


def _typed_pod(container: Obj | None = None, **spec: Any) -> Obj:
    pod = _pod("kinds-typed", [{"cpu": "1"}])
    pod["spec"]["containers"][0].update(container or {})
    pod["spec"].update(spec)
    return pod


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_typed_fields_of_the_wrong_json_type_are_bad_request(cluster: Cluster) -> None:
    """Each field of the wrong JSON type: the Go struct, the path without indices, the Go type."""
    field = "json: cannot unmarshal {} into Go struct field {} of type {}"
    cases: list[tuple[Obj, str]] = [
        (_typed_pod({"ports": [{"containerPort": "80"}]}),
         field.format("string", "ContainerPort.spec.containers.ports.containerPort", "int32")),
        (_typed_pod({"ports": [{"containerPort": 80.5}]}),
         field.format("number 80.5", "ContainerPort.spec.containers.ports.containerPort", "int32")),
        (_typed_pod({"ports": [{"containerPort": 2147483648}]}),
         field.format("number 2147483648", "ContainerPort.spec.containers.ports.containerPort", "int32")),
        (_typed_pod({"args": ["a", 1]}), field.format("number", "Container.spec.containers.args", "string")),
        (_typed_pod(terminationGracePeriodSeconds="30"),
         field.format("string", "PodSpec.spec.terminationGracePeriodSeconds", "int64")),
        (_typed_pod(hostNetwork="true"), field.format("string", "PodSpec.spec.hostNetwork", "bool")),
        (_typed_pod(nodeSelector={"a": 1}), field.format("number", "PodSpec.spec.nodeSelector", "string")),
        (_typed_pod({"ports": "80"}), field.format("string", "Container.spec.containers.ports", "[]v1.ContainerPort")),
        (_typed_pod({"env": {"a": "b"}}), field.format("object", "Container.spec.containers.env", "[]v1.EnvVar")),
        (_typed_pod(tolerations=[{"key": "k", "tolerationSeconds": "5"}]),
         field.format("string", "Toleration.spec.tolerations.tolerationSeconds", "int64")),
        (_typed_pod({"resources": {"requests": ["cpu"]}}),
         field.format("array", "ResourceRequirements.spec.containers.resources.requests", "v1.ResourceList")),
        (_typed_pod(containers="c"), field.format("string", "PodSpec.spec.containers", "[]v1.Container")),
    ]
    for pod, message in cases:
        assert _bad_request(cluster, pod) == message, pod
    labels = {"app": "kinds-typed"}
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "kinds-typed"},
                  "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                           "template": {"metadata": {"labels": labels},
                                        "spec": {"containers": [{"name": "c", "image": "busybox:1.36",
                                                                 "ports": [{"containerPort": "80"}]}]}}}}
    assert _bad_request(cluster, deployment) == field.format(
        "string", "ContainerPort.spec.template.spec.containers.ports.containerPort", "int32")
    made = plain(cluster.create(_typed_pod({"resources": {"requests": {"cpu": 1.5}}}), dry_run=True))
    assert made["spec"]["containers"][0]["resources"]["requests"]["cpu"] in (1.5, "1.5", "1500m")


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("text", "message"), [
    ("5Gx", FORMAT), ("1.5.5", FORMAT), ("abc", FORMAT), ("5KM", SUFFIX), ("5e+", SUFFIX), ("5i", SUFFIX)])
def test_unparsable_quantities_are_bad_request(cluster: Cluster, text: str, message: str) -> None:
    """A container request the quantity parser refuses: 400 with the parser's own error, nothing stored."""
    assert _bad_request(cluster, _pod("kinds-qty", [{"cpu": "1"}, {"memory": text}])) == message


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.xfail(strict=True, reason="quantities are stored as sent, not re-encoded in canonical form as "
                                       "Kubernetes' decode and encode of resource.Quantity does")
def test_quantities_are_stored_in_canonical_form(cluster: Cluster) -> None:
    """``0.1`` CPU reads back as ``100m``, ``+5`` as ``5``, ``1.0`` as ``1``, memory ``1024Ki`` as ``1Mi``
    and ``2000m`` as ``2``."""
    made = plain(cluster.create(_pod("kinds-canon", [{"cpu": "0.1", "memory": "1024Ki"}, {"cpu": "+5"},
                                                     {"cpu": "1.0", "memory": "2000m"}])))
    got = [c["resources"]["requests"] for c in made["spec"]["containers"]]
    assert got == [{"cpu": "100m", "memory": "1Mi"}, {"cpu": "5"}, {"cpu": "1", "memory": "2"}]
