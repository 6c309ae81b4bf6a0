"""The testbed's own admission rule: ``sim.volcano.sh/*`` annotations must be usable.

A real cluster stores any annotation; the simulated kubelet, though, needs the
``sim.volcano.sh/*`` ones (``volcano.kubelet.config``) to parse. So that a
mistyped value is reported where it was written, not as a pod that silently
never finishes, ``install_sim_annotation_check`` registers a validating hook
that refuses, with 422 Invalid naming the annotation and the value, a Pod
whose annotations do not parse, and a workload (Volcano Job, Deployment,
ReplicaSet, StatefulSet, ReplicationController, batch/v1 Job) whose pod
template's annotations do not parse::

    Pod "p" is invalid: metadata.annotations[sim.volcano.sh/duration]: Invalid value: "soon": invalid duration ...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.api.well_known import SIM_DURATION, SIM_EXIT_CODE, SIM_PROGRESS
from volcano.apiserver.admission import AdmissionChain, AdmissionRequest
from volcano.apiserver.errors import invalid
from volcano.apiserver.validation.field import go_value
from volcano.kubelet.config import SimAnnotationError, parse_sim_spec

__all__ = ["TEMPLATE_KINDS", "install_sim_annotation_check", "sim_annotation_errors"]

_KEYS = (SIM_DURATION, SIM_PROGRESS, SIM_EXIT_CODE)

TEMPLATE_KINDS = ("Deployment.apps", "ReplicaSet.apps", "StatefulSet.apps", "ReplicationController", "Job.batch")
"""Kinds with one pod template at ``spec.template`` (Volcano Jobs have one per task)."""


def sim_annotation_errors(annotations: Any, path: str) -> list[str]:
    """One ``<path>[<key>]: Invalid value: ...`` cause per unusable ``sim.volcano.sh/*`` annotation."""
    if not isinstance(annotations, Mapping):
        return []
    errs: list[str] = []
    for key in _KEYS:
        if key not in annotations:
            continue
        try:
            parse_sim_spec({"metadata": {"annotations": {key: annotations[key]}}})
        except SimAnnotationError as exc:
            detail = str(exc).split(": ", 1)[-1]
            errs.append(f"{path}[{key}]: Invalid value: {go_value(annotations[key])}: {detail}")
    return errs


def _template_annotations(template: Any) -> Any:
    meta = template.get("metadata") if isinstance(template, Mapping) else None
    return meta.get("annotations") if isinstance(meta, Mapping) else None


def _errors(req: AdmissionRequest) -> list[str]:
    obj = req.obj
    if req.kind.key == "Pod":
        return sim_annotation_errors((obj.get("metadata") or {}).get("annotations"), "metadata.annotations")
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        return []
    if req.kind.key == "Job.batch.volcano.sh":
        tasks = spec.get("tasks")
        errs: list[str] = []
        for i, task in enumerate(tasks if isinstance(tasks, list) else ()):
            if isinstance(task, Mapping):
                errs.extend(sim_annotation_errors(_template_annotations(task.get("template")),
                                                  f"spec.tasks[{i}].template.metadata.annotations"))
        return errs
    return sim_annotation_errors(_template_annotations(spec.get("template")), "spec.template.metadata.annotations")


def _check(req: AdmissionRequest) -> None:
    if req.subresource is not None:
        return
    errs = _errors(req)
    if errs and req.old is not None:
        before = AdmissionRequest(req.operation, req.kind, dict(req.old), None, None, req.client)
        if _errors(before) == errs:
            return  # an update that leaves the (already stored) annotations alone
    if errs:
        raise invalid(req.kind.key, req.name, errs)


def install_sim_annotation_check(chain: AdmissionChain) -> None:
    """Register the check on ``chain`` for creates and updates of pods and pod-template kinds."""
    for kind in ("Pod", "Job.batch.volcano.sh", *TEMPLATE_KINDS):
        chain.register_validating(kind, ("CREATE", "UPDATE"), _check, "sim-annotations", main_only=True)
