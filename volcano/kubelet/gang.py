"""Gang progress bookkeeping of the simulated kubelet, incremental per pod.

A ``gang`` pod makes progress while its PodGroup's running members plus its
succeeded members number at least the PodGroup's ``spec.minMember``. ``GangTable``
keeps, per PodGroup key (``<ns>/<name>``), its members, running members and
succeeded members, and remembers the last answer it gave (``settle``). A change
of one member then costs O(1) unless it flips the group's answer, which is when
every member has to be looked at again (``settle`` says so): a gang of N pods
that starts one pod at a time costs O(N) in all, not O(N²).

Memory: most PodGroups have one pod, so a group of one member is stored as that
member's key itself and only a second member makes it a set (``_Members``); the
tables hold no per-pod container for the common case.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["GangTable"]

_Members = str | set[str]
"""A group's member keys in one table: one key as itself, more as a set (never empty)."""


def _add(table: dict[str, _Members], gkey: str, key: str) -> None:
    """Add ``key`` to ``gkey``'s members in ``table``."""
    members = table.get(gkey)
    if members is None:
        table[gkey] = key
    elif isinstance(members, str):
        if members != key:
            table[gkey] = {members, key}
    else:
        members.add(key)


def _discard(table: dict[str, _Members], gkey: str, key: str) -> None:
    """Remove ``key`` from ``gkey``'s members in ``table``; a group left empty is dropped."""
    members = table.get(gkey)
    if members is None:
        return
    if isinstance(members, str):
        if members == key:
            del table[gkey]
        return
    members.discard(key)
    if not members:
        del table[gkey]


def _count(table: dict[str, _Members], gkey: str) -> int:
    """How many members ``gkey`` has in ``table``."""
    members = table.get(gkey)
    if members is None:
        return 0
    return 1 if isinstance(members, str) else len(members)


class GangTable:
    """Members, running members and succeeded members of each PodGroup (see the module docstring).

    ``min_member(gkey)`` gives the PodGroup's ``minMember``, or None when it does not exist.
    """

    def __init__(self, min_member: Callable[[str], int | None]) -> None:
        self._min_member = min_member
        self.members: dict[str, _Members] = {}
        self.running: dict[str, _Members] = {}
        self.done: dict[str, _Members] = {}
        self._ok: dict[str, bool] = {}

    def __contains__(self, gkey: object) -> bool:
        return gkey in self.members

    def join(self, gkey: str, key: str) -> None:
        """Pod ``key`` was admitted as a member of ``gkey``."""
        _add(self.members, gkey, key)

    def start(self, gkey: str, key: str) -> None:
        """The member's containers run."""
        _add(self.running, gkey, key)

    def stop(self, gkey: str, key: str) -> None:
        """The member's containers stopped (exit, kill, or its node failed)."""
        _discard(self.running, gkey, key)

    def succeed(self, gkey: str, key: str) -> None:
        """The member succeeded (it keeps counting towards ``minMember``)."""
        _add(self.done, gkey, key)

    def leave(self, gkey: str, key: str) -> None:
        """The member is gone; an empty group is forgotten."""
        for table in (self.members, self.running, self.done):
            _discard(table, gkey, key)
        if gkey not in self.members:
            self._ok.pop(gkey, None)

    def ok(self, gkey: str) -> bool:
        """The group's members may progress: it exists and running + succeeded >= ``minMember``."""
        min_member = self._min_member(gkey)
        if min_member is None:
            return False
        return _count(self.running, gkey) + _count(self.done, gkey) >= min_member

    def settle(self, gkey: str) -> bool:
        """Record the group's answer now; True when it differs from the last one recorded
        (or none was), i.e. when every member's progress must be looked at again."""
        now = self.ok(gkey)
        before = self._ok.get(gkey)
        if gkey in self.members:
            self._ok[gkey] = now
        return before is None or before != now

    def sorted_members(self, gkey: str) -> list[str]:
        """The group's member keys, sorted."""
        members = self.members.get(gkey)
        if members is None:
            return []
        return [members] if isinstance(members, str) else sorted(members)

    def is_member(self, gkey: str, key: str) -> bool:
        """Pod ``key`` is a member of ``gkey``."""
        members = self.members.get(gkey)
        if members is None:
            return False
        return members == key if isinstance(members, str) else key in members
