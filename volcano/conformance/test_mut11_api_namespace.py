"""API conformance: a namespace held in ``Terminating`` by an object's finalizer.

Deleting a namespace deletes its content; an object held by its own finalizer stays (marked for
deletion), and so does the namespace, in phase ``Terminating``, with its deletion timestamp. Until it
goes, every create in it is 403 Forbidden naming the object's resource and name
(``configmaps "late" is forbidden: unable to create new content in namespace <ns> because it is
being terminated``), and a second delete of the namespace is 409 Conflict. Removing the finalizer
lets the namespace go. Uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial, plain

__all__: list[str] = []

Obj = dict[str, Any]
HOLD = "example.com/mut11-hold"


def _cm(name: str, namespace: str, **meta: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace, **meta},
            "data": {"k": "v"}}


def _release(cluster: Cluster, name: str, namespace: str) -> None:
    if cluster.try_get("ConfigMap", name, namespace) is not None:
        cluster.patch("ConfigMap", name, {"metadata": {"finalizers": None}}, namespace)


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_held_namespace_refuses_new_content(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """The namespace stays Terminating while a finalizer holds its ConfigMap; creates in it are 403 by
    name, whatever the kind; once the finalizer is removed the namespace and the ConfigMap go."""
    ns = f"{cluster.namespace}-held"[:63]
    request.addfinalizer(lambda: _release(cluster, "holder", ns))
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    cluster.create(_cm("holder", ns, finalizers=[HOLD]))
    cluster.delete("Namespace", ns)

    def holder_marked() -> bool:
        obj = cluster.try_get("ConfigMap", "holder", ns)
        return obj is not None and bool(obj["metadata"].get("deletionTimestamp"))

    cluster.wait_until(holder_marked, 120, "the namespace's content is deleted")
    marked = plain(cluster.get("Namespace", ns))
    assert marked["metadata"]["deletionTimestamp"] and marked["status"]["phase"] == "Terminating", marked
    late = denial(lambda: cluster.create(_cm("late", ns)))
    assert (late.code, late.reason, late.message) == (
        403, "Forbidden", f'configmaps "late" is forbidden: unable to create new content in namespace {ns} '
        "because it is being terminated"), late
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "late-secret", "namespace": ns}}
    late = denial(lambda: cluster.create(secret))
    assert (late.code, late.message) == (
        403, f'secrets "late-secret" is forbidden: unable to create new content in namespace {ns} '
        "because it is being terminated"), late
    again = denial(lambda: cluster.delete("Namespace", ns))
    assert (again.code, again.reason) == (409, "Conflict"), again
    _release(cluster, "holder", ns)
    cluster.wait_until(lambda: cluster.try_get("Namespace", ns) is None, 120, "the namespace is purged")
    assert cluster.try_get("ConfigMap", "holder", ns) is None
