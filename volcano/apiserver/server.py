"""The in-memory API server: a Kubernetes-shaped store on the simulated clock.

``ApiServer`` implements the ``Client`` protocol: it holds the verbs
(create, get, list, update, status, patch, delete, watch, binding, eviction)
and their checks. Every write copies its input (the caller's dict is never
retained), passes the admission chain, and commits through the
``ObjectStore`` (``volcano.apiserver.store``), which freezes the object, takes
the next value of one global integer resourceVersion counter and appends one
event to the watch log; ``Deletion`` (``volcano.apiserver.deletion``) carries
out a DELETE. Reads return the stored frozen objects themselves: no copy per
read. The rules the verbs share are pure functions in
``volcano.apiserver.write_rules``.

Size: this module is one class of about thirty short methods, the verb table of
the ``Client`` protocol (each verb reads top to bottom: resolve, check, admit,
validate, commit); it is longer than the project's 500-line guide on purpose,
as splitting the verbs across modules would scatter one request's path.

Semantics follow kube-apiserver: ``uid`` from the seeded streams,
``generation`` (on the kinds whose strategy keeps one: workloads, pods, custom resources)
1 at create and +1 when anything outside metadata (and outside status, for kinds with a
status subresource) changes, timestamps from the
simulated clock, ``generateName``, namespaced and cluster-scoped kinds,
optimistic concurrency, the status subresource, the four patch types and
server-side apply with ``managedFields`` (``volcano.apiserver.patching``,
``volcano.apiserver.managed_fields``), delete
preconditions, finalizers, graceful pod deletion, propagation policies and
owner-reference garbage collection (``volcano.apiserver.gc``), the
``pods/binding`` and ``pods/eviction`` subresources, and Events that expire an hour after
their last write (``--event-ttl``, ``volcano.apiserver.leases``).

On construction the server holds what a fresh kube-apiserver bootstraps:
namespaces ``default``, ``kube-system``, ``kube-public``, ``kube-node-lease``
and the priority classes ``system-cluster-critical`` and
``system-node-critical`` (``bootstrap=False`` starts empty).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from volcano.api.frozen import FrozenDict, FrozenList, thaw
from volcano.api.kinds import KindInfo, kind_for_object, resolve_kind
from volcano.apiserver import field_labels, namespaces
from volcano.apiserver.admission import AdmissionChain, AdmissionRequest
from volcano.apiserver.bootstrap import BOOTSTRAP_OBJECTS
from volcano.apiserver.changes import StatusChange, replaced_change
from volcano.apiserver.client import Obj, WatchEvent, WatchHandle
from volcano.apiserver.deletion import Deletion, check_delete_options, check_preconditions, tracks_generation
from volcano.apiserver.errors import (
    CONFLICT_MESSAGE,
    ApiError,
    already_exists,
    bad_request,
    conflict,
    invalid,
    not_found,
)
from volcano.apiserver.events import is_recorded_event
from volcano.apiserver.gc import GarbageCollector
from volcano.apiserver.leases import EVENT_TTL_S, LeaseKeeper
from volcano.apiserver.managed_fields import FieldManager
from volcano.apiserver.meta import (
    check_object_shape,
    drop_metadata_nulls,
    has_status_subresource,
    parse_resource_version,
    resource_name,
)
from volcano.apiserver.paging import paginate
from volcano.apiserver.patching import (
    apply_patch,
    check_field_manager,
    check_patch_options,
    check_patched,
    decode_apply_body,
    normalize_patch_type,
    options_invalid,
)
from volcano.apiserver.pod_create import prepare_pod_status
from volcano.apiserver.status_write import merged_status, shared_status, status_with, status_with_names
from volcano.apiserver.store import ObjectStore
from volcano.apiserver.validation import (
    apply_defaults,
    check_patched_uid,
    check_update_uid,
    decode,
    decode_status,
    depth_error,
    has_status_rules,
    prepare_for_create,
    too_deep,
    validate,
)
from volcano.apiserver.validation import validate_status as validate_status_write
from volcano.apiserver.validation.field import go_value
from volcano.apiserver.watch import WatchHub
from volcano.apiserver.write_rules import (
    SERVER_FIELDS,
    keep_server_fields,
    keep_status,
    kind_named,
    kind_of,
    require_status_subresource,
    selectors,
    spec_changed,
)
from volcano.sim.clock import Clock
from volcano.sim.rand import RandomStreams
from volcano.sim.trace import Trace

__all__ = ["CONFLICT_MESSAGE", "ApiServer"]


_DEFAULTED = frozenset({"Pod", "PriorityClass.scheduling.k8s.io", "Job.batch.volcano.sh",
                        "PodGroup.scheduling.volcano.sh", "Queue.scheduling.volcano.sh", "ReplicaSet.apps",
                        "Deployment.apps", "StatefulSet.apps", "ReplicationController", "Job.batch"})
"""Kinds whose defaulting edits nested values (the server then works on a full copy)."""
_EVENT = resolve_kind("Event")
_NAMESPACE = resolve_kind("Namespace")
_ABSENT = object()
_COUNT_PATCH_KEYS = frozenset({"count", "lastTimestamp", "message"})



class ApiServer:
    """An in-memory, single-process kube-apiserver (see module docstring)."""

    def __init__(self, clock: Clock, streams: RandomStreams, *, trace: Trace | None = None,
                 watch_history: int = 500_000, bootstrap: bool = True,
                 event_ttl_s: int | None = EVENT_TTL_S) -> None:
        self.clock = clock
        self.streams = streams
        self.trace = trace
        self.admission = AdmissionChain()
        self._hub = WatchHub(clock, watch_history)
        self.store = ObjectStore(self._hub)
        """The objects, the resourceVersion counter and the watch log (``volcano.apiserver.store``)."""
        self._field_managers: dict[str, FieldManager] = {}
        self._gc = GarbageCollector(self, clock)
        self.store.tracker = self._gc.track
        self.event_leases: LeaseKeeper | None = None
        """The Events' leases (``event_ttl_s``: kube-apiserver's ``--event-ttl``; None keeps Events
        until they are deleted)."""
        if event_ttl_s is not None:
            self.event_leases = LeaseKeeper(clock, event_ttl_s, self._expire)
            self.store.expiring[_EVENT.key] = self.event_leases.attach
        self._deletion = Deletion(self.store, clock, self._gc)
        if bootstrap:
            for obj in BOOTSTRAP_OBJECTS:
                self.create(obj)

    def _expire(self, info: KindInfo, namespace: str, name: str) -> None:
        """Remove the stored object whose lease expired: storage's own deletion (no admission, no
        finalizers, no grace period), seen by watchers as DELETED."""
        obj = self.store.lookup(info, namespace, name)
        if obj is not None:
            self.store.remove(info, obj)

    # -- time --------------------------------------------------------------------------------
    @property
    def now_ms(self) -> int:
        """The clock's time in milliseconds."""
        return self.clock.now_ms

    def timestamp(self, ms: int | None = None) -> str:
        """RFC 3339 time (second precision) of clock time ``ms`` (default: now), from the clock."""
        return self.clock.timestamp(ms)

    @property
    def resource_version(self) -> str:
        """The newest resourceVersion, as a string."""
        return str(self.store.resource_version)

    @contextmanager
    def dry_run(self) -> Iterator[None]:
        """Within the block every write runs in full (admission, validation, conflicts) and stores
        nothing (``dryRun=All``); the seeded uid and name streams are left where they were."""
        streams = [self.streams.stream(name) for name in ("uid", "generate-name")]
        states = [s.getstate() for s in streams]
        try:
            with self.store.dry_run():
                yield
        finally:
            for stream, state in zip(streams, states):
                stream.setstate(state)

    # -- store access ------------------------------------------------------------------------------
    @staticmethod
    def _ns(info: KindInfo, namespace: str | None) -> str:
        if not info.namespaced:
            return ""
        return namespace or "default"

    def get_by_uid(self, uid: str) -> FrozenDict | None:
        """The live object with ``uid``, or None."""
        return self.store.get_by_uid(uid)

    def uid_exists(self, uid: str) -> bool:
        """Whether an object with ``uid`` is stored."""
        return self.store.uid_exists(uid)

    def kind_revision(self, kind_key: str) -> int:
        """A number that changes whenever an object of kind ``kind_key`` is created, changed or
        deleted (the length of its watch log), for readers that keep what they listed."""
        return self._hub.log(kind_key).end

    def snapshot(self) -> dict[str, list[Obj]]:
        """Every stored object by kind key, each list sorted (for tests and debugging)."""
        return self.store.snapshot()

    # -- admission helpers -----------------------------------------------------------------------
    def _writable(self, info: KindInfo, operation: str, obj: Obj) -> dict[str, Any]:
        """A copy of ``obj`` the server may edit: a full plain copy when admission hooks will see
        it, else a copy of the top level, metadata and status only (the store's freeze deep-copies
        the rest, so the caller's containers are never retained either way)."""
        chain = self.admission
        if info.key in _DEFAULTED or chain.hooks(True, info.key, operation) \
                or chain.hooks(False, info.key, operation):
            out: dict[str, Any] = thaw(obj)
            return out
        new = dict(obj)
        new["metadata"] = dict(obj["metadata"])
        status = new.get("status")
        if type(status) is dict:
            new["status"] = dict(status)
        return new

    def _admit(self, operation: str, info: KindInfo, obj: dict[str, Any], old: FrozenDict | None,
               subresource: str | None = None, validate_fn: Callable[[], None] | None = None) -> bool:
        """Run the mutating admission hooks on ``obj``, then ``validate_fn`` (the server's own
        validation), then the validating hooks; False when no hook applies."""
        chain = self.admission
        key = info.key
        mutating = chain.hooks(True, key, operation, subresource)
        validating = chain.hooks(False, key, operation, subresource)
        if not mutating and not validating:
            if validate_fn is not None:
                validate_fn()
            return False
        self._run_hooks(AdmissionRequest(operation, info, obj, old, subresource, self), validate_fn)
        return True

    def _run_hooks(self, request: AdmissionRequest, validate_fn: Callable[[], None] | None = None) -> None:
        """The mutating hooks for ``request``, then ``validate_fn``, then the validating hooks."""
        chain = self.admission
        key, operation, sub = request.kind.key, request.operation, request.subresource
        mutating, validating = chain.hooks(True, key, operation, sub), chain.hooks(False, key, operation, sub)
        for reg in mutating:
            reg.fn(request)
        if validate_fn is not None:
            validate_fn()
        for reg in validating:
            reg.fn(request)

    def _admit_delete(self, info: KindInfo, old: FrozenDict, subresource: str | None) -> None:
        chain = self.admission
        if chain.hooks(True, info.key, "DELETE") or chain.hooks(False, info.key, "DELETE"):
            self._admit("DELETE", info, thaw(old), old, subresource)

    # -- create ------------------------------------------------------------------------------------
    def create(self, obj: Obj, *, namespace: str | None = None, field_manager: str | None = None) -> Obj:
        """Create ``obj`` (see ``Client.create``): AlreadyExists, NotFound for a missing namespace,
        Invalid for a malformed object, admission denials as the hook raised them. With
        ``field_manager`` the object's fields are recorded as that manager's (``managedFields``)."""
        check_field_manager(field_manager, options_invalid("CreateOptions"))
        info = kind_of(obj)
        if not isinstance(obj.get("metadata"), dict):
            decode(info, dict(obj))
            check_object_shape(info, obj, need_name=False)
        try:
            new = self._writable(info, "CREATE", obj)
        except RecursionError:
            raise bad_request(f"{info.kind} in version {info.version!r}: json: exceeded max depth") from None
        return self._create(info, new, namespace, field_manager)

    def create_owned(self, obj: dict[str, Any]) -> Obj:
        """``create(obj)`` for a caller that hands ``obj`` over: a tree of plain dicts and lists (as
        ``thaw`` returns) that the caller never touches again, so the server edits it instead of a
        copy of it. Same stored object, same errors (``create``'s copy is ``thaw(obj)``, equal to
        ``obj`` for such a tree, or a shallower copy whose deeper parts the store freezes anyway)."""
        info = kind_of(obj)
        if not isinstance(obj.get("metadata"), dict):
            return self.create(obj)
        return self._create(info, obj, None, None)

    def _create(self, info: KindInfo, new: dict[str, Any], namespace: str | None,
                field_manager: str | None) -> Obj:
        """``create`` from the point where ``new`` is the server's to edit."""
        decode(info, new)
        drop_metadata_nulls(new)
        check_object_shape(info, new, need_name=False)
        meta = new["metadata"]
        for field in SERVER_FIELDS:
            meta.pop(field, None)
        if info.namespaced:
            given = meta.get("namespace")
            if namespace and given and given != namespace:
                raise bad_request("the namespace of the provided object does not match the namespace sent on "
                                  f"the request ({given!r} != {namespace!r})")
            ns = given or namespace or "default"
            meta["namespace"] = ns
            ns_obj = self.store.lookup(resolve_kind("Namespace"), "", ns)
            if ns_obj is None:
                raise not_found("namespaces", ns)
            namespaces.check_active(ns_obj, info, str(meta.get("name") or ""))
        else:
            meta.pop("namespace", None)
        prepare_for_create(info, new)
        if info.key == "Namespace":
            namespaces.prepare_create(new)
        if not meta.get("name"):
            # SimpleNameGenerator: the prefix is cut to 58 characters, so a generated name fits 63
            meta["name"] = f"{str(meta['generateName'])[:58]}{self.streams.name_suffix()}"
        apply_defaults(info, new)
        if field_manager is not None:
            self._field_manager(info).update(None, new, field_manager)

        def check() -> None:
            check_object_shape(info, new)
            validate(info, new)
            if info.key == "Pod":  # the pod strategy's status, on the admitted and valid object
                prepare_pod_status(new, self.timestamp())
        self._admit("CREATE", info, new, None, validate_fn=check)
        meta = new["metadata"]
        ns = self._ns(info, meta.get("namespace"))
        if info.namespaced:
            meta["namespace"] = ns
        if self.store.lookup(info, ns, meta["name"]) is not None:
            raise already_exists(resource_name(info), meta["name"])
        meta["uid"] = self.streams.uid()
        meta["creationTimestamp"] = self.timestamp()
        if tracks_generation(info):
            meta["generation"] = 1
        for field in ("deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion"):
            meta.pop(field, None)
        return self.store.insert(info, new)

    def create_event(self, event: dict[str, Any]) -> Obj:
        """Create an Event an ``EventRecorder`` built (the server keeps ``event`` and edits it): the
        stored object, and any error, are those of ``create(event)``. When ``event`` has exactly the
        recorder's shape (``is_recorded_event``) and no admission hook watches Events, the steps that
        can neither change nor reject it are skipped: the defensive copy, decoding, server-field
        resets, status reset and defaulting (an Event has none). The checks that can still fail run
        in ``create``'s order: name, namespace, metadata validation, AlreadyExists."""
        info = _EVENT
        chain = self.admission
        if not is_recorded_event(event, self.timestamp()) or chain.hooks(True, info.key, "CREATE") \
                or chain.hooks(False, info.key, "CREATE"):
            return self.create(event)
        meta = event["metadata"]
        check_object_shape(info, event)
        ns, name = meta["namespace"], meta["name"]
        ns_obj = self.store.lookup(_NAMESPACE, "", ns)
        if ns_obj is None:
            raise not_found("namespaces", ns)
        namespaces.check_active(ns_obj, info, name)
        validate(info, event)
        if self.store.lookup(info, ns, name) is not None:
            raise already_exists(resource_name(info), name)
        meta["uid"] = self.streams.uid()
        meta["creationTimestamp"] = self.timestamp()
        return self.store.insert(info, event)

    def patch_event_count(self, namespace: str, name: str, patch: Any) -> Obj:
        """Apply an ``EventRecorder``'s repeat (the merge patch ``{"count", "lastTimestamp",
        "message"}``) to the Event ``namespace``/``name``: the stored object, and any error, are those
        of ``patch("Event", name, patch, namespace)``. When the patch has exactly that shape (a count
        in 1..2^31-1, the clock's current timestamp, a string message), no admission hook watches
        Event updates and the Event has no managedFields, the steps that can neither change nor reject
        it are skipped: the merge's deep copy, decoding, server-field and default passes (the stored
        Event is decoded already and the three values decode as they are). Shape and validation
        checks run as ``patch`` runs them."""
        info = _EVENT
        chain = self.admission
        if type(patch) is not dict or patch.keys() != _COUNT_PATCH_KEYS or type(patch["count"]) is not int \
                or not 0 < patch["count"] < 2**31 or type(patch["message"]) is not str \
                or patch["lastTimestamp"] != self.timestamp() \
                or chain.hooks(True, info.key, "UPDATE") or chain.hooks(False, info.key, "UPDATE"):
            return self.patch("Event", name, patch, namespace)
        old = self.store.require(info, self._ns(info, namespace), name)
        if old["metadata"].get("managedFields"):
            return self.patch("Event", name, patch, namespace)
        new: dict[str, Any] = dict(old)
        new.update(patch)
        new["metadata"] = dict(old["metadata"])
        check_object_shape(info, new)
        validate(info, new, old)
        return self._commit(info, old, new)

    # -- read --------------------------------------------------------------------------------------
    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj:
        """The stored (frozen) object, or NotFound."""
        info = kind_named(kind)
        return self.store.require(info, self._ns(info, namespace), name)

    def list(self, kind: str, namespace: str | None = None, *, label_selector: str | None = None,
             field_selector: str | None = None, limit: int | None = None, continue_: str | None = None) -> Obj:
        """A frozen ``<Kind>List``: items sorted by (namespace, name), ``metadata.resourceVersion``.
        ``limit``/``continue_`` return one page (``volcano.apiserver.paging``)."""
        info = kind_named(kind)
        label, field = selectors(label_selector, field_selector)
        field = field_labels.selection(info, field)
        items = []
        for obj in self.store.iter(info, namespace if info.namespaced else None):
            if label is not None and not label.matches(obj["metadata"].get("labels")):
                continue
            if field is not None and not field.matches(obj):
                continue
            items.append(obj)
        metadata: dict[str, Any] = {"resourceVersion": self.resource_version}
        if limit or continue_:
            page = paginate(items, self.store.resource_version, limit=limit, continue_=continue_,
                            filtered=label is not None or field is not None)
            items, metadata = page.items, page.metadata
        return FrozenDict({"apiVersion": info.api_version, "kind": f"{info.kind}List",
                           "metadata": FrozenDict(metadata), "items": FrozenList(items)})

    # -- update ------------------------------------------------------------------------------------
    def _target(self, obj: Obj) -> tuple[KindInfo, FrozenDict]:
        """The kind and the stored object an update or status update of ``obj`` writes, after the
        shape, uid precondition and resourceVersion checks. A request that carries the stored
        object's own frozen metadata (a writer sending back what it read) passes all three, as the
        stored object did when it was written: they are skipped for it."""
        info = kind_of(obj)
        meta = obj.get("metadata") if type(obj) is dict else None
        if type(meta) is FrozenDict and type(meta.get("name")) is str and type(meta.get("namespace", "")) is str:
            stored = self.store.lookup(info, self._ns(info, meta.get("namespace")), meta["name"])
            if stored is not None and stored["metadata"] is meta:
                return info, stored
        check_object_shape(info, obj)
        meta = obj["metadata"]
        old = self.store.require(info, self._ns(info, meta.get("namespace")), meta["name"])
        check_update_uid(info, old, obj)  # the storage precondition, checked before the resourceVersion
        want = meta.get("resourceVersion")
        if want not in (None, "") and str(want) != old["metadata"]["resourceVersion"]:
            raise conflict(resource_name(info), meta["name"], CONFLICT_MESSAGE)
        return info, old

    def update(self, obj: Obj, *, field_manager: str | None = None) -> Obj:
        """Replace spec and metadata (status kept for kinds with a status subresource); see
        ``Client.update``. A write that changes nothing returns the stored object unchanged."""
        check_field_manager(field_manager, options_invalid("UpdateOptions"))
        info, old = self._target(obj)
        try:
            new = self._writable(info, "UPDATE", obj)
        except RecursionError:
            raise depth_error(info, old["metadata"]["name"]) from None
        return self._update_main(info, old, new, manager=field_manager)

    def _update_main(self, info: KindInfo, old: FrozenDict, new: dict[str, Any],
                     subresource: str | None = None, *, manager: str | None = None,
                     track: bool = True) -> FrozenDict:
        decode(info, new)
        drop_metadata_nulls(new)
        keep_server_fields(info, old, new)
        status_sub = has_status_subresource(info)
        if status_sub:
            keep_status(old, new)
        apply_defaults(info, new)
        if track:
            self._track(info, old, new, manager, "")

        def check() -> None:
            check_object_shape(info, new)
            keep_server_fields(info, old, new)
            if status_sub:
                keep_status(old, new)
            validate(info, new, old)
        self._admit("UPDATE", info, new, old, subresource, validate_fn=check)
        if tracks_generation(info) and spec_changed(info, old, new):
            new["metadata"]["generation"] = int(old["metadata"].get("generation") or 0) + 1
        return self._commit(info, old, new)

    def update_status(self, obj: Obj, *, field_manager: str | None = None) -> Obj:
        """Replace only ``status`` (the ``/status`` subresource); same concurrency rule as update.
        A kind served without a status subresource (PodGroup, ConfigMap, ...) is NotFound, as on a
        real server: write its status with ``update``."""
        check_field_manager(field_manager, options_invalid("UpdateOptions"))
        info, old = self._target(obj)
        require_status_subresource(info, old["metadata"]["name"])
        frozen = shared_status(info, old, obj.get("status"))
        if frozen is not None:  # decoded part by part, unchanged parts shared: no whole copy
            return self._update_status(info, old, frozen, manager=field_manager, decoded=True)
        try:
            status = thaw(obj.get("status"))
        except RecursionError:
            raise depth_error(info, old["metadata"]["name"]) from None
        return self._update_status(info, old, status, manager=field_manager)

    def update_status_fields(self, kind: str, name: str, namespace: str | None, fields: dict[str, Any]) -> Obj:
        """``update_status`` of the stored object (its own metadata: no precondition) with its status's
        properties ``fields`` replaced (``{**status, **fields}``), for an in-process writer that names
        only what it changes (the scheduler's pod conditions). Without a null or a mapping among
        ``fields`` that is also the merge patch ``{"status": fields}`` of the status subresource.
        NotFound when the object is absent; the same objects, events and errors as ``update_status``."""
        info = kind_named(kind)
        old = self.store.require(info, self._ns(info, namespace), name)
        require_status_subresource(info, name)
        frozen = status_with(info, old, fields)
        if frozen is not None:  # only the named properties looked at, new items checked one by one
            return self._update_status(info, old, frozen, decoded=True)
        current = old.get("status")
        merged = {**current, **fields} if isinstance(current, dict) else dict(fields)
        return self.update_status({"apiVersion": old.get("apiVersion"), "kind": old.get("kind"),
                                   "metadata": old["metadata"], "status": merged})

    def update_status_fields_many(self, kind: str, writes: Iterable[tuple[str, str | None, dict[str, Any]]]
                                  ) -> builtins.list[Obj | ApiError]:
        """``update_status_fields(kind, name, namespace, fields)`` of each ``(name, namespace, fields)``
        in order, as that many calls one after another: the same stored objects, resourceVersions,
        watch events and tracker calls. The answer holds, for each write, what its call returns or
        the ``ApiError`` it raises (a failed write stops nothing: the next one runs).

        The work a call does for the kind alone (resolving it, its status subresource, its status
        admission hooks and status rules) is done once: with no status hook (none to run, none to
        register meanwhile) and outside a dry run, each write of a kind with a status subresource
        is, per object, only the lookup, ``status_with``, the status rules and the commit. Otherwise
        (an unknown kind, a hook, a dry run) every write is ``update_status_fields`` itself."""
        writes = list(writes)
        try:
            info = kind_named(kind)
        except ApiError:
            info = None
        chain = self.admission
        if info is None or not has_status_subresource(info) or self.store.dry \
                or chain.hooks(True, info.key, "UPDATE", "status") or chain.hooks(False, info.key, "UPDATE", "status"):
            return [self._status_fields_answer(kind, name, namespace, fields) for name, namespace, fields in writes]
        rules = has_status_rules(info)
        store = self.store
        lookup, replace = store.lookup, store.replace_status
        namespaced = info.namespaced
        out: builtins.list[Obj | ApiError] = []
        for name, namespace, fields in writes:
            old = lookup(info, (namespace or "default") if namespaced else "", name)
            if old is None:
                out.append(not_found(resource_name(info), name))
                continue
            found = status_with_names(info, old, fields)
            meta = old["metadata"]
            if found is None or meta.get("managedFields") or meta.get("deletionTimestamp"):
                out.append(self._status_fields_answer(kind, name, namespace, fields))
                continue
            frozen, names = found
            if rules:  # ``_commit_status``
                try:
                    validate_status_write(info, {**old, "status": frozen})
                except ApiError as exc:
                    out.append(exc)
                    continue
            prior = old.get("status", _ABSENT)
            out.append(old if prior is frozen or prior == frozen
                       else replace(info, old, frozen, replaced_change(old, names)))
        return out

    def _status_fields_answer(self, kind: str, name: str, namespace: str | None,
                              fields: dict[str, Any]) -> Obj | ApiError:
        """``update_status_fields``' answer: the object it returns, or the ``ApiError`` it raises."""
        try:
            return self.update_status_fields(kind, name, namespace, fields)
        except ApiError as exc:
            return exc

    def _update_status(self, info: KindInfo, old: FrozenDict, status: Any, *, manager: str | None = None,
                       managed: Any = None, decoded: bool = False) -> FrozenDict:
        """Replace ``old``'s status with ``status`` (a plain value the server may edit, or with
        ``decoded`` the frozen status ``shared_status`` proved to decode): decoded (400), admitted,
        validated against the kind's status rules (422), recorded in managedFields, stored. The
        admission request's object is built only when a hook reads it. A decoded status that no
        hook read, on an object without managedFields written without a manager, is stored by
        ``_commit_status``."""
        if not decoded:
            decode_status(info, old, status)
        chain = self.admission
        mutating = chain.hooks(True, info.key, "UPDATE", "status")
        validating = chain.hooks(False, info.key, "UPDATE", "status")
        if mutating or validating:
            def build() -> dict[str, Any]:
                request_obj: dict[str, Any] = dict(old)
                request_obj["metadata"] = thaw(old["metadata"])
                if status is None:
                    request_obj.pop("status", None)
                else:
                    request_obj["status"] = thaw(status)
                return request_obj
            request = AdmissionRequest.deferred("UPDATE", info, build, old, "status", self)
            for reg in mutating:  # ``_run_hooks`` without a validate step
                reg.fn(request)
            for reg in validating:
                reg.fn(request)
            if request.built:
                status = request.obj.get("status")
                decoded = False
        if decoded and managed is None and manager is None and not old["metadata"].get("managedFields"):
            return self._commit_status(info, old, status)
        new: dict[str, Any] = dict(old)
        new["metadata"] = dict(old["metadata"])
        if status is None:
            new.pop("status", None)
        else:
            new["status"] = status
        validate_status_write(info, new)
        if managed is not None:
            new["metadata"]["managedFields"] = managed
        else:
            self._track(info, old, new, manager, "status")
        return self._commit(info, old, new)

    def _commit_status(self, info: KindInfo, old: FrozenDict, status: FrozenDict) -> FrozenDict:
        """``_commit`` of ``old`` with its status replaced by the frozen ``status`` and its metadata
        unchanged (validated first, as ``_update_status`` validates): a no-op when the status is
        equal, else stored by ``ObjectStore.replace_status`` without copying the rest."""
        if has_status_rules(info):
            validate_status_write(info, {**old, "status": status})
        if old["metadata"].get("deletionTimestamp"):  # a removal may be due: the general rule decides
            new: dict[str, Any] = dict(old)
            new["metadata"] = dict(old["metadata"])
            new["status"] = status
            return self._commit(info, old, new)
        prior = old.get("status", _ABSENT)
        if prior is status or prior == status:  # ``_commit``'s ``new == old``: only the status differs
            return old
        return self.store.replace_status(info, old, status)

    def _field_manager(self, info: KindInfo) -> FieldManager:
        fm = self._field_managers.get(info.key)
        if fm is None:
            fm = self._field_managers[info.key] = FieldManager(info, self.timestamp)
        return fm

    def _track(self, info: KindInfo, old: FrozenDict, new: dict[str, Any], manager: str | None,
               subresource: str) -> None:
        """Record the write in ``managedFields`` when the object is tracked (it has entries) or the
        writer names itself; an untracked object written without a manager costs nothing."""
        if manager is None and not old["metadata"].get("managedFields"):
            return
        self._field_manager(info).update(old, new, manager or "unknown", subresource)

    def _commit(self, info: KindInfo, old: FrozenDict, new: dict[str, Any]) -> FrozenDict:
        """Store an update of ``old``; no-op writes are dropped; an object being deleted whose
        last finalizer is gone (and whose grace period is over) is removed."""
        meta = new["metadata"]
        old_meta = old["metadata"]
        if old_meta.get("deletionTimestamp"):
            added = sorted(set(meta.get("finalizers") or ()) - set(old_meta.get("finalizers") or ()))
            if added:  # apimachinery prints the sorted set with %#v: []string{"a", "b"}
                shown = "[]string{" + ", ".join(go_value(f) for f in added) + "}"
                raise invalid(info.key, meta["name"], [
                    "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being "
                    f"deleted, found new finalizers {shown}"])
        if new == old:
            return old
        if meta.get("deletionTimestamp") and not meta.get("finalizers") \
                and not meta.get("deletionGracePeriodSeconds") \
                and (info.key != "Namespace" or namespaces.is_finalized(new)):
            return self.store.remove(info, old)
        return self.store.replace(info, old, new)

    # -- patch ---------------------------------------------------------------------------------------
    def patch(self, kind: str, name: str, patch: Any, namespace: str | None = None, *,
              subresource: str | None = None, patch_type: str | None = None, field_manager: str | None = None,
              force: bool | None = None) -> Obj:
        """Patch the object, or with ``subresource="status"`` its status (see ``Client.patch``).
        ``patch_type`` is ``merge`` (default), ``json``, ``strategic`` or ``apply`` (or the media type);
        ``apply`` is ``server_side_apply`` and returns only the object. A ``metadata.resourceVersion``
        that the patched object carries is a precondition."""
        info = kind_named(kind)
        kind_of_patch = normalize_patch_type(info, patch_type)
        if kind_of_patch == "apply":
            return self.server_side_apply(kind, name, patch, namespace, field_manager=field_manager, force=force,
                                          subresource=subresource)[0]
        check_patch_options(kind_of_patch, field_manager, force)
        if subresource not in (None, "status"):
            raise bad_request(f"unsupported subresource {subresource!r} for patch (supported: status)")
        ns = self._ns(info, namespace)
        old = self.store.require(info, ns, name)
        if subresource == "status":
            require_status_subresource(info, name)
            if kind_of_patch == "merge":
                frozen = merged_status(info, old, patch)
                if frozen is not None:  # ``update_status``'s shared status: no copy of the whole object
                    return self._update_status(info, old, frozen, manager=field_manager, decoded=True)
        try:
            new = apply_patch(info, old, patch, kind_of_patch)
        except RecursionError:
            raise depth_error(info, name) from None
        check_patched(info, old, new, name, ns)
        check_patched_uid(info, old, new, status=subresource == "status")
        if subresource == "status":
            return self._update_status(info, old, new.get("status"), manager=field_manager)
        return self._update_main(info, old, new, manager=field_manager)

    def server_side_apply(self, kind: str, name: str, body: Any, namespace: str | None = None, *,
                          field_manager: str | None, force: bool | None = False,
                          subresource: str | None = None) -> tuple[Obj, bool]:
        """Server-side apply (``application/apply-patch+yaml``): merge ``body`` (a mapping, or YAML/JSON
        text) into the object as ``field_manager``'s intent, creating it when absent. Returns the object
        and whether it was created (the HTTP answer is then 201, else 200). Conflicts with fields other
        managers own are 409 unless ``force``; see ``volcano.apiserver.managed_fields``."""
        info = kind_named(kind)
        check_patch_options("apply", field_manager, force)
        assert field_manager is not None
        if subresource not in (None, "status"):
            raise bad_request(f"unsupported subresource {subresource!r} for patch (supported: status)")
        try:
            config = decode_apply_body(info, body)
        except RecursionError:
            raise depth_error(info, name) from None
        if too_deep(config):
            raise depth_error(info, name)
        meta = config["metadata"]
        ns = self._ns(info, namespace or meta.get("namespace"))
        old = self.store.lookup(info, ns, name)
        if subresource == "status":
            require_status_subresource(info, name)
            if old is None:
                raise not_found(resource_name(info), name)
        check_patched(info, old, {**config, "metadata": {"name": meta.get("name", ""), **meta}}, name, ns)
        new = self._field_manager(info).apply(old, config, field_manager, force=bool(force),
                                              subresource=subresource or "")
        if old is None:
            new["metadata"].pop("resourceVersion", None)
            return self.create(new, namespace=ns), True
        if subresource == "status":
            return self._update_status(info, old, new.get("status"),
                                       managed=new["metadata"].get("managedFields") or []), False
        return self._update_main(info, old, self._writable(info, "UPDATE", new), track=False), False

    # -- delete --------------------------------------------------------------------------------------
    def delete(self, kind: str, name: str, namespace: str | None = None, *,
               grace_period_seconds: int | None = None, propagation_policy: str | None = None,
               preconditions: Obj | None = None) -> Obj | None:
        """Delete an object (see ``Client.delete``); returns it when it still exists afterwards."""
        info = kind_named(kind)
        check_delete_options(propagation_policy)
        if grace_period_seconds is not None and (not isinstance(grace_period_seconds, int)
                                                 or grace_period_seconds < 0):
            raise bad_request(f"gracePeriodSeconds {grace_period_seconds!r} is invalid: must be a "
                              "non-negative integer")
        old = self.store.require(info, self._ns(info, namespace), name)
        check_preconditions(info, old, preconditions)
        self._admit_delete(info, old, None)
        return self._deletion.delete(info, old, grace_period_seconds, propagation_policy or "Background")

    # -- garbage-collector entry points (no admission, as the collector's own writes) ------------------
    def gc_delete(self, obj: Obj, policy: str) -> None:
        """Delete ``obj`` on behalf of the garbage collector (uid precondition, ``policy``)."""
        info = kind_for_object(obj)
        meta = obj["metadata"]
        current = self.store.lookup(info, meta.get("namespace", ""), meta["name"])
        if current is None or current["metadata"]["uid"] != meta["uid"]:
            return
        if self.trace is not None:
            self.trace.record(self.clock.now_ms, "garbage-collector", "Delete",
                              f"{info.key}/{meta.get('namespace', '')}/{meta['name']}".replace("//", "/"), policy)
        self._deletion.delete(info, current, None, policy)

    def gc_update(self, old: Obj, new: dict[str, Any]) -> None:
        """Store ``new`` over ``old`` on behalf of the garbage collector (no admission)."""
        info = kind_for_object(old)
        meta = old["metadata"]
        current = self.store.lookup(info, meta.get("namespace", ""), meta["name"])
        if current is None or current["metadata"]["resourceVersion"] != meta["resourceVersion"]:
            return
        self._commit(info, current, new)

    def remove_finalizer(self, obj: Obj, finalizer: str) -> None:
        """Remove ``finalizer`` from the stored ``obj`` (removing the object when it was the last)."""
        info = kind_for_object(obj)
        meta = obj["metadata"]
        current = self.store.lookup(info, meta.get("namespace", ""), meta["name"])
        if current is None or finalizer not in (current["metadata"].get("finalizers") or ()):
            return
        new: dict[str, Any] = dict(current)
        new_meta = new["metadata"] = dict(current["metadata"])
        new_meta["finalizers"] = [f for f in new_meta["finalizers"] if f != finalizer]
        if not new_meta["finalizers"]:
            del new_meta["finalizers"]
        self._commit(info, current, new)

    # -- watch ---------------------------------------------------------------------------------------
    def watch(self, kind: str, handler: Callable[[WatchEvent], None], namespace: str | None = None, *,
              resource_version: str | None = None, label_selector: str | None = None,
              field_selector: str | None = None) -> WatchHandle:
        """Deliver changes after ``resource_version`` to ``handler`` as clock callbacks (see
        ``Client.watch``). ``"0"`` first delivers the current objects as ADDED (sorted), then changes;
        ``None`` starts from now. A compacted resourceVersion is Gone (410)."""
        info = kind_named(kind)
        label, field = selectors(label_selector, field_selector)
        field = field_labels.selection(info, field)
        ns = namespace if info.namespaced else None
        initial: list[Any] = []
        after: int | None
        if resource_version is None or resource_version == "":
            after = None
        else:
            after = parse_resource_version(resource_version, "watch")
            if after == 0:
                initial = list(self.store.iter(info, ns))
                after = None
        return self._hub.start(info.key, handler, ns, label, field, after, initial)

    def watch_changes(self, kind: str, handler: Callable[[str, Obj, Obj | None, StatusChange | None], None], *,
                      resource_version: str | None = None) -> WatchHandle:
        """``watch`` of every object of ``kind`` for an in-process reader, which the server calls as
        ``handler(type, object, previous, change)`` instead of with a ``WatchEvent``: ``previous``
        is the version the event replaces (None for ADDED and ERROR; for DELETED, the object before
        the deletion), ``change`` the write's status change (``volcano.apiserver.changes``; None
        but for a status-only write). The same events, in the same order, as ``watch`` delivers."""
        info = kind_named(kind)
        initial: list[Any] = []
        after: int | None = None
        if resource_version is not None and resource_version != "":
            after = parse_resource_version(resource_version, "watch")
            if after == 0:
                initial = list(self.store.iter(info, None))
                after = None
        return self._hub.start(info.key, handler, None, None, None, after, initial, changes=True)

    def compact_watch_history(self) -> None:
        """Compact every kind's watch history to its newest event, as etcd compaction does (a fault
        injection knob: a lagging watcher receives 410 Gone and relists)."""
        self._hub.compact_all(1)

    # -- subresources --------------------------------------------------------------------------------
    def bind(self, name: str, namespace: str, node_name: str) -> None:
        """``pods/binding``: set ``spec.nodeName`` of an unbound pod (bound already: Conflict) and its
        ``PodScheduled`` condition to True."""
        info = resolve_kind("Pod")
        if not isinstance(node_name, str) or not node_name:
            raise bad_request(f"binding of pod {name!r}: target node name must be a non-empty string, "
                              f"got {node_name!r}")
        old = self.store.require(info, namespace or "default", name)
        spec = old.get("spec") or {}
        if spec.get("nodeName"):
            raise conflict("pods/binding", name, f'pod {name} is already assigned to node "{spec["nodeName"]}"')
        if old["metadata"].get("deletionTimestamp"):
            raise conflict("pods/binding", name, f"pod {name} is being deleted, cannot be assigned to a host")
        new: dict[str, Any] = dict(old)
        new_spec = new["spec"] = dict(spec)
        new_spec["nodeName"] = node_name
        # As kube-apiserver's BindingREST (podutil.UpdatePodCondition): PodScheduled=True replaces the
        # condition of that type, keeping its transition time only when it was True already.
        status = old.get("status") or {}
        scheduled = {"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                     "lastTransitionTime": self.timestamp()}
        conditions = [dict(c) for c in status.get("conditions") or []]
        for i, c in enumerate(conditions):
            if c.get("type") == "PodScheduled":
                if c.get("status") == "True":
                    scheduled["lastTransitionTime"] = c.get("lastTransitionTime")
                conditions[i] = scheduled
                break
        else:
            conditions.append(scheduled)
        new["status"] = {**status, "conditions": conditions}
        self.store.replace(info, old, new)

    def evict(self, name: str, namespace: str, *, grace_period_seconds: int | None = None) -> None:
        """``pods/eviction``: delete the pod gracefully (admission DELETE with subresource eviction)."""
        info = resolve_kind("Pod")
        old = self.store.require(info, namespace or "default", name)
        self._admit_delete(info, old, "eviction")
        self._deletion.delete(info, old, grace_period_seconds, "Background")

