"""The ``env`` job plugin: ``VK_TASK_INDEX`` and ``VC_TASK_INDEX`` in every container."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.api.accessors import appendable
from volcano.controllers.job.plugins.base import JobPlugin

__all__ = ["EnvPlugin"]


class EnvPlugin(JobPlugin):
    """Adds the pod's replica index (last ``-`` segment of its name) as ``VK_TASK_INDEX``
    and ``VC_TASK_INDEX`` to every container and init container."""

    name = "env"

    def on_pod_create(self, pod: dict[str, Any], job: Mapping[str, Any]) -> None:
        """Append the two index variables."""
        index = str(pod["metadata"]["name"]).rsplit("-", 1)[-1]
        env = [{"name": "VK_TASK_INDEX", "value": index}, {"name": "VC_TASK_INDEX", "value": index}]
        spec = pod.setdefault("spec", {})
        for c in list(spec.get("containers") or []) + list(spec.get("initContainers") or []):
            appendable(c, "env").extend(dict(e) for e in env)
