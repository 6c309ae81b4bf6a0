"""The scheduler's PodGroup status write (``podgroup_with_status``, a shallow copy of the informer's
frozen object) stores what the deep copy it replaced stored: same objects, resourceVersions and
generations, or the same error, on random PodGroups and random statuses."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from volcano.api.frozen import thaw
from volcano.apiserver import ApiServer
from volcano.apiserver.errors import ApiError
from volcano.scheduler.scheduler import podgroup_with_status
from volcano.sim import SimClock
from volcano.sim.rand import RandomStreams

_counts = st.one_of(st.none(), st.integers(0, 5), st.sampled_from([-1, 1.0, "2"]))
_conditions = st.lists(st.fixed_dictionaries(
    {"type": st.sampled_from(["Unschedulable", "Scheduled"]), "status": st.sampled_from(["True", "False"])},
    optional={"reason": st.sampled_from(["NotEnoughResources", ""]), "message": st.text(max_size=8),
              "transitionID": st.sampled_from(["s-1", "s-2"]), "lastTransitionTime": st.just("2024-01-01T00:00:00Z")}),
    max_size=2)


@st.composite
def statuses(draw: st.DrawFn) -> dict[str, Any]:
    """A status as session close derives it (phase, non-zero counters, conditions), now and then odd."""
    out: dict[str, Any] = {"phase": draw(st.sampled_from(["Pending", "Inqueue", "Running", "Unknown", "Completed"]))}
    for key in ("running", "succeeded", "failed"):
        value = draw(_counts)
        if value is not None:
            out[key] = value
    if draw(st.booleans()):
        out["conditions"] = draw(_conditions)
    return out


def _podgroup(name: str, min_member: int, status: dict[str, Any] | None) -> dict[str, Any]:
    pg: dict[str, Any] = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                          "metadata": {"name": name, "namespace": "default", "labels": {"a": "b"}},
                          "spec": {"minMember": min_member, "queue": "default"}}
    if status is not None:
        pg["status"] = status
    return pg


def _deep(current: Any, status: dict[str, Any]) -> dict[str, Any]:
    """The write as the scheduler built it before: a deep copy of the object, status merged."""
    obj: dict[str, Any] = thaw(current)
    obj["status"] = {**(obj.get("status") or {}), **status}
    for key in ("running", "succeeded", "failed"):
        if key not in status:
            obj["status"].pop(key, None)
    return obj


def _outcome(server: ApiServer, obj: dict[str, Any]) -> Any:
    try:
        return ("ok", server.update(obj))
    except ApiError as exc:
        return ("error", exc.code, exc.reason, exc.message, exc.details)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 3), st.one_of(st.none(), statuses()), st.lists(statuses(), min_size=1, max_size=3))
def test_shallow_status_write_stores_what_the_deep_copy_did(min_member: int, initial: dict[str, Any] | None,
                                                              writes: list[dict[str, Any]]) -> None:
    shallow, deep = ApiServer(SimClock(), RandomStreams(5)), ApiServer(SimClock(), RandomStreams(5))
    created = []
    for server in (shallow, deep):
        try:
            created.append(("ok", server.create(_podgroup("pg", min_member, initial))))
        except ApiError as exc:
            created.append(("error", exc.code, exc.message))
    assert created[0] == created[1]
    if created[0][0] != "ok":
        return
    for status in writes:
        got = _outcome(shallow, podgroup_with_status(shallow.get("PodGroup", "pg"), status))
        assert got == _outcome(deep, _deep(deep.get("PodGroup", "pg"), status))
    assert shallow.snapshot() == deep.snapshot()
    assert shallow.resource_version == deep.resource_version


def test_the_informers_object_is_left_as_it_was() -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    current = server.create(_podgroup("pg", 1, None))
    obj = podgroup_with_status(current, {"phase": "Running", "running": 1})
    assert obj["status"] == {"phase": "Running", "running": 1} and "status" not in current
    stored = server.update(obj)
    assert stored["status"] == {"phase": "Running", "running": 1}
    assert server.get("PodGroup", "pg")["metadata"]["generation"] == 2
