"""The Kubernetes REST API over HTTP, in front of the in-memory ``ApiServer``.

``ApiApp`` is an ASGI application serving the API (discovery, OpenAPI, CRUD,
watch, Tables, subresources) from an ``ApiServer`` on the event loop that owns
it; ``HttpServer`` serves it with uvicorn; ``write_kubeconfig`` points clients
at it. ``volcano.serve`` composes a whole cluster behind it (``volcano serve``).
"""

from volcano.httpapi.app import ApiApp, Limits
from volcano.httpapi.kubeconfig import kubeconfig_text, write_kubeconfig
from volcano.httpapi.server import HttpServer, new_event_loop
from volcano.httpapi.webhookcalls import ExternalAdmission

__all__ = ["ApiApp", "ExternalAdmission", "HttpServer", "Limits", "kubeconfig_text", "new_event_loop",
           "write_kubeconfig"]
