"""Which fields a list or watch may select on, per kind, as kube-apiserver's field label conversion.

A real API server converts every term of a ``fieldSelector`` with the kind's field label
conversion before it reads any object; a label the kind does not index is refused with 400
BadRequest whose message is the conversion's error, before anything is listed or watched:

* kinds with no conversion of their own (ConfigMap, Deployment, Lease, ...) accept
  ``metadata.name`` and ``metadata.namespace`` and refuse the rest with
  ``"<label>" is not a known field selector: only "metadata.name", "metadata.namespace"``;
* the core kinds with a conversion (Pod, Node, Namespace, Secret, Service, Event,
  ReplicationController) accept their own list and refuse the rest with
  ``field label not supported: <label>`` (Node and Namespace have no ``metadata.namespace``);
* ``batch/v1`` Job adds ``status.successful`` (``field label "<label>" not supported for
  batchv1.Job``);
* custom resources (Volcano's kinds) accept ``metadata.name``, and ``metadata.namespace``
  when namespaced (``field label not supported: <label>``).

``convert(info, selector)`` returns the selector with each term reading what the server indexes
for its label: a pod's ``spec.host`` is ``spec.nodeName``, an Event's ``source`` is
``source.component``, a Job's ``status.successful`` its ``status.succeeded`` (``0`` when unset),
and a boolean field absent from the object reads ``false``.
"""

from __future__ import annotations

from collections.abc import Callable

from volcano.api.kinds import KindInfo
from volcano.api.selectors import FieldRequirement, FieldSelector, SelectorError
from volcano.apiserver.errors import bad_request

__all__ = ["convert", "selection", "supported"]

_META = ("metadata.name", "metadata.namespace")
_POD = (*_META, "spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
        "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName",
        "spec.host")
_EVENT = (*_META, "involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
          "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
          "reportingComponent", "source", "type")


def _not_supported(label: str) -> str:
    return f"field label not supported: {label}"


def _not_known(label: str) -> str:
    return f'"{label}" is not a known field selector: only "metadata.name", "metadata.namespace"'


def _not_batch(label: str) -> str:
    return f'field label "{label}" not supported for batchv1.Job'


_CONVERSIONS: dict[str, tuple[tuple[str, ...], Callable[[str], str]]] = {
    "Pod": (_POD, _not_supported),
    "Node": (("metadata.name", "spec.unschedulable"), _not_supported),
    "Namespace": (("metadata.name", "status.phase"), _not_supported),
    "Secret": (("type", *_META), _not_supported),
    "Service": ((*_META, "spec.clusterIP", "spec.type"), _not_supported),
    "Event": (_EVENT, _not_supported),
    "ReplicationController": ((*_META, "status.replicas"), _not_supported),
    "Job.batch": ((*_META, "status.successful"), _not_batch),
}
# (label) -> (the object's path it reads, the value when that path is absent)
_READS: dict[str, tuple[str, str]] = {
    "spec.host": ("spec.nodeName", ""),
    "source": ("source.component", ""),
    "status.successful": ("status.succeeded", "0"),
    "status.replicas": ("status.replicas", "0"),
    "spec.hostNetwork": ("spec.hostNetwork", "false"),
    "spec.unschedulable": ("spec.unschedulable", "false"),
}


def _custom(info: KindInfo) -> bool:
    return info.group.endswith("volcano.sh")


def supported(info: KindInfo) -> tuple[tuple[str, ...], Callable[[str], str]]:
    """The field labels ``info``'s kind accepts and the message of the error for any other."""
    if _custom(info):
        return (_META if info.namespaced else ("metadata.name",)), _not_supported
    return _CONVERSIONS.get(info.key, (_META, _not_known))


def convert(info: KindInfo, selector: FieldSelector) -> FieldSelector:
    """``selector`` as the server evaluates it for ``info``'s kind; ``SelectorError`` carrying
    the real server's message for the first term whose label the kind does not support."""
    accepted, refuse = supported(info)
    terms = []
    for req in selector.requirements:
        label = ".".join(req.path)
        if label not in accepted:
            raise SelectorError(refuse(label))
        path, missing = _READS.get(label, (label, ""))
        terms.append(FieldRequirement(tuple(path.split(".")), req.op, req.value, missing))
    return FieldSelector(terms)


def selection(info: KindInfo, selector: FieldSelector | None) -> FieldSelector | None:
    """``convert`` for a list or watch: None stays None; an unsupported label is 400 BadRequest."""
    if selector is None:
        return None
    try:
        return convert(info, selector)
    except SelectorError as exc:
        raise bad_request(str(exc)) from None
