"""How often the Job controller retries a request the API server keeps failing (Volcano's
``processNextReq`` / ``handleJobError`` over client-go's ``DefaultControllerRateLimiter``).

* one request is attempted at most ``1 + maxRequeueNum`` times, with the per-key exponential
  backoff, then the Job is terminated (Event "Job failed on action <A> for retry limit reached");
  the request is not forgotten there, so the same request failing again later terminates at once;
* a refused delete in a Job of several pods churns the other pods (each kill deletes them, each
  SyncJob of the still Running Job creates them anew), and every new pod brings requests of its
  own uid with a fresh count: upstream loops too, held to 10 retries a second by the queue's
  shared bucket;
* a delayed action that fails re-adds the request that scheduled it, whose policy delays the
  action again, without a retry limit (the goroutine forgets the request).
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

from tests.controllers.job.conftest import NS, Cluster, job, task
from volcano.apiserver.faults import FaultPlan, FaultyClient
from volcano.controllers.job.controller import WORKERS, JobController, fnv1_32, worker_of
from volcano.controllers.job.request import Request
from volcano.informers.workqueue import BUCKET_BURST, BUCKET_QPS, WorkQueue

WINDOW_MS = 600_000


class FaultyCluster(Cluster):
    """The Job controller test cluster whose controller writes through a ``FaultyClient``."""

    def __init__(self, max_requeue: int = 15) -> None:
        self.max_requeue = max_requeue
        super().__init__()
        self.controller.max_requeue = max_requeue
        self.attempts: list[tuple[int, Request]] = []
        queue = self.controller._queue
        process = queue._process

        def counted(req: Request) -> None:
            self.attempts.append((self.clock.now_ms, req))
            process(req)

        queue._process = counted

    def controller_client(self) -> Any:
        """A ``FaultyClient`` without random faults, kept as ``client``."""
        self.client = FaultyClient(self.server, FaultPlan(), self.clock, self.streams)
        return self.client

    def ctrace(self, event: str, after_ms: int) -> list[int]:
        """The times of the controller's ``event`` records after ``after_ms``."""
        return [r.time_ms for r in self.trace if r.component == "job-controller" and r.event == event
                and r.time_ms >= after_ms]

    def events_count(self, message: str) -> int:
        """The aggregated count of the Job events with ``message``."""
        return sum(int(e.get("count") or 1) for e in self.events() if e.get("message") == message)


def _refused_abort(replicas: int, max_requeue: int = 15) -> tuple[FaultyCluster, int]:
    c = FaultyCluster(max_requeue)
    c.start(job("kd", [task("t", replicas)]))
    c.client.fail_next("delete", "Pod", "kd-t-0", NS, times=100_000)
    t0 = c.clock.now_ms
    c.attempts.clear()
    c.command("kd", "AbortJob", ms=0)
    return c, t0


def test_a_request_failing_for_ever_is_tried_sixteen_times_with_backoff_then_terminates() -> None:
    """A one-pod Job aborted while its pod cannot be deleted: the command's request and the pod's
    OutOfSync request are each tried 1 + 15 times, 5 ms, 10 ms, ... 81.92 s apart (163.835 s in
    all), then the Job is terminated (which fails the same way); nothing runs after that. (Counted from
    the trace: the Job's events past 25 are dropped by the recorder's spam filter.)"""
    c, t0 = _refused_abort(1)
    c.run(WINDOW_MS)
    per_req = Counter(req for _, req in c.attempts)
    assert sorted(per_req.values()) == [16, 16], per_req
    command = next(req for req in per_req if req.action == "AbortJob")
    times = [t for t, req in c.attempts if req == command]
    assert [b - a for a, b in itertools.pairwise(times)] == [WorkQueue.backoff_ms(n) for n in range(15)]
    assert len(c.ctrace("Requeue", t0)) == 30
    assert len(c.ctrace("ExecuteAction", t0)) == 16  # the Job's events are spam-filtered past 25
    assert len(c.ctrace("TerminateFailed", t0)) == 2
    assert max(t for t, _ in c.attempts) < t0 + 200_000


def test_a_request_at_its_limit_is_not_forgotten() -> None:
    """With ``maxRequeueNum`` 2, the AbortJob command fails 3 times and terminates the Job; a second
    AbortJob command is the same request, still counted at the limit: it fails once and terminates
    at once, no re-add (upstream drops ``queue.Forget`` from the limit path since v1.11)."""
    c, _t0 = _refused_abort(1, max_requeue=2)
    c.run(60_000)
    command = [t for t, req in c.attempts if req.action == "AbortJob"]
    assert len(command) == 3
    assert c.events_count("Job failed on action AbortJob for retry limit reached") == 1
    t1 = c.clock.now_ms
    c.command("kd", "AbortJob", ms=60_000)
    again = [t for t, req in c.attempts if req.action == "AbortJob" and t >= t1]
    assert len(again) == 1
    assert c.events_count("Job failed on action AbortJob for retry limit reached") == 2
    assert [t for t in c.ctrace("Requeue", t1)] == []


def test_pod_churn_under_a_refused_delete_is_held_by_the_shared_bucket() -> None:
    """A two-pod Job aborted while ``kd-t-0`` cannot be deleted, over 600 simulated seconds: no
    request is tried more than 16 times, yet ``kd-t-1`` is deleted and created again and again
    (new uids, new requests), as upstream; the queue's bucket keeps the retries to its burst plus
    10 a second (without it, 7,152 retries in this window)."""
    c, t0 = _refused_abort(2)
    c.run(WINDOW_MS)
    per_req = Counter(req for _, req in c.attempts)
    assert max(per_req.values()) == 16
    uids = {req.pod_uid for req in per_req if req.pod_name == "kd-t-1"}
    assert len(uids) > 20  # the churn is real: many incarnations of kd-t-1
    requeues = c.ctrace("Requeue", t0)
    assert len(requeues) <= BUCKET_BURST + BUCKET_QPS * WINDOW_MS // 1000
    assert c.phase("kd") == "Running"  # the abort never got to write the status


def test_a_failed_delayed_action_is_delayed_again() -> None:
    """PodFailed -> RestartJob after 10 s on a two-pod Job whose ``kd-t-1`` cannot be deleted: each
    time the delayed RestartJob fails, the PodFailed request is re-added, its policy delays the
    action again (one more ``DelayAction`` 10 s later), rather than the RestartJob being retried
    at once with backoff. (The requests of ``kd-t-1``'s own events, failing meanwhile, reach their
    limit after 163.835 s; the window stops short of it.)"""
    c = FaultyCluster()
    policies = [{"event": "PodFailed", "action": "RestartJob", "timeout": "10s"}]
    c.start(job("kd", [task("t", 2)], policies=policies))
    c.client.fail_next("delete", "Pod", "kd-t-1", NS, times=100_000)
    t0 = c.clock.now_ms
    c.set_pod("kd-t-0", "Failed", ms=0)
    c.run(160_000)
    delays = c.ctrace("DelayAction", t0)
    executed = c.ctrace("ExecuteAction", t0)
    assert len(delays) == 16 and len(executed) == 15
    assert all(10_000 <= b - a <= 10_010 for a, b in itertools.pairwise(delays))
    assert [e - d for d, e in zip(delays, executed, strict=False)] == [10_000] * 15
    assert c.ctrace("TerminateFailed", t0) == []


def test_the_controller_counts_through_its_queue() -> None:
    """``max_requeue`` is the controller's knob; the count is the queue's ``num_requeues``."""
    c = FaultyCluster()
    assert isinstance(c.controller, JobController) and c.controller.max_requeue == 15
    assert not hasattr(c.controller, "_failures")


def test_go_fnv1_32_vectors_pick_the_worker_queue() -> None:
    """``fnv1_32`` is Go's ``fnv.New32`` (its package's FNV-1 test vectors), and a request's worker is
    that hash of ``namespace/name`` modulo the controller's three workers."""
    assert [fnv1_32(x) for x in (b"", b"a", b"ab", b"abc")] == [0x811C9DC5, 0x050C5D7E, 0x70772D38, 0x439C2F4B]
    req = Request(NS, "kd")
    assert worker_of(req) == fnv1_32(f"{NS}/kd".encode())
    assert (JobController.__init__.__kwdefaults__ or {}).get("workers") == WORKERS == 3


def test_jobs_of_different_workers_do_not_share_a_bucket() -> None:
    """Two jobs on different worker queues (as hashed) fail their requests together: each queue's
    bucket serves its own job's re-adds, so past one burst of 100 re-adds the retries still come at
    twice one bucket's rate (with one shared bucket the later ones would wait twice as long)."""
    c = FaultyCluster()
    a, b = "kd", next(n for n in (f"j{i}" for i in range(50))
                      if worker_of(Request(NS, n)) % WORKERS != worker_of(Request(NS, "kd")) % WORKERS)
    q = c.controller._queue
    delays = [q.rate_limit_delay_ms(Request(NS, name, pod_name=f"p{i}")) for i in range(120) for name in (a, b)]
    assert delays[:200] == [5] * 200
    assert delays[200:] == [100 * k for k in range(1, 21) for _ in (a, b)]  # the pair's: 100 ms apart each
