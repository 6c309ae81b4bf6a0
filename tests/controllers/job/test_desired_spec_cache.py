"""DesiredSpecCache: a Job's desired PodGroup spec is reused only while its
spec and its tasks' PriorityClass values are unchanged."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.controllers.job.test_podgroup import mkjob, t
from volcano.api.frozen import freeze
from volcano.controllers.job.podgroup import DesiredSpecCache, build_podgroup, podgroup_spec_update


def _job() -> dict[str, Any]:
    return mkjob([t("a", 2, "1", pc="low"), t("b", 2, "2", pc="high")], 3)


def test_cached_spec_equals_fresh_and_is_reused() -> None:
    cache = DesiredSpecCache()
    prio = {"low": 1, "high": 10}.get
    job = freeze(_job())
    first = build_podgroup(job, lambda n: prio(n) or 0, cache)
    assert first == build_podgroup(job, lambda n: prio(n) or 0)
    # A new object with an equal spec (a status write) reuses the entry.
    again = freeze(copy.deepcopy(_job()) | {"status": {"state": {"phase": "Running"}}})
    assert cache.get(again, lambda n: prio(n) or 0) is first["spec"]
    with pytest.raises(TypeError):
        first["spec"]["minMember"] = 0


def test_spec_or_priority_change_recomputes() -> None:
    cache = DesiredSpecCache()
    job = _job()
    low_first = cache.get(freeze(job), {"low": 10, "high": 1}.__getitem__)
    high_first = cache.get(freeze(job), {"low": 1, "high": 10}.__getitem__)
    assert low_first["minResources"] != high_first["minResources"]
    job["spec"]["minAvailable"] = 4
    changed = cache.get(freeze(job), {"low": 1, "high": 10}.__getitem__)
    assert changed["minMember"] == 4 and changed != high_first


def test_spec_update_with_cache_matches_without() -> None:
    cache = DesiredSpecCache()
    job = _job()
    pg = build_podgroup(job)
    job["spec"]["minAvailable"] = 4
    assert podgroup_spec_update(pg, job, None, cache) == podgroup_spec_update(pg, job)
    cache.forget("U")
    assert podgroup_spec_update(pg, job, None, cache) == podgroup_spec_update(pg, job)
