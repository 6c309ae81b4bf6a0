"""The scheduler cache's ``rebound`` (a pod's parse from its previous version's parse, when only a
bind or a status write changed it) equals a fresh parse, field by field, on random pods and random
changes; and it declines every change but those."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.api.frozen import freeze, thaw
from volcano.scheduler.cache.cache import rebound
from volcano.scheduler.framework.model import TaskSpec
from volcano.scheduler.framework.resources import ResourceSpace


@st.composite
def pods(draw: st.DrawFn) -> dict[str, Any]:
    """An unbound pod with random requests, priority, affinity, tolerations, labels and status."""
    requests = draw(st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]),
                                    st.sampled_from(["1", "100m", "2Gi", "0"]), max_size=3))
    spec: dict[str, Any] = {"schedulerName": "volcano", "containers": [{"name": "c", "image": "i",
                                                                        "resources": {"requests": requests}}]}
    if draw(st.booleans()):
        spec["priority"] = draw(st.integers(-5, 5))
    if draw(st.booleans()):
        spec["tolerations"] = [{"key": "k", "operator": "Exists"}]
    if draw(st.booleans()):
        spec["nodeSelector"] = {"zone": draw(st.sampled_from(["a", "b"]))}
    if draw(st.booleans()):
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    meta: dict[str, Any] = {"name": draw(st.sampled_from(["job-t-0", "p", "a-b-3"])), "namespace": "default",
                            "uid": "u1", "resourceVersion": "5", "creationTimestamp": "2024-01-01T00:00:00Z",
                            "labels": {"app": "x"},
                            "annotations": {"scheduling.k8s.io/group-name": "pg"}}
    if draw(st.integers(0, 4)) == 0:
        meta["deletionTimestamp"] = "2024-01-01T00:00:01Z"
    status: dict[str, Any] = {"phase": draw(st.sampled_from(["Pending", "Pending", "Running", "Failed", ""]))}
    if draw(st.booleans()):
        status["nominatedNodeName"] = "n2"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def _changed(pod: dict[str, Any], change: str) -> dict[str, Any]:
    """``pod`` after ``change``, built as the store builds it (unchanged parts shared)."""
    new = dict(pod)
    if change in ("bind", "bind+label", "bind+status", "bind+spec"):
        new["spec"] = freeze({**pod["spec"], "nodeName": "n1"})
        new["metadata"] = freeze({**pod["metadata"], "resourceVersion": "6"})
    if change == "bind+label" or change == "label":
        new["metadata"] = freeze({**new["metadata"], "labels": {"app": "y"}})
    if change == "bind+status" or change == "status":
        new["status"] = freeze({**pod["status"], "phase": "Running"})
    if change in ("conditions", "bind+conditions"):
        new["status"] = freeze({**pod["status"], "conditions": [
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/3 nodes"}]})
        new["metadata"] = freeze({**new["metadata"], "resourceVersion": "7"})
    if change == "nominate":
        new["status"] = freeze({**pod["status"], "nominatedNodeName": "n3"})
    if change == "no-status":
        new.pop("status", None)
    if change == "managed":
        new["metadata"] = freeze({**pod["metadata"], "managedFields": [{"manager": "m", "operation": "Update"}]})
    if change == "annotation":
        new["metadata"] = freeze({**pod["metadata"], "annotations": {"scheduling.k8s.io/group-name": "other"}})
    if change == "bind+spec":
        new["spec"] = freeze({**new["spec"], "priority": 99})
    if change == "equal-copy":
        new = freeze(thaw(pod))
    return freeze(new)


def _fields(task: TaskSpec) -> dict[str, Any]:
    out = {}
    for slot in TaskSpec.__slots__:
        value = getattr(task, slot)
        out[slot] = value.tolist() if isinstance(value, np.ndarray) else value
    return out


@settings(max_examples=200, deadline=None)
@given(pods(), st.sampled_from(["bind", "bind", "bind+label", "bind+status", "bind+spec", "label", "status",
                                "equal-copy", "conditions", "bind+conditions", "nominate", "no-status", "managed",
                                "annotation"]), st.booleans())
def test_rebound_is_a_fresh_parse(pod: dict[str, Any], change: str, vectors: bool) -> None:
    old = freeze(pod)
    spec = TaskSpec(old)
    if vectors:  # the request vector cached on the unbound parse is carried over
        spec.vec(ResourceSpace())
    new = _changed(old, change)
    task = rebound(spec, new)
    if change in ("label", "bind+label", "bind+spec", "annotation"):
        assert task is None, change  # a change neither a bind nor a status write makes: parsed again
        return
    assert task is not None, change
    fresh = TaskSpec(new)
    if vectors:
        fresh.vec(ResourceSpace())
    assert _fields(task) == _fields(fresh)
