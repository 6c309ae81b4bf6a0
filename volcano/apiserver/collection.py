"""``deletecollection``: delete every object a list selects, each as its own DELETE."""

from __future__ import annotations

from typing import TYPE_CHECKING

from volcano.api.frozen import FrozenDict, FrozenList
from volcano.api.kinds import resolve_kind
from volcano.apiserver.client import Obj

if TYPE_CHECKING:
    from volcano.apiserver.server import ApiServer

__all__ = ["delete_collection"]


def delete_collection(server: ApiServer, kind: str, namespace: str | None = None, *,
                      label_selector: str | None = None, field_selector: str | None = None,
                      grace_period_seconds: int | None = None, propagation_policy: str | None = None) -> Obj:
    """Delete every object ``server.list`` returns for these arguments (each admitted as its own
    DELETE, with its uid as a precondition); return a ``<Kind>List`` of the deleted objects as
    they were deleted (still present ones with their ``deletionTimestamp``)."""
    listed = server.list(kind, namespace, label_selector=label_selector, field_selector=field_selector)
    info = resolve_kind(kind)
    items = []
    for obj in listed["items"]:
        meta = obj["metadata"]
        after = server.delete(info.key, meta["name"], meta.get("namespace"),
                              grace_period_seconds=grace_period_seconds, propagation_policy=propagation_policy,
                              preconditions={"uid": meta["uid"]})
        items.append(after if after is not None else obj)
    return FrozenDict({"apiVersion": info.api_version, "kind": f"{info.kind}List",
                       "metadata": FrozenDict({"resourceVersion": server.resource_version}),
                       "items": FrozenList(items)})
