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

from volcano.kube.client import KubeClient
from volcano.kube.config import KubeConfigError, api_client
from volcano.kube.ratelimit import Backoff, TokenBucket
from volcano.kube.runtime import Runtime

__all__ = ["Backoff", "KubeClient", "KubeConfigError", "Runtime", "TokenBucket", "api_client"]
