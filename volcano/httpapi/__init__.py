"""The Kubernetes REST API over HTTP, in front of the in-memory ``ApiServer``.

``ApiApp`` is an ASGI application serving the API (discovery, OpenAPI, CRUD,
watch, Tables, subresources) from an ``ApiServer`` on the event loop that owns
it; ``HttpServer`` serves it with uvicorn; ``write_kubeconfig`` points clients
at it. ``volcano.serve`` composes a whole cluster behind it (``volcano serve``).

The names below are loaded on first use (PEP 562), so that importing one light
submodule (``volcano.httpapi.tables``, whose Table columns ``vcctl`` shares) does
not load the ASGI application and uvicorn.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from volcano.httpapi.app import ApiApp, Limits
    from volcano.httpapi.kubeconfig import kubeconfig_text, write_kubeconfig
    from volcano.httpapi.server import HttpServer, new_event_loop
    from volcano.httpapi.webhookcalls import ExternalAdmission

__all__ = ["ApiApp", "ExternalAdmission", "HttpServer", "Limits", "kubeconfig_text", "new_event_loop",
           "write_kubeconfig"]

_HOME = {"ApiApp": "app", "Limits": "app", "kubeconfig_text": "kubeconfig", "write_kubeconfig": "kubeconfig",
         "HttpServer": "server", "new_event_loop": "server", "ExternalAdmission": "webhookcalls"}


def __getattr__(name: str) -> Any:
    """Load an exported name from its submodule on first use."""
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    globals()[name] = value
    return value
