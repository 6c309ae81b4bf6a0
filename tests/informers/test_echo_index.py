"""Guarded index functions (``GuardedIndex``: not called for an update that cannot move the object)
keep every pod index exactly as the plain functions do, over random pod histories made mostly of
status echoes (a condition message rewritten) with creates, binds, phase, label, owner and
deletion changes among them; and a status echo calls none of them.

``ops``/``run_ops`` are the shared random pod histories of the ``test_echo_*`` tests."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.apiserver import ApiServer
from volcano.apiserver.errors import ApiError
from volcano.controllers.builtin._common import controller_uid_index
from volcano.controllers.podgroup import PodGroupController
from volcano.informers import GuardedIndex, Informer, InformerFactory, same_owner_refs, same_spec
from volcano.kubelet import kubelet
from volcano.sim import RandomStreams, SimClock

NAMES = ["a", "b", "c"]
OWNERS = ["none", "rs", "job", "other", "two"]
OPS = ["create", "cond", "cond", "cond", "phase", "bind", "label", "owner", "nominate", "delete", "finalize"]

ops = st.lists(st.tuples(st.sampled_from(OPS), st.sampled_from(NAMES), st.integers(0, 4)), max_size=30)
"""A random pod history: (operation, pod name, variant)."""


_TEMPLATE = {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
_OWNERS = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "default"}},
           {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "default"},
            "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "x"}}, "template": _TEMPLATE}},
           {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "j", "namespace": "default"},
            "spec": {"tasks": [{"name": "t", "replicas": 1, "template": _TEMPLATE}]}}]


def create_owners(server: ApiServer) -> dict[str, list[dict[str, Any]]]:
    """Create the owners (so that garbage collection keeps their pods); the ownerReferences of
    each owner variant."""
    uid = {}
    for owner in _OWNERS:
        try:
            found = server.get(owner["kind"], owner["metadata"]["name"], "default")
        except ApiError:
            found = server.create(owner)
        uid[owner["kind"]] = found["metadata"]["uid"]
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": uid["ReplicaSet"], "controller": True}
    job = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "j", "uid": uid["Job"],
           "controller": True}
    other = {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": uid["ConfigMap"]}
    return {"none": [], "rs": [rs], "job": [job], "other": [other], "two": [other, rs]}


def pod(name: str, variant: int, refs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """A pod of scheduler ``volcano`` (even variants) or the default one, owned per ``variant``."""
    ann = {"scheduling.k8s.io/group-name": "pg"}
    if OWNERS[variant] == "job":
        ann.update({"volcano.sh/job-name": "j", "volcano.sh/task-spec": "t", "volcano.sh/job-version": "0"})
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": {"app": "x"}, "annotations": ann,
                            "ownerReferences": refs[OWNERS[variant]]}
    if variant == 3:
        meta["finalizers"] = ["example.com/hold"]
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox",
                                            "resources": {"requests": {"cpu": "1"}}}]}
    if variant % 2 == 0:
        spec["schedulerName"] = "volcano"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def apply_op(server: ApiServer, refs: dict[str, list[dict[str, Any]]], op: str, name: str, variant: int) -> None:
    """Apply one operation (a refused one changes nothing)."""
    try:
        if op == "create":
            server.create(pod(name, variant, refs))
        elif op == "cond":
            server.patch("Pod", name, {"status": {"conditions": [
                {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                 "message": f"0/{variant} nodes are available"}]}}, "default", subresource="status")
        elif op == "phase":
            server.patch("Pod", name, {"status": {"phase": ["Pending", "Running", "Succeeded", "Failed",
                                                            "Running"][variant]}}, "default", subresource="status")
        elif op == "nominate":
            server.patch("Pod", name, {"status": {"nominatedNodeName": f"n{variant}"}}, "default",
                         subresource="status")
        elif op == "bind":
            server.bind(name, "default", f"n{variant}")
        elif op == "label":
            server.patch("Pod", name, {"metadata": {"labels": {"app": f"v{variant}"}}}, "default")
        elif op == "owner":
            server.patch("Pod", name, {"metadata": {"ownerReferences": refs[OWNERS[variant]]}}, "default")
        elif op == "finalize":
            server.patch("Pod", name, {"metadata": {"finalizers": None}}, "default")
        else:
            server.delete("Pod", name, "default")
    except ApiError:
        pass


def run_ops(server: ApiServer, clock: SimClock, history: list[tuple[str, str, int]],
            each: Any = None) -> None:
    """Create the owners, then apply ``history``, running the clock after each step (and calling
    ``each()`` then)."""
    refs = create_owners(server)
    clock.run()
    for op in history:
        apply_op(server, refs, *op)
        clock.run()
        if each is not None:
            each()


_GUARDED = {"builtin": controller_uid_index, "podgroup": PodGroupController.INDEXES[0][2],
            "kubelet": kubelet._NODE_OF_POD}


def _indexes(inf: Informer) -> dict[str, dict[str, list[str]]]:
    return {name: {value: [o["metadata"]["name"] for o in inf.by_index(name, value)]
                   for value in inf.index_values(name)} for name in _GUARDED}


@settings(max_examples=80, deadline=None)
@given(ops)
def test_guarded_indexes_equal_the_plain_ones(history: list[tuple[str, str, int]]) -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    guarded = InformerFactory(server, clock).informer("Pod")
    plain = InformerFactory(server, clock).informer("Pod")
    for name, fn in _GUARDED.items():
        assert isinstance(fn, GuardedIndex)
        guarded.add_index(name, fn)
        plain.add_index(name, fn.fn)

    def check() -> None:
        assert _indexes(guarded) == _indexes(plain)
        assert guarded.unusable.skipped == plain.unusable.skipped
    run_ops(server, clock, history, check)


def test_a_status_echo_calls_no_guarded_index() -> None:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    inf = InformerFactory(server, clock).informer("Pod")
    calls: list[str] = []

    def spy(name: str, fn: Any) -> GuardedIndex:
        def read(obj: Any) -> list[str]:
            calls.append(name)
            return list(fn.fn(obj))
        return GuardedIndex(read, fn.unchanged)
    for name, fn in _GUARDED.items():
        inf.add_index(name, spy(name, fn))
    run_ops(server, clock, [("create", "a", 1), ("bind", "a", 2)])
    assert calls  # the create and the bind read every index
    calls.clear()
    run_ops(server, clock, [("cond", "a", 1), ("cond", "a", 2), ("phase", "a", 1)])
    assert calls == []
    run_ops(server, clock, [("owner", "a", 2)])  # a new ownerReferences list: read again
    assert sorted(calls) == sorted(["builtin", "builtin", "podgroup", "podgroup"])


def test_the_guards_decline_what_they_cannot_vouch_for() -> None:
    spec = {"nodeName": "n"}
    assert same_spec({"spec": spec}, {"spec": spec})
    assert same_spec({}, {})
    assert not same_spec({"spec": spec}, {"spec": dict(spec)})
    assert not same_spec({"spec": [1]}, {"spec": [1]} | {})  # not the same object
    odd = ["not", "a", "mapping"]
    assert not same_spec({"spec": odd}, {"spec": odd})  # a function reading it could raise
    refs: list[Any] = []
    assert same_owner_refs({"metadata": {"ownerReferences": refs}}, {"metadata": {"ownerReferences": refs}})
    assert same_owner_refs({"metadata": {}}, {"metadata": {"name": "x"}})
    assert not same_owner_refs({"metadata": {"ownerReferences": []}}, {"metadata": {"ownerReferences": []}})
    assert not same_owner_refs({"metadata": odd}, {"metadata": odd})
