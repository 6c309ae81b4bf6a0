"""What the Job plugins write into pods and what they remove (controllers reference §4.1, §4.2, §4.4):

* ``env``: ``VK_TASK_INDEX`` and ``VC_TASK_INDEX``, the pod's index, in every container and init
  container;
* ``pytorch``: the master address and port, the world size (master plus worker replicas) and a rank
  per master and worker pod (none for other tasks); worker pods wait for the master in an init
  container only when asked to;
* ``svc``: the ConfigMap, Service and NetworkPolicy it made go when the job finishes.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job
from volcano.conformance.lib.waits import wait_job_phase

pytestmark = pytest.mark.job_plugins
Obj = dict[str, Any]
NO_REQUESTS: dict[str, str] = {}


def _env(container: Obj) -> dict[str, str | None]:
    return {e["name"]: e.get("value") for e in container.get("env") or []}


def _with_init_container(spec: Obj) -> Obj:
    for task in spec["spec"]["tasks"]:
        task["template"]["spec"]["initContainers"] = [{"name": "init", "image": "busybox", "command": ["true"]}]
    return spec


def test_env_gives_every_container_the_pod_index(cluster: Cluster) -> None:
    """Tasks of 2 and 1 replicas, each pod with a container and an init container: every one of them
    gets both index variables, with the pod's own index."""
    name = "envjob"
    cluster.apply(_with_init_container(job(name, [Task(name="a", rep=2, req=NO_REQUESTS),
                                                  Task(name="b", rep=1, req=NO_REQUESTS)], plugins={"env": []})))
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 3, 60, f"pods of {name} created")
    for pod_name, index in ((f"{name}-a-0", "0"), (f"{name}-a-1", "1"), (f"{name}-b-0", "0")):
        spec = cluster.get("Pod", pod_name)["spec"]
        for c in spec["containers"] + spec["initContainers"]:
            env = _env(c)
            assert (env.get("VK_TASK_INDEX"), env.get("VC_TASK_INDEX")) == (index, index), (pod_name, c["name"], env)


@pytest.mark.parametrize("args", [[], ["--port=2345", "--wait-master-enabled=true"],
                                  ["--wait-master-enabled", "--wait-master-image=busybox:stable"]])
def test_pytorch_ranks_masters_and_workers(cluster: Cluster, args: list[str]) -> None:
    """Master (1), worker (2) and ``other`` (1): every container gets MASTER_ADDR (the first master
    pod's host), MASTER_PORT and WORLD_SIZE 3 and exposes the port; RANK is 0 on the master, index + 1
    on workers, absent elsewhere. With ``--wait-master-enabled`` each worker (only) gets the
    ``wait-for-master`` init container polling the master's port, from the image asked for."""
    name = "torch"
    port = "2345" if "--port=2345" in args else "23456"
    wait = any(a.startswith("--wait-master-enabled") for a in args)
    image = "busybox:stable" if "--wait-master-image=busybox:stable" in args else "busybox:1.36.1"
    cluster.apply(job(name, [Task(name="master", rep=1, req=NO_REQUESTS), Task(name="worker", rep=2, req=NO_REQUESTS),
                             Task(name="other", rep=1, req=NO_REQUESTS)], plugins={"pytorch": args}))
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 4, 60, f"pods of {name} created")
    addr = f"{name}-master-0.{name}"
    for pod_name, rank in ((f"{name}-master-0", "0"), (f"{name}-worker-0", "1"), (f"{name}-worker-1", "2"),
                           (f"{name}-other-0", None)):
        spec = cluster.get("Pod", pod_name)["spec"]
        [c] = spec["containers"]
        env = _env(c)
        assert (env.get("MASTER_ADDR"), env.get("MASTER_PORT"), env.get("WORLD_SIZE"), env.get("RANK")) == \
            (addr, port, "3", rank), (pod_name, env)
        assert {"name": "pytorchjob-port", "containerPort": int(port)} in \
            [{k: p.get(k) for k in ("name", "containerPort")} for p in c.get("ports") or []], c.get("ports")
        inits = [(i["name"], i["image"], i.get("command")) for i in spec.get("initContainers") or []]
        if wait and "worker" in pod_name:
            assert inits == [("wait-for-master", image,
                              ["sh", "-c", f"until nc -z {addr} {port}; do sleep 2; done"])], inits
        else:
            assert inits == [], (pod_name, inits)


def test_svc_removes_what_it_made_when_the_job_finishes(cluster: Cluster) -> None:
    """A svc job whose one pod ends after 5 s: while it runs, its ConfigMap ``<job>-svc``, headless
    Service and NetworkPolicy ``<job>`` exist; once Completed all three are gone and the job no longer
    records the plugin in ``status.controlledResources``."""
    name = "svcdone"
    cluster.apply(job(name, [Task(name="t", rep=1, req=NO_REQUESTS, duration="5s", restart_policy="Never")],
                      plugins={"svc": []}))
    made = [("ConfigMap", f"{name}-svc"), ("Service", name), ("NetworkPolicy", name)]
    cluster.wait_until(lambda: all(cluster.try_get(k, n) is not None for k, n in made), 60, f"{made} created")
    wait_job_phase(cluster, name, "Completed", 120)
    cluster.wait_until(lambda: all(cluster.try_get(k, n) is None for k, n in made), 60, f"{made} deleted")
    resources = cluster.get("Job", name)["status"].get("controlledResources") or {}
    assert "plugin-svc" not in resources, resources


@pytest.mark.parametrize(("args", "port"), [([], 22), (["--port=5000"], 5000)])
def test_mpi_gives_the_master_the_worker_hosts_and_every_pod_the_port(cluster: Cluster, args: list[str],
                                                                        port: int) -> None:
    """Master (1) and worker (2) with the mpi plugin: the master's containers get MPI_HOST, the
    worker hosts joined by commas; every container of every pod exposes ``mpijob-port`` at the port;
    the workers get no MPI variable and no env entry without a name."""
    name = "mpienv"
    cluster.apply(job(name, [Task(name="master", rep=1, req=NO_REQUESTS), Task(name="worker", rep=2, req=NO_REQUESTS)],
                      min=1, plugins={"mpi": args}))
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 3, 60, f"pods of {name} created")
    hosts = f"{name}-worker-0.{name},{name}-worker-1.{name}"
    for pod_name in (f"{name}-master-0", f"{name}-worker-0", f"{name}-worker-1"):
        [c] = cluster.get("Pod", pod_name)["spec"]["containers"]
        assert all(e.get("name") for e in c.get("env") or []), (pod_name, c.get("env"))
        env = _env(c)
        assert env.get("MPI_HOST") == (hosts if "master" in pod_name else None), (pod_name, env)
        assert {"name": "mpijob-port", "containerPort": port} in \
            [{k: p.get(k) for k in ("name", "containerPort")} for p in c.get("ports") or []], c.get("ports")
