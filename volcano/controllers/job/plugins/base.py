"""The job-plugin contract and what plugins share.

A ``JobPlugin`` is built per Job sync from the arguments in
``spec.plugins[<name>]`` (parsed by ``parse_flags``, Go's ``flag`` package:
see ``goflag``; a parse error is kept in ``flag_error``, Volcano's log line,
and the plugin goes on with the values parsed) and a ``PluginContext`` (the
client to create owned objects, random streams). Hooks:

* ``on_job_add(job)`` once per initiation; records ``status.controlledResources
  ["plugin-<name>"] = <name>`` in the (mutable) job it is given;
* ``on_pod_create(pod, job)`` edits a pod before it is created (``PluginError``
  fails the sync);
* ``on_job_update(job)`` on every later sync;
* ``on_job_delete(job)`` on every kill; removes the plugin's key.

``task_hosts`` gives the DNS names Volcano assigns to a task's pods.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from volcano.apiserver.client import Client
from volcano.controllers.job.plugins.goflag import parse_flags
from volcano.controllers.job.plugins.owned import delete_if_present
from volcano.sim.rand import RandomStreams

__all__ = ["JobPlugin", "PluginContext", "PluginError", "parse_flags", "task_hosts"]


class PluginError(Exception):
    """A plugin hook failed for a reason of the Job's own (e.g. a task the plugin needs is missing);
    the controller's sync fails with this message and is retried."""


@dataclass(frozen=True, slots=True)
class PluginContext:
    """What a plugin may use: the API client and the cluster's random streams."""

    client: Client
    streams: RandomStreams


def task_hosts(job: Mapping[str, Any], task: Mapping[str, Any]) -> list[str]:
    """``<hostname>.<subdomain>`` of each pod of ``task`` (one entry when the template fixes a hostname)."""
    job_name = str(job["metadata"]["name"])
    pod_spec = (task.get("template") or {}).get("spec") or {}
    fixed = str(pod_spec.get("hostname") or "")
    subdomain = str(pod_spec.get("subdomain") or "") or job_name
    task_name = str(task.get("name", ""))
    hosts: list[str] = []
    for i in range(int(task.get("replicas") or 0)):
        host = fixed or f"{job_name}-{task_name}-{i}"
        hosts.append(f"{host}.{subdomain}")
        if fixed:
            break
    return hosts


class JobPlugin:
    """Base class: every hook is a no-op; ``controlled`` plugins record their key on add
    and drop it on delete."""

    name = ""
    controlled = True

    def __init__(self, args: Sequence[str], ctx: PluginContext) -> None:
        self.args = list(args)
        self.ctx = ctx
        self.flag_error: str | None = None
        """The flag parse error Volcano would log ("plugin <name> flagset parse failed, err: ..."),
        set by plugins that take flags; None when the arguments parsed."""

    def _key(self) -> str:
        return f"plugin-{self.name}"

    def is_recorded(self, job: Mapping[str, Any]) -> bool:
        """True when the job's status says this plugin already ran ``on_job_add``."""
        return ((job.get("status") or {}).get("controlledResources") or {}).get(self._key()) == self.name

    def record(self, job: dict[str, Any]) -> None:
        """Mark the plugin as added in ``status.controlledResources``."""
        job.setdefault("status", {}).setdefault("controlledResources", {})[self._key()] = self.name

    def forget(self, job: dict[str, Any]) -> None:
        """Remove the plugin's ``controlledResources`` key."""
        (job.get("status") or {}).get("controlledResources", {}).pop(self._key(), None)

    def delete_owned(self, job: dict[str, Any], *owned: tuple[str, str]) -> bool:
        """When the plugin is recorded on ``job``: delete each owned ``(kind, name)`` in the job's
        namespace, in order (one already gone is fine), drop the status key and return True;
        else do nothing and return False."""
        if not self.is_recorded(job):
            return False
        ns = str(job["metadata"].get("namespace", "default"))
        for kind, name in owned:
            delete_if_present(self.ctx.client, kind, name, ns)
        self.forget(job)
        return True

    def on_job_add(self, job: dict[str, Any]) -> None:
        """Create what the plugin owns; record the plugin in the job's status."""
        if self.controlled and not self.is_recorded(job):
            self.record(job)

    def on_pod_create(self, pod: dict[str, Any], job: Mapping[str, Any]) -> None:
        """Edit ``pod`` before it is created."""

    def on_job_update(self, job: Mapping[str, Any]) -> None:
        """Keep owned objects in step with the job's spec."""

    def on_job_delete(self, job: dict[str, Any]) -> None:
        """Delete what the plugin owns; drop its status key."""
        if self.controlled and self.is_recorded(job):
            self.forget(job)
