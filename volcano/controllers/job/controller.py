"""The Volcano Job controller: watches Jobs, their pods and PodGroups, and Commands,
and drives every Job through its lifecycle (Volcano's ``pkg/controllers/job``).

``JobController(client, informers, clock, *, streams, trace, recorder)``;
``start()`` registers informer handlers and two work queues at
``Priority.CONTROLLER``: one of ``Request`` objects (processed FIFO, identical
waiting requests deduplicated) and one of Commands to consume.

Per request: pod-scoped delayed actions are cancelled when the pod moved on;
the freshest Job copy is read (a missing Job drops the request); the action is
resolved from the lifecycle policies (``policies.resolve_action``); an action
with a policy ``timeout`` is scheduled on the clock instead (Event
``ExecuteAction`` "Execute action <A> after <d>"; when it falls due it runs
with no further Event, as Volcano's delayed-action goroutine); otherwise an
``ExecuteAction`` Event "Start to execute action <A> " is recorded (not for
SyncJob) and the state table's operation runs (``actions.JobActions``).

Failures (API errors, missing queue or PVC, a policy timeout that is not a
duration...) re-queue the request rate-limited (client-go's default controller
rate limiter: per-request exponential back-off, and the 10 per second bucket
of the job's worker queue, one of ``WORKERS`` picked by ``worker_of``) while
the queue counts fewer than ``max_requeue`` re-adds of it (default 15, -1 =
unlimited); then the controller records "Job failed on
action <A> for retry limit reached" and executes TerminateJob, as Volcano's
``handleJobError`` does, without forgetting the request (Volcano v1.11+): the
same request failing again later terminates at once. A request names the pod
uid, so every new pod brings requests with a count of their own. A request
whose action is delayed is forgotten only once the action has run; a delayed
action that fails re-adds the request that scheduled it (whose policy delays
the action again), as Volcano's delayed-action goroutine does.

Commands (``bus.volcano.sh/v1alpha1``) targeting a ``batch.volcano.sh/v1alpha1``
Job are deleted first, then executed as a request with the command's action
(at most once). Deleting a Job only drops the controller's memory of it: its
pods, PodGroup and plugin objects go through ownerReference garbage collection.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from volcano.api.accessors import controller_of
from volcano.api.well_known import JOB_NAME, TASK_SPEC
from volcano.apiserver.client import Client, Obj
from volcano.apiserver.errors import ApiError
from volcano.controllers.job.actions import EventSink, JobActions, JobSyncError, Target, format_go_duration
from volcano.controllers.job.cache import JobCache, job_pod_keys
from volcano.controllers.job.constants import (
    ACTION_RESTART_PARTITION,
    ACTION_RESTART_POD,
    ACTION_RESTART_TASK,
    ACTION_SYNC_JOB,
    ACTION_TERMINATE_JOB,
    ANN_CONTROLLER_OUT_OF_SYNC,
    ANN_JOB_VERSION,
    EVENT_COMMAND_ISSUED,
    EVENT_OUT_OF_SYNC,
    EVENT_POD_EVICTED,
    EVENT_POD_FAILED,
    EVENT_POD_PENDING,
    EVENT_POD_RUNNING,
    EVENT_TASK_COMPLETED,
    EVENT_TASK_FAILED,
    EVENT_UNKNOWN,
    JOB_API_VERSION,
    JOB_KIND,
    LABEL_PARTITION_ID,
)
from volcano.controllers.job.policies import INTERNAL_EVENTS, PolicyError, resolve_action
from volcano.controllers.job.request import Request
from volcano.informers import InformerFactory, WorkQueue
from volcano.informers.poison import DATA_ERRORS
from volcano.sim.clock import Clock, Priority, TimerHandle
from volcano.sim.rand import RandomStreams
from volcano.sim.trace import Trace

__all__ = ["COMPONENT_NAME", "WORKERS", "JobController", "fnv1_32", "worker_of"]

COMPONENT_NAME = "job-controller"
WORKERS = 3
"""Volcano's ``--worker-threads`` default: the Job controller's worker queues, each with its own
rate limiter (here one FIFO whose retry buckets are per worker; see ``WorkQueue``)."""
_POD_EVENTS = frozenset({EVENT_POD_PENDING, EVENT_POD_RUNNING, EVENT_POD_FAILED, EVENT_POD_EVICTED})
"""The requests that may cancel a pod's delayed action."""
_TARGETED = {ACTION_RESTART_TASK: "task", ACTION_RESTART_POD: "pod", ACTION_RESTART_PARTITION: "partition"}


@dataclass(slots=True)
class _Delayed:
    """An action waiting for its policy timeout."""

    action: str
    event: str
    task: str
    pod: str
    pod_uid: str
    partition: str
    handle: TimerHandle


def fnv1_32(data: bytes) -> int:
    """Go's ``hash/fnv`` ``New32`` (FNV-1, 32 bits) of ``data``."""
    h = 0x811C9DC5
    for byte in data:
        h = ((h * 0x01000193) & 0xFFFFFFFF) ^ byte
    return h


def worker_of(req: Request) -> int:
    """The hash that picks a request's worker queue in Volcano's Job controller (``genHash``: FNV-1
    of the job key ``namespace/name``); the queue is this modulo the number of workers."""
    return fnv1_32(req.job_key.encode())


def _phase(obj: Mapping[str, Any] | None) -> str:
    return str(((obj or {}).get("status") or {}).get("phase") or "")


def _job_phase(obj: Mapping[str, Any] | None) -> str:
    return str((((obj or {}).get("status") or {}).get("state") or {}).get("phase") or "")


class JobController:
    """See the module docstring."""

    def __init__(self, client: Client, informers: InformerFactory, clock: Clock, *, streams: RandomStreams,
                 trace: Trace, recorder: EventSink, max_requeue: int = 15, workers: int = WORKERS) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
        self.workers = workers
        self.client = client
        self.informers = informers
        self.clock = clock
        self.streams = streams
        self.trace = trace
        self.recorder = recorder
        self.max_requeue = max_requeue
        self._delayed: dict[str, dict[str, _Delayed]] = {}
        self._started = False
        self.cache: JobCache | None = None
        self.actions: JobActions | None = None

    # ----------------------------------------------------------------- wiring
    def start(self) -> None:
        """Register informer handlers and start processing (idempotent)."""
        if self._started:
            return
        self._started = True
        inf = self.informers
        jobs, pods, pgs = inf.informer("Job"), inf.informer("Pod"), inf.informer("PodGroup")
        queues, pcs, commands = inf.informer("Queue"), inf.informer("PriorityClass"), inf.informer("Command")
        self.cache = JobCache(jobs, pods, pgs, queues, pcs)
        self.actions = JobActions(self.client, self.cache, self.clock, self.recorder, self.streams, self.trace)
        self._queue: WorkQueue[Request] = WorkQueue(self.clock, self._process, name=COMPONENT_NAME,
                                                    priority=Priority.CONTROLLER, shards=self.workers,
                                                    shard_of=worker_of)
        self._commands: WorkQueue[tuple[str, str]] = WorkQueue(self.clock, self._process_command,
                                                                name=f"{COMPONENT_NAME}-commands",
                                                                priority=Priority.CONTROLLER)
        jobs.add_handler(self._on_job)
        pods.add_handler(self._on_pod)
        pgs.add_handler(self._on_podgroup)
        commands.add_handler(self._on_command)

    def enqueue(self, req: Request) -> None:
        """Add a request to the work queue (used by handlers and tests)."""
        self._queue.add(req)

    # --------------------------------------------------------------- handlers
    def _on_job(self, etype: str, obj: Obj, old: Obj | None) -> None:
        meta = obj["metadata"]
        ns, name = str(meta.get("namespace", "")), str(meta["name"])
        if etype == "DELETED":
            key = f"{ns}/{name}"
            assert self.cache is not None
            self.cache.forget(key)
            if self.actions is not None:
                self.actions.desired.forget(str(meta.get("uid") or ""))
            for delayed in self._delayed.pop(key, {}).values():
                delayed.handle.cancel()
            return
        if etype == "MODIFIED" and old is not None:
            if meta.get("resourceVersion") == old["metadata"].get("resourceVersion"):
                return
            if obj.get("spec") == old.get("spec") and _job_phase(obj) == _job_phase(old):
                return
        self.enqueue(Request(ns, name, job_uid=str(meta.get("uid", "")), event=EVENT_OUT_OF_SYNC))

    def _pod_request(self, pod: Obj, event: str, exit_code: int = 0) -> Request | None:
        if not job_pod_keys(pod):
            return None
        meta = pod["metadata"]
        ann = meta.get("annotations") or {}
        ref = controller_of(pod) or {}
        if ann.get(ANN_CONTROLLER_OUT_OF_SYNC) == "true":
            event = EVENT_OUT_OF_SYNC
        return Request(str(meta.get("namespace", "")), str(ann[JOB_NAME]), job_uid=str(ref.get("uid", "")),
                       task_name=str(ann[TASK_SPEC]), pod_name=str(meta["name"]),
                       pod_uid=str(meta.get("uid", "")),
                       partition_id=str((meta.get("labels") or {}).get(LABEL_PARTITION_ID, "")),
                       event=event, exit_code=exit_code, job_version=int(ann[ANN_JOB_VERSION]))

    def _on_pod(self, etype: str, pod: Obj, old: Obj | None) -> None:
        assert self.cache is not None
        if not self.cache.observe_pod(etype, pod):  # a pod the controller does not manage
            return
        req: Request | None
        if etype == "ADDED":
            req = self._pod_request(pod, EVENT_POD_PENDING)
        elif etype == "DELETED":
            req = self._pod_request(pod, EVENT_POD_EVICTED)
        else:
            if old is not None and pod["metadata"].get("resourceVersion") == old["metadata"].get("resourceVersion"):
                return
            req = self._pod_request(pod, self._pod_update_event(pod, old), self._exit_code(pod, old))
        if req is not None:
            self.enqueue(req)

    @staticmethod
    def _exit_code(pod: Obj, old: Obj | None) -> int:
        if _phase(pod) != "Failed" or _phase(old) == "Failed":
            return 0
        statuses = (pod.get("status") or {}).get("containerStatuses") or []
        if statuses:
            terminated = ((statuses[0].get("state") or {}).get("terminated")) or {}
            return int(terminated.get("exitCode") or 0)
        return 0

    def _pod_update_event(self, pod: Obj, old: Obj | None) -> str:
        phase, old_phase = _phase(pod), _phase(old)
        ann = pod["metadata"]["annotations"]
        ns, job_name, task = str(pod["metadata"].get("namespace", "")), ann[JOB_NAME], ann[TASK_SPEC]
        event = EVENT_OUT_OF_SYNC
        if phase == "Failed":
            if old_phase != "Failed":
                event = EVENT_POD_FAILED
        elif phase == "Succeeded":
            if old_phase != "Succeeded" and self._task_completed(ns, job_name, task, pod):
                event = EVENT_TASK_COMPLETED
        elif phase in ("Running", "Pending"):
            if self._task_failed(ns, job_name, task, pod):
                event = EVENT_TASK_FAILED
            if old_phase != phase:
                event = EVENT_POD_RUNNING if phase == "Running" else EVENT_POD_PENDING
        return event

    def _task_spec(self, ns: str, job_name: str, task: str) -> Mapping[str, Any] | None:
        assert self.cache is not None
        job = self.cache.job(ns, job_name)
        if job is None:
            return None
        return next((t for t in (job.get("spec") or {}).get("tasks") or [] if t.get("name") == task), None)

    def _task_completed(self, ns: str, job_name: str, task: str, current: Obj) -> bool:
        """Every replica of the task succeeded (counting ``current`` as it is now); O(1) from the pod index."""
        assert self.cache is not None
        spec = self._task_spec(ns, job_name, task)
        replicas = int((spec or {}).get("replicas") or 0)
        if replicas <= 0:
            return False
        return self.cache.job_pods(ns, job_name).task(task).succeeded_with(current) >= replicas

    def _task_failed(self, ns: str, job_name: str, task: str, current: Obj) -> bool:
        """The task's Running/Pending pods restarted ``maxRetry`` times in all (default 3, -1 never)."""
        assert self.cache is not None
        spec = self._task_spec(ns, job_name, task)
        if spec is None:
            return False
        max_retry = int(spec.get("maxRetry") or 0)
        if max_retry == -1:
            return False
        if max_retry == 0:
            max_retry = 3
        return self.cache.job_pods(ns, job_name).task(task).restarts_with(current) >= max_retry

    def _on_podgroup(self, etype: str, pg: Obj, old: Obj | None) -> None:
        if etype != "MODIFIED" or old is None or _phase(pg) == _phase(old):
            return
        meta = pg["metadata"]
        job_name = str(meta["name"])
        for ref in meta.get("ownerReferences") or []:
            if ref.get("kind") == JOB_KIND:
                job_name = str(ref.get("name"))
        event = EVENT_UNKNOWN if _phase(pg) == "Unknown" else ""
        self.enqueue(Request(str(meta.get("namespace", "")), job_name, event=event))

    def _on_command(self, etype: str, cmd: Obj, old: Obj | None) -> None:
        if etype != "ADDED":
            return
        target = cmd.get("target") or {}
        if target.get("apiVersion") != JOB_API_VERSION or target.get("kind") != JOB_KIND:
            return
        self._commands.add((str(cmd["metadata"].get("namespace", "")), str(cmd["metadata"]["name"])))

    def _process_command(self, key: tuple[str, str]) -> None:
        ns, name = key
        assert self.cache is not None
        try:
            cmd = self.client.get("Command", name, ns)
        except ApiError as exc:
            if exc.code == 404:
                return
            raise
        try:
            self.client.delete("Command", name, ns)
        except ApiError as exc:
            if exc.code == 404:
                return  # consumed already: at most once
            raise
        target = cmd.get("target") or {}
        action = str(cmd.get("action") or "")
        job = self.cache.job(ns, str(target.get("name", "")))
        if job is not None:
            self.recorder.event(job, "Normal", "CommandIssued",
                                f"Start to execute command {action}, and clean it up to make sure executed not "
                                "more than once.")
        self.trace.record(self.clock.now_ms, COMPONENT_NAME, "Command", f"{ns}/{target.get('name', '')}", action)
        self.enqueue(Request(ns, str(target.get("name", "")), event=EVENT_COMMAND_ISSUED, action=action))

    # ------------------------------------------------------------- processing
    def _process(self, req: Request) -> None:
        action = ACTION_SYNC_JOB
        try:
            action, delayed = self._handle(req)
        except (ApiError, JobSyncError, PolicyError) as exc:
            self._handle_error(req, action, exc)
            return
        except DATA_ERRORS as exc:  # a job this controller cannot read is skipped until it changes
            job = self.cache.job(req.namespace, req.job_name) if self.cache is not None else None
            self.informers.unusable.handle(COMPONENT_NAME, dict(job) if job is not None else None, exc)
            delayed = False
        if not delayed:  # a delayed action's request is forgotten when the action has run
            self._queue.forget(req)

    def _handle_error(self, req: Request, action: str, exc: Exception) -> None:
        """Volcano's ``handleJobError``: re-add ``req`` rate-limited while the queue counts fewer than
        ``max_requeue`` re-adds of it; past that, terminate the Job. The request is not forgotten
        there (as upstream since v1.11): its count stays at the limit until it succeeds once."""
        if self.max_requeue < 0 or self._queue.num_requeues(req) < self.max_requeue:
            self.trace.record(self.clock.now_ms, COMPONENT_NAME, "Requeue", req.job_key, str(exc))
            self._queue.add_rate_limited(req)
            return
        self._terminate_after_retries(req, action)

    def _terminate_after_retries(self, req: Request, action: str) -> None:
        assert self.cache is not None and self.actions is not None
        job = self.cache.job(req.namespace, req.job_name)
        if job is None:
            return
        self.recorder.event(job, "Normal", "ExecuteAction",
                            f"Job failed on action {req.action or action} for retry limit reached")
        try:
            self.actions.execute(job, ACTION_TERMINATE_JOB)
        except (ApiError, JobSyncError) as exc:
            self.trace.record(self.clock.now_ms, COMPONENT_NAME, "TerminateFailed", req.job_key, str(exc))

    def _cancel_for_pod_event(self, req: Request) -> None:
        """Cancel the pod's delayed action when the pod moved on: a PodPending one on another pod event
        of the same pod, a PodFailed or PodEvicted one on PodRunning. Only the four pod events count, as
        in Volcano's ``CleanPodDelayActionsIfNeed``: an OutOfSync request (a pending pod's status
        update, such as the scheduler's Unschedulable condition) leaves the action in place."""
        if req.event not in _POD_EVENTS:
            return
        delayed = self._delayed.get(req.job_key, {}).get(req.pod_name) if req.pod_name else None
        if delayed is None:
            return
        cancel = (delayed.event == EVENT_POD_PENDING and req.event != EVENT_POD_PENDING
                  and req.pod_uid == delayed.pod_uid) or \
                 (delayed.event in (EVENT_POD_FAILED, EVENT_POD_EVICTED) and req.event == EVENT_POD_RUNNING)
        if cancel:
            delayed.handle.cancel()
            del self._delayed[req.job_key][req.pod_name]
            self.trace.record(self.clock.now_ms, COMPONENT_NAME, "CancelDelayed", req.job_key,
                              f"{delayed.action} pod={req.pod_name}")

    def _handle(self, req: Request) -> tuple[str, bool]:
        """Process ``req``: its action, and whether the action was delayed by its policy's timeout
        (scheduled, or already waiting) instead of run now."""
        assert self.cache is not None and self.actions is not None
        self._cancel_for_pod_event(req)
        job = self.cache.job(req.namespace, req.job_name)
        if job is None:
            return ACTION_SYNC_JOB, False
        action, delay = resolve_action(job, req)
        if delay > 0:
            self._schedule_delayed(job, req, action, delay)
            return action, True
        self._run(job, req, action)
        return action, False

    def _target(self, req: Request, action: str) -> Target | None:
        kind = _TARGETED.get(action)
        if kind is None:
            return None
        if req.event == EVENT_COMMAND_ISSUED or not req.task_name:
            return Target()
        return Target(kind, req.task_name, req.pod_name, req.partition_id)

    def _run(self, job: Obj, req: Request, action: str) -> None:
        """Execute ``action`` now, announced by the ``ExecuteAction`` Event "Start to execute
        action <A> " (not for SyncJob); a non-internal action then cancels the delayed actions
        of its scope."""
        assert self.actions is not None
        if action != ACTION_SYNC_JOB:
            self.recorder.event(job, "Normal", "ExecuteAction", f"Start to execute action {action} ")
            self._trace_execute(job, req, action)
        self.actions.execute(job, action, self._target(req, action))
        if action not in INTERNAL_EVENTS and action != ACTION_SYNC_JOB:
            self._cancel_siblings(req, action)

    def _trace_execute(self, job: Obj, req: Request, action: str) -> None:
        self.trace.record(self.clock.now_ms, COMPONENT_NAME, "ExecuteAction", req.job_key,
                          f"{action} on {_job_phase(job) or 'Pending'} ({req.describe()})")

    def _schedule_delayed(self, job: Obj, req: Request, action: str, delay_ms: int) -> None:
        slots = self._delayed.setdefault(req.job_key, {})
        existing = slots.get(req.pod_name)
        if existing is not None and existing.action == action and not existing.handle.cancelled:
            return
        self.recorder.event(job, "Normal", "ExecuteAction",
                            f"Execute action {action} after {format_go_duration(delay_ms)}")
        self.trace.record(self.clock.now_ms, COMPONENT_NAME, "DelayAction", req.job_key,
                          f"{action} after {delay_ms}ms ({req.describe()})")
        handle = self.clock.call_later(delay_ms, self._fire_delayed, req, action, priority=Priority.CONTROLLER)
        slots[req.pod_name] = _Delayed(action, req.event, req.task_name, req.pod_name, req.pod_uid,
                                       req.partition_id, handle)

    def _fire_delayed(self, req: Request, action: str) -> None:
        """A delayed action falls due, as Volcano's delayed-action goroutine runs it: the Job read
        afresh, the action executed with no "Start to execute action" Event (only the scheduling
        was announced); a failure goes through ``_handle_error`` (the request that scheduled the
        action is re-added, and its policy delays the action anew); then, success or not, the
        request is forgotten and the delayed actions of the action's scope are cancelled."""
        assert self.cache is not None and self.actions is not None
        slots = self._delayed.get(req.job_key, {})
        entry = slots.get(req.pod_name)
        if entry is not None and entry.action == action:
            del slots[req.pod_name]
        job = self.cache.job(req.namespace, req.job_name)
        if job is None:
            return
        self._trace_execute(job, req, action)
        try:
            self.actions.execute(job, action, self._target(req, action))
        except (ApiError, JobSyncError) as exc:
            self._handle_error(req, action, exc)
        self._queue.forget(req)
        self._cancel_siblings(req, action)

    def _cancel_siblings(self, req: Request, action: str) -> None:
        """Volcano's ``cleanupDelayActions`` after ``action`` ran for ``req``: cancel the job's delayed
        actions of the same scope (``GetActionType``: a task, pod or partition action; anything else
        is job level), for a task, pod or partition action only those of the same task, pod or
        partition."""
        slots = self._delayed.get(req.job_key)
        if not slots:
            return
        scope = _TARGETED.get(action, "job")
        same = {"job": "", "task": req.task_name, "pod": req.pod_name, "partition": req.partition_id}[scope]
        for pod in sorted(slots):
            d = slots[pod]
            if _TARGETED.get(d.action, "job") != scope:
                continue
            if same != {"job": "", "task": d.task, "pod": d.pod, "partition": d.partition}[scope]:
                continue
            d.handle.cancel()
            del slots[pod]
