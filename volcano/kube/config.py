"""Where a component finds its cluster: ``--kubeconfig``, ``KUBECONFIG``, ``~/.kube/config`` or in-cluster.

``api_client(kubeconfig, context)`` returns a configured official
``kubernetes.client.ApiClient`` (TLS, bearer token or client certificate,
token refresh), trying in client-go's order: an explicit kubeconfig path,
then ``$KUBECONFIG``, then the in-cluster service-account configuration when
running in a pod, then ``~/.kube/config``. A missing package or an unusable
configuration is a ``KubeConfigError`` naming what was tried.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["KubeConfigError", "api_client"]


class KubeConfigError(RuntimeError):
    """No usable cluster configuration (the message says which sources were tried)."""


def api_client(kubeconfig: str | None = None, context: str | None = None, *,
               user_agent: str = "volcano") -> Any:
    """A ``kubernetes.client.ApiClient`` for the cluster (see the module docstring)."""
    try:
        from kubernetes import client, config
    except ImportError:
        raise KubeConfigError("talking to a cluster needs the 'kubernetes' package: "
                              "pip install 'volcano[kube]'") from None
    configuration = client.Configuration()
    path = kubeconfig or os.environ.get("KUBECONFIG") or None
    try:
        if path:
            for one in path.split(os.pathsep):
                if not Path(one).is_file():
                    what = "not a regular file" if Path(one).exists() else "no such file"
                    raise KubeConfigError(f"--kubeconfig {one}: {what}")
            config.load_kube_config(config_file=path, context=context, client_configuration=configuration)
        elif os.environ.get("KUBERNETES_SERVICE_HOST"):
            config.load_incluster_config(client_configuration=configuration)
        else:
            default = Path.home() / ".kube" / "config"
            if not default.is_file():
                raise KubeConfigError("no cluster configuration: pass --kubeconfig, set KUBECONFIG, run in a pod, "
                                      f"or write {default}")
            config.load_kube_config(config_file=str(default), context=context, client_configuration=configuration)
    except KubeConfigError:
        raise
    except Exception as err:  # the official loader's own errors (bad YAML, unknown context, ...)
        raise KubeConfigError(f"cannot load the cluster configuration ({path or 'in-cluster'}): {err}") from None
    configuration.connection_pool_maxsize = max(configuration.connection_pool_maxsize or 0, 64)  # watches hold one
    api = client.ApiClient(configuration)
    api.user_agent = user_agent
    return api
