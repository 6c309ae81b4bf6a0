"""The ``hcclrank`` job plugin: the HCCL rank of each master/worker pod as an annotation.

Flags: ``--master`` (task, ``master``), ``--worker`` (task, ``worker``).
``on_pod_create`` sets the pod annotation ``hccl/rankIndex`` unless the pod
already has one: the value of a container env var ``RANK`` when some
container declares it with a literal value (e.g. one the pytorch plugin added
earlier; plugins run in sorted name order here, an unspecified order in
Volcano); else, for master-task pods, the pod's ``volcano.sh/task-index``
label; for worker-task pods, the master task's replicas plus that index;
pods of other tasks are left alone. A master or worker pod without a numeric
task-index label is a ``PluginError``. The plugin owns no objects and records
no ``controlledResources`` key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from volcano.api.well_known import TASK_SPEC
from volcano.controllers.job.constants import ANN_TASK_INDEX
from volcano.controllers.job.plugins.base import JobPlugin, PluginContext, PluginError, parse_flags

__all__ = ["HCCL_RANK_ANNOTATION", "HcclRankPlugin"]

HCCL_RANK_ANNOTATION = "hccl/rankIndex"
"""The pod annotation holding the rank."""


def _env_rank(pod: Mapping[str, Any]) -> str:
    for container in (pod.get("spec") or {}).get("containers") or []:
        for env in container.get("env") or []:
            if env.get("name") == "RANK":
                return str(env.get("value") or "")
    return ""


class HcclRankPlugin(JobPlugin):
    """See the module docstring."""

    name = "hcclrank"
    controlled = False

    def __init__(self, args: Sequence[str], ctx: PluginContext) -> None:
        super().__init__(args, ctx)
        values, self.flag_error = parse_flags(args, {"master": "master", "worker": "worker"})
        self.master, self.worker = str(values["master"]), str(values["worker"])

    def on_pod_create(self, pod: dict[str, Any], job: Mapping[str, Any]) -> None:
        """Annotate ``pod`` with its HCCL rank (see the module docstring)."""
        meta = pod.setdefault("metadata", {})
        annotations = meta.setdefault("annotations", {})
        if annotations.get(HCCL_RANK_ANNOTATION):
            return
        rank = _env_rank(pod)
        if rank:
            annotations[HCCL_RANK_ANNOTATION] = rank
            return
        task = str(annotations.get(TASK_SPEC) or "")
        if task not in (self.master, self.worker):
            return
        text = (meta.get("labels") or {}).get(ANN_TASK_INDEX)
        try:
            index = int(str(text))
        except ValueError:
            raise PluginError(f"pod {meta.get('name', '')} has no valid {ANN_TASK_INDEX} label: {text!r}") from None
        if task == self.master:
            annotations[HCCL_RANK_ANNOTATION] = str(index)
            return
        tasks = (job.get("spec") or {}).get("tasks") or []
        masters = next((int(t.get("replicas") or 0) for t in tasks if t.get("name") == self.master), 0)
        annotations[HCCL_RANK_ANNOTATION] = str(masters + index)
