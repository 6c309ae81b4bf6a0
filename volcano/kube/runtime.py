"""The owner thread of a component process: one event loop, a clock paced at the wall clock, a hand-off queue.

A component (scheduler, controllers, simulated kubelets) keeps all its state on
one thread and never takes a lock, as in the in-memory cluster. ``Runtime``
provides that thread for a process that talks to a real API server:

* **The clock.** A ``SimClock`` whose epoch and start are the process's start
  time, paced at one simulated second per wall second by the
  ``RealtimeDriver`` on the runtime's asyncio loop: components read time and
  schedule callbacks through the ``Clock`` protocol exactly as in a
  simulation, and their timestamps are real times. This module and the driver
  are where wall time enters a component process.
* **The hand-off.** Watch threads call ``dispatch(fn, *args)``; it appends the
  call to a queue (first in first out) and wakes the loop, which moves every
  queued call onto the clock as a callback at ``Priority.WATCH`` and settles
  the clock: the events of a burst are all delivered before the components'
  work queues react, once, as in memory (not one reconcile per event).
* **Errors.** A callback that raises is logged with its traceback and the
  loop goes on (``GuardedClock``), as a Go component logs a failed sync and
  carries on; the periodic callbacks (the scheduler's cycle) keep running.
* **Shutdown.** ``run`` installs SIGINT/SIGTERM handlers that ``stop`` the
  loop; cleanups registered with ``on_stop`` then run in reverse order. A stop
  also sets ``stopping`` at once, which ends a client's retry wait on the
  owner thread (an unreachable API server does not delay the shutdown).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from volcano.sim.clock import Priority, SimClock
from volcano.sim.realtime import RealtimeDriver, call_on_loop

__all__ = ["GuardedClock", "Runtime"]

T = TypeVar("T")

log = logging.getLogger("volcano.kube")


class GuardedClock(SimClock):
    """A ``SimClock`` whose callbacks cannot stop it: an exception is logged and counted."""

    def __init__(self, start_ms: int = 0, *, epoch: datetime) -> None:
        super().__init__(start_ms, epoch=epoch)
        self.errors = 0
        """Callbacks that raised."""

    def step(self) -> bool:
        """Run the next due callback (see ``SimClock.step``); an exception it raises is logged."""
        try:
            return super().step()
        except Exception:
            self.errors += 1
            log.exception("a component callback failed (the component goes on)")
            return True


def _wall_clock() -> GuardedClock:
    """A clock whose ``now_ms`` is the wall time since its epoch (the current whole second)."""
    now = datetime.now(UTC)
    return GuardedClock(now.microsecond // 1000, epoch=now.replace(microsecond=0))


class Runtime:
    """The owner loop of a component process (see the module docstring).

    ``speed`` is the clock's pace in simulated seconds per wall second: 1 for a real cluster;
    the conformance suite's process set runs every process at the server's ``--speed``."""

    def __init__(self, speed: float = 1.0) -> None:
        self.clock = _wall_clock()
        self.driver = RealtimeDriver(self.clock, speed)
        self.loop = asyncio.new_event_loop()
        self.exit_code = 0
        self._cleanups: list[Callable[[], None]] = []
        self._closed = False
        self._thread: threading.Thread | None = None
        self.dispatched = 0
        """Calls handed over through ``dispatch``."""
        self._lock = threading.Lock()
        self._pending: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []
        self._drain_scheduled = False
        self.stopping = threading.Event()
        """Set as soon as a stop is asked for (a signal included), even while the owner thread is busy:
        blocking waits on the owner thread (a client's retry) watch it to give up at once."""

    # -- any thread --------------------------------------------------------------------------------------
    def dispatch(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the owner loop as a clock callback at ``Priority.WATCH``, in call order.

        Calls that arrive together are delivered together: every call queued since the owner last
        looked runs at ``Priority.WATCH`` before the components react (their work queues run at lower
        priorities), so a burst of watch events is one batch of work, as in memory, not one
        reconcile per event."""
        if self._closed:
            return
        with self._lock:
            self._pending.append((fn, args))
            if self._drain_scheduled:
                return
            self._drain_scheduled = True
        try:
            self.loop.call_soon_threadsafe(self._drain)
        except RuntimeError:  # the loop closed meanwhile: nothing runs after shutdown
            return

    def stop(self, exit_code: int = 0) -> None:
        """Stop the loop (any thread); ``run`` returns ``exit_code`` (the first non-zero one wins)."""
        if exit_code and not self.exit_code:
            self.exit_code = exit_code
        self.stopping.set()
        if self._closed:
            return
        try:
            self.loop.call_soon_threadsafe(self.loop.stop)
        except RuntimeError:
            return

    def call(self, fn: Callable[[], T], timeout: float = 60.0) -> T:
        """Run ``fn()`` on the owner loop (from another thread) and return its result."""
        return call_on_loop(self.loop, fn, before=self.driver.catch_up, after=self.driver.settle, timeout=timeout)

    # -- the owner loop ----------------------------------------------------------------------------------
    def on_stop(self, fn: Callable[[], None]) -> None:
        """Run ``fn()`` on the owner thread when the loop stops (cleanups run in reverse order)."""
        self._cleanups.append(fn)

    def _drain(self) -> None:
        with self._lock:
            batch, self._pending = self._pending, []
            self._drain_scheduled = False
        if self._closed:
            return
        self.driver.catch_up()
        for fn, args in batch:
            self.dispatched += 1
            self.clock.call_later(0, fn, *args, priority=Priority.WATCH)
        self.driver.settle()

    def _setup(self, setup: Callable[[], None]) -> None:
        try:
            self.driver.catch_up()
            setup()
            self.driver.settle()
        except Exception as err:
            log.error("start-up failed: %s", err, exc_info=not isinstance(err, RuntimeError | OSError))
            self.stop(1)

    def run(self, setup: Callable[[], None], *, handle_signals: bool = True) -> int:
        """Run ``setup()`` on the loop, then serve until ``stop`` (SIGINT/SIGTERM with ``handle_signals``);
        return the exit code. A ``setup`` that raises stops the loop with exit code 1."""
        loop = self.loop
        asyncio.set_event_loop(loop)
        previous: dict[signal.Signals, Any] = {}
        if handle_signals:  # a plain handler runs even while the owner thread waits in a retry
            for signum in (signal.SIGINT, signal.SIGTERM):
                previous[signum] = signal.signal(signum, lambda _signum, _frame: self.stop())
        self.driver.attach(loop)
        loop.call_soon(self._setup, setup)
        try:
            loop.run_forever()
        finally:
            self._shutdown()
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        return self.exit_code

    def start_background(self, setup: Callable[[], None], timeout: float = 60.0) -> Runtime:
        """Run the loop on a thread of its own (tests); return once ``setup`` has run."""
        ready = threading.Event()

        def setup_then_signal() -> None:
            try:
                setup()
            finally:
                ready.set()

        self._thread = threading.Thread(target=self.run, args=(setup_then_signal,),
                                        kwargs={"handle_signals": False}, name="volcano-runtime", daemon=True)
        self._thread.start()
        if not ready.wait(timeout):
            raise RuntimeError(f"the runtime did not start within {timeout:g}s")
        if self.exit_code:
            raise RuntimeError("the runtime's start-up failed (see the log)")
        return self

    def close(self, timeout: float = 30.0) -> None:
        """Stop a background runtime and wait for its thread."""
        self.stop()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _shutdown(self) -> None:
        for fn in reversed(self._cleanups):
            try:
                fn()
            except Exception:
                log.exception("a clean-up step failed")
        self._cleanups.clear()
        self._closed = True
        self.driver.close()
        self.loop.close()
