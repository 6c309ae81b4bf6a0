"""The admission chain: mutating hooks, then validating hooks, per kind and operation.

Other modules (Volcano's webhooks, Kubernetes' Priority admission, built-in
defaulting) register hooks here. For each write the server builds one
``AdmissionRequest``; every mutating hook registered for the request's kind
(or for ``"*"``) and operation runs in registration order and may edit
``request.obj`` in place; then every validating hook runs, and denies by
raising ``ApiError``. A denial stores nothing. A hook registered ``main_only``
states that it does nothing for a write to a subresource (``/status``): it is
not called for one, and a status write with no other hook builds no request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from volcano.api.kinds import KindInfo

if TYPE_CHECKING:
    from volcano.apiserver.client import Client, Obj

__all__ = ["OPERATIONS", "AdmissionChain", "AdmissionHook", "AdmissionRequest"]

OPERATIONS = ("CREATE", "UPDATE", "DELETE")
"""The operations a hook may register for."""


class AdmissionRequest:
    """One write under admission.

    ``obj`` is a plain mutable dict (mutating hooks edit it in place; for
    DELETE it is a copy of the stored object); ``old`` is the stored object
    (frozen) for UPDATE and DELETE, else None; ``subresource`` is e.g.
    ``"status"`` for status writes; ``client`` reads other objects.

    ``AdmissionRequest.deferred`` builds ``obj`` on first access only: for a
    write whose hooks mostly look at ``operation`` and ``subresource`` and
    return (the Priority plugin on a status write), the server need not copy
    the object; ``built`` tells it whether any hook saw (and so may have
    edited) ``obj``.
    """

    __slots__ = ("_build", "_obj", "client", "kind", "old", "operation", "subresource")

    def __init__(self, operation: str, kind: KindInfo, obj: dict[str, Any], old: Obj | None,
                 subresource: str | None, client: Client) -> None:
        self.operation = operation
        self.kind = kind
        self._obj: dict[str, Any] | None = obj
        self._build: Callable[[], dict[str, Any]] | None = None
        self.old = old
        self.subresource = subresource
        self.client = client

    @classmethod
    def deferred(cls, operation: str, kind: KindInfo, build: Callable[[], dict[str, Any]], old: Obj | None,
                 subresource: str | None, client: Client) -> AdmissionRequest:
        """A request whose ``obj`` is ``build()``, called when a hook first reads ``obj``."""
        request = cls(operation, kind, {}, old, subresource, client)
        request._obj = None
        request._build = build
        return request

    @property
    def obj(self) -> dict[str, Any]:
        """The object under admission (built now for a deferred request that has not built it)."""
        obj = self._obj
        if obj is None:
            assert self._build is not None
            obj = self._obj = self._build()
        return obj

    @property
    def built(self) -> bool:
        """Whether ``obj`` exists (always, but for a deferred request no hook has read)."""
        return self._obj is not None

    def __repr__(self) -> str:
        return (f"AdmissionRequest(operation={self.operation!r}, kind={self.kind.key!r}, "
                f"subresource={self.subresource!r}, built={self.built!r})")

    @property
    def name(self) -> str:
        """``metadata.name`` of the object under admission."""
        return str((self.obj.get("metadata") or {}).get("name") or "")

    @property
    def namespace(self) -> str:
        """``metadata.namespace`` of the object under admission ("" when cluster-scoped)."""
        return str((self.obj.get("metadata") or {}).get("namespace") or "")


AdmissionHook = Callable[[AdmissionRequest], None]
"""A hook: mutates ``request.obj`` (mutating) or raises ``ApiError`` to deny (validating)."""


@dataclass(frozen=True, slots=True)
class _Registration:
    seq: int
    name: str
    kind_key: str
    operations: frozenset[str]
    fn: AdmissionHook
    main_only: bool = False


class AdmissionChain:
    """Registered admission hooks, run by the server on every write."""

    def __init__(self) -> None:
        self._mutating: list[_Registration] = []
        self._validating: list[_Registration] = []
        self._seq = 0
        self._cache: dict[tuple[bool, str, str, bool], tuple[_Registration, ...]] = {}

    def _register(self, target: list[_Registration], kind_key: str, operations: Iterable[str],
                  fn: AdmissionHook, name: str, main_only: bool) -> None:
        if not isinstance(kind_key, str) or not kind_key:
            raise ValueError(f"admission hook {name!r}: kind_key must be a non-empty string, got {kind_key!r}")
        if isinstance(operations, str):
            operations = (operations,)
        ops = frozenset(operations)
        bad = sorted(op for op in ops if op not in OPERATIONS)
        if bad or not ops:
            raise ValueError(f"admission hook {name!r}: operations must be among {OPERATIONS}, got {sorted(ops)}")
        if not callable(fn):
            raise ValueError(f"admission hook {name!r}: fn must be callable, got {fn!r}")
        self._seq += 1
        target.append(_Registration(self._seq, name, kind_key, ops, fn, main_only))
        self._cache.clear()

    def register_mutating(self, kind_key: str, operations: Iterable[str], fn: AdmissionHook, name: str, *,
                          main_only: bool = False) -> None:
        """Add a mutating hook for ``kind_key`` (``KindInfo.key`` or ``"*"``) and ``operations``
        (``main_only``: it does nothing for subresource writes, which need not call it)."""
        self._register(self._mutating, kind_key, operations, fn, name, main_only)

    def register_validating(self, kind_key: str, operations: Iterable[str], fn: AdmissionHook, name: str, *,
                            main_only: bool = False) -> None:
        """Add a validating hook for ``kind_key`` (``KindInfo.key`` or ``"*"``) and ``operations``
        (``main_only``: it does nothing for subresource writes, which need not call it)."""
        self._register(self._validating, kind_key, operations, fn, name, main_only)

    def hooks(self, mutating: bool, kind_key: str, operation: str,
              subresource: str | None = None) -> tuple[_Registration, ...]:
        """The hooks that apply to a write (of ``subresource``, if any), in registration order."""
        main = subresource is None
        ck = (mutating, kind_key, operation, main)
        found = self._cache.get(ck)
        if found is None:
            source = self._mutating if mutating else self._validating
            found = tuple(r for r in source
                          if operation in r.operations and r.kind_key in (kind_key, "*") and (main or not r.main_only))
            self._cache[ck] = found
        return found

    def names(self) -> list[str]:
        """Names of every registered hook: mutating first, then validating, each in order."""
        return [r.name for r in self._mutating] + [r.name for r in self._validating]
