"""``vcctl queue``: create, delete, get, list and operate queues, as upstream's ``pkg/cli/queue``.

``list`` and ``get`` print ``Name Weight State Parent Inqueue Pending Running Unknown Completed``
(widths 25 then 8), the PodGroup counts by phase computed from the PodGroups of every namespace, as
upstream computes them (queue status counters are no longer written). ``operate --action open|close``
creates an ``OpenQueue``/``CloseQueue`` Command in ``default``; ``--action update`` merge-patches
``spec.weight``.
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Mapping
from typing import Any, TextIO

from volcano.vcctl.client import PODGROUPS, QUEUES, VcctlError, create_command, custom

__all__ = ["create", "delete", "get", "list_queues", "operate"]

_HEADER = ("Name", "Weight", "State", "Parent", "Inqueue", "Pending", "Running", "Unknown", "Completed")
_PHASES = ("Inqueue", "Pending", "Running", "Unknown", "Completed")


def _row(cells: tuple[Any, ...]) -> str:
    return f"{cells[0]!s:<25}" + "".join(f"{c!s:<8}" for c in cells[1:]) + "\n"


def _counts(api: Any) -> dict[str, dict[str, int]]:
    pgs = custom(api).list_cluster_custom_object(*PODGROUPS).get("items") or []
    counts: dict[str, dict[str, int]] = {}
    for pg in pgs:
        queue = str((pg.get("spec") or {}).get("queue") or "")
        phase = str((pg.get("status") or {}).get("phase") or "")
        if phase in _PHASES:
            per = counts.setdefault(queue, dict.fromkeys(_PHASES, 0))
            per[phase] += 1
    return counts


def _line(queue: Mapping[str, Any], counts: Mapping[str, int]) -> str:
    spec, status = queue.get("spec") or {}, queue.get("status") or {}
    weight = spec.get("weight") if isinstance(spec.get("weight"), int) else 0
    return _row((queue["metadata"]["name"], weight, status.get("state", ""), spec.get("parent", ""),
                 *(counts.get(p, 0) for p in _PHASES)))


def create(args: argparse.Namespace, api: Any, out: TextIO, now: dt.datetime) -> None:
    """``vcctl queue create``."""
    queue = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": args.name},
             "spec": {"weight": args.weight}, "status": {"state": args.state}}
    custom(api).create_cluster_custom_object(*QUEUES, queue)


def delete(args: argparse.Namespace, api: Any, out: TextIO, now: dt.datetime) -> None:
    """``vcctl queue delete``."""
    if not args.name:
        raise VcctlError("queue name must be specified")
    custom(api).delete_cluster_custom_object(*QUEUES, args.name)


def get(args: argparse.Namespace, api: Any, out: TextIO, now: dt.datetime) -> None:
    """``vcctl queue get``."""
    if not args.name:
        raise VcctlError("name is mandatory to get the particular queue details")
    queue = custom(api).get_cluster_custom_object(*QUEUES, args.name)
    counts = _counts(api)
    out.write(_row(_HEADER))
    out.write(_line(queue, counts.get(args.name, {})))


def list_queues(args: argparse.Namespace, api: Any, out: TextIO, now: dt.datetime) -> None:
    """``vcctl queue list``."""
    queues = custom(api).list_cluster_custom_object(*QUEUES).get("items") or []
    if not queues:
        out.write("No resources found\n")
        return
    counts = _counts(api)
    out.write(_row(_HEADER))
    for queue in queues:
        out.write(_line(queue, counts.get(queue["metadata"]["name"], {})))


def operate(args: argparse.Namespace, api: Any, out: TextIO, now: dt.datetime) -> None:
    """``vcctl queue operate --action open|close|update``."""
    if not args.name:
        raise VcctlError("queue name must be specified")
    if args.action == "update":
        if args.weight == 0:
            raise VcctlError(f"when update queue {args.name}, weight must be specified, the value must be greater "
                             "than 0")
        custom(api).patch_cluster_custom_object(*QUEUES, args.name, {"spec": {"weight": args.weight}})
        return
    actions = {"open": "OpenQueue", "close": "CloseQueue"}
    if not args.action:
        raise VcctlError("action can not be null")
    if args.action not in actions:
        raise VcctlError(f"action {args.action} invalid, valid actions are open, close and update")
    queue = custom(api).get_cluster_custom_object(*QUEUES, args.name)
    create_command(api, queue, actions[args.action], "default")
