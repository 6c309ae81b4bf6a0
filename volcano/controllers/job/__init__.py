"""Volcano's Job controller (``batch.volcano.sh/v1alpha1`` Job), its state machine and job plugins.

The controller lives in ``volcano.controllers.job.controller``; import it by that
full path (``JobController``). Submodules: ``state`` (phase x action table),
``policies`` (lifecycle-policy resolution), ``podgroup`` (PodGroup and
minResources), ``pods`` (pod construction), ``plugins`` (env, svc, ssh,
pytorch, tensorflow, mpi).
"""

__all__: list[str] = []
