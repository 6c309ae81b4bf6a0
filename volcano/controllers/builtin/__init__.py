"""Minimal built-in Kubernetes controllers the Volcano scenarios rely on.

``volcano.controllers.builtin.replicaset.ReplicaSetController`` (apps/v1
ReplicaSet), ``volcano.controllers.builtin.deployment.DeploymentController``
(apps/v1 Deployment) and ``volcano.controllers.builtin.batchjob.BatchJobController``
(batch/v1 Job). Import them by their full module path.
"""

__all__: list[str] = []
