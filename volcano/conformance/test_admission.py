"""Admission conformance: shared helpers for the ``test_admission_*`` modules, and how a
denial reaches a client.

Upstream's admission suite (``test/e2e/admission``) asserts on the API error text a client
receives. Two kinds of denial exist on a real cluster, and the helpers here take each apart:

* a Volcano webhook denial: HTTP 400 (Kubernetes' webhook plugin raises any code below 400
  to 400), Status reason empty, message ``admission webhook "<webhook>" denied the request:
  <the webhook's message>``;
* a CRD structural-schema violation: HTTP 422 ``Invalid``, message
  ``<Kind>.<group> "<name>" is invalid: <cause>`` (several causes as ``[a, b]``).

The helpers only use the backend-neutral ``cluster`` fixture and plain Kubernetes objects,
so every case runs unchanged against a real cluster.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import plain

__all__ = [
    "JOB_WEBHOOK",
    "PODGROUP_WEBHOOK",
    "POD_WEBHOOK",
    "QUEUE_WEBHOOK",
    "Denial",
    "base_job",
    "denial",
    "outcome",
    "own_queue",
    "plain",
    "pod_template",
    "queue_manifest",
    "schema_causes",
    "two_task_job",
    "update",
    "wait_queue_open",
    "webhook_message",
]

Obj = dict[str, Any]

JOB_WEBHOOK = "validatejob.volcano.sh"
POD_WEBHOOK = "validatepod.volcano.sh"
PODGROUP_WEBHOOK = "validatepodgroup.volcano.sh"
QUEUE_WEBHOOK = "validatequeue.volcano.sh"


@dataclass(frozen=True)
class Denial:
    """An API error as a client sees it: HTTP code, Status reason and message."""

    code: int
    reason: str
    message: str


def _as_denial(err: Exception) -> Denial | None:
    """The code, reason and message of a backend's API error (None if ``err`` is not one).

    The memory backend raises errors with ``.code``/``.reason``/``.message``; the Kubernetes
    client raises ``ApiException`` with ``.status`` and the Status object as JSON ``.body``.
    """
    code = getattr(err, "code", None)
    if not isinstance(code, int):
        code = getattr(err, "status", None)
    if not isinstance(code, int) or isinstance(code, bool):
        return None
    reason = getattr(err, "reason", "") or ""
    message = getattr(err, "message", None)
    body = getattr(err, "body", None)
    if body:
        try:
            status = json.loads(body)
        except (TypeError, ValueError):
            status = None
        if isinstance(status, dict):
            message = status.get("message", message)
            reason = status.get("reason", "") or ""
    return Denial(code, str(reason), str(message if message is not None else err))


def denial(call: Callable[[], object]) -> Denial:
    """Run ``call`` (a create or update) and return the API error it must raise."""
    try:
        call()
    except Exception as err:
        found = _as_denial(err)
        if found is None:
            raise
        return found
    raise AssertionError("the request was admitted, but it should have been denied")


def webhook_message(d: Denial, webhook: str) -> str:
    """The message the webhook ``webhook`` gave for denial ``d`` (asserting it was that webhook)."""
    marker = f'admission webhook "{webhook}" denied the request: '
    assert marker in d.message, f"expected a denial by webhook {webhook!r}, got {d}"
    return d.message.split(marker, 1)[1]


def schema_causes(d: Denial, kind: str, name: str) -> str:
    """The cause text of a CRD schema rejection of ``kind`` (``Job.batch.volcano.sh``) ``name``."""
    assert (d.code, d.reason) == (422, "Invalid"), f"expected 422 Invalid, got {d}"
    prefix = f'{kind} "{name}" is invalid: '
    assert d.message.startswith(prefix), f"expected message starting {prefix!r}, got {d.message!r}"
    return d.message[len(prefix):]


def update(cluster: Cluster, kind: str, name: str, change: Callable[[Obj], None],
           namespace: str | None = None) -> Obj:
    """Read the object, apply ``change`` to a copy and write it back as a full update,
    retrying on a 409 Conflict (as upstream's update loops do, at most 5 times)."""
    last: Exception | None = None
    for _ in range(5):
        obj = plain(cluster.get(kind, name, namespace))
        change(obj)
        try:
            return cluster.apply(obj)[0]
        except Exception as err:
            found = _as_denial(err)
            if found is None or found.code != 409:
                raise
            last = err
    assert last is not None
    raise last


def wait_queue_open(cluster: Cluster, name: str, timeout: float = 30) -> None:
    """The queue reaches state Open (upstream polls 30 s at 1 s intervals)."""
    def is_open() -> bool:
        q = cluster.try_get("Queue", name)
        return q is not None and (q.get("status") or {}).get("state") == "Open"

    cluster.wait_until(is_open, timeout, f"queue {name} Open")


def queue_manifest(name: str, spec: Obj | None = None, *, status: Obj | None = None,
                   annotations: dict[str, str] | None = None, namespace: str | None = None) -> Obj:
    """A Queue exactly as given (no builder defaults: upstream sets guarantee without deserved)."""
    meta: Obj = {"name": name}
    if annotations:
        meta["annotations"] = dict(annotations)
    if namespace:
        meta["namespace"] = namespace
    obj: Obj = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": meta,
                "spec": dict(spec or {})}
    if status:
        obj["status"] = dict(status)
    return obj


def _delete_quietly(cluster: Cluster, kind: str, name: str) -> None:
    try:
        if cluster.try_get(kind, name) is not None:
            cluster.delete(kind, name)
    except Exception as err:
        if _as_denial(err) is None:
            raise


def own_queue(request: pytest.FixtureRequest, cluster: Cluster, name: str) -> None:
    """Delete queue ``name`` when the case ends (queues are cluster-scoped: deleting the test
    namespace does not remove them on a shared cluster)."""
    request.addfinalizer(lambda: _delete_quietly(cluster, "Queue", name))


def pod_template() -> Obj:
    """Upstream's ``createPodTemplate``: label name=test, one container ``fake-name`` (busybox:1.24)."""
    return {"metadata": {"labels": {"name": "test"}},
            "spec": {"containers": [{"name": "fake-name", "image": "busybox:1.24"}]}}


def base_job(name: str) -> Obj:
    """Upstream's ``createBaseJob``: minAvailable 1, queue default, one task ``task-1`` with one
    replica, policy PodEvicted -> RestartTask. Fields a Go client leaves out stay out."""
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": name},
            "spec": {"minAvailable": 1, "queue": "default",
                     "tasks": [{"name": "task-1", "replicas": 1, "template": pod_template()}],
                     "policies": [{"event": "PodEvicted", "action": "RestartTask"}]}}


# ------------------------------------------------------------------------------------------------
# How a denial reaches the client (not an upstream case: upstream only matches substrings).


def two_task_job(name: str, replicas: tuple[int, int] = (2, 3)) -> Obj:
    """Upstream's base job with a second task: tasks ``task-1`` and ``task-2`` with ``replicas``."""
    job = base_job(name)
    job["spec"]["tasks"][0]["replicas"] = replicas[0]
    job["spec"]["tasks"].append({"name": "task-2", "replicas": replicas[1], "template": pod_template()})
    return job


def outcome(cluster: Cluster, obj: Obj, webhook: str) -> Obj | str:
    """Create ``obj``: the stored object when admitted, else the webhook's denial message (and
    then nothing is stored)."""
    kind, name = obj["kind"], obj["metadata"]["name"]
    stored: list[Obj] = []
    try:
        d = denial(lambda: stored.extend(cluster.apply(obj)))
    except AssertionError:  # admitted
        return plain(stored[0])
    assert cluster.try_get(kind, name) is None, f"denied {kind} {name} was stored"
    return webhook_message(d, webhook)


@pytest.mark.admission
def test_webhook_denial_is_forbidden_naming_resource_and_webhook(cluster: Cluster) -> None:
    """A webhook denial that carries only a message is 403 Forbidden, reason Forbidden, with the
    message ``<resource> "<name>" is forbidden: admission webhook "<webhook>" denied the request: <msg>``,
    as current Kubernetes' webhook plugin reports it (``webhook/errors/statuserror.go``: a result
    without a code becomes 403; releases before that change used 400 and no prefix)."""
    job = base_job("envelope-job")
    job["spec"]["tasks"].append({"name": "task-1", "replicas": 1, "template": pod_template()})
    d = denial(lambda: cluster.apply(job))
    assert (d.code, d.reason) == (403, "Forbidden"), d
    assert d.message == (f'jobs.batch.volcano.sh "envelope-job" is forbidden: admission webhook "{JOB_WEBHOOK}" '
                         "denied the request: duplicated task name task-1;")
    assert cluster.try_get("Job", "envelope-job") is None


@pytest.mark.admission
def test_schema_violation_is_unprocessable_entity_naming_kind_and_object(cluster: Cluster) -> None:
    """A CRD schema violation is 422 Invalid, naming the kind with its group and the object."""
    job = base_job("envelope-schema-job")
    job["spec"]["minAvailable"] = -1
    d = denial(lambda: cluster.apply(job))
    causes = schema_causes(d, "Job.batch.volcano.sh", "envelope-schema-job")
    assert causes == ("spec.minAvailable: Invalid value: -1: "
                      "spec.minAvailable in body should be greater than or equal to 0")
    assert cluster.try_get("Job", "envelope-schema-job") is None
