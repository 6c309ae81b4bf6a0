"""Tests for the Queue controller: queue states, transitions and queue Commands."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.controllers.env import ControllerEnv
from volcano.apiserver import ApiError
from volcano.controllers.queue import CLOSED_BY_PARENT_ANNOTATION, QueueController, next_queue_state

# --- the state table, row by row -------------------------------------------------------------

TABLE = [
    # (state, action, podgroups, expected)
    ("", "OpenQueue", 0, "Open"), ("", "CloseQueue", 0, "Closed"), ("", "CloseQueue", 2, "Closing"),
    ("", "SyncQueue", 2, "Open"),
    ("Open", "OpenQueue", 1, "Open"), ("Open", "CloseQueue", 0, "Closed"), ("Open", "CloseQueue", 1, "Closing"),
    ("Open", "SyncQueue", 1, "Open"),
    ("Closed", "OpenQueue", 1, "Open"), ("Closed", "CloseQueue", 1, "Closed"), ("Closed", "SyncQueue", 1, "Closed"),
    ("Closed", "SyncQueue", 0, "Closed"),
    ("Closing", "OpenQueue", 1, "Open"), ("Closing", "CloseQueue", 1, "Closing"),
    ("Closing", "CloseQueue", 0, "Closed"), ("Closing", "SyncQueue", 1, "Closing"),
    ("Closing", "SyncQueue", 0, "Closed"),
    ("Unknown", "OpenQueue", 1, "Open"), ("Unknown", "CloseQueue", 0, "Closed"),
    ("Unknown", "CloseQueue", 1, "Closing"), ("Unknown", "SyncQueue", 0, "Unknown"),
    ("Open", "SomethingElse", 0, "Open"), ("Unknown", "RestartJob", 0, "Unknown"),
]


@pytest.mark.parametrize(("state", "action", "pgs", "expected"), TABLE,
                         ids=[f"{s or 'empty'}-{a}-{n}pg" for s, a, n, _ in TABLE])
def test_state_table(state: str, action: str, pgs: int, expected: str) -> None:
    assert next_queue_state(state, action, pgs) == expected


def test_invalid_state_is_named() -> None:
    with pytest.raises(ValueError, match="'Bogus'"):
        next_queue_state("Bogus", "SyncQueue", 0)


# --- against the API server ------------------------------------------------------------------


def _queue(name: str, parent: str | None = "", weight: int = 1) -> dict[str, Any]:
    spec: dict[str, Any] = {"weight": weight}
    if parent:
        spec["parent"] = parent
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name}, "spec": spec}


class _Env(ControllerEnv):
    def __init__(self, max_requeue: int = 15) -> None:
        super().__init__(QueueController, objects=[_queue("root", parent=None), _queue("default")],
                         recorder="vc-controller-manager", max_requeue=max_requeue)
        self.ctrl = self.controllers[0]
        self.settle()

    def queue(self, name: str, parent: str | None = "", weight: int = 1) -> None:
        self.server.create(_queue(name, parent, weight))

    def state(self, name: str) -> str:
        return str((self.server.get("Queue", name).get("status") or {}).get("state", ""))

    def command(self, name: str, action: str, queue: str) -> None:
        q = self.server.get("Queue", queue)
        self.server.create({"apiVersion": "bus.volcano.sh/v1alpha1", "kind": "Command",
                            "metadata": {"name": name, "namespace": "default"}, "action": action,
                            "target": {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                                       "name": queue, "uid": q["metadata"]["uid"]}})

    def podgroup(self, name: str, queue: str, phase: str = "Pending") -> None:
        self.server.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                            "metadata": {"name": name, "namespace": "default"},
                            "spec": {"minMember": 1, "queue": queue}, "status": {"phase": phase}})


def test_new_queue_opens_and_gets_root_parent() -> None:
    env = _Env()
    env.queue("q1")
    env.settle()
    assert env.state("q1") == "Open"
    assert env.server.get("Queue", "q1")["spec"]["parent"] == "root"
    assert env.state("root") == "Open" and env.state("default") == "Open"
    assert "parent" not in env.server.get("Queue", "root")["spec"]


def test_jobseq_32_command_close_and_open_with_state_check() -> None:
    env = _Env()
    env.queue("queue-command-close")
    env.settle()
    env.command("close-cmd", "CloseQueue", "queue-command-close")
    env.settle()
    assert env.state("queue-command-close") == "Closed"
    with pytest.raises(ApiError) as err:
        env.server.get("Command", "close-cmd", "default")
    assert err.value.reason == "NotFound"  # consumed
    env.command("open-cmd", "OpenQueue", "queue-command-close")
    env.settle()
    assert env.state("queue-command-close") == "Open"
    assert env.server.get("Queue", "queue-command-close")["metadata"]["annotations"][
        CLOSED_BY_PARENT_ANNOTATION] == "false"
    events = [e for e in env.server.list("Event", "default")["items"] + env.server.list("Event")["items"]
              if e.get("reason") == "CloseQueue"]
    assert events and events[0]["message"] == "Close queue succeed"


def _close_parent(env: _Env, parent: str, child: str, command: str) -> None:
    """Queue ``parent`` with ``child`` under it, then a Command closing ``parent``."""
    env.queue(parent)
    env.settle()
    env.queue(child, parent=parent)
    env.settle()
    env.command(command, "CloseQueue", parent)
    env.settle()


def test_jobseq_33_command_close_and_open_with_hierarchical_queues() -> None:
    env = _Env()
    env.queue("queue2")
    _close_parent(env, "queue1", "queue11", "close-1")
    assert env.state("queue1") == "Closed"
    assert env.state("queue11") == "Closed"
    assert env.state("queue2") == "Open"
    assert env.server.get("Queue", "queue11")["metadata"]["annotations"][CLOSED_BY_PARENT_ANNOTATION] == "true"
    env.command("open-11", "OpenQueue", "queue11")
    env.settle(5_000)
    assert env.state("queue11") == "Closed"  # parent still closed: refused (and retried)
    env.command("open-1", "OpenQueue", "queue1")
    env.settle(200_000)
    assert env.state("queue1") == "Open"
    assert env.state("queue11") == "Open"  # reopened with its parent


def test_closing_queue_closes_when_its_podgroups_are_gone() -> None:
    env = _Env()
    env.queue("busy")
    env.settle()
    env.podgroup("pg1", "busy", "Running")
    env.podgroup("pg2", "busy", "Inqueue")
    env.settle()
    env.command("close", "CloseQueue", "busy")
    env.settle()
    assert env.state("busy") == "Closing"
    assert env.ctrl.podgroup_counts("busy")["Running"] == 1
    env.server.delete("PodGroup", "pg1", "default")
    env.settle()
    assert env.state("busy") == "Closing"
    env.server.delete("PodGroup", "pg2", "default")
    env.settle()
    assert env.state("busy") == "Closed"
    # A new PodGroup in a Closed queue does not reopen it.
    env.podgroup("pg3", "busy")
    env.settle()
    assert env.state("busy") == "Closed"


def test_root_is_never_closed_and_root_default_never_deleted() -> None:
    env = _Env()
    env.command("close-root", "CloseQueue", "root")
    env.command("close-default", "CloseQueue", "default")
    env.settle()
    assert env.state("root") == "Open"
    assert env.state("default") == "Closed"
    names = [q["metadata"]["name"] for q in env.server.list("Queue")["items"]]
    assert "root" in names and "default" in names


def test_unknown_state_is_kept_until_opened() -> None:
    env = _Env()
    env.queue("odd")
    env.settle()
    env.server.patch("Queue", "odd", {"status": {"state": "Unknown"}}, subresource="status")
    env.podgroup("pg", "odd")  # triggers a SyncQueue
    env.settle()
    assert env.state("odd") == "Unknown"
    env.command("open", "OpenQueue", "odd")
    env.settle()
    assert env.state("odd") == "Open"


def test_commands_for_jobs_are_not_consumed() -> None:
    env = _Env()
    env.server.create({"apiVersion": "bus.volcano.sh/v1alpha1", "kind": "Command",
                       "metadata": {"name": "job-cmd", "namespace": "default"}, "action": "AbortJob",
                       "target": {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "j",
                                  "uid": "x"}})
    env.settle()
    assert env.server.get("Command", "job-cmd", "default")["action"] == "AbortJob"


def test_failing_request_is_dropped_with_a_warning_after_max_requeue() -> None:
    env = _Env(max_requeue=2)
    _close_parent(env, "parent", "child", "close")
    # Make the child's open fail for good: its parent stays closed and the child is no longer
    # marked as closed by its parent.
    env.server.patch("Queue", "child", {"metadata": {"annotations": {CLOSED_BY_PARENT_ANNOTATION: "false"}}})
    env.command("open-child", "OpenQueue", "child")
    env.settle(60_000)
    assert env.state("child") == "Closed"
    warnings = [e for e in env.server.list("Event")["items"]
                if e.get("type") == "Warning" and e.get("reason") == "OpenQueue"]
    assert len(warnings) == 1
    assert "Open the parent queue first" in warnings[0]["message"]
    assert warnings[0]["message"].startswith("OpenQueue queue failed for Failed to open queue child")


_PHASES = ("Pending", "Inqueue", "Running", "Unknown", "Completed")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(("create", "phase", "delete")), st.integers(0, 5),
                          st.sampled_from(("default", "q1")), st.sampled_from(_PHASES)), max_size=30))
def test_podgroup_counts_kept_per_event_equal_a_recount(ops: list[tuple[str, int, str, str]]) -> None:
    """The per-queue phase counts are updated per PodGroup event (O(1)), never by rescanning the queue;
    after any mix of creates, phase changes and deletions they equal a count over the stored PodGroups."""
    env = _Env()
    env.queue("q1")
    env.settle()
    for op, i, queue, phase in ops:
        name = f"pg{i}"
        exists = any(pg["metadata"]["name"] == name for pg in env.server.list("PodGroup", "default")["items"])
        if op == "create" and not exists:
            env.podgroup(name, queue, phase)
        elif op == "phase" and exists:
            # PodGroup has no status subresource: a plain update writes its status
            env.server.update({**env.server.get("PodGroup", name, "default"), "status": {"phase": phase}})
        elif op == "delete" and exists:
            env.server.delete("PodGroup", name, "default")
        env.settle()
    for queue in ("default", "q1"):
        env.ctrl.queue.add((queue, "SyncQueue"))
        env.settle()
        stored = [pg for pg in env.server.list("PodGroup", "default")["items"] if pg["spec"]["queue"] == queue]
        expected = {p: sum(1 for pg in stored if pg["status"]["phase"] == p)
                    for p in ("Pending", "Inqueue", "Running", "Unknown", "Completed")}
        got = env.ctrl.podgroup_counts(queue)
        assert {p: got.get(p, 0) for p in expected} == expected
