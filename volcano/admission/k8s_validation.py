"""Kubernetes' own API validation of built-in kinds the scenarios create (422 Invalid).

A real kube-apiserver validates every built-in object after defaulting and
before admission webhooks see it. This module holds the parts of that
validation the fake cluster's scenarios rely on; ``install_admission``
registers them as validating rules on CREATE and UPDATE of the main resource.

batch/v1 Job (``validate_batch_job``), as ``pkg/apis/batch/validation``:

* ``spec.parallelism``, ``spec.completions``, ``spec.activeDeadlineSeconds``
  and ``spec.backoffLimit`` must be integers >= 0
  (``spec.parallelism: Invalid value: -1: must be greater than or equal to 0``);
* the pod template is validated as a PodTemplateSpec (containers, names,
  resources, restart policy), paths rooted at ``spec.template``;
* the template's ``restartPolicy`` must be ``OnFailure`` or ``Never``: unset
  or ``Always`` (the Pod default) is ``spec.template.spec.restartPolicy:
  Required value: valid values: "OnFailure", "Never"``; any other value is
  ``Unsupported value: "<v>": supported values: "OnFailure", "Never"``; with a
  ``podFailurePolicy`` only ``Never`` is allowed (``Invalid value:
  "OnFailure": only "Never" is supported when podFailurePolicy is specified``).

Each returned cause reads ``<field path>: <detail>``; the caller reports them as
``Job.batch "<name>" is invalid: <causes>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.admission.podtemplate import pod_template_errors
from volcano.admission.schema import go_value

__all__ = ["validate_batch_job"]

_NON_NEGATIVE = ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit")
_JOB_RESTART = ("OnFailure", "Never")


def _non_negative(spec: Mapping[str, Any], field: str) -> list[str]:
    value = spec.get(field)
    if value is None:
        return []
    if isinstance(value, bool) or not isinstance(value, int):
        return [f"spec.{field}: Invalid value: {go_value(str(value))}: must be an integer"]
    if value < 0:
        return [f"spec.{field}: Invalid value: {value}: must be greater than or equal to 0"]
    return []


def validate_batch_job(job: Mapping[str, Any]) -> list[str]:
    """The validation causes of a batch/v1 Job (empty when valid); see the module docstring."""
    spec = job.get("spec")
    if not isinstance(spec, Mapping):
        return ["spec.template.spec.containers: Required value"]
    causes: list[str] = []
    for field in _NON_NEGATIVE:
        causes.extend(_non_negative(spec, field))
    template = spec.get("template")
    causes.extend(f"spec.{cause}" for cause in pod_template_errors(template))
    pod_spec = (template.get("spec") if isinstance(template, Mapping) else None) or {}
    restart = pod_spec.get("restartPolicy") if isinstance(pod_spec, Mapping) else None
    path = "spec.template.spec.restartPolicy"
    valid = ", ".join(go_value(v) for v in _JOB_RESTART)
    if restart in (None, "", "Always"):
        causes.append(f"{path}: Required value: valid values: {valid}")
    elif restart not in _JOB_RESTART:
        causes.append(f"{path}: Unsupported value: {go_value(str(restart))}: supported values: {valid}")
    elif spec.get("podFailurePolicy") is not None and restart != "Never":
        causes.append(f'{path}: Invalid value: {go_value(str(restart))}: only "Never" is supported when '
                      "podFailurePolicy is specified")
    return causes
