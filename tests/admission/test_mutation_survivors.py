"""Tests written for mutants that survived a mutation run (``make mutation``, ``docs/testing.md``):
each pins a behaviour nothing asserted before."""

from __future__ import annotations

from typing import Any

from volcano.apiserver.validation.defaults import default_pod


def test_container_termination_message_defaults() -> None:
    """Kubernetes defaults ``terminationMessagePath`` and ``terminationMessagePolicy`` on every
    container that leaves them out, and keeps given values."""
    pod: dict[str, Any] = {"spec": {"containers": [
        {"name": "a", "image": "nginx"},
        {"name": "b", "image": "nginx", "terminationMessagePath": "/tmp/msg",
         "terminationMessagePolicy": "FallbackToLogsOnError"}]}}
    default_pod(pod)
    a, b = pod["spec"]["containers"]
    assert (a["terminationMessagePath"], a["terminationMessagePolicy"]) == ("/dev/termination-log", "File")
    assert (b["terminationMessagePath"], b["terminationMessagePolicy"]) == ("/tmp/msg", "FallbackToLogsOnError")
