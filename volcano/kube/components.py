"""The component processes over the wire: the scheduler, the controllers and the simulated nodes.

Each ``start_*`` function runs on a ``Runtime``'s owner thread (inside
``Runtime.run``'s set-up) and wires the same component classes the in-memory
cluster runs, on a ``KubeClient`` and an ``InformerFactory`` over it:

* ``start_scheduler``: Volcano's ``Scheduler`` (its configuration, name,
  schedule period and default queue), its events recorded as the scheduler
  name. With leader election the informers fill at once (a standby is warm)
  but cycles run only while the Lease is held, as upstream.
* ``start_controllers``: the Queue, Job, PodGroup and garbage-collection
  controllers (``vc-controller-manager``); with ``builtin=True`` also the
  Deployment, ReplicaSet, ReplicationController, batch/v1 Job and Namespace
  controllers, for an API server that has no kube-controller-manager
  (``volcano serve --api-only``).
* ``start_nodes``: ``SimNodes``, the simulated kubelets of fake nodes.

Every ``start_*`` registers its clean-up with ``Runtime.on_stop`` (stop the
cycles and work, release the Lease, stop the watches).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from typing import Any

from volcano.controllers import (
    CONTROLLERS,
    GarbageCollector,
    JobController,
    PodGroupController,
    QueueController,
)
from volcano.informers import InformerFactory
from volcano.kube.client import KubeClient
from volcano.kube.config import api_client
from volcano.kube.events import AsyncEventRecorder
from volcano.kube.leader import LeaderElector, LeaderOptions
from volcano.kube.nodes import SimNodes
from volcano.kube.runtime import Runtime
from volcano.scheduler import DefaultScheduler, Scheduler, SchedulerConf
from volcano.sim.clock import Priority
from volcano.sim.rand import RandomStreams
from volcano.sim.trace import Trace

__all__ = ["VOLCANO_CONTROLLERS", "LeaderOptions", "connect", "start_controllers", "start_nodes", "start_scheduler"]

VOLCANO_CONTROLLERS = (QueueController, JobController, PodGroupController, GarbageCollector)
"""The controllers of Volcano's controller manager; the others of ``CONTROLLERS`` are Kubernetes' own."""


def identity() -> str:
    """This process's leader-election identity: ``<hostname>_<pid>``."""
    return f"{socket.gethostname()}_{os.getpid()}"


def connect(runtime: Runtime, kubeconfig: str | None, *, qps: float, burst: int, user_agent: str,
            context: str | None = None) -> KubeClient:
    """A ``KubeClient`` for the cluster whose watches hand events to ``runtime``; closed when it stops."""
    client = KubeClient(api_client(kubeconfig, context, user_agent=user_agent), dispatch=runtime.dispatch,
                        qps=qps, burst=burst, user_agent=user_agent, stop=runtime.stopping)
    runtime.on_stop(client.close)
    return client


def _recorder(client: KubeClient, runtime: Runtime, component: str) -> AsyncEventRecorder:
    """An event recorder sending off the owner thread (client-go's spam filter and queue)."""
    recorder = AsyncEventRecorder(client, runtime.clock, component)
    runtime.on_stop(recorder.close)
    return recorder


def _informers(client: KubeClient, runtime: Runtime, recorder: AsyncEventRecorder,
               resync_ms: int = 0) -> InformerFactory:
    """The shared informers of a component; with ``resync_ms`` > 0 every cached object is delivered to
    the handlers again at that period (client-go's ``--resync-period``)."""
    informers = InformerFactory(client, runtime.clock)
    informers.unusable.reporter = lambda component, obj, message: recorder.event(
        dict(obj), "Warning", "InvalidObject", message)
    runtime.on_stop(informers.stop)
    if resync_ms > 0:
        timer = runtime.clock.call_every(resync_ms, informers.resync, priority=Priority.WATCH)
        runtime.on_stop(timer.cancel)
    return informers


def _lead(runtime: Runtime, client: KubeClient, leader: LeaderOptions, start: Callable[[], None]) -> None:
    """Run ``start`` now, or once the Lease is held; losing the Lease stops the process (exit 1)."""
    if not leader.enabled:
        start()
        return
    elector = LeaderElector(client, runtime.clock, namespace=leader.namespace, name=leader.name,
                            identity=identity(), on_started=start, on_stopped=lambda: runtime.stop(1),
                            lease_duration_ms=round(leader.lease_duration_s * 1000),
                            renew_deadline_ms=round(leader.renew_deadline_s * 1000),
                            retry_period_ms=round(leader.retry_period_s * 1000))
    runtime.on_stop(elector.release)
    elector.start()


def start_scheduler(runtime: Runtime, client: KubeClient, *, conf: SchedulerConf | None, scheduler_name: str,
                    period_ms: int, default_queue: str, leader: LeaderOptions, seed: int = 0,
                    resync_ms: int = 0, default_scheduler: bool = False) -> Scheduler:
    """Volcano's scheduler on ``client`` (see the module docstring); with ``default_scheduler`` also the
    kube-scheduler-like baseline for pods of ``default-scheduler`` (an API server without kube-scheduler)."""
    recorder = _recorder(client, runtime, scheduler_name)
    informers = _informers(client, runtime, recorder, resync_ms)
    scheduler = Scheduler(client, informers, runtime.clock, conf=conf, streams=RandomStreams(seed),
                          trace=Trace(enabled=False), recorder=recorder, scheduler_name=scheduler_name,
                          period_ms=period_ms, default_queue=default_queue)
    runtime.on_stop(scheduler.stop)
    starts = [scheduler.start]
    if default_scheduler:
        baseline = DefaultScheduler(client, informers, runtime.clock, trace=Trace(enabled=False),
                                    recorder=_recorder(client, runtime, "default-scheduler"))
        runtime.on_stop(baseline.stop)
        starts.append(baseline.start)
    def start_all() -> None:
        for start in starts:
            start()

    _lead(runtime, client, leader, start_all)
    return scheduler


def start_controllers(runtime: Runtime, client: KubeClient, *, builtin: bool, leader: LeaderOptions,
                      seed: int = 0, resync_ms: int = 0) -> list[Any]:
    """The controllers on ``client`` (Volcano's; with ``builtin`` Kubernetes' too), started when leading."""
    streams = RandomStreams(seed)
    recorders: dict[str, AsyncEventRecorder] = {}

    def recorder_for(component: str) -> AsyncEventRecorder:
        if component not in recorders:
            recorders[component] = _recorder(client, runtime, component)
        return recorders[component]

    informers = _informers(client, runtime, recorder_for("vc-controller-manager"), resync_ms)
    chosen = [(cls, component) for cls, component in CONTROLLERS if builtin or cls in VOLCANO_CONTROLLERS]
    controllers = [cls(client, informers, runtime.clock, streams=streams, trace=Trace(enabled=False),
                       recorder=recorder_for(component)) for cls, component in chosen]

    def start() -> None:
        for controller in controllers:
            controller.start()

    _lead(runtime, client, leader, start)
    return controllers


def start_nodes(runtime: Runtime, client: KubeClient, **options: Any) -> SimNodes:
    """``SimNodes(client, clock, **options)``, started; its heartbeats stop with the runtime."""
    nodes = SimNodes(client, runtime.clock, recorder=_recorder(client, runtime, "kubelet"), **options)
    runtime.on_stop(nodes.stop)
    nodes.start()
    return nodes
