"""``vcctl job``: run, list, view, suspend, resume and delete Volcano Jobs, as upstream's ``pkg/cli/job``.

Each command takes the parsed arguments, an ``ApiClient``, where to write, and ``now`` (the wall time
ages are computed against); it returns nothing and raises ``VcctlError`` with upstream's message.
Output is upstream's, column for column: ``list`` prints ``Name Creation Phase JobType Replicas Min
Pending Running Succeeded Failed Unknown RetryCount`` (``Namespace`` first with ``--all-namespaces``),
the name column as wide as the longest name plus three; ``view`` prints the job's fields and its
Events (those whose name starts with ``<job>.``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

import yaml

from volcano.api.quantity import QuantityError, to_milli
from volcano.httpapi.tables import human_duration
from volcano.vcctl.client import JOBS, VcctlError, core_api, create_command, custom

__all__ = ["delete", "go_time", "human_duration", "list_jobs", "parse_resources", "resume", "run", "suspend", "view"]

JOB_TYPE_LABEL = "volcano.sh/job-type"
_COLUMNS = ("Name", "Creation", "Phase", "JobType", "Replicas", "Min", "Pending", "Running", "Succeeded", "Failed",
            "Unknown", "RetryCount")
_WIDTHS = (15, 12, 12, 12, 6, 10, 10, 12, 10, 12, 10)


def parse_resources(spec: str) -> dict[str, str]:
    """``cpu=1000m,memory=100Mi`` as a resource list; upstream's errors for bad syntax or quantities."""
    if not spec:
        return {}
    out: dict[str, str] = {}
    for statement in spec.split(","):
        parts = statement.split("=")
        if len(parts) != 2:
            raise VcctlError(f"invalid argument syntax {statement}, expected <resource>=<value>")
        try:
            to_milli(parts[1])
        except QuantityError:
            raise VcctlError("quantities must match the regular expression "
                             "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'") from None
        out[parts[0]] = parts[1]
    return out


def _job_from_flags(args: argparse.Namespace, requests: dict[str, str], limits: dict[str, str]) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    if limits:
        resources["limits"] = limits
    if requests:
        resources["requests"] = requests
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": args.name, "namespace": args.namespace},
            "spec": {"minAvailable": args.min, "schedulerName": args.scheduler, "tasks": [{
                "replicas": args.replicas,
                "template": {"metadata": {"name": args.name, "labels": {"job.volcano.sh": args.name}},
                             "spec": {"restartPolicy": "Never", "containers": [{
                                 "image": args.image, "name": args.name, "imagePullPolicy": "IfNotPresent",
                                 "resources": resources}]}}}]}}


def _read_file(filename: str) -> dict[str, Any] | None:
    if not filename:
        return None
    if ".yaml" not in filename and ".yml" not in filename:
        raise VcctlError("only support yaml file")
    try:
        text = Path(filename).read_text()
    except OSError as exc:
        raise VcctlError(f"failed to read file, err: {exc}") from None
    try:
        job = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise VcctlError(f"failed to unmarshal file, err:  {exc}") from None
    if not isinstance(job, dict):
        raise VcctlError("failed to unmarshal file, err:  the file does not hold a Job object")
    job.setdefault("apiVersion", "batch.volcano.sh/v1alpha1")
    job.setdefault("kind", "Job")
    return job


def run(args: argparse.Namespace, api: Any, out: TextIO, now: dt.datetime) -> None:
    """``vcctl job run``: create a Job from the flags or from ``--filename``."""
    if not args.name and not args.filename:
        raise VcctlError("job name cannot be left blank")
    requests, limits = parse_resources(args.requests), parse_resources(args.limits)
    job = _read_file(args.filename) or _job_from_flags(args, requests, limits)
    created = custom(api).create_namespaced_custom_object(JOBS[0], JOBS[1], args.namespace, JOBS[2], job)
    out.write(f"run job {created['metadata']['name']} successfully\n")


def _status(job: Mapping[str, Any]) -> Mapping[str, Any]:
    status = job.get("status")
    return status if isinstance(status, Mapping) else {}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def list_jobs(args: argparse.Namespace, api: Any, out: TextIO, now: dt.datetime) -> None:
    """``vcctl job list``: the jobs of ``--namespace`` (or all), filtered by queue, scheduler, name part."""
    objects = custom(api)
    listed = objects.list_cluster_custom_object(*JOBS) if args.all_namespaces \
        else objects.list_namespaced_custom_object(JOBS[0], JOBS[1], args.namespace, JOBS[2])
    jobs = [j for j in listed.get("items") or []
            if (not args.queue or args.queue == (j.get("spec") or {}).get("queue"))
            and (not args.scheduler or args.scheduler == (j.get("spec") or {}).get("schedulerName"))
            and (not args.selector or args.selector in j["metadata"]["name"])]
    if not jobs:
        out.write("No resources found\n")
        return
    name_w = max([len("Name"), *(len(j["metadata"]["name"]) for j in jobs)]) + 3
    ns_w = max([len("Namespace"), *(len(j["metadata"].get("namespace", "")) for j in jobs)]) + 3
    widths = (name_w, *_WIDTHS)

    def row(cells: tuple[Any, ...]) -> str:
        return "".join(f"{cell!s:<{w}}" for cell, w in zip(cells, widths)) + "\n"

    prefix = (lambda ns: f"{ns:<{ns_w}}") if args.all_namespaces else (lambda ns: "")
    out.write(prefix("Namespace") + row(_COLUMNS))
    for job in jobs:
        status = _status(job)
        replicas = sum(_int(t.get("replicas")) for t in (job.get("spec") or {}).get("tasks") or []
                       if isinstance(t, Mapping))
        job_type = ((job["metadata"].get("labels") or {}).get(JOB_TYPE_LABEL)) or "Batch"
        created = str(job["metadata"].get("creationTimestamp") or "")[:10]
        out.write(prefix(job["metadata"].get("namespace", "")) + row((
            job["metadata"]["name"], created, (status.get("state") or {}).get("phase", ""), job_type, replicas,
            _int(status.get("minAvailable")), _int(status.get("pending")), _int(status.get("running")),
            _int(status.get("succeeded")), _int(status.get("failed")), _int(status.get("unknown")),
            _int(status.get("retryCount")))))


def _command(args: argparse.Namespace, api: Any, action: str, verb: str) -> None:
    if not args.name:
        raise VcctlError(f"job name is mandatory to {verb} a particular job")
    job = custom(api).get_namespaced_custom_object(JOBS[0], JOBS[1], args.namespace, JOBS[2], args.name)
    create_command(api, job, action, job["metadata"]["namespace"])


def suspend(args: argparse.Namespace, api: Any, out: TextIO, now: dt.datetime) -> None:
    """``vcctl job suspend``: a Command with action ``AbortJob``."""
    _command(args, api, "AbortJob", "suspend")


def resume(args: argparse.Namespace, api: Any, out: TextIO, now: dt.datetime) -> None:
    """``vcctl job resume``: a Command with action ``ResumeJob``."""
    _command(args, api, "ResumeJob", "resume")


def delete(args: argparse.Namespace, api: Any, out: TextIO, now: dt.datetime) -> None:
    """``vcctl job delete``."""
    if not args.name:
        raise VcctlError("job name is mandatory to delete a particular job")
    custom(api).delete_namespaced_custom_object(JOBS[0], JOBS[1], args.namespace, JOBS[2], args.name)
    out.write(f"delete job {args.name} successfully\n")


# -- view ---------------------------------------------------------------------------------------------
def go_time(value: Any) -> str:
    """An RFC 3339 timestamp as Go prints a ``metav1.Time`` (``2024-01-01 00:00:00 +0000 UTC``)."""
    if not value:
        return "0001-01-01 00:00:00 +0000 UTC"
    when = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00")).astimezone(dt.UTC)
    return when.strftime("%Y-%m-%d %H:%M:%S +0000 UTC")


def _since(value: Any, now: dt.datetime) -> str:
    if not value:
        return "<unknown>"
    when = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return human_duration((now - when).total_seconds())


def _go_list(value: Any) -> str:
    return "[" + " ".join(str(v) for v in value) + "]" if isinstance(value, list) else "[]"


def _line(out: TextIO, level: int, text: str) -> None:
    out.write("  " * level + text)


def _print_containers(out: TextIO, spec: Mapping[str, Any]) -> None:
    _line(out, 4, "Containers:\n")
    for c in spec.get("containers") or []:
        _line(out, 5, "Command:\n")
        for part in c.get("command") or []:
            _line(out, 6, f"{part}\n")
        _line(out, 5, f"Image:\t{c.get('image', '')}\n")
        _line(out, 5, f"Name: \t{c.get('name', '')}\n")
        _line(out, 5, "Ports:\n")
        for port in c.get("ports") or []:
            _line(out, 6, f"Container Port:\t{port.get('containerPort', 0)}\n")
            _line(out, 6, f"Name:          \t{port.get('name', '')}\n")
        resources = c.get("resources") or {}
        _line(out, 5, "Resources:\n")
        for key, title in (("limits", "Limits"), ("requests", "Requests")):
            values = resources.get(key) or {}
            _line(out, 6, f"{title}:\n")
            _line(out, 7, f"Cpu:   \t{values.get('cpu', '0')}\n")
            _line(out, 7, f"Memory:\t{values.get('memory', '0')}\n")
        _line(out, 6, f"Working Dir:\t{c.get('workingDir', '')}\n")


def print_job(job: Mapping[str, Any], out: TextIO) -> None:
    """The job's description, as upstream's ``PrintJobInfo``."""
    meta, spec, status = job["metadata"], job.get("spec") or {}, _status(job)
    compact = {"separators": (",", ":"), "sort_keys": True}
    _line(out, 0, f"Name:       \t{meta['name']}\n")
    _line(out, 0, f"Namespace:  \t{meta.get('namespace', '')}\n")
    labels, annotations = meta.get("labels"), meta.get("annotations")
    _line(out, 0, f"Labels:     \t{json.dumps(labels, **compact) if labels else '<none>'}\n")  # type: ignore[arg-type]
    _line(out, 0, f"Annotations:\t{json.dumps(annotations, **compact) if annotations else '<none>'}\n")  # type: ignore[arg-type]
    _line(out, 0, f"API Version:\t{job.get('apiVersion', '')}\n")
    _line(out, 0, f"Kind:       \t{job.get('kind', '')}\n")
    _line(out, 0, "Metadata:\n")
    _line(out, 1, f"Creation Timestamp:\t{go_time(meta.get('creationTimestamp'))}\n")
    _line(out, 1, f"Generate Name:     \t{meta.get('generateName', '')}\n")
    _line(out, 1, f"Generation:        \t{_int(meta.get('generation'))}\n")
    _line(out, 1, f"Resource Version:  \t{meta.get('resourceVersion', '')}\n")
    _line(out, 1, f"UID:               \t{meta.get('uid', '')}\n")
    _line(out, 0, "Spec:\n")
    _line(out, 1, f"Min Available:     \t{_int(spec.get('minAvailable'))}\n")
    plugins = spec.get("plugins") or {}
    _line(out, 1, "Plugins:\n")
    _line(out, 2, f"Env:\t{_go_list(plugins.get('env'))}\n")
    _line(out, 2, f"Ssh:\t{_go_list(plugins.get('ssh'))}\n")
    _line(out, 1, f"Scheduler Name:    \t{spec.get('schedulerName', '')}\n")
    _line(out, 1, "Tasks:\n")
    for task in spec.get("tasks") or []:
        template = task.get("template") or {}
        tmeta, tspec = template.get("metadata") or {}, template.get("spec") or {}
        notes = tmeta.get("annotations") or {}
        _line(out, 2, f"Name:\t{task.get('name', '')}\n")
        _line(out, 2, f"Replicas:\t{_int(task.get('replicas'))}\n")
        _line(out, 2, "Template:\n")
        _line(out, 3, "Metadata:\n")
        _line(out, 4, "Annotations:\n")
        _line(out, 5, f"Cri . Cci . Io / Container - Type:          \t{notes.get('cri.cci.io/container-type', '')}\n")
        _line(out, 5, f"Kubernetes . Io / Availablezone:            \t{notes.get('kubernetes.io/availablezone', '')}\n")
        _line(out, 5, "Network . Alpha . Kubernetes . Io / Network:\t"
                      f"{notes.get('network.alpha.kubernetes.io/network', '')}\n")
        _line(out, 4, f"Creation Timestamp:\t{go_time(tmeta.get('creationTimestamp'))}\n")
        _line(out, 3, "Spec:\n")
        _print_containers(out, tspec)
        _line(out, 4, "Image Pull Secrets:\n")
        for secret in tspec.get("imagePullSecrets") or []:
            _line(out, 5, f"Name:     \t{secret.get('name', '')}\n")
        _line(out, 4, f"Restart Policy:   \t{tspec.get('restartPolicy', '')}\n")
    _print_status(status, out)


def _print_status(status: Mapping[str, Any], out: TextIO) -> None:
    _line(out, 0, "Status:\n")
    for key, title in (("succeeded", "Succeeded:    "), ("pending", "Pending:      "), ("running", "Running:      "),
                       ("failed", "Failed:       "), ("terminating", "Terminating:  "), ("unknown", "Unknown:      "),
                       ("retryCount", "RetryCount:   "), ("minAvailable", "Min Available:"),
                       ("version", "Version:      ")):
        if _int(status.get(key)) > 0:
            _line(out, 1, f"{title}\t{_int(status.get(key))}\n")
    _line(out, 1, "State:\n")
    _line(out, 2, f"Phase:\t{(status.get('state') or {}).get('phase', '')}\n")
    controlled = status.get("controlledResources") or {}
    if controlled:
        _line(out, 1, "Controlled Resources:\n")
        for key in sorted(controlled):
            _line(out, 2, f"{key}: \t{controlled[key]}\n")
    conditions = status.get("conditions") or []
    if conditions:
        _line(out, 1, "Conditions:\n    Status\tTransitionTime\n")
        for c in conditions:
            _line(out, 2, f"{c.get('status', '')} \t{go_time(c.get('lastTransitionTime'))} \n")


def print_events(events: list[Mapping[str, Any]], out: TextIO, now: dt.datetime) -> None:
    """The job's Events, as upstream's ``PrintEvents``."""
    if not events:
        out.write("Events: \t<none>\n")
        return
    out.write(f"Events:\n{'Type':<15}\t{'Reason':<40}\t{'Age':<30}\t{'Form':<40}\tMessage\n")
    dashes = "-------"
    out.write(f"{dashes:<15}\t{dashes:<40}\t{dashes:<30}\t{dashes:<40}\t{dashes}\n")
    for e in events:
        first = e.get("firstTimestamp") or e.get("eventTime")
        count = _int(e.get("count"))
        interval = (f"{_since(e.get('lastTimestamp') or first, now)} (x{count} over {_since(first, now)})"
                    if count > 1 else _since(first, now))
        source = e.get("source") or {}
        where = ", ".join(x for x in (source.get("component", ""), source.get("host", "")) if x) \
            if source.get("host") else str(source.get("component", ""))
        out.write(f"{e.get('type', ''):<15}\t{e.get('reason', ''):<40}\t{interval:<30}\t{where:<40}\t"
                  f"{str(e.get('message', '')).strip()}\n")


def view(args: argparse.Namespace, api: Any, out: TextIO, now: dt.datetime) -> None:
    """``vcctl job view``: the job's description and its Events."""
    if not args.name:
        raise VcctlError("job name (specified by --name or -N) is mandatory to view a particular job")
    job = custom(api).get_namespaced_custom_object(JOBS[0], JOBS[1], args.namespace, JOBS[2], args.name)
    print_job(job, out)
    core = core_api(api)
    listed = api.sanitize_for_serialization(core.list_namespaced_event(args.namespace))
    events = [e for e in listed.get("items") or [] if e["metadata"]["name"].startswith(job["metadata"]["name"] + ".")]
    print_events(events, out, now)
