"""The informer factory: one shared informer per kind."""

from __future__ import annotations

from volcano.api.kinds import UnknownKindError, resolve_kind
from volcano.apiserver.client import Client
from volcano.informers.informer import Informer
from volcano.informers.poison import UnusableObjects
from volcano.sim.clock import Clock

__all__ = ["InformerFactory"]


class InformerFactory:
    """Creates informers on first request and shares them: ``informer("Pod")`` and
    ``informer("pods")`` return the same object. ``unusable`` guards every handler (see
    ``volcano.informers.poison``); set ``unusable.reporter`` to record its Warning Events."""

    def __init__(self, client: Client, clock: Clock) -> None:
        self._client = client
        self._clock = clock
        self._informers: dict[str, Informer] = {}
        self.unusable = UnusableObjects()

    def informer(self, kind: str) -> Informer:
        """The shared informer of ``kind`` (any name ``volcano.api.kinds.resolve_kind`` accepts)."""
        try:
            key = resolve_kind(kind).key
        except UnknownKindError as exc:
            raise ValueError(f"informer: {exc}") from None
        inf = self._informers.get(key)
        if inf is None:
            inf = self._informers[key] = Informer(self._client, self._clock, key, unusable=self.unusable)
        return inf

    def started(self) -> list[str]:
        """Kind keys of the informers created so far, sorted."""
        return sorted(self._informers)

    def resync(self) -> None:
        """Resync every informer (``Informer.resync``), in kind order."""
        for key in sorted(self._informers):
            self._informers[key].resync()

    def stop(self) -> None:
        """Stop every informer's watch."""
        for key in sorted(self._informers):
            self._informers[key].stop()
