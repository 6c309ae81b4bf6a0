"""What the ``svc`` Job plugin makes (controllers reference §4.2), field by field:

* a headless Service ``<job>`` (clusterIP ``None``) selecting the job's pods by the
  ``volcano.sh/job-name`` and ``volcano.sh/job-namespace`` labels, ``publishNotReadyAddresses`` as
  ``--publish-not-ready-addresses`` says;
* a NetworkPolicy ``<job>`` admitting ingress from the job's own pods only, unless
  ``--disable-network-policy``;
* in every pod: hostname = the pod's name and subdomain = the job's, the ``VC_<TASK>_HOSTS`` and
  ``VC_<TASK>_NUM`` variables of every task read from the ConfigMap ``<job>-svc``, and that ConfigMap
  mounted at ``/etc/volcano``;
* the ConfigMap follows a change of a task's replicas.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job

pytestmark = pytest.mark.job_plugins
Obj = dict[str, Any]
NO_REQUESTS: dict[str, str] = {}


def _made(cluster: Cluster, name: str) -> None:
    cluster.wait_until(lambda: cluster.try_get("ConfigMap", f"{name}-svc") is not None
                       and cluster.try_get("Service", name) is not None, 60, f"svc objects of {name}")


@pytest.mark.parametrize(("args", "publish", "policy"), [
    ([], False, True), (["--publish-not-ready-addresses=true"], True, True),
    (["--disable-network-policy=true"], False, False),
    # Go's flag package reads a boolean as strconv.ParseBool does: 1, t, T, TRUE, true, True and
    # their false counterparts; a bare flag is true
    (["--publish-not-ready-addresses=T", "--disable-network-policy=f"], True, True),
    (["--publish-not-ready-addresses=1", "--disable-network-policy=FALSE"], True, True),
    (["--publish-not-ready-addresses=0", "--disable-network-policy=t"], False, False),
    (["--publish-not-ready-addresses=F", "--disable-network-policy"], False, False),
    (["-publish-not-ready-addresses", "-disable-network-policy=0"], True, True),
])
def test_svc_makes_a_headless_service_and_a_policy_for_the_jobs_pods(cluster: Cluster, args: list[str],
                                                                     publish: bool, policy: bool) -> None:
    """The Service selects the job's pods, headless, publishing not-ready addresses only when asked;
    the NetworkPolicy (unless disabled) lets in only the job's own pods."""
    name = "svcspec"
    cluster.apply(job(name, [Task(name="t", rep=1, req=NO_REQUESTS)], plugins={"svc": args}))
    _made(cluster, name)
    ns = cluster.get("Job", name)["metadata"]["namespace"]
    labels = {"volcano.sh/job-name": name, "volcano.sh/job-namespace": ns}
    svc = cluster.get("Service", name)["spec"]
    assert svc.get("clusterIP") == "None"
    assert svc.get("selector") == labels
    assert bool(svc.get("publishNotReadyAddresses")) is publish
    if not policy:
        cluster.hold(lambda: cluster.try_get("NetworkPolicy", name) is None, 10, "no NetworkPolicy")
        return
    cluster.wait_until(lambda: cluster.try_get("NetworkPolicy", name) is not None, 30, "the NetworkPolicy")
    np_spec = cluster.get("NetworkPolicy", name)["spec"]
    assert np_spec["podSelector"] == {"matchLabels": labels}
    assert np_spec["ingress"] == [{"from": [{"podSelector": {"matchLabels": labels}}]}]
    assert np_spec["policyTypes"] == ["Ingress"]


def test_svc_gives_every_pod_its_name_the_hosts_and_the_mounted_config_map(cluster: Cluster) -> None:
    """Tasks ``ps`` (1) and ``work-er`` (2): each pod's hostname is its name and its subdomain the job's;
    each container reads VC_PS_HOSTS, VC_PS_NUM, VC_WORK_ER_HOSTS and VC_WORK_ER_NUM from the ConfigMap
    ``<job>-svc`` (the key of the same name) and mounts that ConfigMap at /etc/volcano."""
    name = "svcpod"
    cluster.apply(job(name, [Task(name="ps", rep=1, req=NO_REQUESTS), Task(name="work-er", rep=2, req=NO_REQUESTS)],
                      plugins={"svc": []}))
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 3, 60, f"pods of {name}")
    cm = f"{name}-svc"
    keys = ["VC_PS_HOSTS", "VC_PS_NUM", "VC_WORK_ER_HOSTS", "VC_WORK_ER_NUM"]
    for pod_name in (f"{name}-ps-0", f"{name}-work-er-0", f"{name}-work-er-1"):
        spec = cluster.get("Pod", pod_name)["spec"]
        assert (spec.get("hostname"), spec.get("subdomain")) == (pod_name, name)
        [c] = spec["containers"]
        env = {e["name"]: e for e in c.get("env") or []}
        for key in keys:
            assert env[key]["valueFrom"]["configMapKeyRef"]["name"] == cm, env[key]
            assert env[key]["valueFrom"]["configMapKeyRef"]["key"] == key, env[key]
        volumes = {v["name"]: v for v in spec.get("volumes") or []}
        assert volumes[cm]["configMap"]["name"] == cm
        assert {"name": cm, "mountPath": "/etc/volcano"} in [
            {k: m.get(k) for k in ("name", "mountPath")} for m in c.get("volumeMounts") or []]
    data = cluster.get("ConfigMap", cm)["data"]
    assert data["VC_WORK_ER_NUM"] == "2"
    assert data["VC_WORK_ER_HOSTS"] == f"{name}-work-er-0.{name},{name}-work-er-1.{name}"


def test_svc_rewrites_the_hosts_when_a_task_scales(cluster: Cluster) -> None:
    """Scaling task ``w`` from 2 to 3 replicas rewrites the ConfigMap: 3 hosts, VC_W_NUM 3."""
    name = "svcscale"
    cluster.apply(job(name, [Task(name="w", rep=2, req=NO_REQUESTS)], min=1, plugins={"svc": []}))
    _made(cluster, name)
    cluster.patch("Job", name, [{"op": "replace", "path": "/spec/tasks/0/replicas", "value": 3}], patch_type="json")
    hosts = ",".join(f"{name}-w-{i}.{name}" for i in range(3))

    def data() -> Obj:
        return dict((cluster.try_get("ConfigMap", f"{name}-svc") or {}).get("data") or {})

    cluster.wait_until(lambda: data().get("VC_W_NUM") == "3", 60, "VC_W_NUM 3")
    assert data()["VC_W_HOSTS"] == hosts
    assert data()["w.host"] == hosts.replace(",", "\n")
