"""JobPodIndex: per-event aggregates equal a full recount over the overlay view, whatever the
interleaving of watch events, the controller's own writes and relists."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.controllers.job.conftest import StubInformer
from volcano.api.frozen import freeze
from volcano.apiserver.client import Obj
from volcano.controllers.job.index import JobPodIndex, job_pod_keys, phase_label, pod_restarts
from volcano.controllers.job.overlay import WriteOverlay
from volcano.controllers.job.state import RETAIN_NONE, RETAIN_SOFT

NAMES = ("j-a-0", "j-a-1", "j-a-2", "j-a-3", "j-a-01", "j-b-0", "j-b-1", "x-a-0")
PHASES = ("Pending", "Running", "Succeeded", "Failed", None)


def make_pod(name: str, uid: str, rv: int, phase: str | None, deleting: bool, out_of_sync: bool, restarts: int,
             ready: bool) -> Obj:
    job = name.split("-")[0]
    task = name.split("-")[1]
    ann = {"volcano.sh/job-name": job, "volcano.sh/task-spec": task, "volcano.sh/job-version": "0"}
    if out_of_sync:
        ann["volcano.sh/controller-out-of-sync"] = "true"
    meta: dict[str, Any] = {"name": name, "namespace": "ns", "uid": uid, "resourceVersion": str(rv),
                            "annotations": ann,
                            "ownerReferences": [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                                                 "name": job, "uid": "J", "controller": True}]}
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:01Z"
    status: dict[str, Any] = {"containerStatuses": [{"name": "c", "ready": ready, "restartCount": restarts}]}
    if phase:
        status["phase"] = phase
    return freeze({"metadata": meta, "status": status})


class World:
    """A store, a lagging informer, the index under test and the reference overlay."""

    def __init__(self) -> None:
        self.rv = 0
        self.uids = 0
        self.store: dict[str, Obj] = {}
        self.queue: list[tuple[str, Obj]] = []
        self.informer = StubInformer()
        self.index = JobPodIndex(self.informer)
        self.overlay = WriteOverlay(self.informer)

    def _pod(self, name: str, draw: Any) -> Obj:
        self.rv += 1
        old = self.store.get(name)
        if old is None or draw.new_uid:
            self.uids += 1
            uid = f"u{self.uids}"
        else:
            uid = old["metadata"]["uid"]
        return make_pod(name, uid, self.rv, draw.phase, draw.deleting, draw.out_of_sync, draw.restarts, draw.ready)

    def someone_writes(self, name: str, draw: Any) -> None:
        pod = self._pod(name, draw)
        etype = "MODIFIED" if name in self.store and self.store[name]["metadata"]["uid"] == pod["metadata"]["uid"] \
            else "ADDED"
        if name in self.store and etype == "ADDED":
            self.queue.append(("DELETED", self.store[name]))
        self.store[name] = pod
        self.queue.append((etype, pod))

    def someone_deletes(self, name: str) -> None:
        if name in self.store:
            self.rv += 1
            self.queue.append(("DELETED", self.store.pop(name)))

    def controller_writes(self, name: str, draw: Any) -> None:
        self.someone_writes(name, draw)
        self.index.wrote(self.store[name])
        self.overlay.wrote(self.store[name], (job_pod_keys(self.store[name]) or [""])[0])

    def controller_removes(self, name: str) -> None:
        if name in self.store:
            gone = self.store[name]
            self.someone_deletes(name)
            self.index.removed(gone)
            self.overlay.removed(gone, (job_pod_keys(gone) or [""])[0])

    def deliver(self) -> None:
        if not self.queue:
            return
        etype, pod = self.queue.pop(0)
        key = ("ns", pod["metadata"]["name"])
        if etype == "DELETED":
            self.informer.objects.pop(key, None)
        else:
            self.informer.objects[key] = pod
        self.informer.resource_version = pod["metadata"]["resourceVersion"] if etype != "DELETED" else \
            str(max(int(self.informer.resource_version), int(pod["metadata"]["resourceVersion"])))
        self.index.observe(etype, pod)

    def relist(self) -> None:
        """As the informer relists: the difference as events (version not yet moved), then the version."""
        self.queue.clear()
        current = {("ns", n): p for n, p in self.store.items()}
        for key in sorted(self.informer.objects):
            if key not in current:
                gone = self.informer.objects.pop(key)
                self.index.observe("DELETED", gone)
        for key in sorted(current):
            prev = self.informer.objects.get(key)
            if prev is None or prev["metadata"]["resourceVersion"] != current[key]["metadata"]["resourceVersion"]:
                self.informer.objects[key] = current[key]
                self.index.observe("MODIFIED" if prev is not None else "ADDED", current[key])
        self.informer.resource_version = str(self.rv)

    def reference(self, group: str) -> dict[str, Obj]:
        """The old JobCache.pods: informer pods of the group with the overlay laid over them."""
        found: dict[str, Obj] = {}
        names = {k[1] for k in self.informer.objects} | set(NAMES)
        for name in sorted(names):
            pod = self.overlay.resolve("ns", name, self.informer.get(name, "ns"))
            if pod is not None and job_pod_keys(pod) == [group]:
                found[name] = pod
        return found


class Draw:
    def __init__(self, phase: str | None, deleting: bool, out_of_sync: bool, restarts: int, ready: bool,
                 new_uid: bool) -> None:
        self.phase, self.deleting, self.out_of_sync = phase, deleting, out_of_sync
        self.restarts, self.ready, self.new_uid = restarts, ready, new_uid


draws = st.builds(Draw, st.sampled_from(PHASES), st.booleans(), st.booleans(), st.integers(0, 2), st.booleans(),
                  st.booleans())
ops = st.one_of(
    st.tuples(st.just("someone_writes"), st.sampled_from(NAMES), draws),
    st.tuples(st.just("someone_deletes"), st.sampled_from(NAMES)),
    st.tuples(st.just("controller_writes"), st.sampled_from(NAMES), draws),
    st.tuples(st.just("controller_removes"), st.sampled_from(NAMES)),
    st.tuples(st.just("deliver")), st.tuples(st.just("deliver")), st.tuples(st.just("deliver")),
    st.tuples(st.just("relist")),
)


def check(world: World, replicas: dict[str, int]) -> None:
    ref = world.reference("ns/j")
    jp = world.index.job("ns/j")
    assert jp.objects == ref
    assert len(jp) == len(ref)
    assert jp.terminating == sum(1 for p in ref.values() if p["metadata"].get("deletionTimestamp"))
    for keep in (RETAIN_NONE, RETAIN_SOFT):
        assert jp.live_except(keep) == sorted(n for n, p in ref.items() if not p["metadata"].get("deletionTimestamp")
                                              and (p.get("status") or {}).get("phase") not in keep)
    for task, count in replicas.items():
        tp = jp.task(task)
        tp.set_replicas(count)
        mine = {n: p for n, p in ref.items() if p["metadata"]["annotations"]["volcano.sh/task-spec"] == task}
        desired = [f"j-{task}-{i}" for i in range(count)]
        in_range = {n: mine[n] for n in desired if n in mine}
        live = {n: p for n, p in in_range.items() if not p["metadata"].get("deletionTimestamp")}
        assert tp.missing_sorted() == [i for i, n in enumerate(desired) if n not in mine]
        assert tp.surplus_sorted() == sorted(n for n in mine if n not in in_range)
        assert tp.terminating == len(in_range) - len(live)
        phases: dict[str, int] = {}
        for p in live.values():
            phases[phase_label(p)[1]] = phases.get(phase_label(p)[1], 0) + 1
        assert tp.phases == phases
        assert tp.out_of_sync_sorted() == [n for n in desired if n in live and
                                           live[n]["metadata"]["annotations"].get("volcano.sh/controller-out-of-sync")]
        assert tp.ready == sum(1 for p in in_range.values() if (p.get("status") or {}).get("phase") == "Succeeded" or (
            (p.get("status") or {}).get("phase") == "Running"
            and all(c.get("ready") for c in p["status"].get("containerStatuses") or [])))
        assert tp.succeeded == sum(1 for p in mine.values() if (p.get("status") or {}).get("phase") == "Succeeded")
        assert tp.restarts == sum(pod_restarts(p) for p in mine.values())


@settings(max_examples=150, deadline=None)
@given(st.lists(ops, max_size=40), st.dictionaries(st.sampled_from("ab"), st.integers(0, 4), min_size=1))
def test_index_aggregates_equal_a_recount_of_the_overlay_view(steps: list[tuple[Any, ...]],
                                                              replicas: dict[str, int]) -> None:
    world = World()
    for step in steps:
        getattr(world, step[0])(*step[1:])
        check(world, replicas)
    world.relist()
    check(world, replicas)


def test_a_job_with_no_pods_reads_as_an_empty_record_with_every_replica_missing() -> None:
    index = JobPodIndex(StubInformer())
    tp = index.job("ns/j").task("a")
    tp.set_replicas(3)
    assert tp.missing_sorted() == [0, 1, 2] and len(index.job("ns/j")) == 0


def test_forget_job_drops_the_controllers_writes_and_shows_the_informers_copies() -> None:
    informer = StubInformer()
    seen = make_pod("j-a-0", "u1", 1, "Running", False, False, 0, True)
    informer.objects[("ns", "j-a-0")] = seen
    informer.resource_version = "1"
    index = JobPodIndex(informer)
    index.wrote(make_pod("j-a-0", "u1", 5, "Running", True, True, 0, True))
    assert index.job("ns/j").terminating == 1
    index.forget_job("ns/j")
    assert index.job("ns/j").objects == {"j-a-0": seen}
    assert index.job("ns/j").terminating == 0
