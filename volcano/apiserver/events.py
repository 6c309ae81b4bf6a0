"""Kubernetes Events (core/v1) recorded by components, through client-go's event correlator.

``EventRecorder.event(obj, type, reason, message)`` writes an ``Event`` in the
involved object's namespace (``default`` for cluster-scoped objects), after
``EventCorrelator`` (client-go's ``EventCorrelator`` with the defaults
``record.NewBroadcaster()`` gives every Volcano component) has seen it, in
client-go's order:

1. **Aggregation.** Events from the same source about the same object with the
   same type, reason and reporting controller/instance but different messages
   are similar. Once 10 distinct messages were seen within 10 minutes of each
   other, each further similar event becomes the one aggregate Event whose
   message is ``"(combined from similar events): "`` + the latest message (a new
   Event, count 1, no reporting controller; later ones patch it).
2. **Counting.** An event seen before (same source, object, type, reason,
   message; or the same aggregate) is not a new object: it becomes a patch of
   the existing Event's ``count`` (+1), ``lastTimestamp`` and ``message``.
3. **Spam filter.** A token bucket per source and object (burst 25, refilled at
   1/300 token per second as a float32, with golang.org/x/time/rate's
   arithmetic): an event beyond it is dropped (``filtered``). The first two
   steps have already counted it, so the next Event written carries its count.

Each step keeps an LRU cache of 4,096 entries. Time is the recorder's Clock;
nothing is random (client-go drops an arbitrary message from a full aggregate
set; here it is the earliest seen), so the same calls give the same Events.
Writes go through the ``Client``, synchronously; the recorder never reads the
wall clock.

``EventRecorder.events(items)`` records a batch of such calls, in order, at one clock instant
(what the scheduler emits at the end of a cycle): the same Events and caches as one call per
item, with each identity's correlator keys looked up once per event instead of twice.

When the client is the in-process ``ApiServer`` itself (not a wrapper), a new
Event is written with ``ApiServer.create_event`` and a repeat with
``ApiServer.patch_event_count``: the same stored objects and errors as
``create`` and ``patch``, without the steps that cannot change or reject an
Event of exactly the shape the recorder builds (``is_recorded_event``).
"""

from __future__ import annotations

import struct
from collections import OrderedDict
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, Generic, TypeVar

from volcano.api.frozen import FrozenDict
from volcano.apiserver.client import Client, Obj
from volcano.apiserver.errors import ApiError
from volcano.apiserver.validation.openapi import is_rfc3339
from volcano.sim.clock import Clock

__all__ = ["AGGREGATE_PREFIX", "EVENT_KEYS", "EVENT_TYPES", "EventCorrelator", "EventRecorder", "Observed",
           "TokenBucket", "is_recorded_event"]

EVENT_TYPES = ("Normal", "Warning")
"""The event types Kubernetes accepts."""

EVENT_KEYS = frozenset({"apiVersion", "kind", "metadata", "involvedObject", "reason", "message", "source",
                        "firstTimestamp", "lastTimestamp", "count", "type", "eventTime", "reportingComponent",
                        "reportingInstance"})
"""The top-level fields of an Event the recorder creates."""

LRU_SIZE = 4096
"""client-go's ``maxLruCacheEntries``: the size of each of the correlator's caches."""
AGGREGATE_MAX_EVENTS = 10
"""Distinct messages of similar events within the interval from which on they are aggregated."""
AGGREGATE_INTERVAL_NS = 600 * 10**9
"""A similar event more than this after the last one starts a new aggregation record."""
SPAM_BURST = 25
"""Events a source may send about one object at once."""
SPAM_QPS: float = struct.unpack("f", struct.pack("f", 1.0 / 300.0))[0]
"""The spam filter's refill rate in tokens per second: client-go's float32 ``1/300`` widened to
float64 as ``rate.Limit`` does (0.0033333334140479565, so a token is back after exactly 300 s)."""
AGGREGATE_PREFIX = "(combined from similar events): "
"""The message prefix of an aggregate Event."""
_KEY_CACHE = LRU_SIZE
"""Entries of the correlator's key-string cache (and of the recorder's spam-key cache) beyond
which it starts again empty (each is a cache of a pure function: only speed depends on it)."""

_MAPS = (dict, FrozenDict)
"""The ``source`` types of a recorded Event: the recorder shares one frozen ``source`` among its Events."""
_INVOLVED_KEYS = frozenset({"kind", "name", "namespace", "uid", "apiVersion", "resourceVersion"})
_STRINGS = ("reason", "message", "type", "reportingComponent", "reportingInstance")
K = TypeVar("K")
V = TypeVar("V")


def is_recorded_event(event: Any, now: str) -> bool:
    """Whether ``event`` has exactly the shape ``EventRecorder`` creates, at clock time ``now``
    (the clock's RFC 3339 timestamp): ``v1`` ``Event``, metadata of only a string name and
    namespace, an involvedObject of string fields, string reason/message/type/reporting fields,
    a source (a dict, or the recorder's shared frozen one) of one string component,
    ``lastTimestamp`` ``now``, ``firstTimestamp`` an RFC 3339 time (``now``, or an earlier one
    for a repeat recreated after its Event was not found), ``count`` an int32 of at least 1 and
    no ``eventTime``.

    Such an object decodes as a ``v1.Event`` whatever the strings hold (the Event schema checks
    only JSON types, integer ranges and the time formats), gets no defaults and no status reset:
    that is what lets ``ApiServer.create_event`` skip those steps."""
    if type(event) is not dict or event.keys() != EVENT_KEYS:
        return False
    if event["apiVersion"] != "v1" or event["kind"] != "Event" or event["eventTime"] is not None:
        return False
    meta, involved, source = event["metadata"], event["involvedObject"], event["source"]
    if type(meta) is not dict or meta.keys() != {"namespace", "name"} \
            or type(meta["namespace"]) is not str or type(meta["name"]) is not str:
        return False
    if type(involved) is not dict or not involved.keys() <= _INVOLVED_KEYS \
            or any(type(v) is not str for v in involved.values()):
        return False
    if type(source) not in _MAPS or source.keys() != {"component"} or type(source["component"]) is not str:
        return False
    if any(type(event[k]) is not str for k in _STRINGS):
        return False
    count, first = event["count"], event["firstTimestamp"]
    if type(count) is not int or not 0 < count < 2**31 or event["lastTimestamp"] != now:
        return False
    return first == now or (type(first) is str and is_rfc3339(first))


class _Lru(Generic[K, V]):
    """groupcache's ``lru.Cache``: ``get`` and ``add`` make an entry the most recent; adding beyond
    ``size`` entries evicts the least recent one. Values are never None."""

    __slots__ = ("_entries", "size")

    def __init__(self, size: int) -> None:
        self._entries: OrderedDict[K, V] = OrderedDict()
        self.size = size

    def get(self, key: K) -> V | None:
        entries = self._entries
        value = entries.get(key)
        if value is not None:
            entries.move_to_end(key)
        return value

    def add(self, key: K, value: V) -> None:
        entries = self._entries
        entries[key] = value
        entries.move_to_end(key)
        if len(entries) > self.size:
            entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries


class TokenBucket:
    """golang.org/x/time/rate's ``Limiter`` as client-go's ``TryAccept`` uses it (``AllowN(now, 1)``):
    full (``burst`` tokens) when new; ``elapsed.Seconds() * qps`` tokens come back, capped at
    ``burst``; an event is allowed when taking a token leaves a wait that truncates to 0 ns, and
    only an allowed event moves the bucket's time and takes the token.

    Whether an event is allowed is a monotone function of its time while the bucket does not move
    (with ``qps`` > 0: the tokens that come back, the float arithmetic included, never fall as
    the time grows; before the bucket's own time no time elapses). So a refusal works out an
    instant ``shut_until`` before which every event is refused too (one just under the time the
    refill would reach a token, checked: refused one nanosecond before it), and an event before
    it is refused at once; an allowed event, which moves the bucket, forgets it."""

    __slots__ = ("burst", "last_ns", "qps", "shut_until", "tokens")

    def __init__(self, qps: float = SPAM_QPS, burst: int = SPAM_BURST) -> None:
        self.qps, self.burst = qps, burst
        self.tokens = float(burst)
        self.last_ns: int | None = None
        self.shut_until = _OPEN
        """Every event before this instant (ns) is refused while the bucket does not move."""

    def try_accept(self, now_ns: int) -> bool:
        """Take a token at ``now_ns`` (ns on the clock) if one is there; whether it was."""
        if now_ns < self.shut_until:
            return False
        tokens = self._left(now_ns)
        if tokens is None:
            self.shut_until = self._reopening(now_ns)
            return False
        self.last_ns, self.tokens, self.shut_until = now_ns, tokens, _OPEN
        return True

    def _left(self, now_ns: int) -> float | None:
        """The tokens left after taking one at ``now_ns``, or None when the event is refused."""
        last = self.last_ns
        if last is None:
            tokens = float(self.burst)
        else:
            if now_ns < last:
                last = now_ns
            elapsed = now_ns - last
            seconds = float(elapsed // 10**9) + float(elapsed % 10**9) / 1e9  # time.Duration.Seconds
            tokens = min(float(self.burst), self.tokens + seconds * self.qps)
        tokens -= 1.0
        wait_ns = int(1e9 * (-tokens / self.qps)) if tokens < 0 else 0
        if self.burst < 1 or wait_ns > 0:
            return None
        return tokens

    def _reopening(self, now_ns: int) -> int:
        """An instant after ``now_ns``, at which an event was just refused, before which every event
        is refused (see the class docstring): a millisecond before the refill reaches a token, when
        an event a nanosecond before that is refused, else ``now_ns + 1``."""
        last, qps = self.last_ns, self.qps
        if last is None or not qps > 0:
            return now_ns + 1
        until = last + int((1.0 - self.tokens) / qps * 1e9) - 10**6
        if until - 1 > now_ns and self._left(until - 1) is None:
            return until
        return now_ns + 1


_OPEN = -(2**63)
"""``TokenBucket.shut_until`` when no refusal is known: before every instant."""


class Observed:
    """What the correlator made of an event: the Event to write (``name``, ``count``,
    ``first_timestamp``, ``message``, ``aggregate``: whether it is the aggregate Event, which has
    no reporting controller), ``key``, the counting cache's key it was observed under, and
    ``base``, its full event key without the message."""

    __slots__ = ("aggregate", "base", "count", "first_timestamp", "key", "message", "name")

    def __init__(self, name: str, count: int, first_timestamp: str, message: str, aggregate: bool,
                 key: str, base: str) -> None:
        self.name, self.count, self.first_timestamp = name, count, first_timestamp
        self.message, self.aggregate, self.key, self.base = message, aggregate, key, base


class EventCorrelator:
    """client-go's ``EventCorrelator`` with default options, on simulated time (see the module
    docstring). ``correlate`` takes an event's identifying fields and returns the ``Observed`` Event
    to write, or ``None`` when the spam filter drops it; ``update_state`` takes the Event the
    server stored, as client-go's ``UpdateState``."""

    def __init__(self, *, lru_size: int = LRU_SIZE, burst: int = SPAM_BURST, qps: float = SPAM_QPS,
                 max_events: int = AGGREGATE_MAX_EVENTS, max_interval_ns: int = AGGREGATE_INTERVAL_NS) -> None:
        self._aggregates: _Lru[str, list[Any]] = _Lru(lru_size)  # key -> [messages (ordered set), last ns]
        self._logs: _Lru[str, tuple[int, str, str]] = _Lru(lru_size)  # key -> (count, first timestamp, name)
        self._spam: _Lru[str, TokenBucket] = _Lru(lru_size)
        self._burst, self._qps = burst, qps
        self._max_events, self._max_interval_ns = max_events, max_interval_ns
        self._keys: dict[tuple[str, str, str, str], tuple[str, str, str]] = {}
        """``keys`` per (object, type, reason, reporting); a cache of pure string functions,
        emptied when it reaches ``_KEY_CACHE`` entries."""

    def correlate(self, source: str, involved: dict[str, str], etype: str, reason: str, message: str,
                  reporting: str, now_ns: int, now: str) -> Observed | None:
        """Aggregate, count and spam-filter one event from ``source`` (component; host empty) about
        ``involved`` (an ObjectReference's fields) reported by ``reporting`` (the reporting
        controller; instance empty), at ``now_ns``/``now`` (clock ns and RFC 3339 timestamp)."""
        obj_key = "".join((source, involved.get("kind", ""), involved.get("namespace", ""), involved["name"],
                           involved.get("uid", ""), involved.get("apiVersion", "")))  # getSpamKey
        return self.observe(obj_key, involved["name"], etype, reason, message, reporting, now_ns, now)

    def observe(self, obj_key: str, involved_name: str, etype: str, reason: str, message: str, reporting: str,
                now_ns: int, now: str) -> Observed | None:
        """``correlate`` from the event's spam key ``obj_key`` (client-go's ``getSpamKey`` of the
        source and the involved object) and the involved object's name."""
        return self.observe_keyed(self.keys(obj_key, etype, reason, reporting), involved_name, message, now_ns, now)

    def keys(self, obj_key: str, etype: str, reason: str, reporting: str) -> tuple[str, str, str]:
        """The cache keys of an event about the object of spam key ``obj_key`` with this type,
        reason and reporting controller: (``obj_key``, its full event key without the message,
        its aggregation key). A pure function of its arguments, kept per arguments: the same
        string objects again keep their hashes, so the cache lookups do not hash them anew (a
        waiting gang's pods get an event every cycle, most with a message new to them)."""
        ident = (obj_key, etype, reason, reporting)
        keys = self._keys.get(ident)
        if keys is None:
            base = f"{obj_key}{etype}{reason}"
            keys = (obj_key, base, base + reporting)  # aggregate: EventAggregatorByReasonFunc (instance empty)
            if len(self._keys) >= _KEY_CACHE:
                self._keys.clear()
            self._keys[ident] = keys
        return keys

    def observe_keyed(self, keys: tuple[str, str, str], involved_name: str, message: str, now_ns: int,
                      now: str) -> Observed | None:
        """``observe`` of an event whose ``keys`` (``keys``) are known."""
        obj_key, base, aggregate_key = keys
        # The three LRU caches' ``get`` and ``add`` inlined (``_Lru``: every event runs them).
        # A cache entry that ``get`` found is the newest already: client-go's ``Add`` of the same
        # record after its ``Get`` changes nothing then, so only a new record is added.
        aggregates = self._aggregates._entries
        record = aggregates.get(aggregate_key)
        if record is not None:
            aggregates.move_to_end(aggregate_key)
        if record is None or now_ns - record[1] > self._max_interval_ns:
            record = [{}, now_ns]
            self._aggregates.add(aggregate_key, record)
        messages: dict[str, None] = record[0]
        messages[message] = None
        record[1] = now_ns
        if len(messages) < self._max_events:
            key, aggregate = base + message, False  # getEventKey (host and fieldPath empty)
        else:
            del messages[next(iter(messages))]  # client-go: PopAny (an arbitrary one)
            key, aggregate = aggregate_key, True
        logs = self._logs._entries
        last = logs.get(key)
        if last is not None and last[0] > 0:
            count, first, name = last[0] + 1, last[1], last[2]
        else:
            count, first, name = 1, now, f"{involved_name}.{now_ns:x}"
        logs[key] = (count, first, name)  # ``add``: newest (a new key is added last), the oldest out beyond the size
        if last is not None:
            logs.move_to_end(key)
        elif len(logs) > self._logs.size:
            logs.popitem(last=False)
        spam = self._spam._entries
        bucket = spam.get(obj_key)
        if bucket is None:
            bucket = TokenBucket(self._qps, self._burst)
            self._spam.add(obj_key, bucket)
        else:
            spam.move_to_end(obj_key)
        if now_ns < bucket.shut_until or not bucket.try_accept(now_ns):  # a shut bucket's refusal, inlined
            return None
        if aggregate:
            message = AGGREGATE_PREFIX + message
        return Observed(name, count, first, message, aggregate, key, base)

    def update_state(self, observed: Observed, stored: Obj) -> None:
        """Record the Event the server answered (``stored``, written for ``observed``) under its full
        event key (for an aggregate, its combined message's), as client-go's ``UpdateState``; and the
        name it was finally written under for the key it was observed as. (client-go also keeps the
        resourceVersion, which nothing reads: its patches carry none.)"""
        entry = (int(stored.get("count") or 0), str(stored.get("firstTimestamp") or ""),
                 str(stored["metadata"]["name"]))
        if observed.aggregate:
            last = self._logs.get(observed.key)
            if last is not None and last[2] != entry[2]:
                self._logs.add(observed.key, (last[0], last[1], entry[2]))
            self._logs.add(observed.base + observed.message, entry)
        elif entry != (observed.count, observed.first_timestamp, observed.name):
            self._logs.add(observed.key, entry)  # else the entry the observation added, already the newest

    def __len__(self) -> int:
        """Entries in the largest of the three caches (each is bounded by ``lru_size``)."""
        return max(len(self._aggregates), len(self._logs), len(self._spam))


class EventRecorder:
    """Records Events for one component (``source.component`` and ``reportingComponent``) through
    its own ``EventCorrelator``. ``filtered`` counts the events the spam filter dropped."""

    def __init__(self, client: Client, clock: Clock, component: str) -> None:
        if not isinstance(component, str) or not component:
            raise ValueError(f"EventRecorder: component must be a non-empty string, got {component!r}")
        self._client = client
        self._clock = clock
        self.component = component
        self._source = FrozenDict({"component": component})
        """Every Event's ``source``, one read-only object shared by all of them (the store keeps
        frozen parts as they are: one dict for all the component's Events instead of one each)."""
        self.correlator = EventCorrelator()
        self._spam_keys: dict[tuple[Any, ...], tuple[str, str, str]] = {}
        """The correlator's keys (``EventCorrelator.keys``) of each involved identity (kind, namespace,
        name, uid, apiVersion), type and reason as ``events`` builds them: a cache of a pure string
        function, emptied at ``_KEY_CACHE`` entries."""
        self.filtered = 0
        # The server's Event fast paths, only when the client is the server itself: a wrapper (retries,
        # injected faults, HTTP) keeps its own create and patch, whatever attributes it forwards.
        fast = type(client).__dict__.get("create_event")
        self._create: Callable[[dict[str, Any]], Any] = partial(fast, client) if fast is not None else client.create
        fast_patch = type(client).__dict__.get("patch_event_count")
        self._patch: Callable[[str, str, dict[str, Any]], Any] = (
            partial(fast_patch, client) if fast_patch is not None
            else lambda ns, name, patch: client.patch("Event", name, patch, ns))

    def event(self, obj: Obj, type: str, reason: str, message: str) -> None:
        """Record that ``reason``/``message`` happened to ``obj`` (``type`` Normal or Warning)."""
        self.events(((obj, type, reason, message),))

    def events(self, items: Iterable[tuple[Obj, str, str, str]]) -> None:
        """``event(obj, type, reason, message)`` of each item, in order, at one instant: the clock
        is read once, and again after each Event written (the only step that runs other code), so
        on a clock that moves only when it is run (``SimClock``) this records exactly what the
        calls one by one record. An item that ``event`` rejects raises here, after the items
        before it were recorded."""
        clock, component = self._clock, self.component
        now, now_ns = clock.timestamp(), clock.unix_ns()
        spam_keys, keys_of, observe = self._spam_keys, self.correlator.keys, self.correlator.observe_keyed
        for obj, etype, reason, message in items:
            if etype not in EVENT_TYPES:
                raise ValueError(f"event type must be one of {EVENT_TYPES}, got {etype!r}")
            meta = obj.get("metadata") or {}
            name = meta.get("name")
            if not name:
                raise ValueError(f"event {reason!r}: the involved object has no metadata.name: {obj!r}")
            kind, api_version, given_ns, uid = obj.get("kind", ""), obj.get("apiVersion", ""), \
                meta.get("namespace"), meta.get("uid", "")
            # The correlator's keys of the event (``getSpamKey`` of the involved object, without
            # building it: most events are dropped by the spam filter), one tuple of strings per
            # identity, type and reason: a new version of the object (a pod whose condition the
            # scheduler rewrote) finds the strings, and their hashes, of the last one.
            ident = (kind, given_ns, name, uid, api_version, etype, reason)
            keys = spam_keys.get(ident)
            if keys is None:
                obj_key = "".join((component, kind, given_ns if given_ns else "", name, uid, api_version))
                keys = keys_of(obj_key, etype, reason, component)
                if len(spam_keys) >= _KEY_CACHE:
                    spam_keys.clear()
                spam_keys[ident] = keys
            seen = observe(keys, name, message, now_ns, now)
            if seen is None:
                self.filtered += 1
                continue
            involved: dict[str, Any] = {"kind": kind, "name": name}
            if given_ns:
                involved["namespace"] = given_ns
            involved["uid"] = uid
            involved["apiVersion"] = api_version
            involved["resourceVersion"] = meta.get("resourceVersion", "")
            stored = self._write(seen, involved, given_ns or "default", etype, reason, now, now_ns)
            if stored is not None:
                self.correlator.update_state(seen, stored)
            now, now_ns = clock.timestamp(), clock.unix_ns()

    def _write(self, seen: Observed, involved: dict[str, Any], namespace: str, type: str, reason: str,
               now: str, now_ns: int) -> Obj | None:
        """Patch (a repeat) or create the Event ``seen``; the stored Event, or None when dropped."""
        if seen.count > 1:
            try:
                return self._patch(namespace, seen.name, {"count": seen.count, "lastTimestamp": now,
                                                          "message": seen.message})
            except ApiError as exc:
                if exc.code != 404:
                    raise
        event: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"namespace": namespace, "name": seen.name},
            "involvedObject": involved,
            "reason": reason,
            "message": seen.message,
            "source": self._source,
            "firstTimestamp": seen.first_timestamp,
            "lastTimestamp": now,
            "count": seen.count,
            "type": type,
            "eventTime": None,
            "reportingComponent": "" if seen.aggregate else self.component,
            "reportingInstance": "",
        }
        create = self._create  # a repeat recreated (count > 1) has the recorder's shape too
        stamp = now_ns
        while True:
            try:
                return create(dict(event, metadata=dict(event["metadata"])))
            except ApiError as exc:
                if exc.reason == "Forbidden" or (exc.reason == "AlreadyExists" and seen.count > 1):
                    return None  # e.g. a terminating namespace; client-go drops a rejected event (no retry)
                if exc.reason != "AlreadyExists":
                    raise
                stamp += 1  # two events at one simulated instant: the next free nanosecond
                event["metadata"]["name"] = f"{involved['name']}.{stamp:x}"
