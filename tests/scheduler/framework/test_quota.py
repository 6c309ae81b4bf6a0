"""Queue-quota arithmetic (``framework.quota``): deserved water-filling, the tolerance rule, quota checks."""

from __future__ import annotations

import threading
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.scheduler.framework.quota import (
    INFINITE,
    QueueQuota,
    compute_deserved,
    dominant_share,
    fits_on_requested,
    format_resource_names,
    inqueue_reserve,
    is_empty,
    le_tolerant,
    overused,
    queue_allocatable,
    real_capability,
    resource_names,
    share,
)

GI = 1024**3 * 1000  # 1Gi of memory in milli-units
G = 10**9 * 1000


def cpu(n: float) -> int:
    return int(n * 1000)


def test_worked_example_single_dimension() -> None:
    # Reference §14.3: cpu 10, q1 weight 1 request 8, q2 weight 3 request 4 -> 6 and 4.
    q1 = QueueQuota("q1", 1, {"cpu": cpu(8)})
    q2 = QueueQuota("q2", 3, {"cpu": cpu(4)})
    compute_deserved({"cpu": cpu(10)}, [q1, q2], {})
    assert q1.deserved["cpu"] == cpu(6)
    assert q2.deserved["cpu"] == cpu(4)


def test_deserved_is_order_independent() -> None:
    queues = [QueueQuota("a", 1, {"cpu": cpu(8)}), QueueQuota("b", 3, {"cpu": cpu(4)})]
    reversed_queues = [QueueQuota("b", 3, {"cpu": cpu(4)}), QueueQuota("a", 1, {"cpu": cpu(8)})]
    compute_deserved({"cpu": cpu(10)}, queues, {})
    compute_deserved({"cpu": cpu(10)}, reversed_queues, {})
    assert {q.name: q.deserved for q in queues} == {q.name: q.deserved for q in reversed_queues}


def test_capability_caps_deserved_and_rest_goes_to_others() -> None:
    q1 = QueueQuota("q1", 1, {"cpu": cpu(10)}, capability={"cpu": cpu(2)})
    q2 = QueueQuota("q2", 1, {"cpu": cpu(10)})
    compute_deserved({"cpu": cpu(10)}, [q1, q2], {})
    assert q1.deserved["cpu"] == cpu(2)
    assert q2.deserved["cpu"] == cpu(8)


def test_guarantee_is_a_floor_and_reduces_others_real_capability() -> None:
    total = {"cpu": cpu(10)}
    q1 = QueueQuota("q1", 1, {"cpu": cpu(1)}, guarantee={"cpu": cpu(4)})
    q2 = QueueQuota("q2", 1, {"cpu": cpu(10)})
    compute_deserved(total, [q1, q2], {"cpu": cpu(4)})
    assert q1.deserved["cpu"] == cpu(4)  # guarantee above request
    assert q2.real["cpu"] == cpu(6)
    assert q2.deserved["cpu"] == cpu(6)


def test_three_queues_fractional_share_is_exact() -> None:
    qs = [QueueQuota(n, 1, {"cpu": cpu(10)}) for n in ("a", "b", "c")]
    compute_deserved({"cpu": cpu(10)}, qs, {})
    assert all(q.deserved["cpu"] == Fraction(10000, 3) for q in qs)


def test_enqueue_and_allocatable_tables() -> None:
    # TestEnqueueAndAllocable numbers: nodes 2 x (2 cpu, 2G, 10 pods); q1 cap (2, 2G); pod1 (1, 2G) runs in q1.
    total = {"cpu": cpu(4), "memory": 4 * G, "pods": cpu(20)}
    real = real_capability(total, {}, {}, {"cpu": cpu(2), "memory": 2 * G})
    assert real == {"cpu": cpu(2), "memory": 2 * G, "pods": cpu(20)}
    allocated = {"cpu": cpu(1), "memory": 2 * G, "pods": cpu(1)}
    elastic: dict[str, int] = {}  # allocated - minResources(1, 2G) is 0
    # case2: pg5 min (1, 1G) -> 2 cpu / 3G > 2G -> rejected on memory.
    r = {"cpu": cpu(2), "memory": 3 * G}
    ok, names = fits_on_requested({k: r[k] - elastic.get(k, 0) for k in r}, real, {"cpu": cpu(1), "memory": G})
    assert (ok, names) == (False, ["memory"])
    assert format_resource_names("queue resource quota insufficient", "insufficient", names) == (
        "queue resource quota insufficient: insufficient memory")
    # case0: pg3 min (1, 0) asks cpu only -> fits.
    assert fits_on_requested({"cpu": cpu(2), "memory": 2 * G}, real, {"cpu": cpu(1)}) == (True, [])
    # Allocatable with deserved (2, 2G): pod3 (1 cpu) fits, pod5 (1, 1G) does not.
    q1 = QueueQuota("q1", 1, {"cpu": cpu(2), "memory": 2 * G, "pods": cpu(2)},
                    capability={"cpu": cpu(2), "memory": 2 * G})
    q2 = QueueQuota("q2", 1, {"cpu": cpu(2), "memory": G, "pods": cpu(1)},
                    capability={"cpu": cpu(3), "memory": 3 * G})
    compute_deserved(total, [q1, q2], {})
    assert q1.deserved["cpu"] == cpu(2) and q1.deserved["memory"] == 2 * G
    assert queue_allocatable(allocated, {"cpu": cpu(1), "pods": 1000}, q1.deserved)
    assert not queue_allocatable(allocated, {"cpu": cpu(1), "memory": G, "pods": 1000}, q1.deserved)


def test_overused_includes_all_zero_deserved() -> None:
    assert overused({}, {})
    assert overused({"cpu": cpu(4)}, {"cpu": cpu(4)})
    assert not overused({"cpu": cpu(4)}, {"cpu": cpu(3)})
    # tolerance: 0.05 milli-cpu below counts as reached
    assert overused({"cpu": Fraction(40001, 10)}, {"cpu": cpu(4)}) is False
    assert overused({"cpu": Fraction(80001, 20)}, {"cpu": cpu(4)}) is True


def test_real_capability_unset_cpu_or_memory_is_unbounded() -> None:
    total = {"cpu": cpu(8), "memory": 8 * G, "nvidia.com/gpu": 4000}
    real = real_capability(total, {}, {}, {"memory": 2 * G, "nvidia.com/gpu": 0})
    assert real["cpu"] == cpu(8)
    assert real["memory"] == 2 * G
    assert real["nvidia.com/gpu"] == 0  # an explicit zero caps
    assert cpu(10**9) < INFINITE


def test_inqueue_reserve_and_helpers() -> None:
    assert inqueue_reserve({"cpu": cpu(3), "memory": 3 * GI, "ephemeral-storage": 5},
                           {"cpu": cpu(1), "memory": 3 * GI}) == {"cpu": cpu(2)}
    assert inqueue_reserve({"nvidia.com/gpu": 2000, "pods": 3000}, {}) == {"nvidia.com/gpu": 2000, "pods": 3000}
    assert share(0, 0) == 0.0 and share(5, 0) == 1.0 and share(1, 4) == 0.25
    assert dominant_share({"cpu": cpu(1), "memory": 3 * G}, {"cpu": cpu(4), "memory": 4 * G}) == ("memory", 0.75)
    assert resource_names({"pods": 50, "memory": 100, "cpu": 1, "x/y": 0}) == ["cpu", "memory"]
    assert is_empty({"pods": 5000}) and not is_empty({"cpu": 1})
    assert le_tolerant(1050, 1000, "memory") and not le_tolerant(1100, 1000, "memory")


@settings(max_examples=60, deadline=None)
@given(
    total=st.integers(min_value=0, max_value=100_000),
    queues=st.lists(st.tuples(st.integers(1, 10), st.integers(0, 60_000), st.integers(0, 3_000)),
                    min_size=1, max_size=5),
)
def test_deserved_properties(total: int, queues: list[tuple[int, int, int]]) -> None:
    quotas = [QueueQuota(f"q{i}", w, {"cpu": req}, guarantee={"cpu": g} if g else {})
              for i, (w, req, g) in enumerate(queues)]
    guarantees = sum(g for _, _, g in queues)
    compute_deserved({"cpu": total}, quotas, {"cpu": guarantees})
    for q, (_, req, g) in zip(quotas, queues):
        got = q.deserved["cpu"]
        assert got >= g  # never below guarantee
        assert got <= max(req, g)  # never above request unless guarantee is larger
        assert got <= max(q.real["cpu"], g)
    if guarantees == 0:
        assert sum(q.deserved["cpu"] for q in quotas) <= total
        # water-filling is work-conserving: either every queue is satisfied or the cluster is shared out
        if any(q.deserved["cpu"] < req for q, (_, req, _) in zip(quotas, queues)):
            assert sum(q.deserved["cpu"] for q in quotas) == total


def _deserved_within(total: dict[str, int], quotas: list[QueueQuota], seconds: float) -> bool:
    """Run ``compute_deserved`` in a thread; whether it returned within ``seconds``."""
    worker = threading.Thread(target=compute_deserved, args=(total, quotas, {}), daemon=True)
    worker.start()
    worker.join(seconds)
    return not worker.is_alive()


def test_deserved_ends_when_a_dimension_only_halves_beside_an_unrequested_one() -> None:
    """q1 is capped on memory and q2 on cpu, so each round hands half of what is left of both back;
    the GPUs nobody requests stay. Exact halves never reach zero (upstream's floats underflow):
    the loop ends once what is left of every changing dimension is below its tolerance."""
    total = {"cpu": 4000, "memory": 8_000_000, "nvidia.com/gpu": 8000}
    q1 = QueueQuota("q1", 1, {"cpu": 10_000, "memory": 1000})
    q2 = QueueQuota("q2", 1, {"cpu": 100, "memory": 100_000_000})
    assert _deserved_within(total, [q1, q2], 10.0), "compute_deserved did not end"
    assert abs(q1.deserved["cpu"] - 3900) < Fraction(1, 10) and q1.deserved["memory"] == 1000
    assert q2.deserved["cpu"] == 100 and abs(q2.deserved["memory"] - 7_999_000) < 100
    assert q1.deserved["nvidia.com/gpu"] == 0 and q2.deserved["nvidia.com/gpu"] == 0


@settings(max_examples=60, deadline=None)
@given(
    cpu=st.integers(0, 100_000), memory=st.integers(0, 10**9), gpu=st.integers(0, 64_000),
    queues=st.lists(st.tuples(st.integers(1, 10), st.integers(0, 60_000), st.integers(0, 10**9),
                              st.integers(0, 8_000)), min_size=1, max_size=4),
)
def test_deserved_ends_and_stays_within_the_cluster(cpu: int, memory: int, gpu: int,
                                                   queues: list[tuple[int, int, int, int]]) -> None:
    total = {"cpu": cpu, "memory": memory, "nvidia.com/gpu": gpu}
    quotas = [QueueQuota(f"q{i}", w, {"cpu": c, "memory": m, **({"nvidia.com/gpu": g} if g else {})})
              for i, (w, c, m, g) in enumerate(queues)]
    assert _deserved_within(total, quotas, 10.0), "compute_deserved did not end"
    for name, amount in total.items():
        assert sum(q.deserved.get(name, 0) for q in quotas) <= amount
