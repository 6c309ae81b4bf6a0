"""The decision trace: what each component decided, and when.

Components append ``TraceRecord`` rows; tests read them, filter them, and
compare whole traces of two runs to prove determinism.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

__all__ = ["Trace", "TraceRecord"]


class TraceRecord(NamedTuple):
    """One decision: simulated time (ms), component, event, object key, detail."""

    time_ms: int
    component: str
    event: str
    object: str
    detail: str

    def format(self) -> str:
        """One readable line: ``12.345s scheduler Bind default/pod-1 node-3``."""
        return f"{self.time_ms / 1000:.3f}s {self.component} {self.event} {self.object} {self.detail}".rstrip()


class Trace:
    """An append-only list of decisions. ``enabled=False`` makes ``record`` a no-op."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._records: list[TraceRecord] = []

    def record(self, time_ms: int, component: str, event: str, obj: str = "", detail: str = "") -> None:
        """Append one decision."""
        if self.enabled:
            self._records.append(TraceRecord(time_ms, component, event, obj, detail))

    def __iter__(self) -> Iterator[TraceRecord]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def since(self, start: int) -> list[TraceRecord]:
        """The records appended after the first ``start`` ones."""
        return self._records[start:]

    def records(self, component: str | None = None, event: str | None = None,
                obj: str | None = None) -> list[TraceRecord]:
        """Records matching every given field."""
        return [r for r in self._records
                if (component is None or r.component == component)
                and (event is None or r.event == event)
                and (obj is None or r.object == obj)]

    def lines(self) -> list[str]:
        """The trace as formatted lines (what determinism tests compare)."""
        return [r.format() for r in self._records]
