"""The in-memory Kubernetes API server fake: store, watch, admission, garbage collection, events.

Public API: ``ApiServer`` (implements ``Client``), ``ApiError``, ``Client``,
``WatchEvent``, ``WatchHandle``, ``Obj``, ``AdmissionChain``,
``AdmissionRequest``, ``EventRecorder``, ``merge_patch``.
"""

from volcano.apiserver.admission import AdmissionChain, AdmissionRequest
from volcano.apiserver.client import Client, Obj, WatchEvent, WatchHandle
from volcano.apiserver.errors import ApiError
from volcano.apiserver.events import EventRecorder
from volcano.apiserver.patch import merge_patch
from volcano.apiserver.server import CONFLICT_MESSAGE, ApiServer

__all__ = [
    "CONFLICT_MESSAGE",
    "AdmissionChain",
    "AdmissionRequest",
    "ApiError",
    "ApiServer",
    "Client",
    "EventRecorder",
    "Obj",
    "WatchEvent",
    "WatchHandle",
    "merge_patch",
]
