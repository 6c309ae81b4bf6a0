"""The report of ``volcano run``: a text one for people, a JSON one for machines.

Text (``-o text``): the simulated time, then tables of Jobs (phase, min,
pending, running, succeeded, failed, retries, and the simulated time each phase
was entered), PodGroups (phase, minMember, queue, and the message of each
condition), pods (phase, node) and events (simulated time of each occurrence),
then the verdict line, last, so CI logs end with it.

JSON (``-o json``), one object::

    {
      "simulatedSeconds": 95.002,            # simulated time when the run stopped
      "limitSeconds": 3600,                  # --seconds
      "expect": ["Completed"],               # --expect
      "exit": {"code": 0, "reason": "reached", "message": "...", "missing": []},
      "jobs": [{"namespace", "name", "phase", "deleted", "minAvailable", "pending", "running",
                "succeeded", "failed", "retries", "phases": [{"phase", "time"}]}],
      "podgroups": [{"namespace", "name", "phase", "minMember", "queue",
                     "conditions": [{"type", "status", "reason", "message"}]}],
      "pods": [{"namespace", "name", "phase", "node"}],
      "events": [{"time", "type", "reason", "kind", "namespace", "name", "message", "source",
                  "count", "lastTime"}]
    }

``exit.reason`` is ``reached``, ``ended``, ``time-limit`` or ``no-jobs``
(``volcano.cli.run.RunOutcome``); ``exit.missing`` lists the Jobs
(``namespace/name``) that did not reach an expected phase. A Job deleted during
the run (``ttlSecondsAfterFinished``) is listed in its last state with
``"deleted": true``. Times are simulated
seconds since the cluster started, to the millisecond. Events are listed by
the time they happened; a repeat of an Event that tells nothing new is folded
into the line of its first occurrence (``count``, ``lastTime``; see
``volcano.cli.observe.fold_repeats``), so a restart sequence keeps a line per
restart while a gang that stays Pending does not fill the log.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from volcano.cli.observe import fold_repeats, job_phase

if TYPE_CHECKING:
    from volcano.cli.observe import RunRecorder
    from volcano.cli.run import RunOutcome
    from volcano.testbed import FakeCluster

__all__ = ["render_json", "render_text", "table"]

_JOB_COUNTS = ("pending", "running", "succeeded", "failed")


def _t(seconds: float) -> str:
    return f"{seconds:.3f}s"


def _name(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"


def _repeats(event: dict[str, Any]) -> str:
    return "" if event["count"] == 1 else f" (x{event['count']}, last at {_t(event['lastTime'])})"


def _object(event: dict[str, Any]) -> str:
    ns = f"{event['namespace']}/" if event["namespace"] else ""
    return f"{event['kind']}/{ns}{event['name']}"


def table(header: Sequence[str], rows: Sequence[Sequence[object]], indent: str = "  ") -> list[str]:
    """``rows`` under ``header`` in left-aligned columns (the last one unpadded), as lines."""
    cells = [[str(c) for c in header], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    return [(indent + "  ".join(c.ljust(w) for c, w in zip(r[:-1], widths, strict=False)) + "  " + r[-1]).rstrip()
            for r in cells]


def _job_record(job: dict[str, Any], recorder: RunRecorder) -> dict[str, Any]:
    status = job.get("status") or {}
    spec = job.get("spec") or {}
    meta = job["metadata"]
    return {"namespace": meta.get("namespace") or "default", "name": meta["name"], "phase": job_phase(job),
            "deleted": _name(job) in recorder.deleted,
            "minAvailable": int(status.get("minAvailable") or spec.get("minAvailable") or 0),
            **{k: int(status.get(k) or 0) for k in _JOB_COUNTS}, "retries": int(status.get("retryCount") or 0),
            "phases": [{"phase": p, "time": round(t, 3)} for t, p in recorder.phases.get(_name(job), [])]}


def _podgroup_record(pg: dict[str, Any]) -> dict[str, Any]:
    spec, status, meta = pg.get("spec") or {}, pg.get("status") or {}, pg["metadata"]
    conditions = [{k: str(c.get(k) or "") for k in ("type", "status", "reason", "message")}
                  for c in status.get("conditions") or []]
    return {"namespace": meta.get("namespace") or "default", "name": meta["name"],
            "phase": str(status.get("phase") or ""), "minMember": int(spec.get("minMember") or 0),
            "queue": str(spec.get("queue") or "default"), "conditions": conditions}


def _pod_record(pod: dict[str, Any]) -> dict[str, Any]:
    meta = pod["metadata"]
    return {"namespace": meta.get("namespace") or "default", "name": meta["name"],
            "phase": str((pod.get("status") or {}).get("phase") or ""),
            "node": str((pod.get("spec") or {}).get("nodeName") or "")}


def _records(cluster: FakeCluster, recorder: RunRecorder) -> dict[str, list[dict[str, Any]]]:
    return {"jobs": [_job_record(j, recorder) for _key, j in sorted(recorder.jobs.items())],
            "podgroups": [_podgroup_record(pg) for pg in cluster.list("PodGroup")],
            "pods": [_pod_record(p) for p in cluster.list("Pod")],
            "events": [{"time": round(e.first.time, 3), "type": e.first.type, "reason": e.first.reason,
                        "kind": e.first.kind, "namespace": e.first.namespace, "name": e.first.name,
                        "message": e.first.message, "source": e.first.source, "count": e.count,
                        "lastTime": round(e.last, 3)}
                       for e in fold_repeats(recorder.events)]}


def render_json(cluster: FakeCluster, recorder: RunRecorder, outcome: RunOutcome, *, expect: Sequence[str],
                seconds: float) -> str:
    """The JSON report (shape in the module docstring), one object and a newline."""
    doc = {"simulatedSeconds": round(cluster.now, 3), "limitSeconds": seconds, "expect": list(expect),
           "exit": {"code": outcome.code, "reason": outcome.reason, "message": outcome.message,
                    "missing": outcome.missing},
           **_records(cluster, recorder)}
    return json.dumps(doc, indent=2) + "\n"


def _job_lines(jobs: list[dict[str, Any]]) -> list[str]:
    rows = [[f"{j['namespace']}/{j['name']}", (j["phase"] or "-") + (" (deleted)" if j["deleted"] else ""),
             j["minAvailable"], *(j[k] for k in _JOB_COUNTS),
             j["retries"], ", ".join(f"{p['phase']} {_t(p['time'])}" for p in j["phases"]) or "-"]
            for j in jobs]
    return table(["JOB", "PHASE", "MIN", "PENDING", "RUNNING", "SUCCEEDED", "FAILED", "RETRIES", "PHASES ENTERED AT"],
                 rows)


def _podgroup_lines(groups: list[dict[str, Any]]) -> list[str]:
    lines = table(["PODGROUP", "PHASE", "MINMEMBER", "QUEUE"],
                  [[f"{g['namespace']}/{g['name']}", g["phase"] or "-", g["minMember"], g["queue"]] for g in groups])
    out = lines[:1]
    for group, line in zip(groups, lines[1:], strict=True):
        out.append(line)
        out.extend(f"      {c['type']}: {c['message']}" for c in group["conditions"] if c["message"])
    return out


def render_text(cluster: FakeCluster, recorder: RunRecorder, outcome: RunOutcome, *, expect: Sequence[str],
                seconds: float) -> str:
    """The text report (see the module docstring)."""
    records = _records(cluster, recorder)
    lines = [f"simulated time: {_t(cluster.now)} (limit {seconds:g}s)", ""]
    sections = [("Jobs", _job_lines), ("PodGroups", _podgroup_lines),
                ("Pods", lambda pods: table(["POD", "PHASE", "NODE"],
                                            [[f"{p['namespace']}/{p['name']}", p["phase"] or "-", p["node"] or "-"]
                                             for p in pods])),
                ("Events", lambda events: table(
                    ["TIME", "TYPE", "REASON", "OBJECT", "MESSAGE"],
                    [[_t(e["time"]), e["type"], e["reason"], _object(e),
                      e["message"] + _repeats(e)] for e in events]))]
    for title, render in sections:
        items = records[title.lower()]
        if items:
            lines += [f"{title}:", *render(items), ""]
    lines.append(outcome.message)
    return "\n".join(lines) + "\n"
