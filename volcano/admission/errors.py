"""How admission denials reach clients, shaped as a real API server reports them.

* A webhook denial (the webhook answered ``allowed: false`` with only a
  message) is reported by Kubernetes' webhook plugin as 403 ``Forbidden``:
  ``<resource> "<name>" is forbidden: admission webhook "<webhook>" denied the
  request: <message>``, with details naming group, resource and object.
"""

from __future__ import annotations

from volcano.api.kinds import KindInfo
from volcano.apiserver.errors import ApiError

__all__ = ["resource_of", "webhook_denied"]


def resource_of(kind: KindInfo) -> str:
    """The resource as Kubernetes names it in messages: ``pods``, ``jobs.batch.volcano.sh``."""
    return f"{kind.plural}.{kind.group}" if kind.group else kind.plural


def webhook_denied(kind: KindInfo, name: str, webhook: str, message: str) -> ApiError:
    """The error a client sees when ``webhook`` denies a write of ``kind``/``name`` with ``message``."""
    shown = name or "Unknown"
    denied = f'admission webhook "{webhook}" denied the request'
    text = f"{denied}: {message}" if message else f"{denied} without explanation"
    return ApiError(403, "Forbidden", f'{resource_of(kind)} "{shown}" is forbidden: {text}',
                    {"group": kind.group, "kind": kind.plural, "name": shown})
