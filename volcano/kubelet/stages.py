"""The simulated kubelet's pod lifecycle, stage by stage (``PodStages``, a base of ``SimKubelet``).

* **admit** (``_sync_pod``, ``_admit``, ``_reject``): a pod bound to an up node is
  admitted when it fits next to the pods already admitted there, else rejected;
* **start** (``_start_containers``): after the start delay the containers run;
* **work** (``_sync_progress``, ``_stop_progress``, ``_reevaluate_group``,
  ``_work_done``): remaining work in integer ms, advancing only while the pod may
  progress (for ``gang`` pods, the gang rule, kept incrementally by ``gang.GangTable``);
* **exit** (``_container_exit``, ``_terminate``): the restart policy decides between
  a restart in place and a terminal phase;
* **kill** (``_begin_kill``, ``_kill``, ``_forget``, ``_release``): graceful deletion,
  and dropping every trace of a pod that is gone;
* **writes** (``_current``, ``_patch_status``, ``_force_delete``...): status merge
  patches and deletes with a uid precondition, through the client.

Nothing here subscribes to informers: ``SimKubelet`` (``volcano.kubelet.kubelet``)
feeds the stages from its handlers and owns the node-level operations.
"""

from __future__ import annotations

import sys
from typing import Any

from volcano.api import accessors
from volcano.api.quantity import QuantityError
from volcano.api.resources import pod_requests
from volcano.apiserver.client import Client, Obj
from volcano.apiserver.errors import ApiError
from volcano.kubelet.admit import fit_failure
from volcano.kubelet.config import KubeletConfig, SimAnnotationError, parse_sim_spec
from volcano.kubelet.gang import GangTable
from volcano.kubelet.state import NodeState, PodStage, PodState
from volcano.kubelet.status import (
    container_statuses,
    pod_conditions,
    running_state,
    terminated_state,
    waiting_state,
)
from volcano.sim import Clock, Priority, TimerHandle, Trace

__all__ = ["PodStages"]

_TERMINAL_PHASES = ("Succeeded", "Failed")


class PodStages:
    """The per-pod stages of the simulated kubelet (see the module docstring)."""

    client: Client
    clock: Clock
    config: KubeletConfig
    trace: Trace
    recorder: Any
    _rng: Any
    _pods: dict[str, PodState]
    _nodes: dict[str, NodeState]
    _gangs: GangTable
    _ip_seq: int

    def _sync_pod(self, key: str, obj: Obj | None) -> None:
        st = self._pods.get(key)
        if st is not None and (obj is None or accessors.meta(obj).get("uid") != st.uid):
            self._forget(st)
            st = None
        if obj is None:
            return
        deleting = bool(accessors.meta(obj).get("deletionTimestamp"))
        if st is not None:
            node = self._nodes.get(st.node)
            if deleting and node is not None and not node.down:
                if not st.killing:
                    self._begin_kill(st, obj)
                elif st.kill_timer is not None:
                    self._shorten_kill(st, obj)
            return
        node_name = (obj.get("spec") or {}).get("nodeName")
        if not node_name or (obj.get("status") or {}).get("phase") in _TERMINAL_PHASES:
            return
        node = self._nodes.get(node_name)
        if node is None or node.down:
            return  # no kubelet runs there (yet): the pod waits, as on a real cluster
        if deleting:
            self.trace.record(self.clock.now_ms, "kubelet", "PodKilled", key, node_name)
            self._force_delete(key, accessors.meta(obj).get("uid"))
            return
        self._admit(key, obj, node)

    def _admit(self, key: str, obj: Obj, node: NodeState) -> None:
        meta = accessors.meta(obj)
        st = PodState(key, meta.get("namespace", ""), meta.get("name", ""), meta.get("uid", ""), node.name)
        self._pods[key] = st
        try:
            spec = parse_sim_spec(obj)
            requests = pod_requests(obj)
        except SimAnnotationError as err:
            self._reject(st, obj, "InvalidSimAnnotation", str(err))
            return
        except (QuantityError, ValueError, TypeError) as err:
            self._reject(st, obj, "UnexpectedAdmissionError", str(err))
            return
        failure = fit_failure(node, requests)
        if failure is not None:
            self._reject(st, obj, *failure)
            return
        st.spec = spec
        st.requests = requests
        st.restart_policy = (obj.get("spec") or {}).get("restartPolicy") or "Always"
        # Interned: the queue controller keeps the same PodGroup key (one string per PodGroup).
        st.group = sys.intern(f"{st.namespace}/{spec.group}") if spec.group else None
        st.stage = PodStage.STARTING
        node.pods[key] = st
        node.used = node.used + requests
        if st.group is not None:
            self._gangs.join(st.group, key)
        st.timer = self.clock.call_later(self.config.start_delay_ms, self._start_containers, st,
                                         priority=Priority.KUBELET)

    def _reject(self, st: PodState, obj: Obj, reason: str, message: str) -> None:
        st.stage = PodStage.TERMINATED
        if self.recorder is not None:
            self.recorder.event(obj, "Warning", reason, message)
        self.trace.record(self.clock.now_ms, "kubelet", "PodRejected", st.key, f"{st.node} {reason}")
        self._patch_status(st, {"phase": "Failed", "reason": reason, "message": f"Pod was rejected: {message}"})

    def _pod_ip(self, node: NodeState) -> str:
        parts = node.pod_cidr.split("/")[0].split(".") if node.pod_cidr.endswith("/24") else []
        if len(parts) == 4:
            node.next_ip += 1
            return ".".join([*parts[:3], str(2 + (node.next_ip - 1) % 253)])
        self._ip_seq += 1
        k = self._ip_seq
        return f"10.{128 + (k >> 16) % 128}.{(k >> 8) & 255}.{k & 255}"

    def _start_containers(self, st: PodState) -> None:
        st.timer = None
        node = self._nodes.get(st.node)
        if node is None or node.down or st.stage not in (PodStage.STARTING, PodStage.RESTARTING):
            return
        pod = self._current(st)
        if pod is None:
            return
        now = self._now()
        first = st.stage is PodStage.STARTING
        if first:
            st.pod_ip = self._pod_ip(node)
            st.start_time = now
        st.container_id = f"containerd://{self._rng.getrandbits(248):062x}"
        st.started_at = now
        st.stage = PodStage.RUNNING
        st.remaining_ms = st.spec.duration_ms or 0 if st.spec is not None else 0
        status: dict[str, Any] = {
            "phase": "Running",
            "conditions": pod_conditions((pod.get("status") or {}).get("conditions"), initialized=True,
                                         ready=True, now=now),
            "containerStatuses": container_statuses(pod, state=running_state(now), ready=True, started=True,
                                                    restart_count=st.restart_count,
                                                    container_id=st.container_id, last_state=st.last_state),
        }
        if first:
            status.update({"hostIP": node.host_ip or None, "hostIPs": [{"ip": node.host_ip}] if node.host_ip else None,
                           "podIP": st.pod_ip, "podIPs": [{"ip": st.pod_ip}], "startTime": now})
        if not self._patch_status(st, status):
            return
        self.trace.record(self.clock.now_ms, "kubelet", "PodRunning" if first else "PodRestarted", st.key, st.node)
        if st.group is not None:
            self._gangs.start(st.group, st.key)
            self._reevaluate_group(st.group, st)
        else:
            self._sync_progress(st)

    # ------------------------------------------------------------------ work

    def _should_progress(self, st: PodState) -> bool:
        if st.stage is not PodStage.RUNNING or st.spec is None or st.spec.duration_ms is None:
            return False
        node = self._nodes.get(st.node)
        if node is None or node.down:
            return False
        if not st.spec.gang or st.group is None:
            return True
        return self._gangs.ok(st.group)

    def _sync_progress(self, st: PodState) -> None:
        want = self._should_progress(st)
        if want and not st.progressing:
            st.progressing = True
            st.segment_start_ms = self.clock.now_ms
            st.timer = self.clock.call_at(self.clock.now_ms + st.remaining_ms, self._work_done, st,
                                          priority=Priority.KUBELET)
        elif not want and st.progressing:
            self._stop_progress(st)

    def _stop_progress(self, st: PodState) -> None:
        if not st.progressing:
            return
        elapsed = self.clock.now_ms - st.segment_start_ms
        if elapsed >= st.remaining_ms and st.stage is PodStage.RUNNING:
            node = self._nodes.get(st.node)
            if node is not None and not node.down:
                return  # the work is done this very millisecond: let its timer fire
        st.progressing = False
        st.remaining_ms = max(0, st.remaining_ms - elapsed)
        if st.timer is not None:
            st.timer.cancel()
            st.timer = None

    def _reevaluate_group(self, gkey: str, changed: PodState | None = None, *, full: bool = False) -> None:
        """Bring the group's members' progress in line with the gang rule after a change.

        Only when the group's answer flipped (or ``full``: its PodGroup changed, a node
        failed or recovered) does every member (in key order) need a look; otherwise
        the others' answers are unchanged and only ``changed`` is synced: O(1) per pod."""
        flipped = self._gangs.settle(gkey)
        if full or flipped:
            for key in self._gangs.sorted_members(gkey):
                st = self._pods.get(key)
                if st is not None:
                    self._sync_progress(st)
        elif changed is not None and self._gangs.is_member(gkey, changed.key):
            self._sync_progress(changed)

    def _work_done(self, st: PodState) -> None:
        st.timer = None
        st.progressing = False
        st.remaining_ms = 0
        if st.stage is not PodStage.RUNNING or st.spec is None:
            return
        self._container_exit(st, st.spec.exit_code)

    def _container_exit(self, st: PodState, exit_code: int) -> None:
        pod = self._current(st)
        if pod is None:
            return
        now = self._now()
        deleting = bool(accessors.meta(pod).get("deletionTimestamp"))
        restart = not deleting and (st.restart_policy == "Always"
                                    or (st.restart_policy == "OnFailure" and exit_code != 0))
        if st.group is not None:
            self._gangs.stop(st.group, st.key)
        terminated = terminated_state(exit_code, st.started_at, now, st.container_id)
        if restart:
            st.stage = PodStage.RESTARTING
            st.restart_count += 1
            st.last_state = terminated
            self._patch_status(st, {
                "phase": "Running",
                "conditions": pod_conditions((pod.get("status") or {}).get("conditions"), initialized=True,
                                             ready=False, now=now, reason="ContainersNotReady"),
                "containerStatuses": container_statuses(
                    pod, state=waiting_state("CrashLoopBackOff"), ready=False, started=False,
                    restart_count=st.restart_count, container_id=st.container_id, last_state=terminated),
            })
            st.timer = self.clock.call_later(self.config.start_delay_ms, self._start_containers, st,
                                             priority=Priority.KUBELET)
            if st.group is not None:
                self._reevaluate_group(st.group, st)
            return
        self._terminate(st, pod, exit_code, terminated, "PodSucceeded" if exit_code == 0 else "PodFailed")
        if exit_code == 0 and st.group is not None:
            self._gangs.succeed(st.group, st.key)
        if st.group is not None:
            self._reevaluate_group(st.group, st)
        if deleting:
            self._force_delete(st.key, st.uid)

    def _terminate(self, st: PodState, pod: Obj, exit_code: int, terminated: dict[str, Any], event: str) -> None:
        """Write the terminal phase and release the pod's resources on its node."""
        phase = "Succeeded" if exit_code == 0 else "Failed"
        self._release(st)
        st.stage = PodStage.TERMINATED
        if st.kill_timer is not None:
            st.kill_timer.cancel()
            st.kill_timer = None
        now = self._now()
        self._patch_status(st, {
            "phase": phase,
            "conditions": pod_conditions((pod.get("status") or {}).get("conditions"), initialized=True,
                                         ready=False, now=now, reason="PodCompleted"),
            "containerStatuses": container_statuses(
                pod, state=terminated, ready=False, started=False, restart_count=st.restart_count,
                container_id=st.container_id, last_state=st.last_state),
        })
        self.trace.record(self.clock.now_ms, "kubelet", event, st.key, st.node)

    # ------------------------------------------------------------------ deletion

    def _begin_kill(self, st: PodState, pod: Obj) -> None:
        if st.stage is PodStage.TERMINATED:
            self._force_delete(st.key, st.uid)
            return
        st.killing = True
        if st.stage in (PodStage.STARTING, PodStage.RESTARTING):
            self.trace.record(self.clock.now_ms, "kubelet", "PodKilled", st.key, st.node)
            self._force_delete(st.key, st.uid)
            return
        meta = accessors.meta(pod)
        grace = meta.get("deletionGracePeriodSeconds")
        if grace is None:
            grace = (pod.get("spec") or {}).get("terminationGracePeriodSeconds", 30)
        grace_ms = max(0, int(grace)) * 1000
        stop = self.config.stop_delay_ms
        by_stop = stop is not None and stop < grace_ms
        delay = stop if by_stop and stop is not None else grace_ms
        if self.recorder is not None:
            for container in (pod.get("spec") or {}).get("containers") or ():
                self.recorder.event(pod, "Normal", "Killing", f"Stopping container {container.get('name')}")
        st.kill_at_ms = self.clock.now_ms + delay
        st.kill_timer = self.clock.call_later(delay, self._kill, st, 0 if by_stop else 137,
                                              priority=Priority.KUBELET)

    def _shorten_kill(self, st: PodState, pod: Obj) -> None:
        """A later DELETE shortened the grace period: the containers are killed (exit 137) when the
        new period runs out, if that is sooner than the kill already planned. A longer or equal
        period changes nothing, as the kubelet only ever shortens an ongoing termination."""
        grace = accessors.meta(pod).get("deletionGracePeriodSeconds")
        if grace is None or st.kill_timer is None:
            return
        delay = max(0, int(grace)) * 1000
        if self.clock.now_ms + delay >= st.kill_at_ms:
            return
        st.kill_timer.cancel()
        st.kill_at_ms = self.clock.now_ms + delay
        st.kill_timer = self.clock.call_later(delay, self._kill, st, 137, priority=Priority.KUBELET)

    def _kill(self, st: PodState, exit_code: int) -> None:
        st.kill_timer = None
        if st.stage is not PodStage.RUNNING:
            return
        pod = self._current(st)
        if pod is None:
            return
        self._stop_progress(st)
        st.progressing = False
        if st.timer is not None:
            st.timer.cancel()
            st.timer = None
        if st.group is not None:
            self._gangs.stop(st.group, st.key)
        terminated = terminated_state(exit_code, st.started_at, self._now(), st.container_id)
        self._terminate(st, pod, exit_code, terminated, "PodKilled")
        if st.group is not None:
            self._reevaluate_group(st.group, st)
        self._force_delete(st.key, st.uid)

    def _forget(self, st: PodState) -> None:
        """The pod object is gone (or replaced): drop every trace of it."""
        for attr in ("timer", "kill_timer"):
            handle: TimerHandle | None = getattr(st, attr)
            if handle is not None:
                handle.cancel()
                setattr(st, attr, None)
        st.progressing = False
        self._release(st)
        self._pods.pop(st.key, None)
        if st.group is not None:
            self._gangs.leave(st.group, st.key)
            self._reevaluate_group(st.group)

    def _release(self, st: PodState) -> None:
        node = self._nodes.get(st.node)
        if node is not None and node.pods.pop(st.key, None) is not None:
            node.used = node.used - st.requests

    # ------------------------------------------------------------------ writes

    def _now(self) -> str:
        return self.clock.timestamp()

    def _current(self, st: PodState) -> Obj | None:
        """The pod as the API server has it now (the status manager reads before it writes)."""
        try:
            pod = self.client.get("Pod", st.name, st.namespace)
        except ApiError as err:
            if err.code == 404:
                return None
            raise
        return pod if accessors.meta(pod).get("uid") == st.uid else None

    def _patch_status(self, st: PodState, status: dict[str, Any]) -> bool:
        return self._patch(self.client.patch, "Pod", st.name, {"status": status}, st.namespace,
                           subresource="status")

    def _patch_node_status(self, name: str, conditions: list[dict[str, Any]]) -> None:
        self._patch(self.client.patch, "Node", name, {"status": {"conditions": conditions}}, None,
                    subresource="status")

    @staticmethod
    def _patch(fn: Any, kind: str, name: str, body: dict[str, Any], namespace: str | None,
               subresource: str | None = None) -> bool:
        try:
            fn(kind, name, body, namespace, subresource=subresource)
        except ApiError as err:
            if err.code in (400, 404, 422):  # gone, or an object the server no longer accepts: nothing to do
                return False
            raise
        return True

    def _force_delete(self, key: str, uid: str | None) -> None:
        namespace, _, name = key.partition("/")
        try:
            self.client.delete("Pod", name, namespace, grace_period_seconds=0,
                               preconditions={"uid": uid} if uid else None)
        except ApiError as err:
            if err.code not in (404, 409):
                raise
