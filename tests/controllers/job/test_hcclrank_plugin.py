"""The ``hcclrank`` job plugin (reference §4.7): ``hccl/rankIndex`` on master and worker pods."""

from __future__ import annotations

from typing import Any

import pytest

from tests.controllers.job.conftest import Cluster, job, task
from volcano.apiserver import ApiServer
from volcano.controllers.job.plugins import PLUGINS, HcclRankPlugin, PluginContext, PluginError
from volcano.controllers.job.pods import build_pod
from volcano.sim import RandomStreams, SimClock


def _ctx() -> PluginContext:
    streams = RandomStreams(1)
    return PluginContext(ApiServer(SimClock(), streams), streams)


def _job() -> dict[str, Any]:
    def t(name: str, replicas: int) -> dict[str, Any]:
        return {"name": name, "replicas": replicas,
                "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}
    return {"metadata": {"name": "h", "namespace": "ns", "uid": "U"},
            "spec": {"queue": "default", "tasks": [t("chief", 2), t("w", 3), t("other", 1)]}, "status": {}}


def _rank(plugin: HcclRankPlugin, job: dict[str, Any], task_index: int, i: int) -> str | None:
    pod = build_pod(job, job["spec"]["tasks"][task_index], i)
    plugin.on_pod_create(pod, job)
    return pod["metadata"]["annotations"].get("hccl/rankIndex")


def test_registered_without_a_controlled_resource() -> None:
    assert PLUGINS["hcclrank"] is HcclRankPlugin
    job = _job()
    HcclRankPlugin([], _ctx()).on_job_add(job)
    assert not job["status"].get("controlledResources")


def test_master_rank_is_its_index_and_worker_rank_follows_the_masters() -> None:
    job = _job()
    plugin = HcclRankPlugin(["--master=chief", "--worker=w"], _ctx())
    assert [_rank(plugin, job, 0, i) for i in range(2)] == ["0", "1"]
    assert [_rank(plugin, job, 1, i) for i in range(3)] == ["2", "3", "4"]
    assert _rank(plugin, job, 2, 0) is None


def test_existing_annotation_and_rank_env_win() -> None:
    job = _job()
    plugin = HcclRankPlugin(["--master=chief", "--worker=w"], _ctx())
    pod = build_pod(job, job["spec"]["tasks"][1], 0)
    pod["spec"]["containers"][0]["env"] = [{"name": "RANK", "value": "7"}]
    plugin.on_pod_create(pod, job)
    assert pod["metadata"]["annotations"]["hccl/rankIndex"] == "7"
    pod["metadata"]["annotations"]["hccl/rankIndex"] = "9"
    plugin.on_pod_create(pod, job)
    assert pod["metadata"]["annotations"]["hccl/rankIndex"] == "9"


def test_missing_task_index_label_is_an_error() -> None:
    job = _job()
    pod = build_pod(job, job["spec"]["tasks"][0], 0)
    del pod["metadata"]["labels"]["volcano.sh/task-index"]
    with pytest.raises(PluginError, match="task-index"):
        HcclRankPlugin(["--master=chief"], _ctx()).on_pod_create(pod, job)


def test_job_with_hcclrank_gets_annotated_pods(cluster: Cluster) -> None:
    cluster.submit(job("hj", [task("master", 1), task("worker", 2)], plugins={"hcclrank": []}))
    cluster.set_pg_phase("hj", "Inqueue")
    ranks = {n: p["metadata"]["annotations"]["hccl/rankIndex"] for n, p in cluster.pods("hj").items()}
    assert ranks == {"hj-master-0": "0", "hj-worker-0": "1", "hj-worker-1": "2"}
