"""Volcano's job plugins (``spec.plugins``): env, svc, ssh, pytorch, tensorflow, mpi,
ray, hcclrank.

``PLUGINS`` maps each name to its class; ``build_plugins(job, ctx)`` instantiates
the Job's plugins in sorted name order (Volcano iterates a Go map, whose order
is unspecified; sorting makes ours deterministic). An unknown name raises
``UnknownPluginError`` ("failed to get plugin <name>").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.controllers.job.plugins.base import JobPlugin, PluginContext, PluginError, parse_flags, task_hosts
from volcano.controllers.job.plugins.env import EnvPlugin
from volcano.controllers.job.plugins.hcclrank import HcclRankPlugin
from volcano.controllers.job.plugins.mpi import MpiPlugin
from volcano.controllers.job.plugins.pytorch import PytorchPlugin
from volcano.controllers.job.plugins.ray import RayPlugin
from volcano.controllers.job.plugins.ssh import SshPlugin
from volcano.controllers.job.plugins.svc import SvcPlugin
from volcano.controllers.job.plugins.tensorflow import TensorflowPlugin

__all__ = [
    "PLUGINS",
    "EnvPlugin",
    "HcclRankPlugin",
    "JobPlugin",
    "MpiPlugin",
    "PluginContext",
    "PluginError",
    "PytorchPlugin",
    "RayPlugin",
    "SshPlugin",
    "SvcPlugin",
    "TensorflowPlugin",
    "UnknownPluginError",
    "build_plugins",
    "parse_flags",
    "task_hosts",
]

PLUGINS: dict[str, type[JobPlugin]] = {
    "env": EnvPlugin,
    "svc": SvcPlugin,
    "ssh": SshPlugin,
    "pytorch": PytorchPlugin,
    "tensorflow": TensorflowPlugin,
    "mpi": MpiPlugin,
    "ray": RayPlugin,
    "hcclrank": HcclRankPlugin,
}


class UnknownPluginError(LookupError):
    """``spec.plugins`` names a plugin this controller does not have."""


def build_plugins(job: Mapping[str, Any], ctx: PluginContext) -> list[JobPlugin]:
    """The Job's plugins, sorted by name, each built from its argument list."""
    plugins = (job.get("spec") or {}).get("plugins") or {}
    out: list[JobPlugin] = []
    for name in sorted(plugins):
        cls = PLUGINS.get(name)
        if cls is None:
            raise UnknownPluginError(f"failed to get plugin {name}")
        out.append(cls(list(plugins[name] or []), ctx))
    return out
