"""The in-memory Kubernetes API server fake: store, watch, admission, garbage collection, events.

Public API: ``ApiServer`` (implements ``Client``), ``ApiError``, ``Client``,
``WatchEvent``, ``WatchHandle``, ``Obj``, ``AdmissionChain``,
``AdmissionRequest``, ``EventRecorder``, ``merge_patch``, and kubectl's client-side apply
(``kubectl_apply_patch``, ``with_last_applied``, ``LAST_APPLIED``; see ``volcano.apiserver.threeway``).
"""

from volcano.apiserver.admission import AdmissionChain, AdmissionRequest
from volcano.apiserver.client import Client, Obj, WatchEvent, WatchHandle
from volcano.apiserver.errors import ApiError
from volcano.apiserver.events import EventRecorder
from volcano.apiserver.patch import merge_patch
from volcano.apiserver.server import CONFLICT_MESSAGE, ApiServer
from volcano.apiserver.threeway import LAST_APPLIED, ApplyPatch, kubectl_apply_patch, with_last_applied

__all__ = [
    "CONFLICT_MESSAGE",
    "LAST_APPLIED",
    "AdmissionChain",
    "AdmissionRequest",
    "ApiError",
    "ApiServer",
    "ApplyPatch",
    "Client",
    "EventRecorder",
    "Obj",
    "WatchEvent",
    "WatchHandle",
    "kubectl_apply_patch",
    "merge_patch",
    "with_last_applied",
]
