"""The REST verbs: one HTTP request on a resource path becomes one ``ApiServer`` call.

No semantics live here: the ``ApiServer`` decides (admission, validation,
conflicts, deletion); this module only maps method, path, query and body onto
its verbs and shapes the answer as kube-apiserver does:

* POST on a collection creates (201); PUT replaces (200); PATCH patches by content type
  (JSON merge patch; strategic merge, JSON patch and apply patches when the server takes a
  ``patch_type``; an apply that creates answers 201); DELETE deletes (200).
* DELETE answers with the object when it still exists (finalizers, graceful deletion); once
  removed, Pods and Services answer with their last state (``ReturnDeletedObject``), every other
  kind with a ``Status`` naming it. DELETE on a collection is ``deletecollection``.
* ``dryRun=All`` runs a write in full and stores nothing.
* Subresources: ``status`` (GET, PUT, PATCH), ``pods/binding`` and ``pods/eviction`` (POST, 201
  ``Status``), ``pods/log`` (text), ``<workload>/scale`` (``autoscaling/v1 Scale``),
  ``namespaces/<n>/finalize`` (PUT).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

from volcano.api.frozen import thaw
from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.collection import delete_collection
from volcano.apiserver.errors import bad_request
from volcano.apiserver.podlog import pod_log
from volcano.apiserver.scale import get_scale, patch_scale, update_scale
from volcano.httpapi.params import DeleteOptions, Query
from volcano.httpapi.routes import Target
from volcano.httpapi.wire import (
    APPLY_PATCH,
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    check_mapping,
    success_status,
    unsupported_media_type,
)

__all__ = ["Reply", "ResourceHandlers", "log_options"]

_RETURN_DELETED = ("Pod", "Service", "ServiceAccount")
"""Kinds whose registry returns the deleted object instead of a Status (``ReturnDeletedObject``)."""

_PATCH_TYPES = {MERGE_PATCH: "merge", STRATEGIC_MERGE_PATCH: "strategic", JSON_PATCH: "json", APPLY_PATCH: "apply"}


@dataclass(slots=True)
class Reply:
    """An answer: HTTP code and a body (an object to encode as JSON, or text for ``pods/log``).

    ``listing`` marks a body that may be rendered as a Table (lists and single objects)."""

    code: int
    body: Any
    listing: bool = False
    text: bool = False


def log_options(query: Query) -> dict[str, Any]:
    """The ``pod_log`` keyword arguments a ``pods/log`` query asks for."""
    return {"container": query.text("container"), "tail_lines": query.integer("tailLines"),
            "timestamps": query.flag("timestamps"), "since_seconds": query.integer("sinceSeconds", minimum=1),
            "previous": query.flag("previous"), "limit_bytes": query.integer("limitBytes", minimum=1)}


def _method_not_allowed() -> ApiError:
    return ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")


class ResourceHandlers:
    """Serves resource paths from an ``ApiServer`` (see the module docstring)."""

    def __init__(self, server: ApiServer) -> None:
        self.server = server
        params = inspect.signature(server.patch).parameters
        self._typed_patch = "patch_type" in params
        self._field_manager = "field_manager" in params

    # -- dispatch ----------------------------------------------------------------------------------
    def handle(self, method: str, target: Target, query: Query, body: Callable[[], Any],
               content_type: str) -> Reply:
        """Run the verb ``method`` names on ``target``; ``body()`` decodes the request body."""
        sub = target.subresource
        if sub is not None:
            return self._subresource(method, target, query, body, content_type)
        if target.is_collection:
            if method == "GET":
                return self._list(target, query)
            if method == "POST":
                return self._create(target, query, body())
            if method == "DELETE":
                return self._delete_collection(target, query, body())
            raise _method_not_allowed()
        if method == "GET":
            return Reply(200, self.server.get(target.info.key, target.name or "", target.namespace), listing=True)
        if method == "PUT":
            return self._update(target, query, body())
        if method == "PATCH":
            return self._patch(target, query, body(), content_type)
        if method == "DELETE":
            return self._delete(target, query, body())
        raise _method_not_allowed()

    # -- collections ---------------------------------------------------------------------------------
    def _list(self, target: Target, query: Query) -> Reply:
        info = target.info
        rv_match = query.text("resourceVersionMatch")
        if rv_match not in (None, "NotOlderThan", "Exact"):
            raise bad_request(f'resourceVersionMatch: Unsupported value: "{rv_match}": supported values: '
                              '"Exact", "NotOlderThan"')
        rv = query.text("resourceVersion")
        if rv is not None and rv_match == "Exact" and rv != self.server.resource_version:
            raise ApiError(410, "Expired", f"too old resource version: {rv} ({self.server.resource_version})")
        listed = self.server.list(info.key, target.namespace, label_selector=query.text("labelSelector"),
                                  field_selector=query.text("fieldSelector"), limit=query.integer("limit"),
                                  continue_=query.text("continue"))
        return Reply(200, listed, listing=True)

    def _create(self, target: Target, query: Query, body: Any) -> Reply:
        obj = check_mapping(body, "the object to create")
        if target.info.namespaced and target.namespace is None:
            raise _method_not_allowed()
        self._check_kind(target, obj)
        with self._maybe_dry(query):
            created = self.server.create(obj, namespace=target.namespace)
        return Reply(201, created)

    def _delete_collection(self, target: Target, query: Query, body: Any) -> Reply:
        opts = DeleteOptions.read(query, body)
        with self._maybe_dry(query, opts.dry_run):
            out = delete_collection(
                self.server, target.info.key, target.namespace, label_selector=query.text("labelSelector"),
                field_selector=query.text("fieldSelector"), grace_period_seconds=opts.grace_period_seconds,
                propagation_policy=opts.propagation_policy)
        return Reply(200, out)

    # -- items ---------------------------------------------------------------------------------------
    def _check_kind(self, target: Target, obj: dict[str, Any]) -> None:
        """The body's apiVersion/kind must be the path's (filled in when absent, as clients omit them)."""
        info = target.info
        if "apiVersion" not in obj and "kind" not in obj:
            obj["apiVersion"], obj["kind"] = info.api_version, info.kind
        if obj.get("apiVersion") != info.api_version or obj.get("kind") != info.kind:
            raise bad_request(f"the API version in the data ({obj.get('apiVersion')}) and kind "
                              f"({obj.get('kind')}) do not match the resource path "
                              f"({info.api_version}, {info.kind})")

    def _check_name(self, target: Target, obj: dict[str, Any]) -> None:
        meta = obj.get("metadata")
        if not isinstance(meta, dict):
            raise bad_request("metadata must be a JSON object")
        if meta.get("name") not in (None, "", target.name):
            raise bad_request(f"the name of the object ({meta.get('name')}) does not match the name on the URL "
                              f"({target.name})")
        meta["name"] = target.name
        if target.info.namespaced:
            if meta.get("namespace") not in (None, "", target.namespace):
                raise bad_request("the namespace of the provided object does not match the namespace sent on "
                                  "the request")
            meta["namespace"] = target.namespace

    def _update(self, target: Target, query: Query, body: Any) -> Reply:
        obj = check_mapping(body, "the object to update")
        self._check_kind(target, obj)
        self._check_name(target, obj)
        with self._maybe_dry(query):
            return Reply(200, self.server.update(obj))

    def _patch(self, target: Target, query: Query, patch: Any, content_type: str,
               subresource: str | None = None) -> Reply:
        kind = _PATCH_TYPES.get(content_type)
        if kind is None:
            raise unsupported_media_type(content_type)
        if patch is None:
            raise bad_request("the body of a patch must not be empty")
        info, name, ns = target.info, target.name or "", target.namespace
        if not self._typed_patch:
            if kind != "merge":
                raise unsupported_media_type(content_type)
            with self._maybe_dry(query):
                return Reply(200, self.server.patch(info.key, name, check_mapping(patch, "a merge patch"), ns,
                                                    subresource=subresource))
        existed = True
        if kind == "apply":
            existed = self._exists(target)
        kwargs: dict[str, Any] = {"subresource": subresource, "patch_type": kind}
        if self._field_manager:
            kwargs["field_manager"] = query.text("fieldManager")
            if query.get("force") is not None:
                kwargs["force"] = query.flag("force")
        with self._maybe_dry(query):
            out = self.server.patch(info.key, name, patch, ns, **kwargs)
        return Reply(200 if existed else 201, out)

    def _exists(self, target: Target) -> bool:
        try:
            self.server.get(target.info.key, target.name or "", target.namespace)
        except ApiError as err:
            if err.code == 404:
                return False
            raise
        return True

    def _delete(self, target: Target, query: Query, body: Any) -> Reply:
        opts = DeleteOptions.read(query, body)
        info, name = target.info, target.name or ""
        before = self.server.get(info.key, name, target.namespace)
        with self._maybe_dry(query, opts.dry_run):
            after = self.server.delete(info.key, name, target.namespace,
                                       grace_period_seconds=opts.grace_period_seconds,
                                       propagation_policy=opts.propagation_policy,
                                       preconditions=opts.preconditions)
        if after is not None:
            return Reply(200, after)
        if info.key in _RETURN_DELETED:
            return Reply(200, before)
        details: dict[str, Any] = {"name": name, "kind": info.plural, "uid": before["metadata"]["uid"]}
        if info.group:
            details["group"] = info.group
        return Reply(200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                           "details": details})

    # -- subresources --------------------------------------------------------------------------------
    def _subresource(self, method: str, target: Target, query: Query, body: Callable[[], Any],
                     content_type: str) -> Reply:
        sub, info, name, ns = target.subresource, target.info, target.name or "", target.namespace
        server = self.server
        if sub == "status":
            if method == "GET":
                return Reply(200, server.get(info.key, name, ns), listing=True)
            if method == "PUT":
                obj = check_mapping(body(), "the object to update")
                self._check_kind(target, obj)
                self._check_name(target, obj)
                with self._maybe_dry(query):
                    return Reply(200, server.update_status(obj))
            if method == "PATCH":
                return self._patch(target, query, body(), content_type, subresource="status")
        elif sub == "binding" and method == "POST":
            return self._bind(target, query, body())
        elif sub == "eviction" and method == "POST":
            return self._evict(target, query, body())
        elif sub == "log" and method == "GET":
            return Reply(200, self._log(target, query), text=True)
        elif sub == "scale":
            if method == "GET":
                return Reply(200, get_scale(server, info.key, name, ns))
            if method == "PUT":
                with self._maybe_dry(query):
                    return Reply(200, update_scale(server, info.key, name, ns, check_mapping(body(), "Scale")))
            if method == "PATCH":
                if content_type not in (MERGE_PATCH, STRATEGIC_MERGE_PATCH):
                    raise unsupported_media_type(content_type)
                with self._maybe_dry(query):
                    return Reply(200, patch_scale(server, info.key, name, ns, check_mapping(body(), "a patch")))
        elif sub == "finalize" and method == "PUT":
            return self._finalize(target, query, check_mapping(body(), "Namespace"))
        raise _method_not_allowed()

    def _bind(self, target: Target, query: Query, body: Any) -> Reply:
        binding = check_mapping(body, "Binding")
        node = (binding.get("target") or {}).get("name") if isinstance(binding.get("target"), dict) else None
        with self._maybe_dry(query):
            self.server.bind(target.name or "", target.namespace or "default", node)  # type: ignore[arg-type]
        return Reply(201, success_status(201))

    def _evict(self, target: Target, query: Query, body: Any) -> Reply:
        eviction = check_mapping(body, "Eviction")
        opts: dict[str, Any] = eviction["deleteOptions"] if isinstance(eviction.get("deleteOptions"), dict) else {}
        grace = opts.get("gracePeriodSeconds")
        with self._maybe_dry(query, query.dry_run() or opts.get("dryRun") == ["All"]):
            self.server.evict(target.name or "", target.namespace or "default", grace_period_seconds=grace)
        return Reply(201, success_status(201))

    def _log(self, target: Target, query: Query) -> str:
        pod = self.server.get("Pod", target.name or "", target.namespace)
        return pod_log(pod, self.server.clock, **log_options(query))

    def _finalize(self, target: Target, query: Query, body: dict[str, Any]) -> Reply:
        ns = self.server.get("Namespace", target.name or "")
        spec: dict[str, Any] = body["spec"] if isinstance(body.get("spec"), dict) else {}
        finalizers = spec.get("finalizers") or []
        new = thaw(ns)
        new.setdefault("spec", {})["finalizers"] = finalizers
        if not finalizers:
            del new["spec"]["finalizers"]
        with self._maybe_dry(query):
            out = self.server.update(new)
        try:
            return Reply(200, self.server.get("Namespace", target.name or ""))
        except ApiError as err:
            if err.code == 404:
                return Reply(200, out)
            raise

    # -- dry run -------------------------------------------------------------------------------------
    def _maybe_dry(self, query: Query, dry: bool | None = None) -> AbstractContextManager[None]:
        """``ApiServer.dry_run()`` when the request asks for ``dryRun=All``, else nothing."""
        if dry is None:
            dry = query.dry_run()
        return self.server.dry_run() if dry else nullcontext()
