"""The skeleton every controller shares: watches declared as data, a work queue, an idempotent start.

A controller subclasses ``Controller[K]`` (``K`` is its work-queue key) and declares:

* ``COMPONENT``: its name (work queue and trace component);
* ``WATCHES``: kind -> handler, as data in the class body (``None`` for a kind it only
  reads from its informer cache), a read-only ``MappingProxyType``; handlers are
  ``handler(self, event, obj, old)``;
* ``INDEXES``: (kind, index name, index function) the controller's reads need;
* ``process(key)``: one reconcile, run from the work queue at ``Priority.CONTROLLER``
  (an ``ApiError`` is retried with the queue's per-key backoff).

``start()`` (idempotent) creates the informers of every watched kind in declaration
order, adds the indexes (an index another instance already added is reused), then
registers the handlers. A controller is built as every component is:
``X(client, informers, clock, *, streams, trace, recorder)``::

    >>> from types import MappingProxyType
    >>> from volcano.apiserver import ApiServer
    >>> from volcano.controllers.base import Controller
    >>> from volcano.informers import InformerFactory
    >>> from volcano.sim import RandomStreams, SimClock
    >>> class Seen(Controller[str]):
    ...     COMPONENT = "seen-controller"
    ...     def _on_node(self, event, node, old):
    ...         self.queue.add(node["metadata"]["name"])
    ...     WATCHES = MappingProxyType({"Node": _on_node})
    ...     def process(self, key):
    ...         self.seen.append(key)
    >>> clock = SimClock()
    >>> server = ApiServer(clock, RandomStreams(0))
    >>> c = Seen(server, InformerFactory(server, clock), clock)
    >>> c.seen = []
    >>> c.start(); c.start()  # idempotent
    >>> _ = server.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    >>> clock.run(until_ms=1)
    1
    >>> c.seen
    ['n1']
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import partial
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from volcano.apiserver.client import Client, Obj
from volcano.apiserver.errors import ApiError
from volcano.informers import Informer, InformerFactory, WorkQueue
from volcano.informers.informer import Handler
from volcano.sim import Clock, Priority, RandomStreams, Trace

__all__ = ["Controller", "IndexFn", "Recorder", "WatchHandler"]

K = TypeVar("K", bound=Hashable)

WatchHandler = Callable[[Any, str, Obj, Obj | None], None]
"""A handler as written in a controller's class body: ``(self, event, obj, old)``."""
IndexFn = Callable[[Obj], list[str]]
"""An informer index function: the values under which an object is found."""


class Recorder(Protocol):
    """What a controller records events through (``volcano.apiserver.EventRecorder``)."""

    def event(self, obj: Obj, type: str, reason: str, message: str) -> None:
        """Record an event of ``type`` (Normal, Warning) on ``obj``."""


class Controller(Generic[K]):
    """Base of the controllers (see the module docstring)."""

    COMPONENT: ClassVar[str] = ""
    WATCHES: ClassVar[Mapping[str, WatchHandler | None]] = {}
    INDEXES: ClassVar[Sequence[tuple[str, str, IndexFn]]] = ()

    def __init__(self, client: Client, informers: InformerFactory, clock: Clock, *,
                 streams: RandomStreams | None = None, trace: Trace | None = None,
                 recorder: Recorder | None = None) -> None:
        self.client, self.informers, self.clock = client, informers, clock
        self.streams = streams
        self.trace = trace if trace is not None else Trace(enabled=False)
        """Where decisions are recorded (a disabled trace when none is given)."""
        self.recorder = recorder
        self.queue: WorkQueue[K] = WorkQueue(clock, self.process, name=self.COMPONENT,
                                             priority=Priority.CONTROLLER)
        self._started = False

    def watches(self) -> Mapping[str, WatchHandler | None]:
        """The watches ``start`` registers (default ``WATCHES``; a controller whose
        watches depend on its options narrows them here)."""
        return self.WATCHES

    def start(self) -> None:
        """Create the watched informers, add the indexes, register the handlers (idempotent)."""
        if self._started:
            return
        self._started = True
        watches = self.watches()
        for kind in watches:
            self.informers.informer(kind)
        for kind, name, fn in self.INDEXES:
            with contextlib.suppress(ValueError):  # another instance of this controller added it
                self.informers.informer(kind).add_index(name, fn)
        for kind, handler in watches.items():
            if handler is not None:
                bound: Handler = partial(handler, self)
                self.informers.informer(kind).add_handler(bound)

    def informer(self, kind: str) -> Informer:
        """The shared informer of ``kind``."""
        return self.informers.informer(kind)

    def process(self, key: K) -> None:
        """Reconcile ``key`` (run from the work queue)."""
        raise NotImplementedError

    def create_once(self, obj: Obj, namespace: str | None = None) -> bool:
        """Create ``obj``; False when it already exists (another sync made it first)."""
        try:
            self.client.create(obj, namespace=namespace)
        except ApiError as err:
            if err.reason != "AlreadyExists":
                raise
            return False
        return True

    def record(self, event: str, obj: str, detail: str = "") -> None:
        """Append a decision to the trace, as this controller's component."""
        self.trace.record(self.clock.now_ms, self.COMPONENT, event, obj, detail)

    def event(self, obj: Obj | None, type: str, reason: str, message: str) -> None:
        """Record a Kubernetes event on ``obj`` through the recorder (if any, and if ``obj`` is known)."""
        if self.recorder is not None and obj is not None:
            self.recorder.event(obj, type, reason, message)
