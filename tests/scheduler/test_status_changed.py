"""``status_changed`` (Volcano's PodGroup status change test, written for speed) answers as the
plain reading of its contract: any of phase/running/succeeded/failed differs (a missing or empty
value counting as 0), or the condition lists differ in length, or a pair of conditions differs in a
key or value other than ``lastTransitionTime`` and ``transitionID``. Checked on random statuses."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.scheduler.framework.status import status_changed

_VALUES = st.one_of(st.none(), st.integers(0, 2), st.sampled_from(["", "Pending", "Running", "0"]))
_COND = st.dictionaries(st.sampled_from(["type", "status", "reason", "message", "lastTransitionTime",
                                         "transitionID"]), st.one_of(_VALUES, st.lists(st.integers(0, 1))),
                        max_size=6)
_STATUS = st.fixed_dictionaries({}, optional={"phase": _VALUES, "running": _VALUES, "succeeded": _VALUES,
                                              "failed": _VALUES, "conditions": st.lists(_COND, max_size=3)})


def _reference(new: dict[str, Any], old: dict[str, Any]) -> bool:
    for key in ("phase", "running", "succeeded", "failed"):
        if (new.get(key) or 0) != (old.get(key) or 0):
            return True
    nc, oc = list(new.get("conditions") or []), list(old.get("conditions") or [])
    if len(nc) != len(oc):
        return True

    def key(c: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(sorted((k, repr(v)) for k, v in c.items() if k not in ("lastTransitionTime", "transitionID")))
    return any(key(a) != key(b) for a, b in zip(nc, oc, strict=True))


@settings(max_examples=400, deadline=None)
@given(_STATUS, _STATUS, st.data())
def test_status_changed_is_the_plain_reading(new: dict[str, Any], old: dict[str, Any], data: st.DataObject) -> None:
    if data.draw(st.booleans()):  # often: the same conditions but for the times
        old = {**old, "conditions": [{**c, "transitionID": "other"} for c in new.get("conditions") or []]}
    assert status_changed(new, old) == _reference(new, old)
