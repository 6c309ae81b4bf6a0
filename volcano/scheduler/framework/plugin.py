"""Plugin base class, argument access, and the plugin registry (a value, never a global).

A plugin is instantiated fresh for every session with its ``Arguments``; its
``open(ssn)`` registers callbacks for extension points (``ssn.add_fn``) and
event handlers; ``close(ssn)`` runs at session close. ``ARGUMENTS`` (exact keys)
and ``ARGUMENT_PREFIXES`` declare what the configuration may pass, so the
loader can reject a misspelt argument.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from volcano.scheduler.framework.model import parse_bool

if TYPE_CHECKING:
    from volcano.scheduler.framework.session import Session

__all__ = ["Arguments", "Plugin", "PluginRegistry"]


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


class Plugin:
    """Base of every scheduler plugin (see the module docstring)."""

    name: ClassVar[str] = ""
    ARGUMENTS: ClassVar[frozenset[str]] = frozenset()
    ARGUMENT_PREFIXES: ClassVar[tuple[str, ...]] = ()

    def __init__(self, args: Arguments) -> None:
        self.args = args

    @classmethod
    def accepts_argument(cls, key: str) -> bool:
        """Whether ``key`` is an argument this plugin understands."""
        return key in cls.ARGUMENTS or any(key.startswith(p) for p in cls.ARGUMENT_PREFIXES)

    def open(self, ssn: Session) -> None:
        """Register callbacks for this session."""

    def close(self, ssn: Session) -> None:
        """Session close hook (status writes, state cleanup)."""


class PluginRegistry:
    """Plugin classes by name. Pass one to the scheduler; tests build their own."""

    def __init__(self, plugins: Mapping[str, type[Plugin]] | None = None) -> None:
        self._plugins: dict[str, type[Plugin]] = dict(plugins or {})

    def register(self, cls: type[Plugin], name: str | None = None) -> None:
        """Register ``cls`` under ``name`` (default ``cls.name``)."""
        key = name or cls.name
        if not key:
            raise ValueError(f"plugin class {cls.__name__} has no name")
        self._plugins[key] = cls

    def get(self, name: str) -> type[Plugin] | None:
        """The class registered as ``name``, or None."""
        return self._plugins.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._plugins

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._plugins)

    def copy(self) -> PluginRegistry:
        """An independent copy (to add test plugins without touching the original)."""
        return PluginRegistry(self._plugins)
