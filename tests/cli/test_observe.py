"""Folding repeated events: repeats that tell nothing new fold, a sequence keeps its steps."""

from __future__ import annotations

from volcano.cli.observe import EventLine, fold_repeats


def occurrence(time: float, uid: str) -> EventLine:
    return EventLine(time, "Normal", f"reason-{uid}", "Job", "default", "j", f"message {uid}", "test", uid)


def summary(lines: list[EventLine]) -> list[tuple[str, float, int, float]]:
    return [(e.first.uid, e.first.time, e.count, e.last) for e in fold_repeats(lines)]


def test_two_messages_repeated_every_cycle_stay_two_lines() -> None:
    lines = [occurrence(float(t), uid) for t in range(1, 6) for uid in ("a", "b")]
    assert summary(lines) == [("a", 1.0, 5, 5.0), ("b", 1.0, 5, 5.0)]


def test_a_sequence_keeps_one_line_per_step() -> None:
    """restart (r), then a pod scheduled (s), then restart again: the second restart is a new line."""
    lines = [occurrence(13, "r"), occurrence(14, "s"), occurrence(25, "r"), occurrence(26, "s")]
    assert summary(lines) == [("r", 13.0, 1, 13.0), ("s", 14.0, 1, 14.0), ("r", 25.0, 1, 25.0),
                              ("s", 26.0, 1, 26.0)]


def test_a_new_event_in_the_same_millisecond_closes_nothing() -> None:
    lines = [occurrence(1, "a"), occurrence(1, "b"), occurrence(2, "a"), occurrence(3, "c"), occurrence(4, "a")]
    assert summary(lines) == [("a", 1.0, 2, 2.0), ("b", 1.0, 1, 1.0), ("c", 3.0, 1, 3.0), ("a", 4.0, 1, 4.0)]
