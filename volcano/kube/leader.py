"""Leader election through a ``coordination.k8s.io/v1`` Lease, as client-go's ``leaderelection`` does it.

Several replicas of a component may run; only the one holding the Lease
works. ``LeaderElector`` runs on the owner thread's clock:

* every ``retry_period_ms`` it tries to acquire or renew: it reads the Lease
  (creating it when absent, holder = this identity) and takes it over when the
  record it last observed has not changed for ``lease_duration_ms``, measured
  on its own clock from when it observed the change (never by comparing the
  other holder's timestamps, so clock skew between machines does not matter);
* the holder renews ``spec.renewTime`` with an update carrying the
  resourceVersion it read, so two candidates cannot both win;
* when the holder cannot renew for ``renew_deadline_ms`` it has lost the
  lease: ``on_stopped`` runs (Volcano's components exit, and so do these);
* ``release()`` (on a clean shutdown) clears ``holderIdentity`` so that a
  standby takes over at once instead of after ``lease_duration_ms``.

The Lease carries ``holderIdentity``, ``leaseDurationSeconds``,
``acquireTime``, ``renewTime`` (``MicroTime``) and ``leaseTransitions``, so
``kubectl get lease`` shows the holder as for any Kubernetes component.
Upstream's defaults: 15 s lease, 10 s renew deadline, 2 s retry period.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from volcano.api.frozen import thaw
from volcano.apiserver.client import Client, Obj
from volcano.apiserver.errors import ApiError
from volcano.sim.clock import Clock, Priority, TimerHandle

__all__ = ["LeaderElector", "LeaderOptions"]

log = logging.getLogger("volcano.kube.leader")


@dataclass(frozen=True)
class LeaderOptions:
    """Leader election settings (upstream's defaults; ``enabled=False`` runs without a Lease)."""

    enabled: bool = True
    namespace: str = "volcano-system"
    name: str = "vc-scheduler"
    lease_duration_s: float = 15.0
    renew_deadline_s: float = 10.0
    retry_period_s: float = 2.0

    def describe(self) -> str:
        """The Lease as a component's start line names it (``Lease ns/name``, or ``no leader election``)."""
        return f"Lease {self.namespace}/{self.name}" if self.enabled else "no leader election"


class LeaderElector:
    """Acquires and renews one Lease for ``identity`` (see the module docstring)."""

    def __init__(self, client: Client, clock: Clock, *, namespace: str, name: str, identity: str,
                 on_started: Callable[[], None], on_stopped: Callable[[], None],
                 lease_duration_ms: int = 15_000, renew_deadline_ms: int = 10_000,
                 retry_period_ms: int = 2_000) -> None:
        if not lease_duration_ms > renew_deadline_ms > retry_period_ms > 0:
            raise ValueError(f"leader election: lease duration ({lease_duration_ms} ms) must exceed the renew "
                             f"deadline ({renew_deadline_ms} ms), which must exceed the retry period "
                             f"({retry_period_ms} ms) > 0")
        self.client, self.clock = client, clock
        self.namespace, self.name, self.identity = namespace, name, identity
        self.on_started, self.on_stopped = on_started, on_stopped
        self.lease_duration_ms = lease_duration_ms
        self.renew_deadline_ms = renew_deadline_ms
        self.retry_period_ms = retry_period_ms
        self.leading = False
        self.transitions_seen = 0
        self._observed: tuple[Any, ...] | None = None  # (holder, renewTime, transitions) last seen
        self._observed_ms = 0
        self._last_renew_ms = 0
        self._timer: TimerHandle | None = None

    def start(self) -> None:
        """Try at once, then every retry period."""
        if self._timer is None:
            self._timer = self.clock.call_every(self.retry_period_ms, self._tick, priority=Priority.CONTROLLER,
                                                first_ms=self.clock.now_ms)

    def stop(self) -> None:
        """Stop trying (the Lease is left as it is; see ``release``)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # -- one attempt -------------------------------------------------------------------------------
    def _tick(self) -> None:
        try:
            acquired = self._try_acquire_or_renew()
        except ApiError as err:
            log.warning("leader election: Lease %s/%s: %s", self.namespace, self.name, err.message)
            acquired = False
        now = self.clock.now_ms
        if acquired:
            self._last_renew_ms = now
            if not self.leading:
                self.leading = True
                log.info("leader election: %s became the leader (Lease %s/%s)", self.identity, self.namespace,
                         self.name)
                self.on_started()
        elif self.leading and now - self._last_renew_ms >= self.renew_deadline_ms:
            self.leading = False
            self.stop()
            log.error("leader election: %s lost the Lease %s/%s", self.identity, self.namespace, self.name)
            self.on_stopped()

    def _record(self, holder: str, transitions: int, acquire: str) -> Obj:
        now = self.clock.micro_timestamp()
        return {"holderIdentity": holder, "leaseDurationSeconds": self.lease_duration_ms // 1000,
                "acquireTime": acquire or now, "renewTime": now, "leaseTransitions": transitions}

    def _try_acquire_or_renew(self) -> bool:
        try:
            lease = self.client.get("Lease", self.name, self.namespace)
        except ApiError as err:
            if err.code != 404:
                raise
            self.client.create({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                                "metadata": {"name": self.name, "namespace": self.namespace},
                                "spec": self._record(self.identity, 0, "")})
            self._observe(("", "", 0))
            return True
        spec = lease.get("spec") or {}
        holder = spec.get("holderIdentity") or ""
        transitions = int(spec.get("leaseTransitions") or 0)
        seen = (holder, spec.get("renewTime"), transitions)
        if seen != self._observed:
            self._observe(seen)
        expired = self.clock.now_ms - self._observed_ms >= self.lease_duration_ms
        if holder and holder != self.identity and not expired:
            return False
        mine = holder == self.identity
        updated = thaw(lease)
        updated["spec"] = {**spec, **self._record(self.identity, transitions if mine else transitions + 1,
                                                  spec.get("acquireTime", "") if mine else "")}
        self.client.update(updated)
        self._observe((self.identity, updated["spec"]["renewTime"], updated["spec"]["leaseTransitions"]))
        self.transitions_seen = updated["spec"]["leaseTransitions"]
        return True

    def _observe(self, record: tuple[Any, ...]) -> None:
        self._observed = record
        self._observed_ms = self.clock.now_ms

    def release(self) -> None:
        """Give the Lease up (clean shutdown of the leader): holder cleared, a 1 s duration."""
        self.stop()
        if not self.leading:
            return
        self.leading = False
        try:
            lease = thaw(self.client.get("Lease", self.name, self.namespace))
            if (lease.get("spec") or {}).get("holderIdentity") != self.identity:
                return
            lease["spec"].update({"holderIdentity": "", "leaseDurationSeconds": 1,
                                  "renewTime": self.clock.micro_timestamp()})
            self.client.update(lease)
        except ApiError as err:
            log.warning("leader election: could not release Lease %s/%s: %s", self.namespace, self.name,
                        err.message)
