"""A minimal apps/v1 Deployment controller.

For every Deployment it keeps one ReplicaSet for the current pod template,
named ``<deployment>-<pod-template-hash>``:

* the hash is FNV-32a over the canonical JSON of ``spec.template`` (plus
  ``status.collisionCount`` when set), rendered with Kubernetes'
  ``SafeEncodeString`` alphabet; it is stable for an unchanged template, but
  its value differs from real Kubernetes (which hashes Go's object dump);
* the ReplicaSet gets the template's labels plus ``pod-template-hash``, a
  selector extended with ``pod-template-hash``, the Deployment's annotations
  (except ``kubectl.kubernetes.io/last-applied-configuration``) plus
  ``deployment.kubernetes.io/revision``, and a controller ownerReference to
  the Deployment; its ``spec.replicas`` follows the Deployment's
  (default 1), so scaling the Deployment scales the ReplicaSet;
* every other ReplicaSet the Deployment owns is scaled to 0 at once: a
  template change behaves like the ``Recreate`` strategy without waiting for
  old pods to terminate (no rolling-update surge/unavailability accounting,
  no pause, no revision history limit, no progress deadline);
* ``status``: ``observedGeneration``, ``replicas``, ``updatedReplicas``,
  ``readyReplicas``, ``availableReplicas`` and ``unavailableReplicas``
  summed from the owned ReplicaSets' status.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from volcano.api import accessors
from volcano.api.frozen import thaw
from volcano.apiserver.client import Obj
from volcano.controllers.base import Controller
from volcano.controllers.builtin._common import (
    CONTROLLER_UID_INDEX,
    controller_of,
    controller_ref_to,
    controller_uid_index,
    desired_replicas,
    int_field,
    meta,
)

__all__ = ["POD_TEMPLATE_HASH_LABEL", "DeploymentController", "pod_template_hash"]

COMPONENT = "deployment-controller"
POD_TEMPLATE_HASH_LABEL = "pod-template-hash"
"""Label carrying the template hash on a Deployment's ReplicaSets and pods."""
REVISION_ANNOTATION = "deployment.kubernetes.io/revision"

_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_SKIPPED_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)


def pod_template_hash(template: Mapping[str, Any], collision_count: int | None = None) -> str:
    """The ``pod-template-hash`` of ``template`` (see the module docstring)."""
    data = json.dumps(template, sort_keys=True, separators=(",", ":")).encode()
    if collision_count is not None:
        data += str(int(collision_count)).encode()
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return "".join(_ALPHABET[ord(ch) % len(_ALPHABET)] for ch in str(value))


class DeploymentController(Controller[str]):
    """Reconciles apps/v1 Deployments into one ReplicaSet each (see the module docstring)."""

    COMPONENT = COMPONENT
    INDEXES = (("ReplicaSet", CONTROLLER_UID_INDEX, controller_uid_index),)

    def _on_deployment(self, event: str, deployment: Obj, old: Obj | None) -> None:
        if event != "DELETED":
            self.queue.add(f"{meta(deployment).get('namespace', '')}/{meta(deployment).get('name', '')}")

    def _on_replicaset(self, event: str, rs: Obj, old: Obj | None) -> None:
        ref = controller_of(rs)
        if ref is not None and ref.get("kind") == "Deployment":
            self.queue.add(f"{meta(rs).get('namespace', '')}/{ref.get('name', '')}")

    WATCHES = MappingProxyType({"Deployment": _on_deployment, "ReplicaSet": _on_replicaset})

    def process(self, key: str) -> None:
        """Keep the Deployment's one current ReplicaSet at its replicas, the others at 0; write status."""
        namespace, _, name = key.partition("/")
        deployment = self.informer("Deployment").get(name, namespace)
        if deployment is None or meta(deployment).get("deletionTimestamp"):
            return
        desired = desired_replicas(self, key, deployment)
        if desired is None:
            return
        spec = deployment.get("spec") or {}
        template = spec.get("template") or {}
        template_hash = pod_template_hash(template, accessors.status(deployment).get("collisionCount"))
        new_name = f"{name}-{template_hash}"
        uid = str(meta(deployment).get("uid", ""))
        owned = sorted((rs for rs in self.informer("ReplicaSet").by_index(CONTROLLER_UID_INDEX, uid)
                        if meta(rs).get("namespace") == namespace), key=lambda rs: str(meta(rs).get("name")))
        new_rs = next((rs for rs in owned if meta(rs).get("name") == new_name), None)
        if new_rs is None:
            self._create_replicaset(deployment, new_name, template_hash, desired, owned)
        elif (new_rs.get("spec") or {}).get("replicas", 1) != desired:
            self._scale(new_rs, desired)
        for rs in owned:
            if rs is not new_rs and (rs.get("spec") or {}).get("replicas", 1) != 0:
                self._scale(rs, 0)
        self._update_status(deployment, owned, new_name)

    def _create_replicaset(self, deployment: Mapping[str, Any], rs_name: str, template_hash: str, replicas: int,
                           owned: Sequence[Mapping[str, Any]]) -> None:
        d_meta = meta(deployment)
        template = thaw((deployment.get("spec") or {}).get("template") or {})
        template.setdefault("metadata", {}).setdefault("labels", {})[POD_TEMPLATE_HASH_LABEL] = template_hash
        selector = thaw((deployment.get("spec") or {}).get("selector") or {})
        selector.setdefault("matchLabels", {})[POD_TEMPLATE_HASH_LABEL] = template_hash
        revision = 1 + max((int((meta(rs).get("annotations") or {}).get(REVISION_ANNOTATION, 0) or 0)
                            for rs in owned), default=0)
        annotations = {k: v for k, v in (d_meta.get("annotations") or {}).items() if k not in _SKIPPED_ANNOTATIONS}
        annotations[REVISION_ANNOTATION] = str(revision)
        rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
              "metadata": {"name": rs_name, "namespace": d_meta.get("namespace"),
                           "labels": dict(template["metadata"]["labels"]), "annotations": annotations,
                           "ownerReferences": [controller_ref_to(deployment, "apps/v1", "Deployment")]},
              "spec": {"replicas": replicas, "selector": selector, "template": template}}
        if self.create_once(rs, namespace=d_meta.get("namespace")):
            self.record("CreateReplicaSet", f"{d_meta.get('namespace')}/{rs_name}", f"replicas={replicas}")

    def _scale(self, rs: Mapping[str, Any], replicas: int) -> None:
        self.client.patch("ReplicaSet", str(meta(rs)["name"]), {"spec": {"replicas": replicas}},
                          meta(rs).get("namespace"))
        self.record("ScaleReplicaSet", f"{meta(rs).get('namespace')}/{meta(rs)['name']}", f"replicas={replicas}")

    def _update_status(self, deployment: Mapping[str, Any], owned: Sequence[Mapping[str, Any]], new_name: str) -> None:
        def total(field: str, only_new: bool = False) -> int:
            return sum(int(accessors.status(rs).get(field) or 0) for rs in owned
                       if not only_new or meta(rs).get("name") == new_name)

        desired = int_field(deployment, "spec.replicas", 1)
        available = total("availableReplicas")
        status = {
            "observedGeneration": int(meta(deployment).get("generation") or 0),
            "replicas": total("replicas"),
            "updatedReplicas": total("replicas", only_new=True),
            "readyReplicas": total("readyReplicas"),
            "availableReplicas": available,
            "unavailableReplicas": max(desired - available, 0),
        }
        current = accessors.status(deployment)
        if all(current.get(k) == v for k, v in status.items()):
            return
        self.client.patch("Deployment", str(meta(deployment)["name"]), {"status": status},
                          meta(deployment).get("namespace"), subresource="status")
