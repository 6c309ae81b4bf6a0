"""Components over the wire: the ``Client`` protocol against a real API server, and the processes around it.

* ``KubeClient`` (``client``): every method of ``volcano.apiserver.client.Client``
  over HTTP through the official ``kubernetes`` client, with client-go's rate
  limits and retries; watches read on threads and handed to the owner thread.
* ``Runtime`` (``runtime``): the owner thread of a component process, an event
  loop driving a clock paced at the wall clock, with the hand-off queue.
* ``api_client`` (``config``): the cluster from ``--kubeconfig``, ``KUBECONFIG``
  or the in-cluster service account.
* ``LeaderElector`` (``leader``): leader election through a
  ``coordination.k8s.io/v1`` Lease, as client-go's ``leaderelection``.
* ``SimNodes`` (``nodes``): simulated kubelets for fake nodes on a real control
  plane (Node registration, Lease heartbeats, the simulated kubelet's pod lifecycle).
* ``components``: the scheduler, controllers and nodes processes wired on these.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["Backoff", "KubeClient", "KubeConfigError", "Runtime", "TokenBucket", "api_client"]

_HOMES = {"Backoff": "ratelimit", "TokenBucket": "ratelimit", "KubeClient": "client", "KubeConfigError": "config",
          "api_client": "config", "Runtime": "runtime"}


def __getattr__(name: str) -> Any:
    """Import the public names on first use (the ``volcano`` command imports ``volcano.kube.flags``
    on every start; the client and its dependencies load only for the component commands)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'volcano.kube' has no attribute {name!r}")
    return getattr(import_module(f"volcano.kube.{home}"), name)
