"""The gang-eviction actions' bundle order (reference §4.8): safe bundles first, then the victim job
order, then the higher return on investment (what a bundle frees towards the demand over what
breaking its job costs)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

import numpy as np
import pytest

from volcano.scheduler.actions.gang_evict import Bundle, BundleType, bundle_roi, sort_for_preempt
from volcano.scheduler.framework.model import JobInfo

NEED = np.array([2000], dtype=np.int64)


def _bundle(uid: str, kind: BundleType, local: int, cost: int | None) -> Bundle:
    job = cast(JobInfo, SimpleNamespace(uid=uid))
    global_ = None if cost is None else np.array([cost], dtype=np.int64)
    return Bundle(kind, job, [], np.array([local], dtype=np.int64), global_)


def test_roi_is_the_capped_gain_over_the_cost() -> None:
    assert bundle_roi(_bundle("a", BundleType.WHOLE, 3000, 4000), NEED) == pytest.approx(2000 / 2000 / 2)
    assert bundle_roi(_bundle("b", BundleType.SAFE, 1000, None), NEED) == float("inf")


@pytest.mark.parametrize("reverse", [False, True])
def test_the_cheaper_whole_bundle_goes_first_whatever_the_input_order(reverse: bool) -> None:
    """Two whole bundles freeing the demand's 2 CPUs, one breaking a 4-CPU job, the other a 2-CPU job;
    the victim job order ties (both jobs ``z-...`` and ``a-...`` compare equal): the 2-CPU job's
    bundle (ROI 1) goes before the 4-CPU one's (ROI 0.5), whatever the input order or job uids."""
    dear, cheap = _bundle("a-dear", BundleType.WHOLE, 2000, 4000), _bundle("z-cheap", BundleType.WHOLE, 2000, 2000)
    bundles = [cheap, dear] if reverse else [dear, cheap]
    sort_for_preempt(bundles, NEED, lambda _l, _r: False)
    assert [b.job.uid for b in bundles] == ["z-cheap", "a-dear"]


def test_safe_bundles_go_before_whole_ones_and_job_order_before_roi() -> None:
    safe = _bundle("s", BundleType.SAFE, 1000, None)
    first_job, cheap = _bundle("first", BundleType.WHOLE, 2000, 4000), _bundle("other", BundleType.WHOLE, 2000, 2000)
    bundles = [cheap, first_job, safe]
    sort_for_preempt(bundles, NEED, lambda left, right: left.uid == "first" and right.uid != "first")
    assert [b.job.uid for b in bundles] == ["s", "first", "other"]
