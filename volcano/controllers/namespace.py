"""The namespace controller (kube-controller-manager's): deleting a namespace deletes its contents.

A deleted namespace stays, in phase ``Terminating``, while its
``spec.finalizers`` hold ``kubernetes``. For such a namespace the controller
deletes every namespaced object in it, kind by kind in the kind table's order
(pods gracefully, so their kubelet stops them first; owners before their
dependents do not matter, as every object is deleted), and looks again one
second later while anything remains (pods still terminating, objects with
finalizers). Once the namespace is empty it removes ``kubernetes`` from
``spec.finalizers`` (the ``finalize`` subresource), and the API server then
removes the namespace itself.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from volcano.api import accessors
from volcano.api.kinds import KINDS
from volcano.apiserver.client import Obj
from volcano.apiserver.errors import ApiError
from volcano.controllers.base import Controller

__all__ = ["FINALIZER", "NamespaceController"]

FINALIZER = "kubernetes"
"""The ``spec.finalizers`` entry a namespace keeps until its contents are gone."""

_RECHECK_MS = 1000


class NamespaceController(Controller[str]):
    """Empties and finalizes deleted namespaces (see the module docstring)."""

    COMPONENT = "namespace-controller"

    def _on_namespace(self, event: str, ns: Obj, old: Obj | None) -> None:
        if event != "DELETED" and accessors.meta(ns).get("deletionTimestamp"):
            self.queue.add(accessors.meta(ns)["name"])

    WATCHES = MappingProxyType({"Namespace": _on_namespace})

    def process(self, key: str) -> None:
        """Delete what ``key`` still holds, then finalize it once it is empty."""
        ns = self.informer("Namespace").get(key, None)
        if ns is None or not accessors.meta(ns).get("deletionTimestamp"):
            return
        if FINALIZER not in ((ns.get("spec") or {}).get("finalizers") or ()):
            return
        if self._delete_contents(key):
            self.queue.add_after(key, _RECHECK_MS)
            return
        self._finalize(key)

    def _delete_contents(self, namespace: str) -> int:
        """Delete every object in ``namespace``; return how many still exist afterwards."""
        remaining = 0
        for info in KINDS:
            if not info.namespaced:
                continue
            for obj in self.client.list(info.key, namespace)["items"]:
                meta = accessors.meta(obj)
                if meta.get("deletionTimestamp"):
                    remaining += 1
                    continue
                try:
                    after = self.client.delete(info.key, meta["name"], namespace,
                                               preconditions={"uid": meta["uid"]})
                except ApiError as err:
                    if err.code in (404, 409):
                        continue
                    raise
                if after is not None:
                    remaining += 1
                self.record("Delete", f"{info.key}/{namespace}/{meta['name']}")
        return remaining

    def _finalize(self, name: str) -> None:
        try:
            current = self.client.get("Namespace", name)
        except ApiError as err:
            if err.code == 404:
                return
            raise
        spec = current.get("spec") or {}
        new: dict[str, Any] = dict(current)
        new["spec"] = {**spec, "finalizers": [f for f in spec.get("finalizers") or () if f != FINALIZER]}
        if not new["spec"]["finalizers"]:
            del new["spec"]["finalizers"]
        try:
            self.client.update(new)
        except ApiError as err:
            if err.code == 409:
                self.queue.add_after(name, _RECHECK_MS)
                return
            if err.code != 404:
                raise
        self.record("Finalize", f"Namespace/{name}")
