"""Gang progress bookkeeping of the simulated kubelet, incremental per pod.

A ``gang`` pod makes progress while its PodGroup's running members plus its
succeeded members number at least the PodGroup's ``spec.minMember``. ``GangTable``
keeps, per PodGroup key (``<ns>/<name>``), its members, running members and
succeeded members, and remembers the last answer it gave (``settle``). A change
of one member then costs O(1) unless it flips the group's answer, which is when
every member has to be looked at again (``settle`` says so): a gang of N pods
that starts one pod at a time costs O(N) in all, not O(N²).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["GangTable"]


class GangTable:
    """Members, running members and succeeded members of each PodGroup (see the module docstring).

    ``min_member(gkey)`` gives the PodGroup's ``minMember``, or None when it does not exist.
    """

    def __init__(self, min_member: Callable[[str], int | None]) -> None:
        self._min_member = min_member
        self.members: dict[str, set[str]] = {}
        self.running: dict[str, set[str]] = {}
        self.done: dict[str, set[str]] = {}
        self._ok: dict[str, bool] = {}

    def __contains__(self, gkey: object) -> bool:
        return gkey in self.members

    def join(self, gkey: str, key: str) -> None:
        """Pod ``key`` was admitted as a member of ``gkey``."""
        self.members.setdefault(gkey, set()).add(key)

    def start(self, gkey: str, key: str) -> None:
        """The member's containers run."""
        self.running.setdefault(gkey, set()).add(key)

    def stop(self, gkey: str, key: str) -> None:
        """The member's containers stopped (exit, kill, or its node failed)."""
        running = self.running.get(gkey)
        if running is not None:
            running.discard(key)

    def succeed(self, gkey: str, key: str) -> None:
        """The member succeeded (it keeps counting towards ``minMember``)."""
        self.done.setdefault(gkey, set()).add(key)

    def leave(self, gkey: str, key: str) -> None:
        """The member is gone; an empty group is forgotten."""
        for table in (self.members, self.running, self.done):
            members = table.get(gkey)
            if members is not None:
                members.discard(key)
                if not members:
                    del table[gkey]
        if gkey not in self.members:
            self._ok.pop(gkey, None)

    def ok(self, gkey: str) -> bool:
        """The group's members may progress: it exists and running + succeeded >= ``minMember``."""
        min_member = self._min_member(gkey)
        if min_member is None:
            return False
        return len(self.running.get(gkey, ())) + len(self.done.get(gkey, ())) >= min_member

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
        return sorted(self.members.get(gkey, ()))
