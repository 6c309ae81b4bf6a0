"""Volcano's controllers and the minimal Kubernetes controllers the scenarios rely on.

Every controller is constructed as ``X(client, informers, clock, *, streams, trace,
recorder)`` and started with ``.start()``; it reads through shared informers and
processes a work queue on the clock at ``Priority.CONTROLLER``. ``base.Controller``
is that skeleton (watches declared as data, the work queue, an idempotent start);
the queue, podgroup, gc and built-in controllers derive from it.

``CONTROLLERS`` lists them with the event-source component each records as, in the
order a cluster starts them.
"""

from volcano.controllers.builtin.batchjob import BatchJobController
from volcano.controllers.builtin.deployment import DeploymentController
from volcano.controllers.builtin.replicaset import ReplicaSetController
from volcano.controllers.builtin.replicationcontroller import ReplicationControllerController
from volcano.controllers.gc import GarbageCollector
from volcano.controllers.job.controller import JobController
from volcano.controllers.namespace import NamespaceController
from volcano.controllers.podgroup import PodGroupController
from volcano.controllers.queue import QueueController

__all__ = [
    "CONTROLLERS",
    "BatchJobController",
    "DeploymentController",
    "GarbageCollector",
    "JobController",
    "NamespaceController",
    "PodGroupController",
    "QueueController",
    "ReplicaSetController",
    "ReplicationControllerController",
]

CONTROLLERS: tuple[tuple[type, str], ...] = (
    (QueueController, "vc-controller-manager"),
    (JobController, "vc-controller-manager"),
    (PodGroupController, "vc-controller-manager"),
    (GarbageCollector, "vc-controller-manager"),
    (DeploymentController, "deployment-controller"),
    (ReplicaSetController, "replicaset-controller"),
    (ReplicationControllerController, "replication-controller"),
    (BatchJobController, "job-controller"),
    (NamespaceController, "namespace-controller"),
)
