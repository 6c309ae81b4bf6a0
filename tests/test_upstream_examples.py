"""Volcano's own example manifests: admitted unchanged (or denied, for the invalid ones), and the
pods of every admitted workload scheduled and Running on a cluster large enough for them."""

from __future__ import annotations

from pathlib import Path

import pytest

from volcano.api.manifest import load_manifests
from volcano.apiserver import ApiError
from volcano.testbed import FakeCluster

EXAMPLES = Path(__file__).resolve().parent.parent / "fixtures" / "upstream-examples"
INVALID = sorted(EXAMPLES.glob("invalid_jobs_*.yaml"))
# Files that must be applied first (their queues), as the examples' README says.
PREREQUISITES = {"hierarchical-jobs_jobs.yaml": "hierarchical-jobs_queues.yaml",
                 "deployment_deployment.yaml": "deployment_queue.yaml"}
VALID = [p for p in sorted(EXAMPLES.glob("*.yaml")) if p not in INVALID and p.name not in PREREQUISITES.values()]


# Node labels an example selects on (a real cluster that runs it has such a node).
NODE_LABELS = {"kubecon-2019-china_node-selector_nginx.yaml": {"kubernetes.io/hostname": "192.168.23.24"}}


def big_cluster(extra_labels: dict[str, str] | None = None) -> FakeCluster:
    c = FakeCluster(seed=0)
    c.add_nodes(8, cpu="32", memory="128Gi", gpu=4)
    if extra_labels:
        c.add_node("labelled", cpu="32", memory="128Gi", labels=extra_labels)
    return c


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_example_is_admitted_and_its_pods_run(path: Path) -> None:
    c = big_cluster(NODE_LABELS.get(path.name))
    if path.name in PREREQUISITES:
        c.apply(EXAMPLES / PREREQUISITES[path.name])
        c.run(2)  # the queue controller opens the queues
    docs = load_manifests(path)
    c.apply(path)
    workloads = {(d["kind"], d["metadata"]["name"]) for d in docs if d["kind"] in ("Job", "Deployment", "ReplicaSet")}
    assert workloads, f"{path.name} holds no workload"

    def all_running(cl: FakeCluster) -> bool:
        pods = cl.list("Pod")
        return bool(pods) and all(p["status"].get("phase") in ("Running", "Succeeded") for p in pods)

    c.run_until(all_running, timeout=120)
    for kind, name in sorted(workloads):
        if kind == "Job":
            assert c.get("Job", name)["status"]["state"]["phase"] in ("Running", "Completed"), name


@pytest.mark.parametrize("path", INVALID, ids=[p.name for p in INVALID])
def test_invalid_example_is_denied_and_nothing_is_stored(path: Path) -> None:
    c = big_cluster()
    before = c.server.snapshot()
    with pytest.raises(ApiError) as err:
        c.apply(path)
    assert err.value.code == 403 and "validatejob.volcano.sh" in err.value.message
    assert c.server.snapshot() == before
