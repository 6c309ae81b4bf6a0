"""Helpers of the ``volcano`` CLI tests: the fixtures folder and small manifests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

Writer = Callable[[str, "str | bytes"], str]
"""The ``write`` fixture: ``write(name, text)`` -> the path written."""

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

QUEUE = """\
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: team-a
spec:
  weight: 1
"""


def volcano_job(name: str, *, replicas: int = 2, duration: str = "30s", queue: str = "default",
                exit_code: int = 0, cpu: str = "1", max_retry: int | None = None) -> str:
    """A Volcano Job whose pods work ``duration`` and end with ``exit_code`` (YAML text)."""
    retry = "" if max_retry is None else f"  maxRetry: {max_retry}\n"
    return f"""\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: {name}
spec:
  minAvailable: {replicas}
  schedulerName: volcano
  queue: {queue}
{retry}  tasks:
    - replicas: {replicas}
      name: work
      template:
        metadata:
          annotations:
            sim.volcano.sh/duration: {duration}
            sim.volcano.sh/exit-code: "{exit_code}"
        spec:
          restartPolicy: Never
          containers:
            - name: c
              image: busybox
              resources: {{requests: {{cpu: "{cpu}"}}}}
"""
