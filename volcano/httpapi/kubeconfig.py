"""The kubeconfig a served cluster writes: one cluster, one user, one context, made current."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import yaml

__all__ = ["kubeconfig_text", "write_kubeconfig"]


def kubeconfig_text(url: str, *, token: str | None = None, name: str = "volcano",
                    namespace: str = "default") -> str:
    """A kubeconfig for ``url`` (bearer ``token`` when given; no credentials otherwise)."""
    user: dict[str, str] = {"token": token} if token else {}
    doc = {"apiVersion": "v1", "kind": "Config", "preferences": {},
           "clusters": [{"name": name, "cluster": {"server": url}}],
           "users": [{"name": name, "user": user}],
           "contexts": [{"name": name, "context": {"cluster": name, "user": name, "namespace": namespace}}],
           "current-context": name}
    return yaml.safe_dump(doc, sort_keys=False)


def write_kubeconfig(path: str | Path, url: str, *, token: str | None = None) -> Path:
    """Write the kubeconfig for ``url`` to ``path`` at once (a temporary file renamed over it), readable
    by its owner only; returns the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".kubeconfig-", dir=target.parent)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(kubeconfig_text(url, token=token))
        os.chmod(tmp, 0o600)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
