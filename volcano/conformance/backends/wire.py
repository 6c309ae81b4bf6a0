"""The ``kubeconfig`` backend against this project's components as separate processes, over the wire.

For ``make conformance-wire`` (``--backend kubeconfig --wire``): each case gets
its own process set on loopback, started with the ``volcano`` command exactly
as a user would start it:

* ``volcano serve --api-only``: the API server and Volcano's admission, nothing else;
* a tainted ``control-plane`` Node (registered through the API, as kind's
  control plane is; no kubelet runs pods there);
* ``volcano nodes``: the case's workers (``worker-0`` ...) with their shape and labels;
* ``volcano controllers --builtin-controllers`` and ``volcano scheduler
  --default-scheduler`` (with the case's scheduler configuration; the baseline
  schedules ``default-scheduler`` pods, as kube-scheduler does on kind),
  leader election off.

Every process runs its clock at ``speed`` cluster seconds per wall second, and
the case runs through ``KubeCluster`` (the official-client code that runs
against kind) with the same time scale. Changes are recorded when the suite
reads them, as on a real cluster: the gang window is 2 wall seconds (2 s
times ``speed`` of cluster time). ``WireProcesses`` is the
launcher; the over-the-wire CI test uses it too.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from volcano.conformance.backends.base import ClusterShape
from volcano.conformance.backends.kube import KubeCluster

__all__ = ["WireKubeCluster", "WireProcesses"]

CONTROL_PLANE_TAINT = {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}


class WireProcesses:
    """``volcano`` component processes sharing one API server (started with ``serve``)."""

    def __init__(self, workdir: Path, *, speed: float = 1.0, python: str = sys.executable) -> None:
        self.workdir = Path(workdir)
        self.speed = speed
        self.python = python
        self.kubeconfig = self.workdir / "kubeconfig"
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self._logs: dict[str, IO[bytes]] = {}
        self._ready: dict[str, str] = {}

    def log(self, name: str) -> str:
        """What process ``name`` wrote (stdout and stderr)."""
        path = self.workdir / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def _spawn(self, name: str, command: str, args: list[str], ready: str, timeout: float) -> None:
        log = open(self.workdir / f"{name}.log", "wb")  # noqa: SIM115 - closed in stop()
        self._logs[name] = log
        argv = [self.python, "-c", "import sys; from volcano.cli import main; sys.exit(main())", command, *args]
        self.procs[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self._ready[name] = ready
        if timeout > 0:
            self.wait_ready(name, timeout)

    def wait_ready(self, name: str, timeout: float = 90.0) -> None:
        """Wait until process ``name`` printed its start line (RuntimeError with its log if it exits first)."""
        proc, ready, command = self.procs[name], self._ready[name], name
        deadline = time.monotonic() + timeout
        while ready not in self.log(name):
            if proc.poll() is not None:
                raise RuntimeError(f"{command} exited with {proc.returncode} before it was ready:\n"
                                   f"{self.log(name)[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{command} was not ready within {timeout:g}s:\n{self.log(name)[-2000:]}")
            time.sleep(0.05)

    def start_serve(self, *args: str, timeout: float = 60.0) -> None:
        """``volcano serve --api-only`` on a free loopback port; returns once it listens."""
        self._spawn("serve", "serve", ["--api-only", "--kubeconfig", str(self.kubeconfig), "--speed",
                                       f"{self.speed:g}", *args], "listening on", timeout)
        deadline = time.monotonic() + timeout
        while not self.kubeconfig.exists():
            if time.monotonic() > deadline:
                raise RuntimeError("volcano serve wrote no kubeconfig")
            time.sleep(0.05)

    def start(self, command: str, *args: str, name: str | None = None, timeout: float = 90.0) -> None:
        """``volcano <command> --kubeconfig <serve's> --speed <speed> <args>``; returns once it runs
        (at once with ``timeout=0``: then ``wait_ready``)."""
        self._spawn(name or command, command, ["--kubeconfig", str(self.kubeconfig), "--speed", f"{self.speed:g}",
                                               *args], f"volcano {command}: ", timeout)

    def start_components(self, *, nodes: Sequence[str] | None, controllers: Sequence[str] = (),
                         scheduler: Sequence[str] = (), timeout: float = 90.0) -> None:
        """Start ``volcano nodes <nodes>`` (None: no simulated nodes), ``volcano controllers
        --builtin-controllers <controllers>`` and ``volcano scheduler <scheduler>`` together, then wait
        until every process runs."""
        if nodes is not None:
            self.start("nodes", *nodes, timeout=0)
        self.start("controllers", "--builtin-controllers", *controllers, timeout=0)
        self.start("scheduler", *scheduler, timeout=0)
        for name in list(self.procs):  # started together, waited for together
            self.wait_ready(name, timeout)

    def stop(self, timeout: float = 20.0) -> dict[str, int]:
        """SIGTERM every process (the last started first) and wait; kill those that do not stop.
        Returns each process's exit code (-9: it had to be killed)."""
        codes: dict[str, int] = {}
        for name in reversed(list(self.procs)):
            proc = self.procs[name]
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            try:
                codes[name] = proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                codes[name] = proc.wait(timeout)
                codes[name] = -9
        for log in self._logs.values():
            log.close()
        self.procs.clear()
        self._logs.clear()
        return codes


def _control_plane_node() -> dict[str, Any]:
    capacity = {"cpu": "4", "memory": "16Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "control-plane", "labels": {"node-role.kubernetes.io/control-plane": "",
                                                             "kubernetes.io/hostname": "control-plane"}},
            "spec": {"taints": [CONTROL_PLANE_TAINT]},
            "status": {"capacity": capacity, "allocatable": capacity,
                       "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}}


class WireKubeCluster(KubeCluster):
    """A ``KubeCluster`` talking to this project's components run as processes (module docstring)."""

    backend = "kubeconfig"

    def __init__(self, shape: ClusterShape, *, speed: float, scheduler_conf: str | None = None) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="volcano-wire-")
        root = Path(self._dir.name)
        # changes are recorded when this client reads them: 2 wall seconds of slack, as on a real cluster
        self.gang_window = 2.0 * speed
        self.processes = WireProcesses(root, speed=speed)
        try:
            self._start(shape, scheduler_conf, root)
            super().__init__(shape, kubeconfig=str(self.processes.kubeconfig), time_scale=speed,
                             discovery_cache=str(root / "discovery.json"))
        except BaseException:
            self.processes.stop()
            self._dir.cleanup()
            raise

    def _start(self, shape: ClusterShape, scheduler_conf: str | None, root: Path) -> None:
        from kubernetes import client, config

        procs = self.processes
        procs.start_serve()
        api = config.new_client_from_config(config_file=str(procs.kubeconfig))
        core = client.CoreV1Api(api)
        if shape.control_plane:
            body = client.V1Node.from_dict(_control_plane_node())
            assert body is not None
            core.create_node(body)
        node = shape.node
        nodes: list[str] | None = None
        if shape.workers:
            nodes = ["--count", str(shape.workers), "--prefix", "worker-", "--cpu", node.cpu, "--memory", node.memory,
                     "--pods", str(node.pods), "--gpu", str(node.gpu)]
            for key, value in sorted(node.labels.items()):
                nodes += ["--label", f"{key}={value}"]
        args = ["--leader-elect=false", "--default-scheduler"]
        if scheduler_conf:
            conf = root / "scheduler.conf"
            conf.write_text(scheduler_conf)
            args += ["--scheduler-conf", str(conf)]
        procs.start_components(nodes=nodes, controllers=["--leader-elect=false"], scheduler=args)
        custom = client.CustomObjectsApi(api)
        deadline = time.monotonic() + 60
        while True:  # the scheduler creates the default queue, the queue controller opens it
            try:
                queue: Any = custom.get_cluster_custom_object("scheduling.volcano.sh", "v1beta1", "queues", "default")
                if (queue.get("status") or {}).get("state") == "Open":
                    break
            except client.ApiException:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the default queue was not opened within 60 s:\n"
                                   + procs.log("scheduler")[-1000:] + procs.log("controllers")[-1000:])
            time.sleep(0.05)
        api.close()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.processes.stop()
            self._dir.cleanup()
