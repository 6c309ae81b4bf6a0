"""Volcano's PodGroup admission: queue from the namespace annotation, queue and topology checks.

* ``mutate_podgroup(pg, view)`` (``mutatepodgroup.volcano.sh``, CREATE): a
  PodGroup in the ``default`` queue moves to the queue named by its
  namespace's ``scheduling.volcano.sh/queue-name`` annotation.
* ``validate_podgroup_create(pg, view)`` (``validatepodgroup.volcano.sh``,
  CREATE): the queue must exist and be Open; ``highestTierAllowed`` and
  ``highestTierName`` are exclusive (also inside a subGroupPolicy: the first offending one is named).
  Several errors are joined by ``"; "``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from volcano.admission.lookup import ClusterView

__all__ = ["QUEUE_NAME_ANNOTATION", "mutate_podgroup", "validate_podgroup_create"]

QUEUE_NAME_ANNOTATION = "scheduling.volcano.sh/queue-name"
"""Namespace (and plain pod) annotation naming the queue."""

_TIER_BOTH = "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously"


def mutate_podgroup(pg: dict[str, Any], view: ClusterView) -> None:
    """Apply ``mutatepodgroup.volcano.sh``'s CREATE rule to ``pg`` in place."""
    spec = pg.get("spec")
    if not isinstance(spec, dict) or spec.get("queue") != "default":
        return
    namespace = view.namespace(str((pg.get("metadata") or {}).get("namespace") or ""))
    if namespace is None:
        return
    queue = ((namespace.get("metadata") or {}).get("annotations") or {}).get(QUEUE_NAME_ANNOTATION)
    if queue:
        spec["queue"] = str(queue)


def _both_tiers(nt: Any) -> bool:
    return isinstance(nt, Mapping) and nt.get("highestTierAllowed") is not None and bool(nt.get("highestTierName"))


def validate_podgroup_create(pg: Mapping[str, Any], view: ClusterView) -> str:
    """The denial message of ``validatepodgroup.volcano.sh`` for creating ``pg`` ("" when admitted)."""
    spec = pg.get("spec") or {}
    errors: list[str] = []
    queue_name = str(spec.get("queue") or "")
    if queue_name:
        queue = view.queue(queue_name)
        if queue is None:
            errors.append(f'unable to find queue: queue.scheduling.volcano.sh "{queue_name}" not found')
        else:
            state = str((queue.get("status") or {}).get("state") or "")
            if state != "Open":
                errors.append(f"can only submit PodGroup to queue with state `Open`, queue `{queue_name}` "
                              f"status is `{state}`.")
    # validateNetworkTopology: its own errors joined by a space, then one part of the "; " list.
    topology: list[str] = []
    if _both_tiers(spec.get("networkTopology")):
        topology.append(_TIER_BOTH + ".")
    for sub in spec.get("subGroupPolicy") or []:
        if isinstance(sub, Mapping) and _both_tiers(sub.get("networkTopology")):
            topology.append(f"in subGroupPolicy '{sub.get('name', '')}': {_TIER_BOTH}.")
            break  # upstream reports the first such subGroupPolicy only
    if topology:
        errors.append(" ".join(topology))
    return "; ".join(errors)
