"""AdmissionReview v1 in, AdmissionReview v1 out: Volcano's admission rules as webhook answers.

``Reviewer.review(path, body)`` answers one ``admission.k8s.io/v1`` ``AdmissionReview`` sent to a
webhook path (``/jobs/validate``, ...):

* a mutating path applies the rule (``volcano.admission``) to a copy of ``request.object`` and answers
  ``allowed: true`` with the difference as a base64 RFC 6902 JSON Patch (``patchType: JSONPatch``), or
  with no patch when nothing changed;
* a validating path answers ``allowed: false`` with ``status: {code: 403, message}`` when the rule
  denies; the message is the in-process admission's, so the API server reports the same
  ``admission webhook "<name>" denied the request: <message>``;
* an object the rule cannot read is denied with ``cannot decode the <Kind>: ...``, as in process;
* a body that is not an AdmissionReview is answered with a ``ReviewError`` (the HTTP layer sends 400).

The rules read other objects (queues, namespaces) through a ``ClusterView``; the answer's ``uid`` is
the request's.
"""

from __future__ import annotations

import base64
import copy
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import jsonpatch

from volcano.admission.job import mutate_job, validate_job_create, validate_job_update
from volcano.admission.lookup import ClusterView
from volcano.admission.pod import validate_pod_create
from volcano.admission.podgroup import mutate_podgroup, validate_podgroup_create
from volcano.admission.queue import mutate_queue, validate_queue, validate_queue_delete
from volcano.informers.poison import DATA_ERRORS
from volcano.webhooks.services import SERVICES, AdmissionService

__all__ = ["REVIEW_API_VERSION", "ReviewError", "Reviewer"]

REVIEW_API_VERSION = "admission.k8s.io/v1"

_KIND_NAMES = {"jobs": "Job", "podgroups": "PodGroup", "queues": "Queue", "pods": "Pod"}

Rule = Callable[[str, dict[str, Any], Mapping[str, Any] | None, str], str]
"""``fn(operation, obj, old, name) -> denial message ("" admits)``; a mutating rule edits ``obj``."""


class ReviewError(ValueError):
    """The request body is not an AdmissionReview this webhook can answer (HTTP 400)."""


class Reviewer:
    """Answers AdmissionReviews for the enabled services (see the module docstring)."""

    def __init__(self, view: ClusterView, *, services: Iterable[AdmissionService] = SERVICES,
                 scheduler_names: Iterable[str] = ("volcano",), check_queue_allocated_pods: bool = False) -> None:
        self.view = view
        self.services = {s.path: s for s in services}
        self.scheduler_names = tuple(scheduler_names) or ("volcano",)
        self.check_queue_allocated_pods = check_queue_allocated_pods

    # -- the rules, by path ---------------------------------------------------------------------------
    def _rule(self, path: str) -> Rule:
        view, names = self.view, self.scheduler_names

        def mutate(fn: Callable[[dict[str, Any]], None]) -> Rule:
            def rule(op: str, obj: dict[str, Any], old: Mapping[str, Any] | None, name: str) -> str:
                if op == "CREATE":
                    fn(obj)
                return ""
            return rule

        def job(op: str, obj: dict[str, Any], old: Mapping[str, Any] | None, name: str) -> str:
            if op == "CREATE":
                return validate_job_create(obj, view)
            return validate_job_update(old, obj) if op == "UPDATE" and old is not None else ""

        def queue(op: str, obj: dict[str, Any], old: Mapping[str, Any] | None, name: str) -> str:
            if op == "DELETE":
                return validate_queue_delete(name, view, check_allocated_pods=self.check_queue_allocated_pods)
            return validate_queue(obj, old if op == "UPDATE" else None, view)

        rules: dict[str, Rule] = {
            "/jobs/mutate": mutate(lambda o: mutate_job(o, scheduler_name=names[0])),
            "/podgroups/mutate": mutate(lambda o: mutate_podgroup(o, view)),
            "/queues/mutate": mutate(mutate_queue),
            "/pods/mutate": mutate(lambda o: None),
            "/jobs/validate": job,
            "/podgroups/validate": lambda op, o, old, n: validate_podgroup_create(o, view) if op == "CREATE" else "",
            "/queues/validate": queue,
            "/pods/validate": lambda op, o, old, n: validate_pod_create(o, names) if op == "CREATE" else "",
        }
        return rules[path]

    # -- one review -----------------------------------------------------------------------------------
    def review(self, path: str, body: Any) -> dict[str, Any]:
        """The AdmissionReview answering ``body`` sent to ``path`` (see the module docstring).

        Raises ``KeyError`` for a path not served and ``ReviewError`` for a malformed body."""
        service = self.services[path]
        request = _request(body)
        operation = str(request.get("operation") or "")
        old = request.get("oldObject")
        obj = request.get("object")
        if operation == "DELETE" and not isinstance(obj, dict):
            obj = copy.deepcopy(old) if isinstance(old, dict) else {}
        if not isinstance(obj, dict):
            raise ReviewError("request.object must be an object")
        name = str(request.get("name") or (obj.get("metadata") or {}).get("name") or "")
        response: dict[str, Any] = {"uid": request["uid"], "allowed": True}
        before = copy.deepcopy(obj)
        try:
            message = self._rule(path)(operation, obj, old if isinstance(old, dict) else None, name)
        except DATA_ERRORS as exc:
            kind = _KIND_NAMES.get(service.resource, service.resource)
            message = f"cannot decode the {kind}: {exc}"
        if message:
            response["allowed"] = False
            response["status"] = {"code": 403, "message": message}
        elif service.mutating:
            ops = jsonpatch.make_patch(before, obj).patch
            if ops:
                response["patchType"] = "JSONPatch"
                response["patch"] = base64.b64encode(jsonpatch.JsonPatch(ops).to_string().encode()).decode()
        return {"apiVersion": REVIEW_API_VERSION, "kind": "AdmissionReview", "response": response}


def _request(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ReviewError("the body must be a JSON object (an AdmissionReview)")
    if body.get("kind") != "AdmissionReview" or body.get("apiVersion") != REVIEW_API_VERSION:
        raise ReviewError(f"expected an {REVIEW_API_VERSION} AdmissionReview, got apiVersion "
                          f"{body.get('apiVersion')!r} kind {body.get('kind')!r}")
    request = body.get("request")
    if not isinstance(request, dict) or not isinstance(request.get("uid"), str) or not request["uid"]:
        raise ReviewError("request.uid: a non-empty string is required")
    return request
