"""The ``svc`` job plugin: headless Service, hosts ConfigMap, NetworkPolicy and DNS identity.

Flags: ``--publish-not-ready-addresses`` (false), ``--disable-network-policy``
(false), ``--inject-hosts-env`` (true).

* On job add: ConfigMap ``<job>-svc`` (keys per task T, T' = T with ``-`` -> ``_``:
  ``T'.host`` newline-joined hosts, ``VC_<T'>_HOSTS`` comma-joined, ``VC_<T'>_NUM``
  count), headless Service ``<job>`` selecting the job's pods, and unless
  disabled a NetworkPolicy ``<job>`` admitting ingress only from the job's pods.
* On pod create: hostname = pod name and subdomain = job name (when unset);
  ``VC_<T'>_HOSTS`` / ``VC_<T'>_NUM`` for every task from the ConfigMap (unless
  ``--inject-hosts-env=false``); the ConfigMap mounted at ``/etc/volcano``.
* On job update: the ConfigMap follows scaling. On delete: all three removed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from volcano.api.accessors import appendable
from volcano.api.well_known import JOB_NAME
from volcano.controllers.job.constants import LABEL_JOB_NAMESPACE
from volcano.controllers.job.plugins.base import JobPlugin, PluginContext, parse_flags, task_hosts
from volcano.controllers.job.plugins.owned import (
    create_if_absent,
    create_or_update_data,
    delete_if_present,
    owned_meta,
)

__all__ = ["CONFIG_MAP_MOUNT_PATH", "SvcPlugin", "generate_hosts"]

CONFIG_MAP_MOUNT_PATH = "/etc/volcano"


def _env_key(task_name: str) -> str:
    return task_name.replace("-", "_")


def generate_hosts(job: Mapping[str, Any]) -> dict[str, str]:
    """The data of ConfigMap ``<job>-svc``."""
    data: dict[str, str] = {}
    for task in (job.get("spec") or {}).get("tasks") or []:
        hosts = task_hosts(job, task)
        key = _env_key(str(task.get("name", "")))
        data[f"{key}.host"] = "\n".join(hosts)
        data[f"VC_{key.upper()}_HOSTS"] = ",".join(hosts)
        data[f"VC_{key.upper()}_NUM"] = str(len(hosts))
    return data


class SvcPlugin(JobPlugin):
    """See the module docstring."""

    name = "svc"

    def __init__(self, args: Sequence[str], ctx: PluginContext) -> None:
        super().__init__(args, ctx)
        values, self.flag_error = parse_flags(args, {"publish-not-ready-addresses": False,
                                                     "disable-network-policy": False,
                                                     "inject-hosts-env": True})
        self.publish_not_ready = bool(values["publish-not-ready-addresses"])
        self.disable_network_policy = bool(values["disable-network-policy"])
        self.inject_hosts_env = bool(values["inject-hosts-env"])

    @staticmethod
    def cm_name(job: Mapping[str, Any]) -> str:
        """``<job>-svc``."""
        return f"{job['metadata']['name']}-svc"

    @staticmethod
    def _selector(job: Mapping[str, Any]) -> dict[str, str]:
        meta = job["metadata"]
        return {JOB_NAME: meta["name"], LABEL_JOB_NAMESPACE: meta.get("namespace", "default")}

    def on_job_add(self, job: dict[str, Any]) -> None:
        """Create the ConfigMap, Service and NetworkPolicy."""
        if self.is_recorded(job):
            return
        client = self.ctx.client
        create_or_update_data(client, "ConfigMap", job, self.cm_name(job), generate_hosts(job))
        name = str(job["metadata"]["name"])
        create_if_absent(client, {
            "apiVersion": "v1", "kind": "Service", "metadata": owned_meta(job, name),
            "spec": {"clusterIP": "None", "selector": self._selector(job),
                     "publishNotReadyAddresses": self.publish_not_ready},
        })
        if not self.disable_network_policy:
            create_if_absent(client, {
                "apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": owned_meta(job, name),
                "spec": {"podSelector": {"matchLabels": self._selector(job)},
                         "ingress": [{"from": [{"podSelector": {"matchLabels": self._selector(job)}}]}],
                         "policyTypes": ["Ingress"]},
            })
        self.record(job)

    def on_pod_create(self, pod: dict[str, Any], job: Mapping[str, Any]) -> None:
        """Set hostname/subdomain, inject host env vars and mount the hosts ConfigMap."""
        spec = pod.setdefault("spec", {})
        if not spec.get("hostname"):
            spec["hostname"] = pod["metadata"]["name"]
        if not spec.get("subdomain"):
            spec["subdomain"] = job["metadata"]["name"]
        cm = self.cm_name(job)
        containers = list(spec.get("containers") or []) + list(spec.get("initContainers") or [])
        if self.inject_hosts_env:
            names: list[str] = []
            for task in (job.get("spec") or {}).get("tasks") or []:
                key = _env_key(str(task.get("name", ""))).upper()
                names += [f"VC_{key}_HOSTS", f"VC_{key}_NUM"]
            for c in containers:
                appendable(c, "env").extend(
                    {"name": n, "valueFrom": {"configMapKeyRef": {"name": cm, "key": n}}} for n in names)
        appendable(spec, "volumes").append({"name": cm, "configMap": {"name": cm}})
        for c in containers:
            appendable(c, "volumeMounts").append({"mountPath": CONFIG_MAP_MOUNT_PATH, "name": cm})

    def on_job_update(self, job: Mapping[str, Any]) -> None:
        """Rewrite the hosts ConfigMap (scale up/down)."""
        create_or_update_data(self.ctx.client, "ConfigMap", job, self.cm_name(job), generate_hosts(job))

    def on_job_delete(self, job: dict[str, Any]) -> None:
        """Delete the ConfigMap, Service and NetworkPolicy."""
        name = str(job["metadata"]["name"])
        if self.delete_owned(job, ("ConfigMap", self.cm_name(job)), ("Service", name)) \
                and not self.disable_network_policy:
            delete_if_present(self.ctx.client, "NetworkPolicy", name, str(job["metadata"].get("namespace", "default")))
