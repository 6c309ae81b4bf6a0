"""Namespace lifecycle: Active with the kubernetes finalizer, Terminating on delete, contents deleted,
then the namespace itself; no new content in a terminating namespace."""

from __future__ import annotations

import pytest

from volcano.apiserver import ApiError
from volcano.testbed import FakeCluster

NS = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}


def _pod(name: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "team"},
            "spec": {"containers": [{"name": "c", "image": "x"}]}}


def _exists(c: FakeCluster, kind: str, name: str, ns: str = "team") -> bool:
    try:
        c.get(kind, name, ns)
    except ApiError as err:
        assert err.code == 404
        return False
    return True


def test_a_new_namespace_is_active_with_the_kubernetes_finalizer(fake_cluster: FakeCluster) -> None:
    fake_cluster.apply(NS)
    ns = fake_cluster.get("Namespace", "team")
    assert ns["status"] == {"phase": "Active"} and ns["spec"]["finalizers"] == ["kubernetes"]


def test_deleting_a_namespace_deletes_its_contents_then_itself(fake_cluster: FakeCluster) -> None:
    c = fake_cluster
    c.add_nodes(1)
    c.apply([NS, _pod("running"), {"apiVersion": "v1", "kind": "ConfigMap",
                                   "metadata": {"name": "cm", "namespace": "team"}}])
    c.run_until(lambda c: c.get("Pod", "running", "team")["status"]["phase"] == "Running", timeout=30)
    c.delete("Namespace", "team")
    assert c.get("Namespace", "team")["status"]["phase"] == "Terminating"
    c.run(1)
    assert not _exists(c, "ConfigMap", "cm")
    assert c.get("Pod", "running", "team")["metadata"].get("deletionTimestamp")  # graceful, 30 s
    took = c.run_until(lambda c: not _exists(c, "Namespace", "team", ""), timeout=120)
    assert 30 <= took <= 40 and not _exists(c, "Pod", "running")


def test_no_new_content_and_no_second_delete_while_terminating(fake_cluster: FakeCluster) -> None:
    c = fake_cluster
    c.add_nodes(1)
    c.apply([NS, _pod("p")])
    c.run(2)
    c.delete("Namespace", "team")
    with pytest.raises(ApiError) as err:
        c.apply(_pod("q"))
    assert err.value.code == 403 and "because it is being terminated" in err.value.message
    with pytest.raises(ApiError) as again:
        c.delete("Namespace", "team")
    assert again.value.code == 409


def test_a_namespace_without_finalizers_goes_at_once(fake_cluster: FakeCluster) -> None:
    server = fake_cluster.server
    server.create(NS)
    ns = dict(server.get("Namespace", "team"))
    server.update({**ns, "spec": {}})  # a plain update may clear spec.finalizers here (see docs)
    fake_cluster.delete("Namespace", "team")
    assert not _exists(fake_cluster, "Namespace", "team", "")
