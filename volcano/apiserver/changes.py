"""What a stored write changed, as the store states it to in-process watchers.

Most writes of a busy cluster are status writes that change one status property of an
object (the scheduler's ``PodScheduled`` condition of every pending pod). The store builds
such a version from the one before it by replacing the status alone
(``ObjectStore.replace_status``), so it knows, without comparing anything, that every other
part is the previous version's very object. It records that as a *status change*: the
frozenset of the status properties whose values are not the previous status's own objects.

A status change ``changed`` for the event whose object is ``new`` and whose previous version
is ``old`` states exactly this:

* ``new`` has the keys of ``old`` in the same order, and each top-level value but
  ``metadata`` and ``status`` is ``old``'s own object;
* ``new``'s ``metadata`` is a ``FrozenDict`` holding ``old``'s own values but for
  ``resourceVersion`` (``old``'s ``metadata`` is a ``FrozenDict`` too);
* ``spec`` is absent or None in both or the same ``FrozenDict``;
* ``old``'s and ``new``'s ``status`` are ``FrozenDict``\\ s, and every status property not in
  ``changed`` is in both or in neither, holding the same object.

Everything else (ADDED, DELETED, any other write) has no status change (None): the reader
compares for itself. Watchers over HTTP never see it; only ``ApiServer.watch_changes``
passes it on. A reader uses it to skip work that reads only what such an event leaves as it
was (``volcano.informers.informer``: handlers that declare the status properties they ignore).
"""

from __future__ import annotations

from volcano.api.frozen import FrozenDict

__all__ = ["StatusChange", "replaced_change", "status_change"]

StatusChange = frozenset[str]
"""The status properties a status-only write replaced (see the module docstring)."""

_ABSENT = object()
_INTERNED: dict[tuple[str, ...], StatusChange] = {}
"""One frozenset per distinct tuple of property names (there are few: ``conditions``, ``phase``...)."""


def status_change(old: FrozenDict, status: FrozenDict) -> StatusChange | None:
    """The status change of storing ``old`` with its status replaced by ``status`` (and a new
    resourceVersion), or None when ``old`` lacks what the statement promises (a ``FrozenDict``
    metadata and status, a spec that is a ``FrozenDict`` or absent)."""
    before = old.get("status")
    spec = old.get("spec")
    if type(before) is not FrozenDict or type(old.get("metadata")) is not FrozenDict \
            or (spec is not None and type(spec) is not FrozenDict):
        return None
    names = [key for key, value in status.items() if before.get(key, _ABSENT) is not value]
    if len(status) - len(names) != len(before):  # some of ``before``'s keys are gone
        names.extend(key for key in before if key not in status)
    return _interned(tuple(names))


def replaced_change(old: FrozenDict, names: tuple[str, ...]) -> StatusChange | None:
    """``status_change(old, status)`` for a ``status`` that is ``old``'s status (a ``FrozenDict``)
    with the properties ``names`` replaced or added, each by a value that is not ``old``'s own,
    and every other property left as it is: the same answer (an equal set), known without looking
    at the properties (``ApiServer.update_status_fields_many``, whose ``status_with`` knows them)."""
    spec = old.get("spec")
    if type(old.get("metadata")) is not FrozenDict or (spec is not None and type(spec) is not FrozenDict):
        return None
    return _interned(names)


def _interned(key: tuple[str, ...]) -> StatusChange:
    """The one ``frozenset(key)`` kept for ``key``."""
    found = _INTERNED.get(key)
    if found is None:
        if len(_INTERNED) >= 256:
            _INTERNED.clear()
        found = _INTERNED[key] = frozenset(key)
    return found

