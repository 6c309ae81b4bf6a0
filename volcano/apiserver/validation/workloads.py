"""Kubernetes' validation of workload kinds: apps/v1 ReplicaSet, Deployment, StatefulSet, core/v1
ReplicationController and batch/v1 Job (``pkg/apis/{apps,batch,core}/validation``).

Controllers: a selector is required and not empty, the template's labels must
match it (``spec.template.metadata.labels: Invalid value: ...: `selector` does
not match template `labels```), ``replicas`` and the other counters are not
negative, and the template is a valid pod template whose ``restartPolicy`` is
``Always``. A Deployment's strategy is checked too.

batch/v1 Job: ``parallelism``, ``completions``, ``activeDeadlineSeconds`` and
``backoffLimit`` are not negative, the template is valid, and its
``restartPolicy`` is ``OnFailure`` or ``Never`` (unset or ``Always``:
``Required value: valid values: "OnFailure", "Never"``; with a
``podFailurePolicy`` only ``Never``).

Status writes of the controllers (``ValidateDeploymentStatus``,
``ValidateReplicaSetStatus``, ``ValidateStatefulSetStatus``,
``ValidateReplicationControllerStatus``): every counter is not negative, the
ready/available/updated counters are not above ``status.replicas`` and
``availableReplicas`` is not above ``readyReplicas``. A missing counter is 0, as
in the Go struct.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.api.selectors import SelectorError, label_selector_from_dict
from volcano.apiserver.validation.field import FieldError, Shown, go_value, invalid, not_supported, required
from volcano.apiserver.validation.pod import label_selector_errors, pod_template_errors

__all__ = ["batch_job_errors", "controller_errors", "controller_status_errors"]

_JOB_RESTART = ("OnFailure", "Never")
_COUNTERS = ("replicas", "minReadySeconds", "revisionHistoryLimit")


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _non_negative(spec: Mapping[str, Any], fields: tuple[str, ...]) -> list[FieldError]:
    return [invalid(f"spec.{f}", spec[f], "must be greater than or equal to 0")
            for f in fields if isinstance(spec.get(f), int) and spec[f] < 0]


def _go_map(labels: Mapping[str, Any]) -> Shown:
    return Shown("map[string]string{" + ", ".join(f"{go_value(str(k))}:{go_value(str(v))}"
                                            for k, v in sorted(labels.items())) + "}")


def _selector_errors(kind: str, spec: Mapping[str, Any], template_labels: Mapping[str, Any]) -> list[FieldError]:
    selector = spec.get("selector")
    if kind == "ReplicationController":  # a plain map, defaulted from the template's labels
        sel = _mapping(selector) or template_labels
        if sel and any(template_labels.get(k) != v for k, v in sel.items()):
            return [invalid("spec.template.metadata.labels", _go_map(template_labels),
                            "`selector` does not match template `labels`")]
        return []
    if not isinstance(selector, Mapping):
        return [required("spec.selector")]
    errs = label_selector_errors(selector, "spec.selector")
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        errs.append(invalid("spec.selector", _go_map(selector), f"empty selector is invalid for {kind.lower()}"))
        return errs
    if errs:
        return errs
    try:
        matches = label_selector_from_dict(selector).matches(template_labels)
    except SelectorError:
        return errs
    if not matches:
        errs.append(invalid("spec.template.metadata.labels", _go_map(template_labels),
                            "`selector` does not match template `labels`"))
    return errs


def _strategy_errors(spec: Mapping[str, Any]) -> list[FieldError]:
    strategy = _mapping(spec.get("strategy"))
    kind = strategy.get("type")
    if kind and kind not in ("Recreate", "RollingUpdate"):
        return [not_supported("spec.strategy.type", kind, ("Recreate", "RollingUpdate"))]
    rolling = _mapping(strategy.get("rollingUpdate"))
    errs: list[FieldError] = []
    for field in ("maxUnavailable", "maxSurge"):
        value = rolling.get(field)
        if isinstance(value, int) and value < 0:
            errs.append(invalid(f"spec.strategy.rollingUpdate.{field}", value, "must be greater than or equal to 0"))
        elif isinstance(value, str) and not (value.endswith("%") and value[:-1].isdigit()):
            errs.append(invalid(f"spec.strategy.rollingUpdate.{field}", value,
                                "a valid percent string must be a numeric string followed by an ending '%' "
                                "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"))
    if rolling.get("maxUnavailable") in (0, "0%") and rolling.get("maxSurge") in (0, "0%"):
        errs.append(invalid("spec.strategy.rollingUpdate.maxUnavailable", rolling["maxUnavailable"],
                            "may not be 0 when `maxSurge` is 0"))
    return errs


def controller_errors(kind: str, obj: Mapping[str, Any]) -> list[FieldError]:
    """Validation errors of a ReplicaSet, Deployment, StatefulSet or ReplicationController."""
    spec = _mapping(obj.get("spec"))
    template = _mapping(spec.get("template"))
    labels = _mapping(_mapping(template.get("metadata")).get("labels"))
    errs = _non_negative(spec, _COUNTERS)
    errs.extend(_selector_errors(kind, spec, labels))
    if kind == "Deployment":
        errs.extend(_strategy_errors(spec))
    if "template" not in spec and kind != "ReplicationController":
        errs.append(required("spec.template"))
        return errs
    if template:
        errs.extend(pod_template_errors(template, "spec.template"))
        restart = _mapping(template.get("spec")).get("restartPolicy") or "Always"
        if restart != "Always":
            errs.append(not_supported("spec.template.spec.restartPolicy", restart, ("Always",)))
    return errs


def batch_job_errors(job: Mapping[str, Any]) -> list[FieldError]:
    """Validation errors of a batch/v1 Job (see the module docstring)."""
    spec = _mapping(job.get("spec"))
    errs = _non_negative(spec, ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit"))
    template = spec.get("template")
    errs.extend(pod_template_errors(template, "spec.template"))
    restart = _mapping(_mapping(template).get("spec")).get("restartPolicy")
    path = "spec.template.spec.restartPolicy"
    if restart in (None, "", "Always"):
        errs.append(required(path, "valid values: " + ", ".join(go_value(v) for v in _JOB_RESTART)))
    elif restart not in _JOB_RESTART:
        errs.append(not_supported(path, restart, _JOB_RESTART))
    elif spec.get("podFailurePolicy") is not None and restart != "Never":
        errs.append(invalid(path, restart, 'only "Never" is supported when podFailurePolicy is specified'))
    return errs


_StatusRule = tuple[tuple[str, ...], tuple[str, ...], str]
_STATUS: dict[str, _StatusRule] = {
    # kind: (non-negative counters in Go's order, counters not above status.replicas, availableReplicas'
    # message when above readyReplicas)
    "Deployment": (("observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas",
                    "unavailableReplicas", "collisionCount"),
                   ("updatedReplicas", "readyReplicas", "availableReplicas"), "cannot be greater than readyReplicas"),
    "ReplicaSet": (("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"),
                   ("fullyLabeledReplicas", "readyReplicas", "availableReplicas"),
                   "cannot be greater than readyReplicas"),
    "StatefulSet": (("replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas",
                     "observedGeneration", "collisionCount"),
                    ("readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"),
                    "cannot be greater than status.readyReplicas"),
}
_STATUS["ReplicationController"] = _STATUS["ReplicaSet"]


def controller_status_errors(kind: str, obj: Mapping[str, Any]) -> list[FieldError]:
    """Validation errors of a status write of a Deployment, ReplicaSet, StatefulSet or
    ReplicationController (see the module docstring)."""
    status = _mapping(obj.get("status"))
    counters, bounded, above_ready = _STATUS[kind]

    def count(name: str) -> int:
        value = status.get(name)
        return value if isinstance(value, int) else 0

    errs = [invalid(f"status.{f}", count(f), "must be greater than or equal to 0")
            for f in counters if count(f) < 0]
    errs.extend(invalid(f"status.{f}", count(f), "cannot be greater than status.replicas")
                for f in bounded if count(f) > count("replicas"))
    if count("availableReplicas") > count("readyReplicas"):
        errs.append(invalid("status.availableReplicas", count("availableReplicas"), above_ready))
    return errs
