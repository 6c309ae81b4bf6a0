"""What plugins and actions have in common: a name, declared arguments, and a registry.

An ``Extension`` subclass declares its ``name`` and the ``configurations`` or
plugin ``arguments`` keys it understands (``ARGUMENTS`` exactly,
``ARGUMENT_PREFIXES`` by prefix), so the configuration loader can reject a
misspelt one. A ``Registry`` is a value (never a module global) mapping names to
extension classes; registering a name twice is an error, as in Kubernetes'
``runtime.Registry``. ``Arguments`` are the typed getters Volcano's
``framework.Arguments`` offers.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar, Generic, Self, TypeVar

from volcano.scheduler.framework.task import parse_bool

__all__ = ["Arguments", "Extension", "Registry"]


class Arguments(Mapping[str, Any]):
    """A plugin's or action's ``arguments`` with Volcano's typed getters:
    wrong types fall back to the default (Volcano logs and ignores them)."""

    def __init__(self, data: Mapping[str, Any] | None = None) -> None:
        self._data = dict(data or {})

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def get_int(self, key: str, default: int) -> int:
        """A YAML int (bools are not ints here), else ``default``."""
        v = self._data.get(key)
        return v if isinstance(v, int) and not isinstance(v, bool) else default

    def get_float(self, key: str, default: float) -> float:
        """A YAML float or int, else ``default``."""
        v = self._data.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
        return default

    def get_bool(self, key: str, default: bool) -> bool:
        """A bool, or a string Go's ParseBool accepts, else ``default``."""
        v = self._data.get(key)
        if v is None:
            return default
        parsed = parse_bool(v) if isinstance(v, (bool, str)) else None
        return default if parsed is None else parsed

    def get_str(self, key: str, default: str) -> str:
        """A string, else ``default``."""
        v = self._data.get(key)
        return v if isinstance(v, str) else default


class Extension:
    """Base of plugins and actions: ``name``, the arguments understood, and ``args``."""

    name: ClassVar[str] = ""
    ARGUMENTS: ClassVar[frozenset[str]] = frozenset()
    ARGUMENT_PREFIXES: ClassVar[tuple[str, ...]] = ()

    def __init__(self, args: Arguments | None = None) -> None:
        self.args = args if args is not None else Arguments()

    @classmethod
    def accepts_argument(cls, key: str) -> bool:
        """Whether ``key`` is an argument this extension understands."""
        return key in cls.ARGUMENTS or any(key.startswith(p) for p in cls.ARGUMENT_PREFIXES)


E = TypeVar("E", bound=Extension)


class Registry(Generic[E]):
    """Extension classes by name (see the module docstring). ``kind`` names what is
    registered in messages ("plugin", "action")."""

    kind: ClassVar[str] = "extension"

    def __init__(self, classes: Iterable[type[E]] = ()) -> None:
        self._classes: dict[str, type[E]] = {}
        for cls in classes:
            self.register(cls)

    def register(self, cls: type[E]) -> None:
        """Register ``cls`` under ``cls.name``; ValueError when it has no name or the
        name is taken."""
        if not cls.name:
            raise ValueError(f"{self.kind} class {cls.__name__} has no name")
        taken = self._classes.get(cls.name)
        if taken is not None:
            raise ValueError(f"{self.kind} {cls.name!r} is already registered ({taken.__name__})")
        self._classes[cls.name] = cls

    def get(self, name: str) -> type[E] | None:
        """The class registered as ``name``, or None."""
        return self._classes.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._classes

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._classes)

    def copy(self) -> Self:
        """An independent copy (to add test extensions without touching the original)."""
        return type(self)(self._classes.values())
