"""``JobCache.observe_pod`` hands the pod index only the events it acts on, and tells the Job
controller's pod handler whether the pod is one it manages: over random interleavings of pod
writes (managed pods, pods without the Job's ownerReference or annotations, including a managed
pod rewritten as unmanaged), deletions, the controller's own writes and deliveries, the index fed
that way holds the same entries and Job records as one fed every event (the reference path), and
the answer is ``job_pod_keys`` of the pod."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.controllers.job.conftest import StubInformer
from tests.controllers.job.test_index import NAMES, Draw, draws, make_pod
from volcano.api.frozen import freeze, thaw
from volcano.apiserver.client import Obj
from volcano.controllers.job.cache import JobCache
from volcano.controllers.job.index import JobPodIndex, job_pod_keys


def _unmanaged(pod: Obj, how: int) -> Obj:
    """``pod`` without what makes it a Job's: its ownerReference, an annotation, or an integer version."""
    out = thaw(pod)
    meta = out["metadata"]
    if how == 0:
        del meta["ownerReferences"]
    elif how == 1:
        del meta["annotations"]["volcano.sh/task-spec"]
    else:
        meta["annotations"]["volcano.sh/job-version"] = "x"
    return freeze(out)


class _World:
    """A store, an informer, the cache under test and a reference index fed every event."""

    def __init__(self) -> None:
        self.rv, self.uids = 0, 0
        self.store: dict[str, Obj] = {}
        self.queue: list[tuple[str, Obj]] = []
        self.informer = StubInformer()
        self.cache = JobCache(StubInformer(), self.informer, StubInformer(), StubInformer(),  # type: ignore[arg-type]
                              StubInformer())
        self.reference = JobPodIndex(self.informer)  # type: ignore[arg-type]

    def write(self, name: str, draw: Draw, how: int) -> None:
        self.rv += 1
        old = self.store.get(name)
        if old is None or draw.new_uid:
            self.uids += 1
            uid = f"u{self.uids}"
        else:
            uid = old["metadata"]["uid"]
        pod = make_pod(name, uid, self.rv, draw.phase, draw.deleting, draw.out_of_sync, draw.restarts, draw.ready)
        if how < 3:
            pod = _unmanaged(pod, how)
        same = old is not None and old["metadata"]["uid"] == uid
        if old is not None and not same:
            self.queue.append(("DELETED", old))
        self.store[name] = pod
        self.queue.append(("MODIFIED" if same else "ADDED", pod))

    def delete(self, name: str) -> None:
        if name in self.store:
            self.rv += 1
            self.queue.append(("DELETED", self.store.pop(name)))

    def controller_writes(self, name: str, draw: Draw) -> None:
        self.write(name, draw, 3)
        self.cache.pod_written(self.store[name])
        self.reference.wrote(self.store[name])

    def deliver(self) -> None:
        if not self.queue:
            return
        etype, pod = self.queue.pop(0)
        key = ("ns", pod["metadata"]["name"])
        if etype == "DELETED":
            self.informer.objects.pop(key, None)
        else:
            self.informer.objects[key] = pod
        self.informer.resource_version = str(self.rv)
        assert self.cache.observe_pod(etype, pod) == bool(job_pod_keys(pod))
        self.reference.observe(etype, pod)


def _state(index: JobPodIndex) -> Any:
    entries = sorted((key, e.seen, e.effective, e.group, e.mine_kind, e.mine_rv) for key, e in index._entries.items())
    jobs = {group: (index.job(group).objects, len(index.job(group))) for group in ("ns/j", "ns/x")}
    return entries, jobs


ops = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(NAMES), draws, st.integers(0, 5)),
    st.tuples(st.just("delete"), st.sampled_from(NAMES)),
    st.tuples(st.just("controller_writes"), st.sampled_from(NAMES), draws),
    st.tuples(st.just("deliver")), st.tuples(st.just("deliver")), st.tuples(st.just("deliver")),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(ops, max_size=40))
def test_the_cache_fed_only_what_it_acts_on_equals_the_index_fed_everything(steps: list[tuple[Any, ...]]) -> None:
    world = _World()
    for op, *args in steps:
        getattr(world, op)(*args)
        assert _state(world.cache._pod_index) == _state(world.reference)
    while world.queue:
        world.deliver()
    assert _state(world.cache._pod_index) == _state(world.reference)


def test_a_managed_pod_rewritten_as_unmanaged_leaves_its_job() -> None:
    """Not vacuous: the tracked path (a pod the index holds, no longer the Job's) is taken."""
    world = _World()
    draw = Draw("Running", False, False, 0, True, False)
    world.write("j-a-0", draw, 3)
    world.deliver()
    assert list(world.cache.job_pods("ns", "j").objects) == ["j-a-0"]
    world.write("j-a-0", draw, 0)
    world.deliver()
    # still tracked (the index holds the pod it saw), so the event reached it: the Job lost the pod
    assert world.cache.tracks_pod(world.store["j-a-0"]) and not world.cache.job_pods("ns", "j").objects
    world.write("x-a-0", draw, 1)
    world.deliver()
    assert not world.cache.tracks_pod(world.store["x-a-0"])
