"""The ``tensorflow`` job plugin: ``TF_CONFIG`` describing the cluster and the pod's role.

Flags: ``--ps`` (ps), ``--worker`` (worker), ``--chief`` (chief),
``--evaluator`` (evaluator), ``--port`` (2222). Skipped for a job with one task
of one replica. Hosts are ``<host>.<subdomain>:<port>`` per replica.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from volcano.api.accessors import appendable
from volcano.api.well_known import TASK_SPEC
from volcano.controllers.job.plugins.base import JobPlugin, PluginContext, parse_flags

__all__ = ["TensorflowPlugin", "tf_config"]


def _domain(job: Mapping[str, Any], task: Mapping[str, Any], i: int) -> str:
    job_name = str(job["metadata"]["name"])
    pod_spec = (task.get("template") or {}).get("spec") or {}
    task_name = str(task.get("name", ""))
    host = str(pod_spec.get("hostname") or "") or f"{job_name}-{task_name}-{i}"
    return f"{host}.{pod_spec.get('subdomain') or job_name}"


def tf_config(job: Mapping[str, Any], task_name: str, index: int, roles: Mapping[str, str], port: int) -> str:
    """The ``TF_CONFIG`` JSON (compact, keys in Volcano's order) for pod ``index`` of ``task_name``.

    ``roles`` maps role (ps, worker, chief, evaluator) to task name.
    """
    cluster: dict[str, list[str]] = {}
    found: dict[str, list[str]] = {}
    for task in (job.get("spec") or {}).get("tasks") or []:
        hosts = [f"{_domain(job, task, i)}:{port}" for i in range(int(task.get("replicas") or 0))]
        for role, name in roles.items():
            if task.get("name") == name:
                found[role] = hosts
                break
    for role in ("ps", "worker", "chief", "evaluator"):
        if found.get(role):
            cluster[role] = found[role]
    kind = next((role for role in ("chief", "worker", "ps", "evaluator") if roles[role] == task_name), task_name)
    return json.dumps({"cluster": cluster, "task": {"type": kind, "index": index}}, separators=(",", ":"))


class TensorflowPlugin(JobPlugin):
    """See the module docstring."""

    name = "tensorflow"

    def __init__(self, args: Sequence[str], ctx: PluginContext) -> None:
        super().__init__(args, ctx)
        values, self.flag_error = parse_flags(args, {"ps": "ps", "worker": "worker", "chief": "chief",
                                                     "evaluator": "evaluator", "port": 2222})
        self.roles = {r: str(values[r]) for r in ("ps", "worker", "chief", "evaluator")}
        self.port = int(values["port"])

    def on_pod_create(self, pod: dict[str, Any], job: Mapping[str, Any]) -> None:
        """Add ``TF_CONFIG`` to every container."""
        tasks = (job.get("spec") or {}).get("tasks") or []
        if len(tasks) == 1 and int(tasks[0].get("replicas") or 0) == 1:
            return
        task = (pod["metadata"].get("annotations") or {}).get(TASK_SPEC, "")
        index = int(str(pod["metadata"]["name"]).rsplit("-", 1)[-1])
        value = tf_config(job, task, index, self.roles, self.port)
        for c in pod.setdefault("spec", {}).get("containers") or []:
            appendable(c, "env").append({"name": "TF_CONFIG", "value": value})
