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

from volcano.scheduler.actions.futile import Quota, _span
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


def _tasks(shapes: list[dict[str, Any]], steps: list[tuple[int, bool]]) -> tuple[list[Any], list[Any]]:
    """A visit's tasks (one parse per shape, as ``test_batched_answers_are_the_one_by_one_answers``
    makes them) and the placements among them (``Placed`` triples)."""
    parses = [_task(shape) for shape in shapes]
    tasks: list[Any] = []
    placed: list[Any] = []
    for i, (pick, place) in enumerate(steps):
        task: Any = SimpleNamespace(spec=parses[pick % len(parses)].spec, uid=f"t{i}")
        tasks.append(task)
        if place:
            placed.append((task.uid, "Allocated", "n0"))
    return tasks, placed


queue_states = st.tuples(st.dictionaries(st.sampled_from(NAMES), amounts),
                         st.dictionaries(st.sampled_from(NAMES), amounts),
                         st.sampled_from(["Open", "Open", "Closed"]))


@settings(max_examples=400, deadline=None)
@given(then=queue_states, now=queue_states, shapes=st.lists(requests, min_size=1, max_size=2),
       steps=st.lists(st.tuples(st.integers(0, 1), st.booleans()), min_size=1, max_size=40),
       cut=st.integers(0, 40), floats=st.booleans())
def test_a_cap_in_the_span_is_the_same_answers(then: tuple[dict[str, Any], dict[str, Any], str],
                                               now: tuple[dict[str, Any], dict[str, Any], str],
                                               shapes: list[dict[str, Any]], steps: list[tuple[int, bool]],
                                               cut: int, floats: bool) -> None:
    """A visit's answers recorded from one queue state (the first ``cut`` tasks asked) are the
    answers from another exactly when that state's ``first_cap`` lies in the visit's ``_span``
    (where both are worked out)."""
    if floats:
        shapes[0] = {**shapes[0], "memory": Fraction(1, 3) if cut % 2 else 0.25}
    tasks, placed = _tasks(shapes, steps)
    uids = {uid for uid, _, _ in placed}
    n = min(cut, len(tasks))
    asked = _quota(dict(then[0]), then[1], then[2]).answers(tasks[:n], uids)
    span = _span(tasks, asked, placed)
    if span is None:
        return
    cap = _quota(dict(now[0]), now[1], now[2]).first_cap(span[0])
    if cap is None:
        return
    same = _quota(dict(now[0]), now[1], now[2]).answers(tasks[:n], uids) == asked
    assert (span[1] < cap <= span[2]) == same


def test_the_span_property_is_not_vacuous() -> None:
    """Gangs of one request get a span, and caps both inside and outside it occur."""
    tasks, placed = _tasks([{"cpu": 2, "pods": 1}], [(0, i % 3 != 2) for i in range(9)])
    uids = {uid for uid, _, _ in placed}
    asked = _quota({"cpu": 4}, {"cpu": 14}).answers(tasks, uids)
    # 2 cpus each within 10: yes while fewer than 5 were placed before (placed: all but every third)
    assert asked == (True,) * 7 + (False,) * 2
    span = _span(tasks, asked, placed)
    assert span is not None and span[1:] == (4, 5)
    for allocated, inside in ((3, True), (4, True), (2, False), (5, False), (6, False)):
        quota = _quota({"cpu": allocated}, {"cpu": 14})
        cap = quota.first_cap(span[0])
        assert cap is not None and (span[1] < cap <= span[2]) == inside
        assert (_quota({"cpu": allocated}, {"cpu": 14}).answers(tasks, uids) == asked) == inside
    assert _span(*_tasks([{"cpu": 1}, {"cpu": 2}], [(0, True), (1, True)])[:1], (True, True),
                 [("t0", "Allocated", "n0")]) is None
