"""External admission webhooks called by the served API server, as kube-apiserver calls them.

``ExternalAdmission`` makes an ``ApiServer`` honour the ``MutatingWebhookConfiguration`` and
``ValidatingWebhookConfiguration`` objects stored in it, for writes arriving over HTTP: every matching
mutating webhook is called in turn (configurations by name, each answer's JSON Patch applied before
the next call), then the server's own validation runs, then every matching validating webhook is
called concurrently. Matching is ``webhookconfig``'s; the transport is ``webhookclient``'s.

**Not blocking the loop.** The store is owned by one event loop and a write runs without awaiting,
but a webhook call must be awaited. A write that some webhook may match therefore runs in passes,
each synchronous, with the calls awaited between them; two admission hooks registered last on the
server's chain (``"*"``, every operation) mark where the passes stop:

1. a dry run up to the end of the in-process mutating hooks records the object as admission sees it
   (decoded, defaulted, name generated), and stops;
2. the matching mutating webhooks are called with it; their patches give the mutated object;
3. when validating webhooks match, a dry run injects the mutated object, runs the server's validation
   and the in-process validating hooks, records the final object, and stops; the validating webhooks
   are called with it;
4. the write runs for real, injecting the mutated object; if what admission sees then differs from
   what the webhooks were shown (another write came in between), nothing is stored and the passes
   start again (at most ``ATTEMPTS`` times, then 409 Conflict).

DELETE (and each item of a ``deletecollection``) is recorded without stopping: its webhooks are
called with the stored object as ``oldObject`` and may only deny. ``pods/eviction`` is shown to
webhooks as a CREATE of an ``Eviction`` on the ``eviction`` subresource, as kube-apiserver shows it.
``pods/binding`` passes no admission in this server and calls no webhook; writes of webhook
configurations call none either (kube-apiserver exempts them, so a broken webhook can be removed).

**Answers.** A denial is the error kube-apiserver returns (403 by default, the webhook's own code
when it gives one: ``<resource> "<name>" is forbidden: admission webhook "<webhook>" denied the
request: <message>``). A call that fails (unreachable, timeout, TLS, not 200, not an AdmissionReview
answering this request's uid, a patch that does not apply) is 500 ``Internal error occurred: failed
calling webhook "<webhook>": <why>`` under ``failurePolicy: Fail`` and is skipped under ``Ignore``.
A ``dryRun`` request calls only webhooks whose ``sideEffects`` is ``None`` or ``NoneOnDryRun`` (400
otherwise). Warnings and audit annotations in answers are dropped.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import copy
import json
import logging
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import jsonpatch

from volcano.api.frozen import thaw
from volcano.api.kinds import KindInfo
from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.admission import OPERATIONS, AdmissionRequest
from volcano.httpapi.routes import Target
from volcano.httpapi.webhookclient import CallError, Endpoint, Transport, post
from volcano.httpapi.webhookconfig import Attributes, Webhook, namespace_labels, webhooks
from volcano.httpapi.wire import dumps

__all__ = ["ATTEMPTS", "USER_INFO", "ExternalAdmission"]

log = logging.getLogger("volcano.httpapi.webhooks")

ATTEMPTS = 5
"""How many times a write is retried when the cluster changed while its webhooks were called."""

USER_INFO = {"username": "system:admin", "groups": ["system:masters", "system:authenticated"]}
"""The user a webhook is told made the request (every client of ``volcano serve`` is its admin)."""

T = TypeVar("T")


class _Stop(Exception):
    """A pass reached the point it was run for."""


class _Stale(Exception):
    """What admission sees now differs from what the webhooks were shown."""


@dataclass
class _Record:
    """One admission request as the webhooks are shown it."""

    operation: str
    info: KindInfo
    subresource: str
    namespace: str
    name: str
    obj: dict[str, Any]
    old: Mapping[str, Any] | None

    def attributes(self) -> Attributes:
        return Attributes(self.operation, self.info, self.subresource, self.namespace,
                          None if self.operation == "DELETE" else self.obj, self.old)


@dataclass
class _Pass:
    mode: str  # "probe", "validate" or "commit"
    records: list[_Record] = field(default_factory=list)
    mutated: dict[str, Any] | None = None
    validated: dict[str, Any] | None = None


def _comparable(obj: Mapping[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata") or {}
    return {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}


def _rv(obj: Mapping[str, Any] | None) -> Any:
    return None if obj is None else (obj.get("metadata") or {}).get("resourceVersion")


def _inject(target: dict[str, Any], mutated: Mapping[str, Any]) -> None:
    managed = (target.get("metadata") or {}).get("managedFields")
    target.clear()
    target.update(copy.deepcopy(dict(mutated)))
    if managed is not None and isinstance(target.get("metadata"), dict):
        target["metadata"]["managedFields"] = managed


class ExternalAdmission:
    """Calls the webhooks registered in ``server`` for HTTP writes (see the module docstring)."""

    def __init__(self, server: ApiServer, *, transport: Transport = post) -> None:
        self.server = server
        self.transport = transport
        self.calls = 0
        self._pass: _Pass | None = None
        self._uids = server.streams.stream("admission-review")
        server.admission.register_mutating("*", OPERATIONS, self._at_mutating, "MutatingAdmissionWebhook")
        server.admission.register_validating("*", OPERATIONS, self._at_validating, "ValidatingAdmissionWebhook")

    # -- the marks on the admission chain ---------------------------------------------------------------
    def _at_mutating(self, req: AdmissionRequest) -> None:
        current = self._pass
        if current is None:
            return
        if current.mode == "probe":
            current.records.append(_Record(req.operation, req.kind, req.subresource or "", req.namespace,
                                           req.name, copy.deepcopy(req.obj), req.old))
            if req.operation != "DELETE":
                raise _Stop
            return
        if req.operation == "DELETE":
            return
        seen = current.records[0]
        if _comparable(req.obj) != _comparable(seen.obj) or _rv(req.old) != _rv(seen.old):
            raise _Stale
        if current.mutated is not None:
            _inject(req.obj, current.mutated)

    def _at_validating(self, req: AdmissionRequest) -> None:
        current = self._pass
        if current is None or current.mode == "probe" or req.operation == "DELETE":
            return
        if current.mode == "validate":
            current.validated = copy.deepcopy(req.obj)
            raise _Stop
        if current.validated is not None and _comparable(req.obj) != _comparable(current.validated):
            raise _Stale

    @contextlib.contextmanager
    def _running(self, p: _Pass) -> Iterator[_Pass]:
        self._pass = p
        try:
            yield p
        finally:
            self._pass = None

    def _dry(self, p: _Pass, run: Callable[[], Any]) -> _Pass:
        with contextlib.suppress(_Stop), self.server.dry_run(), self._running(p):
            run()
        return p

    # -- a write ----------------------------------------------------------------------------------------
    def applies(self, target: Target) -> bool:
        """Whether some registered webhook could be called for a write to ``target``'s resource (never for
        the webhook configurations themselves, as kube-apiserver exempts them: a broken webhook can always
        be removed)."""
        if target.info.group == "admissionregistration.k8s.io":
            return False
        sub = target.subresource or ""
        return any(h.could_match(target.info, sub) for mutating in (True, False)
                   for h in webhooks(self.server, mutating))

    async def admit(self, run: Callable[[], T], target: Target, dry_run: bool, catch_up: Callable[[], None]) -> T:
        """Run the write ``run`` with the webhooks that match it called (see the module docstring)."""
        if not self.applies(target):
            return run()
        for _attempt in range(ATTEMPTS):
            probe = self._dry(_Pass("probe"), run)
            plans = [(r, self._matching(r, True), self._matching(r, False)) for r in probe.records]
            if not any(m or v for _r, m, v in plans):
                return run()
            commit = _Pass("commit", records=probe.records)
            try:
                for record, mutating, validating in plans:
                    await self._admit_one(record, mutating, validating, commit, run, dry_run)
            except _Stale:
                catch_up()
                continue
            catch_up()
            try:
                with self._running(commit):
                    return run()
            except _Stale:
                continue
        name = probe.records[0].name if probe.records else target.name or ""
        raise ApiError(409, "Conflict", f'Operation cannot be fulfilled on {target.info.resource} "{name}": the '
                                        "object changed while admission webhooks were called; please try again",
                       {"name": name, "kind": target.info.plural, "group": target.info.group})

    async def _admit_one(self, record: _Record, mutating: list[Webhook], validating: list[Webhook],
                         commit: _Pass, run: Callable[[], Any], dry_run: bool) -> None:
        if record.operation == "DELETE":
            await self._mutate(record, mutating, dry_run)
            await self._validate(record, record.obj, validating, dry_run)
            return
        if mutating:
            commit.mutated = await self._mutate(record, mutating, dry_run)
        if validating:
            check = self._dry(_Pass("validate", records=commit.records, mutated=commit.mutated), run)
            if check.validated is not None:
                commit.validated = check.validated
                await self._validate(record, check.validated, validating, dry_run)

    def _matching(self, record: _Record, mutating: bool) -> list[Webhook]:
        attrs = record.attributes()
        labels = namespace_labels(self.server, attrs)
        return [h for h in webhooks(self.server, mutating) if h.matches(attrs, labels)]

    # -- calls ------------------------------------------------------------------------------------------
    async def _mutate(self, record: _Record, hooks: list[Webhook], dry_run: bool) -> dict[str, Any]:
        obj = copy.deepcopy(record.obj)
        for hook in hooks:
            response = await self._call(hook, record, obj, dry_run)
            if response is None:
                continue
            if response["allowed"] is not True:
                raise _denied(hook, record, response)
            if record.operation == "DELETE" or not response.get("patch"):
                continue
            try:
                ops = json.loads(base64.b64decode(str(response["patch"]), validate=True))
                obj = jsonpatch.apply_patch(obj, ops)
            except (ValueError, TypeError, KeyError, jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) \
                    as exc:
                failure = self._failed(hook, f"received invalid webhook response: the JSON Patch does not apply: "
                                             f"{exc}")
                if failure is not None:
                    raise failure from None
            if not isinstance(obj, dict):
                raise _failure(hook, "received invalid webhook response: the patched object is not an object")
        return obj

    async def _validate(self, record: _Record, obj: dict[str, Any], hooks: list[Webhook], dry_run: bool) -> None:
        responses = await asyncio.gather(*(self._call(h, record, obj, dry_run, catch=True) for h in hooks))
        for hook, response in zip(hooks, responses):
            if isinstance(response, ApiError):
                raise response
            if response is not None and response["allowed"] is not True:
                raise _denied(hook, record, response)

    async def _call(self, hook: Webhook, record: _Record, obj: dict[str, Any], dry_run: bool,
                    catch: bool = False) -> Any:
        """The webhook's ``response`` (None when a failure is ignored); an ``ApiError`` is raised, or
        returned with ``catch``."""
        try:
            if dry_run and hook.side_effects not in ("None", "NoneOnDryRun"):
                raise ApiError(400, "BadRequest", f'admission webhook "{hook.name}" does not support dry run')
            uid = str(uuid.UUID(int=self._uids.getrandbits(128), version=4))
            body = dumps(self._review(uid, record, obj, dry_run))
            try:
                endpoint = Endpoint.from_client_config(hook.client_config)
                self.calls += 1
                status, answer = await self.transport(endpoint, body, float(hook.timeout_seconds))
                return _verify(status, answer, uid, hook.mutating)
            except CallError as exc:
                failure = self._failed(hook, str(exc))
                if failure is not None:
                    raise failure from None
                return None
        except ApiError as err:
            if catch:
                return err
            raise

    def _failed(self, hook: Webhook, why: str) -> ApiError | None:
        if hook.failure_policy == "Ignore":
            log.warning('failed calling webhook "%s", failing open: %s', hook.name, why)
            return None
        return _failure(hook, why)

    def _review(self, uid: str, record: _Record, obj: dict[str, Any], dry_run: bool) -> dict[str, Any]:
        info, operation, sub = record.info, record.operation, record.subresource
        kind = {"group": info.group, "version": info.version, "kind": info.kind}
        resource = {"group": info.group, "version": info.version, "resource": info.plural}
        shown: Any = obj
        if sub == "eviction":
            operation, kind = "CREATE", {"group": "policy", "version": "v1", "kind": "Eviction"}
            shown = {"apiVersion": "policy/v1", "kind": "Eviction",
                     "metadata": {"name": record.name, "namespace": record.namespace}}
        elif operation == "DELETE":
            shown = None
        options = {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}[operation]
        request: dict[str, Any] = {
            "uid": uid, "kind": kind, "resource": resource, "requestKind": kind, "requestResource": resource,
            "name": record.name, "operation": operation, "userInfo": USER_INFO, "object": shown,
            "oldObject": thaw(record.old) if record.old is not None and sub != "eviction" else None,
            "dryRun": dry_run, "options": {"apiVersion": "meta.k8s.io/v1", "kind": options}}
        if sub:
            request["subResource"] = request["requestSubResource"] = sub
        if info.namespaced:
            request["namespace"] = record.namespace
        return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}


def _verify(status: int, body: bytes, uid: str, mutating: bool) -> dict[str, Any]:
    """The ``response`` of a webhook's answer; ``CallError`` when it is not a valid answer to ``uid``."""
    if status != 200:
        text = body[:300].decode("utf-8", "replace").strip()
        raise CallError(f"failed to call webhook: the server responded with the status code {status}"
                        + (f": {text}" if text else " but did not return more information"))
    try:
        review = json.loads(body)
    except ValueError as exc:
        raise CallError(f"received invalid webhook response: {exc}") from None
    if not isinstance(review, dict) or review.get("apiVersion") != "admission.k8s.io/v1" \
            or review.get("kind") != "AdmissionReview":
        got = f"{review.get('apiVersion')}, Kind={review.get('kind')}" if isinstance(review, dict) else "no object"
        raise CallError(f"received invalid webhook response: expected webhook response of admission.k8s.io/v1, "
                        f"Kind=AdmissionReview, got {got}")
    response = review.get("response")
    if not isinstance(response, dict):
        raise CallError("received invalid webhook response: webhook response was absent")
    if response.get("uid") != uid:
        raise CallError(f'received invalid webhook response: expected response.uid="{uid}", '
                        f'got "{response.get("uid")}"')
    if not isinstance(response.get("allowed"), bool):
        raise CallError("received invalid webhook response: response.allowed must be true or false")
    if response.get("patch") and not mutating:
        raise CallError("received invalid webhook response: validating webhooks may not return patches")
    if response.get("patch") and response.get("patchType") != "JSONPatch":
        raise CallError(f'received invalid webhook response: expected patchType "JSONPatch", '
                        f'got "{response.get("patchType")}"')
    return response


def _failure(hook: Webhook, why: str) -> ApiError:
    message = f'failed calling webhook "{hook.name}": {why}'
    return ApiError(500, "InternalError", f"Internal error occurred: {message}", {"causes": [{"message": message}]})


def _denied(hook: Webhook, record: _Record, response: Mapping[str, Any]) -> ApiError:
    """The error kube-apiserver returns for a webhook's denial (its ``ToStatusErr``)."""
    status = response.get("status") if isinstance(response.get("status"), Mapping) else {}
    assert isinstance(status, Mapping)
    given = status.get("code")
    code = given if isinstance(given, int) and not isinstance(given, bool) and given >= 400 else 403
    denied = f'admission webhook "{hook.name}" denied the request'
    message, reason = str(status.get("message") or ""), str(status.get("reason") or "")
    text = f"{denied}: {message}" if message else f"{denied}: {reason}" if reason else f"{denied} without explanation"
    name = record.name or "Unknown"
    if code == 500:
        return ApiError(500, reason or "InternalError", f"Internal error occurred: {text}",
                        {"causes": [{"message": text}]})
    return ApiError(code, reason or "Forbidden", f'{record.info.resource} "{name}" is forbidden: {text}',
                    {"group": record.info.group, "kind": record.info.plural, "name": name})
