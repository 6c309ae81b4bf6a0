"""The scheduler cache's task groups (``Snapshot.members``) are the snapshot's tasks grouped by job.

Random pod event sequences (pods arriving, bound, changed, moved to another job, handed to
another scheduler, deleted and coming back, sharing a uid) go straight to the cache's handler;
after each step the snapshot's groups must be the snapshot's tasks grouped by job id in order,
``seq`` must follow the tasks' order, the per-job overrides must be ``overrides`` grouped by
job (while uids are unique), uniqueness of uids must be told right, and a group no event
touched since the last snapshot must be the very same list as in that snapshot. Events may come
several to a snapshot, and a list a snapshot handed out must never change after (the cache copies
it before its next change).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.api.well_known import GROUP_NAME
from volcano.scheduler.cache.cache import SchedulerCache
from volcano.scheduler.framework.snapshot import Snapshot


class _Informer:
    def add_handler(self, handler: Any) -> None:
        pass


class _Informers:
    def informer(self, kind: str) -> _Informer:
        return _Informer()


def _pod(name: str, group: str, uid: str, node: str, scheduler: str, cpu: int) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "ns", "uid": uid}
    if group:
        meta["annotations"] = {GROUP_NAME: group}
    spec: dict[str, Any] = {"schedulerName": scheduler, "containers": [
        {"name": "c", "resources": {"requests": {"cpu": f"{cpu}"}}}]}
    if node:
        spec["nodeName"] = node
    return {"metadata": meta, "spec": spec, "status": {"phase": "Running" if node else "Pending"}}


def _grouped(snap: Snapshot) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for spec in snap.tasks:
        out.setdefault(spec.job_id, []).append(id(spec))
    return out


_event = st.tuples(st.sampled_from(["put", "put", "put", "delete", "bind", "release"]), st.integers(0, 7),
                   st.sampled_from(["", "g1", "g2", "g3"]), st.integers(0, 9), st.sampled_from(["", "n1", "n2"]),
                   st.sampled_from(["volcano", "volcano", "other"]), st.integers(1, 3), st.booleans())


@settings(max_examples=200, deadline=None)
@given(st.lists(_event, min_size=1, max_size=40))
def test_groups_are_the_tasks_grouped_by_job(events: list[tuple[Any, ...]]) -> None:
    cache = SchedulerCache(_Informers())  # type: ignore[arg-type]
    last: Snapshot | None = None
    touched: set[str] = set()
    handed: list[tuple[list[Any], list[int]]] = []
    for op, i, group, uid, node, scheduler, cpu, skip in events:
        name = f"p{i}"
        before = dict(cache.pods)
        if op == "delete":
            cache._on_pod("DELETED", _pod(name, group, f"u{uid}", node, scheduler, cpu), None)
        elif op == "bind":
            cache.binding[f"ns/{name}"] = node or "n1"
        elif op == "release":
            cache.releasing.add(f"ns/{name}")
        else:
            etype = "MODIFIED" if f"ns/{name}" in cache.pods else "ADDED"
            cache._on_pod(etype, _pod(name, group, f"u{uid}", node, scheduler, cpu), None)
        touched |= {spec.job_id for key, spec in before.items() if cache.pods.get(key) is not spec} | \
            {spec.job_id for key, spec in cache.pods.items() if before.get(key) is not spec}
        # A list once handed out never changes, however many events come before the next snapshot.
        assert all([id(x) for x in members] == ids for members, ids in handed)
        if skip:  # several events between two snapshots: the cache changes its own copies in place
            continue
        snap = cache.snapshot()
        assert snap.members is not None
        handed.extend((members, [id(x) for x in members]) for members in snap.members.values())
        assert snap.members is not None and snap.overrides_by_job is not None
        assert {k: [id(x) for x in v] for k, v in snap.members.items()} == _grouped(snap)
        seqs = [spec.seq for spec in snap.tasks]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs) and min(seqs, default=0) >= 0
        assert snap.unique_uids == (len({spec.uid for spec in snap.tasks}) == len(snap.tasks))
        by_job: dict[str, dict[str, Any]] = {}
        for spec in snap.tasks:
            if spec.uid in snap.overrides:
                by_job.setdefault(spec.job_id, {})[spec.uid] = snap.overrides[spec.uid]
        if snap.unique_uids:  # (with a uid shared, a session builds every job and reads no per-job overrides)
            assert snap.overrides_by_job == by_job
        if last is not None and last.members is not None:
            for jid, members in snap.members.items():
                if jid not in touched and jid in last.members:
                    assert members is last.members[jid], jid
        last = snap
        touched = set()
