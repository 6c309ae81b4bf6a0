"""The Volcano scheduler component: a cycle every schedule period on the clock.

``Scheduler.run_once()`` = snapshot the cache, open a ``Session`` with fresh
plugins, run the configured actions in order, close the session, then write:
binds through ``pods/binding`` (a failed bind emits ``FailedScheduling`` with
reason SchedulerError and the task is resynced: it is Pending again next
cycle), evictions (pod conditions ``Ready=False/Evict`` and
``DisruptionTarget=True/PreemptionByScheduler``, Warning ``Evict`` on the pod,
Normal ``Evict`` on the PodGroup, then a graceful delete), PodGroup status
when changed, events, pod ``PodScheduled=False`` conditions and nominated
nodes, and queue ``status.allocated``. Write conflicts are skipped: the next
cycle recomputes everything.

**Idle cycles.** A cycle that binds, evicts, writes, records and reports
nothing (no event, trace row, counter increment or gauge change) is a no-op;
when the scheduler cache has not changed since such a cycle
(``SchedulerCache.generation``), the next cycle is the same no-op. The
scheduler then tells the clock so (``idle``, ``volcano.sim.clock.IdlePeriodic``)
and the clock skips those cycles instead of running them (``skip``). A skipped
cycle still counts: ``cycles`` (and the session numbering it drives) advances,
and ``e2e_scheduling_latency_milliseconds``, ``open_session_duration_milliseconds``
and each action's ``action_scheduling_latency_milliseconds`` get their 0 ms
observation, as a run cycle takes no simulated time. Gauges keep the values the no-op cycle set.
``last_session``/``last_outcome`` are those of the last cycle actually run;
``skipped_cycles`` counts the others.

**Repeated cycles.** A cycle whose only effects are events, trace rows and
counter increments (a gang waiting for resources it cannot get: the same
``Unschedulable`` event every cycle) is repeated exactly by the next cycle
while the cache does not change. The scheduler then replays those effects, in
order, at the new cycle's time instead of recomputing the session
(``replayed_cycles``); with the clock's ``fast_forward`` off it recomputes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from volcano.api import accessors
from volcano.apiserver.client import Client
from volcano.apiserver.errors import ApiError
from volcano.informers import InformerFactory
from volcano.scheduler.actions import default_actions
from volcano.scheduler.cache import SchedulerCache
from volcano.scheduler.config import DEFAULT_SCHEDULER_CONF
from volcano.scheduler.framework.action import ActionRegistry
from volcano.scheduler.framework.carry import JobCarry
from volcano.scheduler.framework.conf import SchedulerConf
from volcano.scheduler.framework.metrics import MetricsSink
from volcano.scheduler.framework.model import TaskInfo
from volcano.scheduler.framework.plugin import Arguments, PluginRegistry
from volcano.scheduler.framework.session import Session
from volcano.scheduler.framework.status import Event, SessionOutcome, close_session, set_condition, updated_conditions
from volcano.scheduler.metrics import SchedulerMetrics
from volcano.scheduler.plugins import default_registry
from volcano.sim.clock import Clock, Priority, TimerHandle
from volcano.sim.rand import RandomStreams
from volcano.sim.trace import Trace

__all__ = ["Scheduler", "podgroup_with_status", "retire", "shared_conditions"]

Obj = dict[str, Any]


def observe_zeros(histogram: Any, runs: int) -> None:
    """``runs`` observations of 0 (what a skipped cycle's latency is), in O(1) where the
    Prometheus client's histogram layout is known, else one by one."""
    buckets, bounds = getattr(histogram, "_buckets", None), getattr(histogram, "_upper_bounds", None)
    if not isinstance(buckets, list) or not isinstance(bounds, list) or len(buckets) != len(bounds):
        for _ in range(runs):
            histogram.observe(0)
        return
    histogram.observe(0)  # the public path once (it also checks the histogram is observable)
    if runs > 1:
        buckets[next(i for i, bound in enumerate(bounds) if bound >= 0)].inc(runs - 1)


class _WatchedMetrics(MetricsSink):
    """The session's metrics sink: forwards every report and notes whether one changed anything
    (a counter incremented, a gauge set to a value other than its last one)."""

    def __init__(self, sink: MetricsSink, gauges: dict[tuple[str, ...], int]) -> None:
        self.sink = sink
        self.gauges = gauges
        self.changed = False
        self.gauge_changed = False
        self.counts: list[tuple[str, Any]] = []
        """Counter reports, in order (``preempt``/n, ``evict``/action, ``retry``/job)."""

    def _gauge(self, key: tuple[str, ...], n: int) -> bool:
        """Note a gauge report; True when it moves the gauge (every gauge write goes through
        here or its copy in ``set_unschedulable_tasks``, so an unmoved one already holds ``n``
        and is not forwarded)."""
        if self.gauges.get(key) != n:
            self.gauges[key] = n
            self.changed = self.gauge_changed = True
            return True
        return False

    def count_preemption_attempts(self, n: int) -> None:
        """Forwarded; a change when ``n`` > 0."""
        if n:
            self.changed = True
            self.counts.append(("preempt", n))
        self.sink.count_preemption_attempts(n)

    def set_preemption_victims(self, n: int) -> None:
        """Forwarded when the value moves (a change)."""
        if self._gauge(("victims",), n):
            self.sink.set_preemption_victims(n)

    def count_eviction_transaction(self, action: str) -> None:
        """Forwarded; always a change."""
        self.changed = True
        self.counts.append(("evict", action))
        self.sink.count_eviction_transaction(action)

    def set_unschedulable_tasks(self, job: str, n: int) -> None:
        """Forwarded when the value moves (a change). ``_gauge`` inlined: the session close
        reports this gauge for every job, every cycle, and most reports do not move it."""
        key = ("tasks", job)
        gauges = self.gauges
        if gauges.get(key) != n:
            gauges[key] = n
            self.changed = self.gauge_changed = True
            self.sink.set_unschedulable_tasks(job, n)

    def set_unschedulable_jobs(self, n: int) -> None:
        """Forwarded when the value moves (a change)."""
        if self._gauge(("jobs",), n):
            self.sink.set_unschedulable_jobs(n)

    def count_job_retry(self, job: str) -> None:
        """Forwarded; always a change."""
        self.changed = True
        self.counts.append(("retry", job))
        self.sink.count_job_retry(job)


@dataclass(frozen=True)
class _Replay:
    """What a cycle that only recorded did, to be done again while the cache stays at ``generation``."""

    generation: int
    rows: list[tuple[str, str, str, str]]
    counts: list[tuple[str, Any]]
    events: list[Event]


def retire(ssn: Session, successor: Session | None = None) -> None:
    """Let a finished session go at once: break the reference cycles that hold its model together
    (each task names its job, which holds the task; the session holds its plugins, which hold the
    session), so that reference counting frees its tasks, jobs, node rows and plugins as soon as
    the scheduler drops it, instead of leaving them to the cyclic garbage collector (at 1,000
    nodes a session is some ten thousand objects, and the collector walked every one of them,
    cycle after cycle, before finding it garbage). The session is unusable afterwards; the
    scheduler retires only the previous cycle's, once ``last_session`` has moved on. Jobs that
    ``successor`` carried over from it (``framework.carry``: the very same objects) are left whole."""
    carried = successor.jobs if successor is not None else {}
    for uid, job in ssn.jobs.items():
        if carried.get(uid) is job:
            continue
        for task in job.tasks.values():
            task.job = None
    state = getattr(ssn, "__dict__", None)
    if state is not None:
        state.clear()


def podgroup_with_status(current: Mapping[str, Any], status: Mapping[str, Any]) -> Obj:
    """The PodGroup the scheduler writes: ``current`` with ``status`` merged over its status, and
    the counters ``status`` leaves out (``running``, ``succeeded``, ``failed``: zero) removed.

    A shallow copy: the server copies what it will edit (``update``'s ``_writable``), so a deep
    copy here would be a second one; a property test checks the server stores the same as for
    a deep copy."""
    obj = dict(current)
    new_status = obj["status"] = {**(current.get("status") or {}), **status}
    for key in ("running", "succeeded", "failed"):
        if key not in status:
            new_status.pop(key, None)
    return obj


def shared_conditions(conditions: Sequence[Mapping[str, Any]], cond: Mapping[str, Any],
                      now: str) -> list[Mapping[str, Any]]:
    """``updated_conditions(conditions, cond, now)`` (an equal list) whose conditions other than the
    one set are ``conditions``' own objects, not copies: a status write of it over the stored pod
    copies and checks only the condition it sets (``volcano.apiserver.status_write``)."""
    return set_condition(list(conditions), cond, now)


class Scheduler:
    """Volcano's scheduler over a ``Client`` and shared informers."""

    def __init__(self, client: Client, informers: InformerFactory, clock: Clock, *,
                 conf: SchedulerConf | None = None, streams: RandomStreams | None = None,
                 trace: Trace | None = None, recorder: Any = None, scheduler_name: str = "volcano",
                 period_ms: int = 1000, registry: PluginRegistry | None = None,
                 default_queue: str = "default", actions: ActionRegistry | None = None) -> None:
        self.client = client
        # The in-process server's own status write (None for any other client: a real API server, a
        # retrying wrapper): the condition write below takes it, with no copy of the pod for a patch.
        self._status_fields: Any = type(client).__dict__.get("update_status_fields")
        self._status_fields_many: Any = type(client).__dict__.get("update_status_fields_many")
        self.clock = clock
        self.conf = conf or DEFAULT_SCHEDULER_CONF
        self.streams = streams
        self.trace = trace
        self.recorder = recorder
        self.name = scheduler_name
        self.period_ms = period_ms
        self.registry = registry or default_registry()
        self.actions = actions or default_actions()
        self.cache = SchedulerCache(informers, scheduler_names=(scheduler_name,), default_queue=default_queue)
        self._pods = informers.informer("Pod")  # the cache's own (it watches pods from the start)
        self.metrics = SchedulerMetrics()
        self.cycles = 0
        self.skipped_cycles = 0
        """Cycles the clock skipped as proven no-ops (included in ``cycles``)."""
        self.last_session: Session | None = None
        self.last_outcome: SessionOutcome | None = None
        """The last computed cycle's writes (its ``statuses`` left empty; ``run_once`` returns them whole)."""
        self._timer: TimerHandle | None = None
        self._idle_at: int | None = None  # cache generation after the last no-op cycle
        self._replay: _Replay | None = None
        self.replayed_cycles = 0
        """Cycles whose recorded effects were replayed instead of recomputed (included in ``cycles``)."""
        self._gauges: dict[tuple[str, ...], int] = {}
        self._carry = JobCarry()
        self.reuse = True
        """Sessions reuse earlier parses and skip unused work (``Session.reuse``); ``False`` is the
        reference path the property tests compare against."""

    def start(self) -> None:
        """Create the root/default queues if missing and run a cycle every period."""
        for name, reclaimable in (("root", False), (self.cache.default_queue, True)):
            try:
                self.client.get("Queue", name)
            except ApiError as exc:
                if exc.code != 404:
                    raise
                self.client.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                                    "metadata": {"name": name}, "spec": {"weight": 1, "reclaimable": reclaimable}})
        if self._timer is None:
            self._timer = self.clock.call_every(self.period_ms, self.run_once, priority=Priority.SCHEDULER)
            self._timer.idle = self

    def stop(self) -> None:
        """Stop the periodic cycle."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _record(self, event: str, obj: str, detail: str = "") -> None:
        if self.trace is not None:
            self.trace.record(self.clock.now_ms, self.name, event, obj, detail)

    def _event(self, obj: Obj | None, etype: str, reason: str, message: str) -> None:
        if self.recorder is not None and obj is not None:
            self.recorder.event(obj, etype, reason, message)

    def idle(self) -> bool:
        """The next cycle is a proven no-op: the last one was, and the cache has not changed since."""
        return self._idle_at is not None and self._idle_at == self.cache.generation

    def skip(self, runs: int) -> None:
        """Account for ``runs`` no-op cycles the clock skipped (see the module docstring)."""
        self.cycles += runs
        self.skipped_cycles += runs
        observe_zeros(self.metrics.e2e_latency, runs)
        observe_zeros(self.metrics.open_session, runs)
        for name in self.conf.actions:
            observe_zeros(self.metrics.action_latency.labels(name), runs)

    def run_once(self) -> SessionOutcome:
        """One scheduling cycle; returns what the session close asked to write."""
        replay = self._replay
        if replay is not None and replay.generation == self.cache.generation \
                and getattr(self.clock, "fast_forward", False) and self.last_outcome is not None:
            self._replay_cycle(replay)
            return self.last_outcome
        self.cycles += 1
        start = self.clock.now_ms
        trace_len = len(self.trace) if self.trace is not None else 0
        skipped = self.cache.informers.unusable.skipped
        generation = self.cache.generation
        sink = _WatchedMetrics(self.metrics, self._gauges)
        ssn = Session(self.cache.snapshot(), self.conf, self.registry, uid=f"{self.name}-session-{self.cycles}",
                      now_ms=start, trace=self.trace, component=self.name, clock=self.clock, metrics=sink,
                      reuse=self.reuse, carry=self._carry)
        self.metrics.open_session.observe(self.clock.now_ms - start)
        for pg, exc in ssn.unusable:
            self.cache.informers.unusable.handle(self.name, dict(pg), exc)
        for name in self.conf.actions:
            cls = self.actions.get(name)
            if cls is None:
                raise KeyError(f"action {name!r} is not in the registry")
            action = cls(Arguments(self.conf.action_arguments(name)))
            action.execute(ssn)
            self.metrics.action_latency.labels(name).observe(self.clock.now_ms - start)
        outcome = close_session(ssn)
        self._apply(ssn, outcome)
        self.metrics.e2e_latency.observe(self.clock.now_ms - start)
        previous = self.last_session
        # Kept without ``statuses`` (every job's status, read by tests of one session): held between
        # cycles, at 50,000 PodGroups those dicts are some 20 MiB that nothing reads again.
        self.last_session, self.last_outcome = ssn, replace(outcome, statuses={})
        if previous is not None and self.reuse:
            retire(previous, ssn)
        noop = not (ssn.binds or ssn.evictions or ssn.unusable or outcome.podgroups or outcome.events
                    or outcome.pod_conditions or outcome.queues or sink.changed) \
            and (self.trace is None or len(self.trace) == trace_len) \
            and self.cache.informers.unusable.skipped == skipped and self.cache.generation == generation
        self._idle_at = self.cache.generation if noop else None
        self._replay = None
        if not noop and not (ssn.binds or ssn.evictions or ssn.unusable or outcome.podgroups
                             or outcome.pod_conditions or outcome.queues or sink.gauge_changed) \
                and self.cache.informers.unusable.skipped == skipped and self.cache.generation == generation:
            rows = [(r.component, r.event, r.object, r.detail) for r in self.trace.since(trace_len)] \
                if self.trace is not None else []
            self._replay = _Replay(generation, rows, list(sink.counts), list(outcome.events))
        return outcome

    def _replay_cycle(self, replay: _Replay) -> None:
        """Do again what the last cycle did (see the module docstring), at this cycle's time."""
        self.cycles += 1
        self.replayed_cycles += 1
        self.metrics.open_session.observe(0)
        now = self.clock.now_ms
        if self.trace is not None:
            for component, event, obj, detail in replay.rows:
                self.trace.record(now, component, event, obj, detail)
        for name in self.conf.actions:
            self.metrics.action_latency.labels(name).observe(0)
        for kind, arg in replay.counts:
            if kind == "preempt":
                self.metrics.count_preemption_attempts(arg)
            elif kind == "evict":
                self.metrics.count_eviction_transaction(arg)
            else:
                self.metrics.count_job_retry(arg)
        self._emit(replay.events)
        self.metrics.e2e_latency.observe(0)

    # -- writes -------------------------------------------------------------------------------
    def _pod(self, task: TaskInfo) -> Obj | None:
        return self._pods.get(task.name, task.namespace)

    def _apply(self, ssn: Session, out: SessionOutcome) -> None:
        for task, node in ssn.binds:
            self._bind(task, node)
        for task, reason in ssn.evictions:
            self._evict(ssn, task, reason)
        pg_informer = self.cache.informers.informer("PodGroup")
        for job, status in out.podgroups:
            current = pg_informer.get(job.name, job.namespace)
            if current is None:
                continue
            try:
                # PodGroup's CRD has no status subresource: Volcano writes status with a plain update.
                self.client.update(podgroup_with_status(current, status))
            except ApiError as exc:
                # A conflict means a newer PodGroup exists; the next cycle writes status from it.
                self._record("PodGroupStatusUpdateFailed", f"{job.namespace}/{job.name}", exc.reason)
                continue
        self._emit(out.events)
        self._write_conditions(out.pod_conditions)
        queues = self.cache.informers.informer("Queue")
        for name, allocated in sorted(out.queues.items()):
            # The whole list is replaced, as upstream's UpdateStatus does: a resource no longer held is removed.
            stored = queues.get(name)
            held = (accessors.status(stored).get("allocated") or {}) if stored is not None else {}
            patch = {**{key: None for key in held if key not in allocated}, **allocated}
            try:
                self.client.patch("Queue", name, {"status": {"allocated": patch}}, subresource="status")
            except ApiError as exc:
                self._record("QueueStatusUpdateFailed", name, exc.reason)
                continue

    def _emit(self, events: list[Event]) -> None:
        """Record ``events`` on the objects they name, as ``_event`` does one by one (an object
        no longer in the informer's cache gets none; without a recorder nothing happens: the
        informer reads have no effect). A recorder that records a batch (``EventRecorder.events``)
        gets them in one call, each object read from its informer as the recorder comes to it."""
        recorder = self.recorder
        if recorder is None or not events:
            return
        batch = getattr(recorder, "events", None)
        if batch is not None:
            batch(self._found(events))
            return
        record = recorder.event
        for obj, etype, reason, message in self._found(events):
            record(obj, etype, reason, message)

    def _found(self, events: list[Event]) -> Iterator[tuple[Obj, str, str, str]]:
        """``(obj, type, reason, message)`` of each of ``events`` whose object the informers hold,
        in order, each object read when the item is asked for."""
        pg_get = self.cache.informers.informer("PodGroup").get
        pod_get = self.cache.informers.informer("Pod").get
        for kind, namespace, name, etype, reason, message in events:
            obj = pg_get(name, namespace) if kind == "PodGroup" else pod_get(name, namespace)
            if obj is not None:
                yield obj, etype, reason, message

    def _write_conditions(self, writes: Sequence[tuple[TaskInfo, Obj, str]]) -> None:
        """``_set_pod_condition`` of each ``(task, cond, nominated)`` the session close asked for, in
        order, each after noting (with ``reuse``, without a nominated node) that its echo keeps the
        task and job as carried (``SchedulerCache.expect_echo``). With ``reuse`` and the in-process
        server, the statuses are built first (from the pod informer, which no write changes: watch
        events arrive as later clock callbacks) and handed to the server in one
        ``update_status_fields_many`` call, which writes them in order as that many
        ``update_status_fields`` calls would (a missing pod is skipped, a failed write too)."""
        expect = self.cache.expect_echo if self.reuse else None
        if expect is None or self._status_fields_many is None:
            for task, cond, nominated in writes:
                if expect is not None and not nominated:
                    expect(task.key)
                self._set_pod_condition(task, cond, nominated)
            return
        get, timestamp = self._pods.get, self.clock.timestamp
        batch: list[tuple[str, str, Obj]] = []
        for task, cond, nominated in writes:
            spec = task.spec
            if not nominated:
                expect(spec.key)
            name, namespace = spec.name, spec.namespace
            pod = get(name, namespace)
            if pod is None:
                continue
            status: Obj = {"conditions": shared_conditions((pod.get("status") or {}).get("conditions") or [], cond,
                                                           timestamp())}
            if nominated:
                status["nominatedNodeName"] = nominated
            batch.append((name, namespace, status))
        if batch:
            self._status_fields_many(self.client, "Pod", batch)

    def _set_pod_condition(self, task: TaskInfo, cond: Obj, nominated: str = "") -> None:
        pod = self._pod(task)
        if pod is None:
            return
        conditions = (pod.get("status") or {}).get("conditions") or []
        fast = self.reuse and self._status_fields is not None
        status: Obj = {"conditions": (shared_conditions if fast else updated_conditions)(conditions, cond,
                                                                                         self._now())}
        if nominated:
            status["nominatedNodeName"] = nominated
        try:
            if fast:
                self._update_pod_status(task, status)
            else:
                self.client.patch("Pod", task.name, {"status": status}, task.namespace, subresource="status")
        except ApiError:
            return

    def _update_pod_status(self, task: TaskInfo, status: Obj) -> None:
        """The merge patch ``{"status": status}`` of the pod's ``status`` subresource, written as the
        status update it amounts to: the stored status with ``status``'s keys replaced (``status``
        holds no null and no mapping, so RFC 7386 merges nothing deeper), through the server's
        ``update_status_fields``. Only for a client that is the in-process server itself (whose
        writes cannot interleave), where it stores the same object without copying the whole pod
        for the patch; a property test compares the stored objects of both ways."""
        self._status_fields(self.client, "Pod", task.name, task.namespace, status)

    def _now(self) -> str:
        return self.clock.timestamp()

    def _bind(self, task: TaskInfo, node: str) -> None:
        key = task.key
        try:
            self.client.bind(task.name, task.namespace, node)
        except ApiError as exc:
            self.cache.binding.pop(key, None)
            msg = f"failed to bind to node {node}: {exc.message}"
            self._event(self._pod(task), "Warning", "FailedScheduling", msg)
            self._set_pod_condition(task, {"type": "PodScheduled", "status": "False", "reason": "SchedulerError",
                                           "message": msg})
            self._record("BindFailed", key, f"{node} {exc.reason}")
            return
        self.cache.binding[key] = node
        self.cache.generation += 1
        self._event(self._pod(task), "Normal", "Scheduled", f"Successfully assigned {key} to {node}")

    def _evict(self, ssn: Session, task: TaskInfo, reason: str) -> None:
        job = task.job
        if job is not None:
            self._event(self.cache.informers.informer("PodGroup").get(job.name, job.namespace),
                        "Normal", "Evict", reason)
        pod = self._pod(task)
        if pod is None:
            return
        msg = f"Pod is evicted, because of {reason}"
        self._event(pod, "Warning", "Evict", msg)
        conds = [dict(c) for c in (pod.get("status") or {}).get("conditions") or []
                 if c.get("type") not in ("Ready", "DisruptionTarget")]
        now = self._now()
        conds.append({"type": "Ready", "status": "False", "reason": "Evict", "message": msg,
                      "lastTransitionTime": now})
        conds.append({"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
                      "message": f"{self.name}: preempting to accommodate a higher priority pod",
                      "lastTransitionTime": now})
        try:
            self.client.patch("Pod", task.name, {"status": {"conditions": conds}}, task.namespace,
                              subresource="status")
            self.client.delete("Pod", task.name, task.namespace)
        except ApiError as exc:
            self._record("EvictFailed", task.key, exc.reason)
            return
        self.cache.releasing.add(task.key)
        self.cache.generation += 1
