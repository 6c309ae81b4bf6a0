"""Volcano's scheduler configuration format.

``load_scheduler_conf`` accepts the YAML text of a configuration, a path to a
file holding one, a ConfigMap manifest (its ``volcano-scheduler.conf`` key), or
an already-parsed mapping. Format (Volcano ``scheduler_conf.go``):
``actions`` (comma-separated, run in order), ``tiers`` of ``plugins`` (``name``,
``enable*`` flags, ``arguments``), ``configurations`` (per-action arguments),
``metrics``.

Deviation, on purpose: Volcano logs and skips an unknown plugin name; here an
unknown action, plugin, flag or argument is a ``SchedulerConfError`` naming
it, so that a typo cannot silently change the policy. A name Volcano knows but
this implementation lacks is reported as "not yet supported".
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from volcano.scheduler.actions import UNSUPPORTED_ACTIONS, default_actions
from volcano.scheduler.framework.action import ActionRegistry
from volcano.scheduler.framework.conf import ENABLE_FLAGS, PluginOption, SchedulerConf, Tier
from volcano.scheduler.framework.extension import Extension
from volcano.scheduler.framework.plugin import PluginRegistry
from volcano.scheduler.plugins import VOLCANO_PLUGINS, default_registry

__all__ = [
    "CONFIGMAP_KEY",
    "DEFAULT_SCHEDULER_CONF",
    "DEFAULT_SCHEDULER_CONF_TEXT",
    "HELM_SCHEDULER_CONF_TEXT",
    "SchedulerConfError",
    "load_scheduler_conf",
]

CONFIGMAP_KEY = "volcano-scheduler.conf"

DEFAULT_SCHEDULER_CONF_TEXT = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
"""
"""Volcano's built-in default configuration."""

HELM_SCHEDULER_CONF_TEXT = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
"""
"""The Helm chart's ``volcano-scheduler.conf``."""


class SchedulerConfError(ValueError):
    """A scheduler configuration is malformed or names something unknown."""


def _err(where: str, msg: str) -> SchedulerConfError:
    return SchedulerConfError(f"scheduler configuration: {where}: {msg}")


def _to_mapping(source: str | Path | Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(source, Mapping):
        data: Any = source
    else:
        text = source
        if isinstance(source, Path) or ("\n" not in source and ":" not in source):
            path = Path(source)
            try:
                text = path.read_text()
            except OSError as exc:
                raise _err(str(path), f"cannot read: {exc.strerror}") from None
        try:
            data = yaml.safe_load(str(text).strip())
        except yaml.YAMLError as exc:
            raise _err("YAML", str(exc).replace("\n", " ")) from None
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise _err("document", f"expected a mapping, got {type(data).__name__}")
    if data.get("kind") == "ConfigMap":
        conf = (data.get("data") or {}).get(CONFIGMAP_KEY)
        if conf is None:
            raise _err("ConfigMap", f"has no data key {CONFIGMAP_KEY!r}")
        return _to_mapping(str(conf) + "\n")
    return data


def load_scheduler_conf(source: str | Path | Mapping[str, Any], *, registry: PluginRegistry | None = None,
                        actions: ActionRegistry | None = None) -> SchedulerConf:
    """Parse and validate a scheduler configuration (see the module docstring) against
    the plugins of ``registry`` and the ``actions`` (default: every one implemented)."""
    plugins = registry if registry is not None else default_registry()
    known_actions = actions if actions is not None else default_actions()
    data = _to_mapping(source)
    for key in data:
        if key not in ("actions", "tiers", "configurations", "metrics"):
            raise _err(str(key), "unknown top-level field")
    action_names = _parse_actions(data.get("actions"), known_actions)
    tiers_raw = data.get("tiers") or []
    if not isinstance(tiers_raw, list):
        raise _err("tiers", "must be a list")
    tiers = tuple(_parse_tier(ti, tier, plugins) for ti, tier in enumerate(tiers_raw))
    configurations = _parse_configurations(data.get("configurations") or [], known_actions)
    metrics = data.get("metrics") or {}
    if not isinstance(metrics, Mapping):
        raise _err("metrics", "must be a mapping")
    return SchedulerConf(action_names, tiers, configurations, dict(metrics))


def _parse_actions(raw: object, known: ActionRegistry) -> tuple[str, ...]:
    if not isinstance(raw, str):
        raise _err("actions", f"must be a comma-separated string, got {raw!r}")
    names = tuple(a.strip() for a in raw.split(","))
    for a in names:
        if a in known:
            continue
        if a in UNSUPPORTED_ACTIONS:
            raise _err("actions", f"action {a!r} is not yet supported")
        raise _err("actions", f"unknown action {a!r}")
    return names


def _parse_tier(ti: int, tier: object, plugins: PluginRegistry) -> Tier:
    if not isinstance(tier, Mapping) or not isinstance(tier.get("plugins") or [], list):
        raise _err(f"tiers[{ti}]", "must be a mapping with a 'plugins' list")
    opts = [_parse_plugin(f"tiers[{ti}].plugins[{pi}]", entry, plugins)
            for pi, entry in enumerate(tier.get("plugins") or [])]
    names = [o.name for o in opts]
    drf_h = any(o.name == "drf" and o.flags.get("enableHierarchy") for o in opts)
    if drf_h and "proportion" in names:
        raise _err(f"tiers[{ti}]", "proportion and drf with hierarchy enabled conflicts")
    return Tier(tuple(opts))


def _parse_plugin(where: str, entry: object, plugins: PluginRegistry) -> PluginOption:
    if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
        raise _err(where, "must be a mapping with a string 'name'")
    name = entry["name"]
    cls = plugins.get(name)
    if cls is None:
        if name in VOLCANO_PLUGINS:
            raise _err(where, f"plugin {name!r} is not yet supported")
        raise _err(where, f"unknown plugin {name!r}")
    flags: dict[str, bool] = {}
    args: Mapping[str, Any] = {}
    for key, value in entry.items():
        if key == "name" or (key == "arguments" and value is None):
            continue
        if key == "arguments":
            args = _parse_arguments(f"{where}.arguments", value, cls, f"plugin {name!r}")
        elif key in ENABLE_FLAGS:
            if not isinstance(value, bool):
                raise _err(f"{where}.{key}", f"must be a boolean, got {value!r}")
            flags[key] = value
        else:
            raise _err(where, f"unknown field {key!r} for plugin {name!r}")
    return PluginOption(name, flags, args)


def _parse_arguments(where: str, value: object, cls: type[Extension], owner: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise _err(where, "must be a mapping")
    for arg in value:
        if not cls.accepts_argument(str(arg)):
            raise _err(where, f"unknown argument {arg!r} for {owner}")
    return dict(value)


def _parse_configurations(raw: object, known: ActionRegistry) -> dict[str, Mapping[str, Any]]:
    if not isinstance(raw, list):
        raise _err("configurations", "must be a list")
    out: dict[str, Mapping[str, Any]] = {}
    for ci, entry in enumerate(raw):
        where = f"configurations[{ci}]"
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            raise _err(where, "must be a mapping with a string 'name'")
        name = entry["name"]
        cls = known.get(name)
        if cls is None:
            raise _err(where, f"unknown action {name!r}")
        out[name] = _parse_arguments(f"{where}.arguments", entry.get("arguments") or {}, cls, f"action {name!r}")
    return out


DEFAULT_SCHEDULER_CONF: SchedulerConf = load_scheduler_conf(DEFAULT_SCHEDULER_CONF_TEXT)
"""Volcano's built-in default configuration."""
