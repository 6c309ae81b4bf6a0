"""Discovery documents, generated from the kind table: version, legacy and aggregated discovery, OpenAPI v3.

* ``/version``: Kubernetes 1.32 (kubectl's dispatcher picks its binary by the minor).
* Legacy discovery (``/api``, ``/apis``, ``/api/v1``, ``/apis/<g>/<v>``): every kind with its
  verbs, short names, categories and singular name, and one entry per subresource (without
  short names, as a real server lists them). ``/apis`` groups carry ``preferredVersion``
  (the official Python dynamic client needs it).
* Aggregated discovery (``apidiscovery.k8s.io/v2``), served when the ``Accept`` header asks for
  ``as=APIGroupDiscoveryList``; client-go tells the two apart by the response content type.
* A minimal OpenAPI v3: a root listing one document per group-version, each declaring that
  PATCH of every kind takes ``fieldValidation``. That is what makes kubectl's default
  ``--validate=strict`` send the request and let the server validate, as it does against a
  real cluster; no schemas are served (``kubectl explain`` is out of scope).
"""

from __future__ import annotations

import hashlib
from typing import Any

from volcano.api.kinds import KindInfo
from volcano.httpapi.routes import Router

__all__ = [
    "AGGREGATED_CONTENT_TYPE",
    "Discovery",
    "wants_aggregated",
]

AGGREGATED_CONTENT_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
"""The response content type that tells client-go a discovery body is aggregated (v2)."""

VERSION = {"major": "1", "minor": "32", "emulationMajor": "1", "emulationMinor": "32",
           "minCompatibilityMajor": "1", "minCompatibilityMinor": "31", "gitVersion": "v1.32.0",
           "gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean",
           "buildDate": "2024-12-11T00:00:00Z", "goVersion": "go1.23.4", "compiler": "gc",
           "platform": "linux/amd64"}
"""``/version``: Kubernetes v1.32."""

_STATUS_VERBS = ["get", "patch", "update"]
_FINALIZE = ("finalize", "Namespace", ("update",))


def wants_aggregated(accept: str) -> bool:
    """Whether an ``Accept`` header asks for aggregated discovery (v2 or v2beta1)."""
    return "as=APIGroupDiscoveryList" in accept and "g=apidiscovery.k8s.io" in accept


def _subresources(info: KindInfo) -> list[tuple[str, str, str, str, list[str]]]:
    """``(name, group, version, kind, verbs)`` of each subresource of ``info``."""
    out: list[tuple[str, str, str, str, list[str]]] = []
    if info.has_status:
        out.append(("status", info.group, info.version, info.kind, list(_STATUS_VERBS)))
    extra = info.subresources + ((_FINALIZE,) if info.key == "Namespace" else ())
    for name, kind, verbs in extra:
        group, version = ("autoscaling", "v1") if kind == "Scale" else \
            ("policy", "v1") if kind == "Eviction" else ("", "v1") if kind == "Binding" else \
            (info.group, info.version)
        out.append((name, group, version, kind, sorted(verbs)))
    return out


class Discovery:
    """The discovery documents of the kinds a ``Router`` serves (built once, then shared)."""

    def __init__(self, router: Router) -> None:
        self._router = router
        self._groups: dict[str, list[str]] = {}
        for gv in router.group_versions:
            if "/" in gv:
                group, version = gv.split("/", 1)
                self._groups.setdefault(group, []).append(version)
        self._resource_lists = {gv: self._resource_list(gv) for gv in router.group_versions}
        self._openapi_docs = {gv: self._openapi_doc(gv) for gv in router.group_versions}

    # -- legacy ----------------------------------------------------------------------------------
    @staticmethod
    def api_versions() -> dict[str, Any]:
        """``/api``: the core group's versions."""
        return {"kind": "APIVersions", "versions": ["v1"],
                "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": ""}]}

    def _group(self, group: str) -> dict[str, Any]:
        versions = [{"groupVersion": f"{group}/{v}", "version": v} for v in self._groups[group]]
        return {"name": group, "versions": versions, "preferredVersion": versions[0]}

    def api_group_list(self) -> dict[str, Any]:
        """``/apis``: every named group with its versions and preferred version."""
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": [self._group(g) for g in self._groups]}

    def api_group(self, group: str) -> dict[str, Any] | None:
        """``/apis/<group>``, or None when the group is not served."""
        if group not in self._groups:
            return None
        return {"kind": "APIGroup", "apiVersion": "v1", **self._group(group)}

    def resource_list(self, group_version: str) -> dict[str, Any] | None:
        """``/api/v1`` or ``/apis/<g>/<v>``, or None when not served."""
        return self._resource_lists.get(group_version)

    def _resource_list(self, gv: str) -> dict[str, Any]:
        resources: list[dict[str, Any]] = []
        for info in self._router.kinds(gv):
            entry: dict[str, Any] = {"name": info.plural, "singularName": info.singular,
                                     "namespaced": info.namespaced, "kind": info.kind, "verbs": sorted(info.verbs)}
            if info.short_names:
                entry["shortNames"] = list(info.short_names)
            if info.categories:
                entry["categories"] = list(info.categories)
            resources.append(entry)
            for name, group, version, kind, verbs in _subresources(info):
                sub: dict[str, Any] = {"name": f"{info.plural}/{name}", "singularName": "",
                                       "namespaced": info.namespaced, "kind": kind, "verbs": verbs}
                if (group, version) != (info.group, info.version):
                    sub["group"], sub["version"] = group, version
                resources.append(sub)
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}

    # -- aggregated (apidiscovery.k8s.io/v2) ------------------------------------------------------------
    def aggregated(self, core: bool) -> dict[str, Any]:
        """The ``APIGroupDiscoveryList`` of ``/api`` (``core``) or ``/apis``."""
        names = [""] if core else list(self._groups)
        items = []
        for group in names:
            versions = ["v1"] if core else self._groups[group]
            items.append({"metadata": {"name": group, "creationTimestamp": None},
                          "versions": [self._aggregated_version(group, v) for v in versions]})
        return {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {},
                "items": items}

    def _aggregated_version(self, group: str, version: str) -> dict[str, Any]:
        gv = f"{group}/{version}" if group else version
        resources = []
        for info in self._router.kinds(gv):
            res: dict[str, Any] = {
                "resource": info.plural, "singularResource": info.singular,
                "responseKind": {"group": info.group, "version": info.version, "kind": info.kind},
                "scope": "Namespaced" if info.namespaced else "Cluster", "verbs": sorted(info.verbs)}
            if info.short_names:
                res["shortNames"] = list(info.short_names)
            if info.categories:
                res["categories"] = list(info.categories)
            subs = [{"subresource": name, "responseKind": {"group": g, "version": v, "kind": k}, "verbs": verbs}
                    for name, g, v, k, verbs in _subresources(info)]
            if subs:
                res["subresources"] = subs
            resources.append(res)
        return {"version": version, "resources": resources, "freshness": "Current"}

    # -- OpenAPI v3 ----------------------------------------------------------------------------------
    @staticmethod
    def _openapi_path(gv: str) -> str:
        return f"api/{gv}" if "/" not in gv else f"apis/{gv}"

    def openapi_root(self) -> dict[str, Any]:
        """``/openapi/v3``: one document per served group-version."""
        paths = {}
        for gv, doc in self._openapi_docs.items():
            digest = hashlib.sha256(repr(doc).encode()).hexdigest()[:16].upper()
            paths[self._openapi_path(gv)] = {"serverRelativeURL": f"/openapi/v3/{self._openapi_path(gv)}?hash={digest}"}
        return {"paths": paths}

    def openapi_doc(self, path: str) -> dict[str, Any] | None:
        """``/openapi/v3/<api/v1 | apis/g/v>``, or None when not served."""
        parts = path.strip("/").split("/")
        gv = "/".join(parts[1:]) if parts and parts[0] in ("api", "apis") else ""
        return self._openapi_docs.get(gv)

    def _openapi_doc(self, gv: str) -> dict[str, Any]:
        paths: dict[str, Any] = {}
        for info in self._router.kinds(gv):
            prefix = f"/{self._openapi_path(gv)}"
            scope = "/namespaces/{namespace}" if info.namespaced else ""
            gvk = {"group": info.group, "version": info.version, "kind": info.kind}
            params = [{"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
                      {"name": "fieldManager", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
                      {"name": "dryRun", "in": "query", "schema": {"type": "string", "uniqueItems": True}}]
            paths[f"{prefix}{scope}/{info.plural}/{{name}}"] = {
                "patch": {"operationId": f"patch{info.kind}", "x-kubernetes-action": "patch",
                          "x-kubernetes-group-version-kind": gvk, "parameters": params,
                          "responses": {"200": {"description": "OK"}}}}
        return {"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": "v1.32.0"}, "paths": paths}
