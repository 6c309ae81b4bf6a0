"""A simulated Spark driver process, as ``spark-submit --deploy-mode cluster`` runs it.

The driver pod is created by the user; once it has run for ``startup_s`` the
driver creates its executor pods through the API (as Spark's Kubernetes
backend does), waits for them to finish, then exits 0. The executors are
created in the driver's PodGroup when the driver has one (Spark's
VolcanoFeatureStep), with the driver's scheduler. The driver's process ending
is delivered through ``SimKubelet.finish_containers``.
"""

from __future__ import annotations

from typing import Any

from volcano.api.frozen import thaw
from volcano.api.well_known import GROUP_NAME, SIM_DURATION
from volcano.apiserver import ApiError
from volcano.demo.history import GANG_LABEL as NEEDS_LABEL
from volcano.sim import Priority
from volcano.testbed import FakeCluster

__all__ = ["ROLE_LABEL", "SparkDrivers"]

ROLE_LABEL = "demo.volcano.sh/role"


class SparkDrivers:
    """Plays the driver process of every pod labelled ``demo.volcano.sh/role: driver``."""

    def __init__(self, cluster: FakeCluster, *, executors: int = 2, startup_s: float = 60.0,
                 executor_duration: str = "10s") -> None:
        self.cluster = cluster
        self.executors = executors
        self.startup_ms = int(startup_s * 1000)
        self.executor_duration = executor_duration
        self._started: set[str] = set()
        self._waiting: dict[str, list[str]] = {}
        cluster.informers.informer("Pod").add_handler(self._on_pod)  # relists after a failed watch

    def _on_pod(self, etype: str, pod: Any, old: Any) -> None:
        if etype == "DELETED":
            return
        meta = pod["metadata"]
        labels = meta.get("labels") or {}
        phase = (pod.get("status") or {}).get("phase")
        if labels.get(ROLE_LABEL) == "driver" and phase == "Running" and meta["name"] not in self._started:
            self._started.add(meta["name"])
            self.cluster.clock.call_later(self.startup_ms, self._create_executors, thaw(pod),
                                          priority=Priority.USER)
        elif labels.get(ROLE_LABEL) == "executor" and phase == "Succeeded":
            self._check_done(labels["demo.volcano.sh/driver"], meta["namespace"])

    def _create_executors(self, driver: dict[str, Any]) -> None:
        meta, spec = driver["metadata"], driver["spec"]
        names = [f"{meta['name']}-exec-{i + 1}" for i in range(self.executors)]
        self._waiting[meta["name"]] = names
        annotations = {SIM_DURATION: self.executor_duration}
        if GROUP_NAME in (meta.get("annotations") or {}):
            annotations[GROUP_NAME] = meta["annotations"][GROUP_NAME]
        for name in names:
            self._create({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": meta["namespace"], "annotations": annotations,
                             "labels": {**meta.get("labels", {}), ROLE_LABEL: "executor",
                                        NEEDS_LABEL: str(self.executors + 1),
                                        "demo.volcano.sh/driver": meta["name"]},
                             "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": meta["name"],
                                                  "uid": meta["uid"], "controller": True}]},
                "spec": {"schedulerName": spec.get("schedulerName", "default-scheduler"), "restartPolicy": "Never",
                         "containers": [{"name": "executor", "image": "apache/spark:3.5.1",
                                         "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]},
            })

    def _create(self, pod: dict[str, Any]) -> None:
        try:
            self.cluster.client.create(pod)
        except ApiError as err:
            if err.code != 409:  # created already (a retried request whose first answer was lost)
                raise

    def _check_done(self, driver: str, namespace: str) -> None:
        names = self._waiting.get(driver)
        if not names:
            return
        phases = []
        for name in names:
            try:
                phases.append(self.cluster.get("Pod", name, namespace).get("status", {}).get("phase"))
            except ApiError:
                phases.append(None)  # a vanished executor is not done
        if all(p == "Succeeded" for p in phases):
            del self._waiting[driver]
            self.cluster.kubelet.finish_containers(namespace, driver, exit_code=0)
