"""The ``mpi`` job plugin: ``MPI_HOST`` on master pods and the MPI port on every container.

Flags: ``--master`` (master), ``--worker`` (worker), ``--port`` (22). Master pods
get ``MPI_HOST`` = comma-joined worker hosts (containers and init containers);
every container and init container gets port ``mpijob-port`` unless it
already exposes that port number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from volcano.api.accessors import appendable
from volcano.api.well_known import TASK_SPEC
from volcano.controllers.job.plugins.base import JobPlugin, PluginContext, parse_flags, task_hosts

__all__ = ["MpiPlugin"]


class MpiPlugin(JobPlugin):
    """See the module docstring."""

    name = "mpi"

    def __init__(self, args: Sequence[str], ctx: PluginContext) -> None:
        super().__init__(args, ctx)
        values, self.flag_error = parse_flags(args, {"master": "master", "worker": "worker", "port": 22})
        self.master, self.worker, self.port = str(values["master"]), str(values["worker"]), int(values["port"])

    def on_pod_create(self, pod: dict[str, Any], job: Mapping[str, Any]) -> None:
        """Add ``MPI_HOST`` (master pods) and the port."""
        task = (pod["metadata"].get("annotations") or {}).get(TASK_SPEC, "")
        env: dict[str, str] | None = None
        if task == self.master:
            worker = next((t for t in (job.get("spec") or {}).get("tasks") or [] if t.get("name") == self.worker),
                          None)
            if worker is None:
                return
            env = {"name": "MPI_HOST", "value": ",".join(task_hosts(job, worker))}
        spec = pod.setdefault("spec", {})
        for c in list(spec.get("initContainers") or []) + list(spec.get("containers") or []):
            if not any(int(p.get("containerPort") or 0) == self.port for p in c.get("ports") or []):
                appendable(c, "ports").append({"name": "mpijob-port", "containerPort": self.port})
            if env is not None:
                appendable(c, "env").append(dict(env))
