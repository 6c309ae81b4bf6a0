"""``PriorityQueue.extend`` pops exactly as pushing the same values one by one.

Random values with random keys (distinct, as every session ordering's are) are put on two heaps,
one pushed value by value and one extended in batches, with pops in between: every pop must
give the same value, with a ``key`` and with a ``less`` comparator alike.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.scheduler.framework.util import PriorityQueue

ops = st.lists(st.one_of(st.lists(st.integers(0, 10_000), max_size=12), st.just(None)), max_size=30)


@settings(max_examples=200, deadline=None)
@given(ops=ops, keyed=st.booleans())
def test_extending_pops_as_pushing_one_by_one(ops: list[list[int] | None], keyed: bool) -> None:
    seen: set[int] = set()
    key = (lambda v: (-v % 97, v)) if keyed else None
    pushed: PriorityQueue[int] = PriorityQueue(lambda a, b: (-a % 97, a) < (-b % 97, b), key=key)
    extended: PriorityQueue[int] = PriorityQueue(lambda a, b: (-a % 97, a) < (-b % 97, b), key=key)
    popped = 0
    for op in ops:
        if op is None:
            if pushed:
                assert extended.pop() == pushed.pop()
                popped += 1
            continue
        batch = [v for v in op if v not in seen]  # distinct values: distinct keys
        seen.update(batch)
        for value in batch:
            pushed.push(value)
        extended.extend(batch)
        assert len(extended) == len(pushed)
    while pushed:
        assert extended.pop() == pushed.pop()
    assert not extended
