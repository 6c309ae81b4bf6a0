"""The ``pytorch`` job plugin: ``MASTER_ADDR``, ``MASTER_PORT``, ``WORLD_SIZE``, ``RANK`` and the port.

Flags: ``--master`` (master), ``--worker`` (worker), ``--port`` (23456),
``--wait-master-enabled`` (false), ``--wait-master-timeout`` (300),
``--wait-master-image`` (``busybox:1.36.1``). Without a master task it does nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from volcano.api.accessors import appendable
from volcano.api.well_known import TASK_SPEC
from volcano.controllers.job.plugins.base import JobPlugin, PluginContext, parse_flags, task_hosts

__all__ = ["PytorchPlugin"]


class PytorchPlugin(JobPlugin):
    """See the module docstring. Master pods get RANK 0, worker pod i gets RANK i+1."""

    name = "pytorch"

    def __init__(self, args: Sequence[str], ctx: PluginContext) -> None:
        super().__init__(args, ctx)
        values, self.flag_error = parse_flags(args, {
            "master": "master", "worker": "worker", "port": 23456, "wait-master-enabled": False,
            "wait-master-timeout": 300, "wait-master-image": "busybox:1.36.1"})
        self.master, self.worker, self.port = str(values["master"]), str(values["worker"]), int(values["port"])
        self.wait_master = bool(values["wait-master-enabled"])
        self.wait_timeout = int(values["wait-master-timeout"])
        self.wait_image = str(values["wait-master-image"])

    def on_pod_create(self, pod: dict[str, Any], job: Mapping[str, Any]) -> None:
        """Add the distributed-training environment and the master port."""
        tasks = list((job.get("spec") or {}).get("tasks") or [])
        master = next((t for t in tasks if t.get("name") == self.master), None)
        if master is None:
            return
        first = dict(master)
        first["replicas"] = 1
        addr = task_hosts(job, first)[0] if int(master.get("replicas") or 0) else \
            f"{job['metadata']['name']}-{self.master}-0.{job['metadata']['name']}"
        task = (pod["metadata"].get("labels") or {}).get(TASK_SPEC) or \
            (pod["metadata"].get("annotations") or {}).get(TASK_SPEC, "")
        spec = pod.setdefault("spec", {})
        rank: int | None = None
        if task == self.worker:
            rank = int(str(pod["metadata"]["name"]).rsplit("-", 1)[-1]) + 1
            if self.wait_master and not any(c.get("name") == "wait-for-master"
                                            for c in spec.get("initContainers") or []):
                appendable(spec, "initContainers").append({
                    "name": "wait-for-master", "image": self.wait_image,
                    "command": ["sh", "-c", f"until nc -z {addr} {self.port}; do sleep 2; done"]})
        elif task == self.master:
            rank = 0
        world = sum(int(t.get("replicas") or 0) for t in tasks if t.get("name") in (self.master, self.worker))
        for c in spec.get("containers") or []:
            if not any(int(p.get("containerPort") or 0) == self.port for p in c.get("ports") or []):
                appendable(c, "ports").append({"name": "pytorchjob-port", "containerPort": self.port})
            env = appendable(c, "env")
            env += [{"name": "MASTER_ADDR", "value": addr}, {"name": "MASTER_PORT", "value": str(self.port)},
                    {"name": "WORLD_SIZE", "value": str(world)}]
            if rank is not None:
                env.append({"name": "RANK", "value": str(rank)})
