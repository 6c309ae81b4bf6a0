"""The ``ssh`` job plugin: a Secret ``<job>-ssh`` with a key pair and ssh config, mounted in every pod.

Flags: ``--ssh-key-file-path`` (``/root/.ssh``), ``--ssh-private-key``,
``--ssh-public-key``, ``--ssh-port`` (22; out of range means 22).

Key material: a fake cluster needs no working cryptography, so unless the user
provides keys the pair is *shaped* like Volcano's (a PEM block ``RSA PRIVATE
KEY`` of the size a 2048-bit PKCS#1 key has, and an OpenSSH ``ssh-rsa`` public
key line in valid wire format) but its bytes come from the cluster's ``ssh``
random stream: deterministic per seed, and not a usable RSA key. Secret values
are stored base64-encoded under ``data``, as the Kubernetes API shows them.
"""

from __future__ import annotations

import base64
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from volcano.api.accessors import appendable
from volcano.controllers.job.plugins.base import JobPlugin, PluginContext, parse_flags
from volcano.controllers.job.plugins.owned import create_or_update_data

__all__ = ["SSH_ABSOLUTE_PATH", "SshPlugin", "fake_key_pair", "ssh_config"]

SSH_ABSOLUTE_PATH = "/root/.ssh"
SSH_RELATIVE_PATH = ".ssh"
_KEYS = ("id_rsa", "id_rsa.pub", "authorized_keys", "config")


def _ssh_string(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def fake_key_pair(rng_bytes: bytes) -> tuple[str, str]:
    """A PEM-shaped private key and an ``ssh-rsa`` public key line from 1,450 random bytes."""
    der = b"\x30\x82\x04\xa4\x02\x01\x00" + rng_bytes[:1185]
    private = ("-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(textwrap.wrap(base64.b64encode(der).decode(), 64))
               + "\n-----END RSA PRIVATE KEY-----\n")
    modulus = b"\x00" + bytes([rng_bytes[1185] | 0x80]) + rng_bytes[1186:1441]
    blob = _ssh_string(b"ssh-rsa") + _ssh_string((65537).to_bytes(3, "big")) + _ssh_string(modulus)
    public = "ssh-rsa " + base64.b64encode(blob).decode() + "\n"
    return private, public


def ssh_config(job: Mapping[str, Any], port: int) -> str:
    """The ``config`` entry: no host-key checking, then one ``Host`` block per pod."""
    job_name = str(job["metadata"]["name"])
    lines = "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n"
    for task in (job.get("spec") or {}).get("tasks") or []:
        pod_spec = (task.get("template") or {}).get("spec") or {}
        fixed = str(pod_spec.get("hostname") or "")
        subdomain = str(pod_spec.get("subdomain") or "") or job_name
        task_name = str(task.get("name", ""))
        for i in range(int(task.get("replicas") or 0)):
            host = fixed or f"{job_name}-{task_name}-{i}"
            lines += f"Host {host}\n  HostName {host}.{subdomain}\n  Port {port}\n"
            if fixed:
                break
    return lines


class SshPlugin(JobPlugin):
    """See the module docstring."""

    name = "ssh"

    def __init__(self, args: Sequence[str], ctx: PluginContext) -> None:
        super().__init__(args, ctx)
        values, self.flag_error = parse_flags(args, {"ssh-key-file-path": SSH_ABSOLUTE_PATH, "ssh-private-key": "",
                                                     "ssh-public-key": "", "ssh-port": 22})
        self.key_path = str(values["ssh-key-file-path"])
        self.private_key = str(values["ssh-private-key"])
        self.public_key = str(values["ssh-public-key"])
        port = int(values["ssh-port"])
        self.port = port if 0 < port <= 65535 else 22

    @staticmethod
    def secret_name(job: Mapping[str, Any]) -> str:
        """``<job>-ssh``."""
        return f"{job['metadata']['name']}-ssh"

    def on_job_add(self, job: dict[str, Any]) -> None:
        """Create (or refresh) the Secret with the key pair and ssh config."""
        if self.is_recorded(job):
            return
        if self.private_key:
            private, public = self.private_key, self.public_key
        else:
            rng = self.ctx.streams.stream("ssh")
            private, public = fake_key_pair(bytes(rng.getrandbits(8) for _ in range(1450)))
        raw = {"id_rsa": private, "id_rsa.pub": public, "authorized_keys": public, "config": ssh_config(job, self.port)}
        data = {k: base64.b64encode(v.encode()).decode() for k, v in raw.items()}
        create_or_update_data(self.ctx.client, "Secret", job, self.secret_name(job), data, {"type": "Opaque"},
                              compare_keys=("config",))
        self.record(job)

    def on_pod_create(self, pod: dict[str, Any], job: Mapping[str, Any]) -> None:
        """Mount the Secret's four keys under ``.ssh`` at the key path in every container."""
        name = self.secret_name(job)
        spec = pod.setdefault("spec", {})
        mode = 0o600 if self.key_path == SSH_ABSOLUTE_PATH else 0o644
        appendable(spec, "volumes").append({"name": name, "secret": {
            "secretName": name, "defaultMode": mode,
            "items": [{"key": k, "path": f"{SSH_RELATIVE_PATH}/{k}"} for k in _KEYS]}})
        for c in list(spec.get("containers") or []) + list(spec.get("initContainers") or []):
            appendable(c, "volumeMounts").append(
                {"mountPath": self.key_path, "subPath": SSH_RELATIVE_PATH, "name": name})

    def on_job_delete(self, job: dict[str, Any]) -> None:
        """Delete the Secret (a later initiation generates new keys)."""
        self.delete_owned(job, ("Secret", self.secret_name(job)))
