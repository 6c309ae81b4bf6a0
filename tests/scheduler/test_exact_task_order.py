"""Volcano's default task order (upstream ``CompareTask``): the pod-name index when both names carry one
and they differ, else creation time, else UID."""

from __future__ import annotations

import pytest

from volcano.scheduler.framework.task import TaskSpec, default_task_less

T0, T1 = "2024-01-01T00:00:00Z", "2024-01-01T00:00:01Z"


def _spec(name: str, created: str, uid: str) -> TaskSpec:
    return TaskSpec({"metadata": {"name": name, "namespace": "ns", "uid": uid, "creationTimestamp": created},
                     "spec": {"containers": [{"name": "c"}]}, "status": {"phase": "Pending"}})


@pytest.mark.parametrize(("left", "right", "less"), [
    (("j-t-2", T1, "z"), ("j-t-10", T0, "a"), True),      # indexes compare as numbers, before creation
    (("j-t-10", T0, "a"), ("j-t-2", T1, "z"), False),
    (("j-t-3", T1, "a"), ("k-u-3", T0, "z"), False),      # equal index: creation decides
    (("plain", T0, "z"), ("other", T1, "a"), True),       # plain pods: creation first
    (("plain", T1, "a"), ("other", T0, "z"), False),
    (("plain", T0, "a"), ("other", T0, "b"), True),       # same creation: uid
    (("plain", T0, "b"), ("other", T0, "a"), False),
    (("plain", T0, "a"), ("plain", T0, "a"), False),      # irreflexive
    (("j-t-9", T1, "a"), ("solo", T0, "z"), False),       # one index only: creation decides
    (("a-b", T0, "z"), ("j-t-0", T1, "a"), True),         # two parts are not an index
    (("j-t-x", T1, "a"), ("j-t-1", T0, "z"), False),      # a non-numeric suffix is not an index
])
def test_default_task_order(left: tuple[str, str, str], right: tuple[str, str, str], less: bool) -> None:
    assert default_task_less(_spec(*left), _spec(*right)) is less
