"""Resource paths, derived from the kind table (``volcano.api.kinds.KINDS``), never hand-listed.

A resource path is what a real API server serves for each kind::

    /api/v1/<plural>[/<name>[/<subresource>]]                          cluster-scoped kinds
    /api/v1/namespaces/<ns>/<plural>[/<name>[/<subresource>]]          namespaced kinds
    /api/v1/<plural>                                                   a namespaced kind in every namespace
    /apis/<group>/<version>/...                                        the same for a named group

``/api/v1/namespaces/<name>`` is the Namespace itself (and ``.../status``,
``.../finalize`` its subresources). ``Router.match`` turns a path into a
``Target`` or None (the caller answers 404); a subresource the kind does not
serve is None too, as on a real server (``podgroups/x/status`` is 404).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from volcano.api.kinds import KINDS, KindInfo

__all__ = ["Router", "Target", "subresource_names"]

_NAMESPACE_SUBRESOURCES = ("status", "finalize")


@dataclass(frozen=True, slots=True)
class Target:
    """What a resource path names: a collection (``name`` None) or one object, maybe a subresource.

    ``namespace`` is None for cluster-scoped kinds and for a namespaced kind listed across all
    namespaces."""

    info: KindInfo
    namespace: str | None
    name: str | None
    subresource: str | None = None

    @property
    def is_collection(self) -> bool:
        """Whether the path names a collection (list, watch, create, deletecollection)."""
        return self.name is None


def subresource_names(info: KindInfo) -> tuple[str, ...]:
    """The subresources ``info`` is served with: ``status`` when it has one, then the others."""
    names = tuple(name for name, _kind, _verbs in info.subresources)
    if info.key == "Namespace":
        return ("status", "finalize")
    return (("status",) if info.has_status else ()) + names


class Router:
    """Maps request paths to ``Target``s for the served kinds (see the module docstring)."""

    def __init__(self, kinds: Iterable[KindInfo] = KINDS) -> None:
        self._by_gv: dict[str, dict[str, KindInfo]] = {}
        for info in kinds:
            self._by_gv.setdefault(info.api_version, {})[info.plural] = info

    @property
    def group_versions(self) -> list[str]:
        """Served group-versions (``v1``, ``apps/v1``, ...), in the kind table's order."""
        return list(self._by_gv)

    def kinds(self, group_version: str) -> list[KindInfo]:
        """The kinds served in ``group_version`` (empty when it is not served)."""
        return list(self._by_gv.get(group_version, {}).values())

    def match(self, path: str) -> Target | None:
        """The target of ``path`` (a trailing slash is ignored), or None when nothing is served there."""
        parts = [p for p in path.split("/") if p]
        if len(parts) >= 2 and parts[0] == "api":
            gv, rest = parts[1], parts[2:]
        elif len(parts) >= 3 and parts[0] == "apis":
            gv, rest = f"{parts[1]}/{parts[2]}", parts[3:]
        else:
            return None
        kinds = self._by_gv.get(gv)
        if not kinds or not rest:
            return None
        if rest[0] == "namespaces" and len(rest) >= 3 and (gv != "v1" or rest[2] not in _NAMESPACE_SUBRESOURCES):
            info = kinds.get(rest[2])
            if info is None or not info.namespaced:
                return None
            return self._item(info, rest[1], rest[3:])
        info = kinds.get(rest[0])
        if info is None:
            return None
        if info.namespaced:
            return Target(info, None, None) if len(rest) == 1 else None
        return self._item(info, None, rest[1:])

    @staticmethod
    def _item(info: KindInfo, namespace: str | None, rest: list[str]) -> Target | None:
        if not rest:
            return Target(info, namespace, None)
        if len(rest) == 1:
            return Target(info, namespace, rest[0])
        if len(rest) == 2 and rest[1] in subresource_names(info):
            return Target(info, namespace, rest[0], rest[1])
        return None
