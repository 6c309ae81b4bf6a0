"""The Queue controller (Volcano's ``queue-controller``): queue states and queue Commands.

A queue's ``status.state`` is one of ``Open``, ``Closing``, ``Closed`` and
``Unknown`` (``""`` behaves as Open). Each request names a queue and an
action; the queue's current state decides what the action does:

==========  ============  =====================================  =====================================
state       OpenQueue     CloseQueue                             SyncQueue (any other action)
==========  ============  =====================================  =====================================
"" / Open   sync -> Open  close -> Closed (no PGs) else Closing  sync -> Open
Closed      open -> Open  sync -> Closed                         sync -> Closed
Closing     open -> Open  sync -> Closed (no PGs) else Closing   sync -> Closed (no PGs) else Closing
Unknown     open -> Open  close -> Closed (no PGs) else Closing  sync -> Unknown
==========  ============  =====================================  =====================================

"PGs" are the PodGroups whose ``spec.queue`` names the queue, in any phase,
so a Closing queue becomes Closed only once all its PodGroups are deleted.

* **sync** sets ``spec.parent`` to ``root`` when it is empty (not for
  ``root``), counts the queue's PodGroups by phase (kept as metrics, see
  ``podgroup_counts``; since Volcano v1.11 they are not written into the
  status), writes ``status.state`` only when it changes, then follows the
  parent: a parent that is Closed/Closing closes this queue (annotated
  ``volcano.sh/closed-by-parent=true``); an Open parent reopens a child it
  had closed.
* **open** refuses while a parent other than ``root`` is Closing/Closed
  ("Failed to open queue <q> because its parent queue <p> is closing or
  closed. Open the parent queue first.", retried), reopens the children the
  queue had closed, writes Open and sets ``closed-by-parent=false``.
* **close** never closes ``root``; it closes every child not already
  Closed/Closing (annotating it ``closed-by-parent=true``), then writes the
  new state and records a Normal ``CloseQueue`` event "Close queue succeed".

Requests come from Queue additions and parent changes, PodGroup additions,
phase changes and deletions (``SyncQueue``), and Commands targeting a Queue
(``target.apiVersion: scheduling.volcano.sh/v1beta1``, ``kind: Queue``): the
Command is deleted first, then its ``action`` is executed (at most once).
A failing request is retried with backoff up to ``max_requeue`` (15) times,
then dropped with a Warning event ``<action>`` "<action> queue failed for
<error>". The controller never deletes queues (``root`` and ``default``
included) nor touches the PodGroups or jobs of a closed queue.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from volcano.api import accessors
from volcano.apiserver.client import Client, Obj
from volcano.apiserver.errors import ApiError
from volcano.controllers.base import Controller, Recorder
from volcano.informers import InformerFactory, WorkQueue
from volcano.sim import Clock, Priority, RandomStreams, Trace

__all__ = [
    "CLOSED_BY_PARENT_ANNOTATION",
    "CLOSE_QUEUE",
    "OPEN_QUEUE",
    "QUEUE_STATES",
    "SYNC_QUEUE",
    "QueueController",
    "QueueSyncError",
    "next_queue_state",
]

COMPONENT = "queue-controller"

OPEN_QUEUE = "OpenQueue"
"""Action that opens a queue."""
CLOSE_QUEUE = "CloseQueue"
"""Action that closes a queue."""
SYNC_QUEUE = "SyncQueue"
"""Action that re-evaluates a queue's state."""
CLOSED_BY_PARENT_ANNOTATION = "volcano.sh/closed-by-parent"
"""``true`` on a queue closed because its parent closed, ``false`` once it is reopened."""
QUEUE_STATES = ("Open", "Closing", "Closed", "Unknown")
"""The states a queue can be in (``""`` counts as Open)."""

_QUEUE_API_VERSION = "scheduling.volcano.sh/v1beta1"
_PG_PHASES = ("Pending", "Running", "Unknown", "Inqueue", "Completed")
_CLOSED = ("Closed", "Closing")

StateFn = Callable[[str, int], str]
"""Computes the new state from the current one and the number of the queue's PodGroups."""


class QueueSyncError(Exception):
    """A queue request could not be completed (retried with backoff)."""


def _state(queue: Mapping[str, Any]) -> str:
    return str(accessors.status(queue).get("state") or "")


def _parent(queue: Mapping[str, Any]) -> str:
    return str((queue.get("spec") or {}).get("parent") or "")


def _closed_or_empty(_: str, pgs: int) -> str:
    return "Closed" if pgs == 0 else "Closing"


def _sync_default(current: str, pgs: int) -> str:
    # The per-state "sync" rules of Volcano's queue state machine.
    if current in ("", "Open"):
        return "Open"
    if current == "Closed":
        return "Closed"
    if current == "Closing":
        return "Closed" if pgs == 0 else "Closing"
    return "Unknown"


def _plan(current: str, action: str) -> tuple[str, StateFn]:
    """Which operation (``sync``/``open``/``close``) runs for ``action`` in state ``current``."""
    if action == OPEN_QUEUE:
        return ("sync" if current in ("", "Open") else "open"), (lambda _c, _n: "Open")
    if action == CLOSE_QUEUE:
        if current in ("", "Open", "Unknown"):
            return "close", _closed_or_empty
        if current == "Closed":
            return "sync", (lambda _c, _n: "Closed")
        return "sync", _closed_or_empty
    return "sync", _sync_default


def next_queue_state(current: str, action: str, podgroups: int) -> str:
    """The state the table in the module docstring gives for ``action`` on a queue in state ``current``
    with ``podgroups`` PodGroups (ignoring hierarchy effects and the ``root`` exception).

    Raises ``ValueError`` for a state outside ``QUEUE_STATES`` and ``""``.
    """
    if current not in ("", *QUEUE_STATES):
        raise ValueError(f"queue state {current!r} is invalid (must be one of {', '.join(QUEUE_STATES)})")
    _, fn = _plan(current, action)
    return fn(current, podgroups)


class QueueController(Controller[tuple[str, str]]):
    """Maintains queue states and executes queue Commands (see the module docstring).

    Requests are ``(queue name, action)`` keys on a ``WorkQueue`` at
    ``Priority.CONTROLLER``; Commands have a queue of their own.
    """

    COMPONENT = COMPONENT

    def __init__(self, client: Client, informers: InformerFactory, clock: Clock, *,
                 streams: RandomStreams | None = None, trace: Trace | None = None,
                 recorder: Recorder | None = None, max_requeue: int = 15) -> None:
        super().__init__(client, informers, clock, streams=streams, trace=trace, recorder=recorder)
        self.max_requeue = max_requeue
        self.command_queue: WorkQueue[tuple[str, str]] = WorkQueue(
            clock, self._process_command, name=COMPONENT + "-commands", priority=Priority.CONTROLLER)
        self._podgroups: dict[str, set[str]] = {}
        self._pg_phase: dict[str, tuple[str, str]] = {}
        """PodGroup key -> (queue, phase), as the last event showed it."""
        self._places: dict[tuple[str, str], tuple[str, str]] = {}
        """Each (queue, phase) tuple once, shared by the ``_pg_phase`` entries."""
        self._phase_counts: dict[str, dict[str, int]] = {}
        """Queue -> phase -> PodGroups: kept per event, so a sync costs O(1) however many PodGroups."""
        self._pg_counts: dict[str, dict[str, int]] = {}
        self._commands: dict[tuple[str, str], Obj] = {}
        self._failures: dict[tuple[str, str], int] = {}
        self._cmd_failures: dict[tuple[str, str], int] = {}

    def podgroup_counts(self, queue: str) -> dict[str, int]:
        """PodGroups of ``queue`` by phase at its last sync (what Volcano publishes as metrics)."""
        return dict(self._pg_counts.get(queue, dict.fromkeys(_PG_PHASES, 0)))

    # -- handlers -------------------------------------------------------------------------------

    def _enqueue(self, name: str, action: str) -> None:
        self.queue.add((name, action))

    def _on_queue(self, event: str, queue: Obj, old: Obj | None) -> None:
        name = str(accessors.meta(queue).get("name", ""))
        if event == "ADDED" or (event == "MODIFIED" and old is not None and _parent(old) != _parent(queue)):
            self._enqueue(name, SYNC_QUEUE)
        elif event == "DELETED":
            for key in sorted(self._podgroups.pop(name, set())):
                self._count_phase(key, None, "")
            self._pg_counts.pop(name, None)

    def _on_podgroup(self, event: str, pg: Obj, old: Obj | None) -> None:
        queue = str((pg.get("spec") or {}).get("queue") or "")
        # Interned: the kubelet keeps the same PodGroup key (one string per PodGroup, not two).
        key = sys.intern(f"{accessors.meta(pg).get('namespace', '')}/{accessors.meta(pg).get('name', '')}")
        if event == "DELETED":
            self._podgroups.get(queue, set()).discard(key)
            self._count_phase(key, None, "")
        elif event == "MODIFIED" and old is not None and \
                accessors.phase(old) == accessors.phase(pg):
            return
        else:
            self._podgroups.setdefault(queue, set()).add(key)
            self._count_phase(key, queue, accessors.phase(pg))
        self._enqueue(queue, SYNC_QUEUE)

    def _count_phase(self, key: str, queue: str | None, phase: str) -> None:
        """Move PodGroup ``key`` to ``phase`` of ``queue`` in the per-queue counts (``None``: deleted)."""
        before = self._pg_phase.pop(key, None)
        if before is not None:
            counts = self._phase_counts.get(before[0], {})
            left = counts.get(before[1], 0) - 1
            if left > 0:
                counts[before[1]] = left
            else:
                counts.pop(before[1], None)
        if queue is not None:
            place = (queue, phase)
            # One tuple per distinct (queue, phase), shared by the PodGroups there (memory per pod).
            self._pg_phase[key] = self._places.setdefault(place, place)
            counts = self._phase_counts.setdefault(queue, {})
            counts[phase] = counts.get(phase, 0) + 1

    def _on_command(self, event: str, cmd: Obj, old: Obj | None) -> None:
        if event != "ADDED":
            return
        target = cmd.get("target")
        if not isinstance(target, Mapping) or target.get("apiVersion") != _QUEUE_API_VERSION \
                or target.get("kind") != "Queue":
            return
        key = (str(accessors.meta(cmd).get("namespace", "")), str(accessors.meta(cmd).get("name", "")))
        self._commands[key] = cmd
        self.command_queue.add(key)

    WATCHES = MappingProxyType({"Queue": _on_queue, "PodGroup": _on_podgroup, "Command": _on_command})

    # -- commands -------------------------------------------------------------------------------

    def _process_command(self, key: tuple[str, str]) -> None:
        cmd = self._commands.get(key)
        if cmd is None:
            return
        namespace, name = key
        try:
            self.client.delete("Command", name, namespace)
        except ApiError as err:
            if err.reason == "NotFound":
                self._commands.pop(key, None)
                self._cmd_failures.pop(key, None)
                return
            failures = self._cmd_failures.get(key, 0)
            if failures < self.max_requeue:
                self._cmd_failures[key] = failures + 1
                self.command_queue.add_rate_limited(key)
            else:
                self._commands.pop(key, None)
                self._cmd_failures.pop(key, None)
                self.command_queue.forget(key)
            return
        self._commands.pop(key, None)
        self._cmd_failures.pop(key, None)
        self.command_queue.forget(key)
        target = cmd.get("target") or {}
        action = str(cmd.get("action") or "")
        self.record("CommandIssued", str(target.get("name", "")), f"{action} via {namespace}/{name}")
        self._enqueue(str(target.get("name", "")), action)

    # -- requests -------------------------------------------------------------------------------

    def process(self, key: tuple[str, str]) -> None:
        """Run the request (queue name, action); retry a failure up to ``max_requeue`` times, then drop it."""
        try:
            self._handle(*key)
        except (ApiError, QueueSyncError) as err:
            failures = self._failures.get(key, 0)
            if failures < self.max_requeue:
                self._failures[key] = failures + 1
                self.queue.add_rate_limited(key)
                return
            self._failures.pop(key, None)
            self.queue.forget(key)
            message = err.message if isinstance(err, ApiError) else str(err)
            self.record("RequestDropped", key[0], f"{key[1]}: {message}")
            self.event(self.informer("Queue").get(key[0]), "Warning", key[1], f"{key[1]} queue failed for {message}")
            return
        self._failures.pop(key, None)
        self.queue.forget(key)

    def _handle(self, name: str, action: str) -> None:
        queue = self.informer("Queue").get(name)
        if queue is None:
            return
        current = _state(queue)
        if current not in ("", *QUEUE_STATES):
            raise QueueSyncError(f"queue {name} state {current} is invalid")
        operation, fn = _plan(current, action)
        if operation == "open":
            self._open(queue, fn)
        elif operation == "close":
            self._close(queue, fn)
        else:
            self._sync(queue, fn)

    def _podgroup_count(self, name: str) -> int:
        """PodGroups whose ``spec.queue`` names queue ``name``, in any phase."""
        return len(self._podgroups.get(name, ()))

    def _write_state(self, queue: Obj, state: str) -> Obj:
        name = accessors.meta(queue)["name"]
        updated = self.client.patch("Queue", name, {"status": {"state": state}}, subresource="status")
        self.record("QueueState", name, f"{_state(queue) or '-'} -> {state}")
        return updated

    def _sync(self, queue: Obj, fn: StateFn) -> None:
        name = str(accessors.meta(queue)["name"])
        if name != "root" and not _parent(queue):
            queue = self.client.patch("Queue", name, {"spec": {"parent": "root"}})
        live = self._phase_counts.get(name, {})
        self._pg_counts[name] = {phase: live.get(phase, 0) for phase in _PG_PHASES}
        state = fn(_state(queue), self._podgroup_count(name))
        if state != _state(queue):
            queue = self._write_state(queue, state)
        self._sync_hierarchy(queue)

    def _sync_hierarchy(self, queue: Obj) -> None:
        name = str(accessors.meta(queue)["name"])
        if name == "root":
            return
        parent_name = _parent(queue)
        parent = self.informer("Queue").get(parent_name)
        if parent is None:
            raise QueueSyncError(f'queue.scheduling.volcano.sh "{parent_name}" not found')
        state = _state(queue)
        if _state(parent) in _CLOSED:
            if state not in _CLOSED:
                self._annotate(queue, "true")
                self._enqueue(name, CLOSE_QUEUE)
        elif _state(parent) == "Open" and state in _CLOSED \
                and (accessors.meta(queue).get("annotations") or {}).get(CLOSED_BY_PARENT_ANNOTATION) == "true":
            self._enqueue(name, OPEN_QUEUE)

    def _annotate(self, queue: Obj, value: str) -> None:
        if (accessors.meta(queue).get("annotations") or {}).get(CLOSED_BY_PARENT_ANNOTATION) == value:
            return
        self.client.patch("Queue", accessors.meta(queue)["name"],
                          {"metadata": {"annotations": {CLOSED_BY_PARENT_ANNOTATION: value}}})

    def _children(self, name: str) -> list[Obj]:
        return [q for q in self.informer("Queue").list() if _parent(q) == name]

    def _open(self, queue: Obj, fn: StateFn) -> None:
        name = str(accessors.meta(queue)["name"])
        current = _state(queue)
        if current != "Open":
            parent_name = _parent(queue)
            if parent_name and parent_name != "root":
                parent = self.informer("Queue").get(parent_name)
                if parent is None:
                    raise QueueSyncError(f"Failed to get parent queue {parent_name} of queue {name}: "
                                         f'queue.scheduling.volcano.sh "{parent_name}" not found')
                if _state(parent) in _CLOSED:
                    raise QueueSyncError(f"Failed to open queue {name} because its parent queue {parent_name} "
                                         "is closing or closed. Open the parent queue first.")
            for child in self._children(name):
                if (accessors.meta(child).get("annotations") or {}).get(CLOSED_BY_PARENT_ANNOTATION) == "true":
                    self._enqueue(str(accessors.meta(child)["name"]), OPEN_QUEUE)
        state = fn(current, 0)
        if state != current:
            try:
                self._write_state(queue, state)
            except ApiError as err:
                self.event(queue, "Warning", OPEN_QUEUE,
                            f"Update queue status from {current} to {state} failed for {err.message}")
                raise
        self._annotate(queue, "false")

    def _close(self, queue: Obj, fn: StateFn) -> None:
        name = str(accessors.meta(queue)["name"])
        current = _state(queue)
        if current not in _CLOSED:
            if name == "root":
                return  # root can never be closed
            for child in self._children(name):
                if _state(child) not in _CLOSED:
                    self._annotate(child, "true")
                    self._enqueue(str(accessors.meta(child)["name"]), CLOSE_QUEUE)
        state = fn(current, self._podgroup_count(name))
        if state != current:
            try:
                updated = self._write_state(queue, state)
            except ApiError as err:
                self.event(queue, "Warning", CLOSE_QUEUE, f"Close queue failed for {err.message}")
                raise
            self.event(updated, "Normal", CLOSE_QUEUE, "Close queue succeed")
