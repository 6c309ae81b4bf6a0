"""The visit's ALLOCATABLE answers (``futile.Quota``) count placements of one request exactly.

``Quota`` answers proportion's test for a quiet allocate visit; it counts consecutive
placements of one request instead of adding them one by one. Random requests (ints and
fractions, zero and negative amounts, names the deserved share lacks), a random deserved
share and allocation, and a random sequence of asks and placements must get the very answers
of the reference: ``queue_allocatable`` over an allocation grown item by item as proportion's
event handler grows it. Float amounts take the one-by-one path and must agree too.
"""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from volcano.scheduler.actions.futile import Quota
from volcano.scheduler.framework.quota import queue_allocatable

NAMES = ("cpu", "memory", "nvidia.com/gpu", "pods")
amounts = st.one_of(st.integers(-2, 40), st.fractions(min_value=-1, max_value=20, max_denominator=8))


def _task(request: dict[str, Any]) -> Any:
    """A task as ``Quota`` reads it: its requests and their part of the signature."""
    spec = SimpleNamespace(requests=dict(request), sched_sig=("", "", tuple(sorted(request.items())), ()))
    return SimpleNamespace(spec=spec)


def _quota(allocated: dict[str, Any], deserved: dict[str, Any], state: str = "Open") -> Quota:
    attr = SimpleNamespace(allocated=allocated, quota=SimpleNamespace(deserved=deserved))
    plugin: Any = SimpleNamespace(attrs={"q": attr})
    queue: Any = SimpleNamespace(name="q", state=state)
    return Quota(plugin, queue)


requests = st.dictionaries(st.sampled_from(NAMES), amounts, max_size=4)


@settings(max_examples=300, deadline=None)
@given(allocated=st.dictionaries(st.sampled_from(NAMES), amounts),
       deserved=st.dictionaries(st.sampled_from(NAMES), amounts),
       shapes=st.lists(requests, min_size=1, max_size=3),
       steps=st.lists(st.tuples(st.integers(0, 2), st.booleans()), max_size=60),
       floats=st.booleans())
def test_counted_answers_are_the_reference_answers(allocated: dict[str, Any], deserved: dict[str, Any],
                                                    shapes: list[dict[str, Any]],
                                                    steps: list[tuple[int, bool]], floats: bool) -> None:
    if floats:  # an inexact amount: the one-by-one path
        shapes[0] = {**shapes[0], "cpu": 0.5}
    quota = _quota(dict(allocated), deserved)
    reference = dict(allocated)
    for pick, place in steps:
        request = shapes[pick % len(shapes)]
        task = _task(request)  # a new parse each time, as every pod's spec is
        expected = queue_allocatable(reference, request, deserved)
        assert quota.allowed(task) == expected
        if place:
            quota.placed(task)
            for name, value in request.items():
                reference[name] = reference.get(name, 0) + value
    quota._flush()
    assert {k: v for k, v in quota.allocated.items() if v} == {k: v for k, v in reference.items() if v}


def test_a_counted_request_stops_at_the_deserved_share() -> None:
    quota = _quota({"cpu": Fraction(1, 2)}, {"cpu": Fraction(7, 2)})
    task = _task({"cpu": 1, "pods": 1})
    answers = []
    for _ in range(5):
        answers.append(quota.allowed(task))
        if answers[-1]:
            quota.placed(task)
    assert answers == [True, True, True, False, False]


def test_a_closed_queue_answers_no() -> None:
    assert not _quota({}, {"cpu": 10}, state="Closed").allowed(_task({"cpu": 1}))


@settings(max_examples=300, deadline=None)
@given(allocated=st.dictionaries(st.sampled_from(NAMES), amounts),
       deserved=st.dictionaries(st.sampled_from(NAMES), amounts),
       shapes=st.lists(requests, min_size=1, max_size=3),
       steps=st.lists(st.tuples(st.integers(0, 2), st.booleans()), max_size=60),
       floats=st.booleans(), state=st.sampled_from(["Open", "Closed"]))
def test_batched_answers_are_the_one_by_one_answers(allocated: dict[str, Any], deserved: dict[str, Any],
                                                     shapes: list[dict[str, Any]],
                                                     steps: list[tuple[int, bool]], floats: bool,
                                                     state: str) -> None:
    """``Quota.answers`` over a visit's tasks (one parse per shape: consecutive tasks share their
    request object, as a gang's do) gives ``allowed``'s answers with ``placed`` after each task
    placed, and leaves the same allocation."""
    if floats:
        shapes[0] = {**shapes[0], "cpu": 0.5}
    parses = [_task(shape) for shape in shapes]
    tasks: list[Any] = []
    placed: set[str] = set()
    for i, (pick, place) in enumerate(steps):
        task: Any = SimpleNamespace(spec=parses[pick % len(parses)].spec, uid=f"t{i}")
        tasks.append(task)
        if place:
            placed.add(task.uid)
    one = _quota(dict(allocated), deserved, state)
    expected = []
    for task in tasks:
        expected.append(one.allowed(task))
        if task.uid in placed:
            one.placed(task)
    batch = _quota(dict(allocated), deserved, state)
    assert batch.answers(tasks, placed) == tuple(expected)
    one._flush()
    batch._flush()
    assert batch.allocated == one.allocated
