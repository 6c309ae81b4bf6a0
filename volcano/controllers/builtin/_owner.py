"""What the ReplicaSet, ReplicationController and batch/v1 Job controllers share: owning pods.

A ``PodOwnerController`` reconciles one owner kind whose pods belong to it through
their controller ownerReference (``OWNER_KIND`` in the ``API_VERSION`` group). It
watches the owner and the pods, finds an owner's pods through a shared
controller-uid index, creates pods from a template with names from a seeded stream
and deletes them, remembering what its cache has not seen yet (``Expectations``).
A subclass writes ``process``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

from volcano.apiserver.client import Client, Obj
from volcano.controllers.base import Controller, Recorder, WatchHandler
from volcano.controllers.builtin._common import (
    CONTROLLER_UID_INDEX,
    Expectations,
    NameGenerator,
    PodControl,
    controller_of,
    controller_ref_to,
    controller_uid_index,
    meta,
)
from volcano.informers import InformerFactory
from volcano.sim import Clock, RandomStreams, Trace

__all__ = ["PodOwnerController"]


class PodOwnerController(Controller[str]):
    """Base of the controllers that own pods (see the module docstring); keys are ``namespace/name``."""

    OWNER: ClassVar[str] = ""
    """The owner's informer kind (``ReplicaSet``, ``Job.batch``)."""
    OWNER_KIND: ClassVar[str] = ""
    """The owner's kind in ownerReferences (``ReplicaSet``, ``Job``)."""
    API_VERSION: ClassVar[str] = ""
    """The owner's apiVersion, written into the pods' controller ownerReference."""
    NAME_STREAM: ClassVar[str] = ""
    """The random stream the pod name suffixes come from."""
    INDEXES = (("Pod", CONTROLLER_UID_INDEX, controller_uid_index),)

    def __init__(self, client: Client, informers: InformerFactory, clock: Clock, *,
                 streams: RandomStreams, trace: Trace | None = None, recorder: Recorder | None = None) -> None:
        super().__init__(client, informers, clock, streams=streams, trace=trace, recorder=recorder)
        self.names = NameGenerator(streams.stream(self.NAME_STREAM))
        self.expectations = Expectations()
        self.pods = PodControl(client, self.names, self.expectations)

    def watches(self) -> Mapping[str, WatchHandler | None]:
        """The owner kind and the pods."""
        return MappingProxyType({self.OWNER: PodOwnerController._on_owner, "Pod": PodOwnerController._on_pod})

    def _on_owner(self, event: str, owner: Obj, old: Obj | None) -> None:
        key = f"{meta(owner).get('namespace', '')}/{meta(owner).get('name', '')}"
        if event == "DELETED":
            self.forget(key, owner)
            return
        self.queue.add(key)

    def forget(self, key: str, owner: Mapping[str, Any]) -> None:
        """The owner is gone: drop what was remembered about it."""
        self.expectations.forget(key)

    def _on_pod(self, event: str, pod: Obj, old: Obj | None) -> None:
        ref = controller_of(pod)
        if ref is None or ref.get("kind") != self.OWNER_KIND or \
                str(ref.get("apiVersion", "")).partition("/")[0] != self.API_VERSION.partition("/")[0]:
            return
        key = f"{meta(pod).get('namespace', '')}/{ref.get('name', '')}"
        self.expectations.observed(key, str(meta(pod).get("name", "")), event)
        self.queue.add(key)

    def owned_pods(self, owner: Mapping[str, Any]) -> tuple[list[Obj], int, set[str]]:
        """The owner's pods, how many creations the cache has not shown yet, and the names of
        deleted pods it still shows."""
        namespace = meta(owner).get("namespace")
        informer = self.informer("Pod")
        pods = [p for p in informer.by_index(CONTROLLER_UID_INDEX, str(meta(owner).get("uid", "")))
                if meta(p).get("namespace") == namespace]
        key = f"{namespace}/{meta(owner).get('name', '')}"
        unseen, deleting = self.expectations.reconcile(key, lambda n: informer.get(n, namespace))
        return pods, unseen, deleting

    def create_pod(self, key: str, owner: Mapping[str, Any], extra_labels: Mapping[str, str] | None = None) -> None:
        """Create one pod from the owner's ``spec.template``."""
        owner_meta = meta(owner)
        pod_name = self.pods.create(key, owner, (owner.get("spec") or {}).get("template") or {},
                                    controller_ref_to(owner, self.API_VERSION, self.OWNER_KIND), extra_labels)
        self.record("CreatePod", f"{owner_meta.get('namespace')}/{pod_name}",
                    f"{self.OWNER_KIND.lower()} {owner_meta['name']}")

    def delete_pod(self, key: str, pod: Mapping[str, Any], why: str = "") -> None:
        """Delete one of the owner's pods."""
        name = self.pods.delete(key, pod)
        self.record("DeletePod", f"{meta(pod).get('namespace')}/{name}", why)
