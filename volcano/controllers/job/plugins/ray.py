"""The ``ray`` job plugin: a Ray cluster from a head task and a worker task.

Flags (Go ``flag`` style): ``--head`` (task, ``head``), ``--headContainer``
(``head``), ``--worker`` (task, ``worker``), ``--workerContainer`` (``worker``),
``--port`` (GCS, 6379), ``--dashboardPort`` (8265), ``--clientPort`` (10001).

* ``on_pod_create``: a Job without the head task is an error ("job <job>
  doesn't have head task <head>"; the sync fails and is retried). In head-task
  pods the container named ``headContainer`` gets the ports ``gcs``,
  ``dashboard`` and ``client-server`` (each unless a port with that number is
  already declared) and the command ``sh -c "ray start --head --block
  --dashboard-host=0.0.0.0 --port=<port> --dashboard-port=<dashboardPort>
  --ray-client-server-port=<clientPort>"``; in worker-task pods the container
  named ``workerContainer`` gets ``sh -c "ray start --block
  --address=<head host>:<port>"``, the head host being the head task's first
  pod (template hostname, else ``<job>-<head>-0``) in its subdomain (template
  subdomain, else ``<job>``).
* ``on_job_add``: the Service ``<job>-head-svc`` (owned by the Job) selecting
  the head task's pods (``volcano.sh/job-name``, ``volcano.sh/job-namespace``,
  ``volcano.sh/task-spec``) with TCP ports ``gcs``, ``dashboard`` and
  ``client-server`` targeting the container ports of those names; records
  ``plugin-ray``.
* ``on_job_delete``: deletes that Service (NotFound is fine), drops the key.

Volcano's job webhook adds ``svc`` to a Job using ``ray``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from volcano.api.accessors import appendable
from volcano.api.well_known import JOB_NAME, TASK_SPEC
from volcano.controllers.job.constants import LABEL_JOB_NAMESPACE
from volcano.controllers.job.plugins.base import JobPlugin, PluginContext, PluginError, parse_flags
from volcano.controllers.job.plugins.owned import create_if_absent, owned_meta

__all__ = ["CLIENT_SERVER_PORT_NAME", "DASHBOARD_PORT_NAME", "GCS_PORT_NAME", "RayPlugin"]

GCS_PORT_NAME = "gcs"
"""Name of the Global Control Store port."""
DASHBOARD_PORT_NAME = "dashboard"
"""Name of the Ray dashboard port."""
CLIENT_SERVER_PORT_NAME = "client-server"
"""Name of the Ray client server port."""


class RayPlugin(JobPlugin):
    """See the module docstring."""

    name = "ray"

    def __init__(self, args: Sequence[str], ctx: PluginContext) -> None:
        super().__init__(args, ctx)
        values, self.flag_error = parse_flags(args, {
            "head": "head", "headContainer": "head", "worker": "worker", "workerContainer": "worker",
            "port": 6379, "dashboardPort": 8265, "clientPort": 10001})
        self.head, self.head_container = str(values["head"]), str(values["headContainer"])
        self.worker, self.worker_container = str(values["worker"]), str(values["workerContainer"])
        self.port, self.dashboard_port = int(values["port"]), int(values["dashboardPort"])
        self.client_port = int(values["clientPort"])

    @staticmethod
    def service_name(job: Mapping[str, Any]) -> str:
        """``<job>-head-svc``."""
        return f"{job['metadata']['name']}-head-svc"

    def _ports(self) -> list[tuple[str, int]]:
        return [(GCS_PORT_NAME, self.port), (DASHBOARD_PORT_NAME, self.dashboard_port),
                (CLIENT_SERVER_PORT_NAME, self.client_port)]

    def _head_address(self, job: Mapping[str, Any], task: Mapping[str, Any]) -> str:
        job_name = str(job["metadata"]["name"])
        spec = (task.get("template") or {}).get("spec") or {}
        host = str(spec.get("hostname") or "") or f"{job_name}-{task.get('name', '')}-0"
        return f"{host}.{str(spec.get('subdomain') or '') or job_name}"

    def on_pod_create(self, pod: dict[str, Any], job: Mapping[str, Any]) -> None:
        """Open the head ports and set the head / worker ``ray start`` commands."""
        tasks = list((job.get("spec") or {}).get("tasks") or [])
        head = next((t for t in tasks if t.get("name") == self.head), None)
        if head is None:
            raise PluginError(f"job {job['metadata']['name']} doesn't have head task {self.head}")
        task = (pod["metadata"].get("annotations") or {}).get(TASK_SPEC) or \
            (pod["metadata"].get("labels") or {}).get(TASK_SPEC, "")
        for container in (pod.get("spec") or {}).get("containers") or []:
            name = container.get("name")
            if task == self.head and name == self.head_container:
                declared = {int(p.get("containerPort") or 0) for p in container.get("ports") or []}
                for port_name, number in self._ports():
                    if number not in declared:
                        appendable(container, "ports").append({"name": port_name, "containerPort": number})
                container["command"] = ["sh", "-c", (
                    f"ray start --head --block --dashboard-host=0.0.0.0 --port={self.port} "
                    f"--dashboard-port={self.dashboard_port} --ray-client-server-port={self.client_port}")]
            if task == self.worker and name == self.worker_container:
                container["command"] = ["sh", "-c",
                                        f"ray start --block --address={self._head_address(job, head)}:{self.port}"]

    def on_job_add(self, job: dict[str, Any]) -> None:
        """Create the head Service."""
        if self.is_recorded(job):
            return
        meta = job["metadata"]
        create_if_absent(self.ctx.client, {
            "apiVersion": "v1", "kind": "Service", "metadata": owned_meta(job, self.service_name(job)),
            "spec": {"selector": {JOB_NAME: meta["name"], LABEL_JOB_NAMESPACE: meta.get("namespace", "default"),
                                  TASK_SPEC: self.head},
                     "ports": [{"name": port_name, "port": number, "targetPort": port_name, "protocol": "TCP"}
                               for port_name, number in self._ports()]},
        })
        self.record(job)

    def on_job_delete(self, job: dict[str, Any]) -> None:
        """Delete the head Service."""
        self.delete_owned(job, ("Service", self.service_name(job)))
