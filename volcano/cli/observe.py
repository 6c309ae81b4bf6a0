"""What ``volcano run`` watches while the cluster runs: Job phases, pods on nodes, events.

``RunRecorder`` follows watches on the cluster's API server and stamps every
change with the simulated time it was delivered at (the watch delivers within
the same simulated millisecond as the change). It keeps:

- per Volcano Job, its last state, also after it was deleted (``jobs``,
  ``deleted``), and each phase it entered and when (``phases``);
- per pod and node, the intervals the pod ran there (``spans``);
- every occurrence of every Event, also the repeats a real API server folds
  into ``count`` (``events``); ``fold_repeats`` folds back only the repeats
  that tell nothing new.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from volcano.apiserver.client import WatchEvent
    from volcano.testbed import FakeCluster

__all__ = ["EventEntry", "EventLine", "PodSpan", "RunRecorder", "fold_repeats", "job_phase", "pod_owner"]

_JOB_NAME_LABEL = "volcano.sh/job-name"
_GROUP_ANNOTATION = "scheduling.k8s.io/group-name"


@dataclass(frozen=True)
class EventLine:
    """One occurrence of an Event, at ``time`` simulated seconds."""

    time: float
    type: str
    reason: str
    kind: str
    namespace: str
    name: str
    message: str
    source: str
    uid: str
    """The Event object's uid: occurrences with the same uid are repeats of one Event."""


@dataclass
class PodSpan:
    """A pod running on ``node`` from ``start`` to ``end`` (None: still running)."""

    namespace: str
    name: str
    owner: str
    node: str
    start: float
    end: float | None = None


def pod_owner(pod: dict[str, Any]) -> str:
    """The workload a pod belongs to: its Volcano Job, else its PodGroup, else the pod itself."""
    meta = pod.get("metadata") or {}
    name = ((meta.get("labels") or {}).get(_JOB_NAME_LABEL)
            or (meta.get("annotations") or {}).get(_GROUP_ANNOTATION) or meta.get("name", ""))
    return f"{meta.get('namespace') or 'default'}/{name}"


def _key(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"


def job_phase(job: dict[str, Any]) -> str:
    """A Volcano Job's ``status.state.phase`` ("" before the controller set one)."""
    return str(((job.get("status") or {}).get("state") or {}).get("phase") or "")


class RunRecorder:
    """Records Job phases, pod spans and event occurrences of ``cluster`` from now on."""

    def __init__(self, cluster: FakeCluster) -> None:
        self.cluster = cluster
        self.phases: dict[str, list[tuple[float, str]]] = {}
        self.jobs: dict[str, dict[str, Any]] = {}
        """Every Volcano Job seen, by ``namespace/name``: its last state (a deleted Job stays)."""
        self.deleted: set[str] = set()
        """The Jobs of ``jobs`` that were deleted (``ttlSecondsAfterFinished``, a user)."""
        self.spans: list[PodSpan] = []
        self.events: list[EventLine] = []
        self._running: dict[str, PodSpan] = {}
        self._event_counts: dict[str, int] = {}
        client = cluster.client
        self._watches = [client.watch("Job", self._on_job), client.watch("Pod", self._on_pod),
                         client.watch("Event", self._on_event)]

    def reached(self, job_key: str) -> set[str]:
        """Every phase the Job ``namespace/name`` has been in so far."""
        return {phase for _t, phase in self.phases.get(job_key, [])}

    def _on_job(self, ev: WatchEvent) -> None:
        phase = job_phase(ev.object)
        key = _key(ev.object)
        self.jobs[key] = ev.object
        if ev.type == "DELETED":
            self.deleted.add(key)
        else:
            self.deleted.discard(key)
        history = self.phases.setdefault(key, [])
        if phase and (not history or history[-1][1] != phase):
            history.append((self.cluster.now, phase))

    def _on_pod(self, ev: WatchEvent) -> None:
        pod = ev.object
        uid = str((pod.get("metadata") or {}).get("uid") or _key(pod))
        node = (pod.get("spec") or {}).get("nodeName") or ""
        running = ev.type != "DELETED" and (pod.get("status") or {}).get("phase") == "Running" and bool(node)
        span = self._running.get(uid)
        if span is not None and (not running or span.node != node):
            span.end = self.cluster.now
            del self._running[uid]
            span = None
        if running and span is None:
            meta = pod["metadata"]
            span = PodSpan(meta.get("namespace") or "default", meta["name"], pod_owner(pod), node,
                           self.cluster.now)
            self._running[uid] = span
            self.spans.append(span)

    def _on_event(self, ev: WatchEvent) -> None:
        event = ev.object
        if ev.type not in ("ADDED", "MODIFIED"):
            return
        uid = str((event.get("metadata") or {}).get("uid") or _key(event))
        count = int(event.get("count") or 1)
        seen = self._event_counts.get(uid, 0)
        self._event_counts[uid] = max(seen, count)
        if count <= seen:
            return
        inv = event.get("involvedObject") or {}
        source = (event.get("source") or {}).get("component") or event.get("reportingComponent") or ""
        line = EventLine(self.cluster.now, str(event.get("type") or ""), str(event.get("reason") or ""),
                         str(inv.get("kind") or ""), str(inv.get("namespace") or ""), str(inv.get("name") or ""),
                         str(event.get("message") or ""), str(source), uid)
        self.events.extend([line] * (count - seen))

    def close(self) -> None:
        """Stop watching; spans still open end now."""
        for watch in self._watches:
            watch.stop()
        for span in self._running.values():
            span.end = self.cluster.now
        self._running.clear()


@dataclass
class EventEntry:
    """An Event occurrence and its repeats folded into it: ``count`` in all, the last at ``last``."""

    first: EventLine
    count: int
    last: float


def fold_repeats(lines: list[EventLine]) -> list[EventEntry]:
    """Fold repeats that tell nothing new: an occurrence joins the entry of the same Event while
    only repeats have happened since that entry's last occurrence.

    An occurrence that starts a new entry closes every entry last seen before its millisecond, so
    a sequence (restart, reschedule, restart) keeps one line per step, while a scheduler repeating
    the same two messages every cycle stays two lines with their counts.
    """
    entries: list[EventEntry] = []
    open_entries: dict[str, EventEntry] = {}
    for line in lines:
        entry = open_entries.get(line.uid)
        if entry is not None:
            entry.count += 1
            entry.last = line.time
            continue
        open_entries = {uid: e for uid, e in open_entries.items() if e.last >= line.time}
        entry = open_entries[line.uid] = EventEntry(line, 1, line.time)
        entries.append(entry)
    return entries
