"""What the ``ray``, ``ssh`` and ``svc`` Job plugins write, value by value (controllers reference §4.2,
§4.3, §4.8;
upstream ``pkg/controllers/job/plugins/distributed-framework/ray`` and ``plugins/ssh``):

* ``ray``: the head task's container named ``--headContainer`` gets the ports ``gcs``, ``dashboard``
  and ``client-server`` (each unless a port of that number is declared already) and the command
  ``sh -c "ray start --head --block ..."``; the worker task's container named ``--workerContainer``
  gets ``sh -c "ray start --block --address=<head host>:<port>"``; other containers are left alone;
  the Service ``<job>-head-svc`` selects the head task's pods and exposes the three named ports;
* ``ssh``: every container and init container mounts the Secret ``<job>-ssh`` at the key path with
  subPath ``.ssh``; the volume lists the four keys under ``.ssh/`` with mode 0600 (0644 for a key path
  of the user's choosing); keys the user gives are stored as given; a port out of 1..65535 means 22;
  a template hostname gives one Host block for the whole task;
* ``svc``: a template hostname and subdomain are kept and listed once; init containers get the same
  mount and variables as containers; ``--inject-hosts-env=false`` leaves out the variables only;
* ``mpi``: ``--master``/``--worker``/``--port`` name the tasks and the port; init containers get
  ``MPI_HOST`` and the port too; a container already exposing the port gets no second one;
* ``pytorch``: task names and port by flag; the master address honours the master template's hostname
  and subdomain; a container already exposing the port gets no second one;
* ``tensorflow``: role names and port by flag; ``TF_CONFIG`` is compact JSON in Volcano's field order,
  in containers only.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job

pytestmark = pytest.mark.job_plugins
Obj = dict[str, Any]
NO_REQUESTS: dict[str, str] = {}


def _rename_containers(manifest: Obj, names: dict[str, list[str]]) -> Obj:
    """Give each task's pod the containers ``names[task]`` (copies of the builder's one container)."""
    for task in manifest["spec"]["tasks"]:
        [base] = task["template"]["spec"]["containers"]
        task["template"]["spec"]["containers"] = [{**base, "name": n} for n in names[task["name"]]]
    return manifest


def _ports(container: Obj) -> list[tuple[str | None, int]]:
    return [(p.get("name"), int(p["containerPort"])) for p in container.get("ports") or []]


def _containers(cluster: Cluster, pod: str) -> dict[str, Obj]:
    return {c["name"]: c for c in cluster.get("Pod", pod)["spec"]["containers"]}


def test_ray_sets_the_head_and_worker_commands_and_the_head_service(cluster: Cluster) -> None:
    """Default flags: task ``head`` (1 pod, containers ``head`` and ``side``) and task ``worker`` (2 pods,
    containers ``worker`` and ``side``). Only the containers named ``head`` and ``worker`` change: the
    head gets the three ports and ``ray start --head --block --dashboard-host=0.0.0.0 --port=6379
    --dashboard-port=8265 --ray-client-server-port=10001``; each worker ``ray start --block
    --address=<job>-head-0.<job>:6379``. Service ``<job>-head-svc`` selects job name, namespace and task
    ``head`` with TCP ports gcs 6379, dashboard 8265, client-server 10001 targeting the named ports."""
    name = "rayd"
    spec = job(name, [Task(name="head", rep=1, req=NO_REQUESTS), Task(name="worker", rep=2, req=NO_REQUESTS)],
               min=1, plugins={"ray": [], "svc": []})
    cluster.apply(_rename_containers(spec, {"head": ["head", "side"], "worker": ["worker", "side"]}))
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 3, 60, f"pods of {name} created")
    head = _containers(cluster, f"{name}-head-0")
    assert _ports(head["head"]) == [("gcs", 6379), ("dashboard", 8265), ("client-server", 10001)]
    assert head["head"].get("command") == ["sh", "-c", "ray start --head --block --dashboard-host=0.0.0.0 "
                                           "--port=6379 --dashboard-port=8265 --ray-client-server-port=10001"]
    assert (_ports(head["side"]), head["side"].get("command")) == ([], None)
    for i in range(2):
        worker = _containers(cluster, f"{name}-worker-{i}")
        assert worker["worker"].get("command") == ["sh", "-c", f"ray start --block --address={name}-head-0.{name}:6379"]
        assert (_ports(worker["worker"]), worker["side"].get("command")) == ([], None)
    cluster.wait_until(lambda: cluster.try_get("Service", f"{name}-head-svc") is not None, 60, "the head Service")
    svc = cluster.get("Service", f"{name}-head-svc")
    ns = cluster.get("Job", name)["metadata"]["namespace"]
    assert svc["spec"]["selector"] == {"volcano.sh/job-name": name, "volcano.sh/job-namespace": ns,
                                       "volcano.sh/task-spec": "head"}
    assert [(p["name"], p["port"], p["targetPort"], p["protocol"]) for p in svc["spec"]["ports"]] == [
        ("gcs", 6379, "gcs", "TCP"), ("dashboard", 8265, "dashboard", "TCP"),
        ("client-server", 10001, "client-server", "TCP")]
    [owner] = svc["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"], owner.get("controller")) == ("Job", name, True)


def test_ray_flags_name_the_tasks_containers_and_ports(cluster: Cluster) -> None:
    """``--head=boss --headContainer=main --worker=hand --workerContainer=main --port=7000
    --dashboardPort=7001 --clientPort=7002``, the head template with hostname ``chief`` and subdomain
    ``net`` and a declared port 7001: the head gets only the missing gcs and client-server ports after
    its own; the workers' address is ``chief.net:7000``; the head Service selects task ``boss``."""
    name = "rayf"
    args = ["--head=boss", "--headContainer=main", "--worker=hand", "--workerContainer=main", "--port=7000",
            "--dashboardPort=7001", "--clientPort=7002"]
    spec = job(name, [Task(name="boss", rep=1, req=NO_REQUESTS), Task(name="hand", rep=1, req=NO_REQUESTS)],
               min=1, plugins={"ray": args, "svc": []})
    _rename_containers(spec, {"boss": ["main"], "hand": ["main"]})
    head_spec = spec["spec"]["tasks"][0]["template"]["spec"]
    head_spec.update({"hostname": "chief", "subdomain": "net"})
    head_spec["containers"][0]["ports"] = [{"name": "ui", "containerPort": 7001}]
    cluster.apply(spec)
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 2, 60, f"pods of {name} created")
    head = _containers(cluster, f"{name}-boss-0")["main"]
    assert _ports(head) == [("ui", 7001), ("gcs", 7000), ("client-server", 7002)]
    assert head.get("command") == ["sh", "-c", "ray start --head --block --dashboard-host=0.0.0.0 "
                                   "--port=7000 --dashboard-port=7001 --ray-client-server-port=7002"]
    worker = _containers(cluster, f"{name}-hand-0")["main"]
    assert worker.get("command") == ["sh", "-c", "ray start --block --address=chief.net:7000"]
    cluster.wait_until(lambda: cluster.try_get("Service", f"{name}-head-svc") is not None, 60, "the head Service")
    svc = cluster.get("Service", f"{name}-head-svc")["spec"]
    assert svc["selector"]["volcano.sh/task-spec"] == "boss"
    assert [(p["name"], p["port"]) for p in svc["ports"]] == [("gcs", 7000), ("dashboard", 7001),
                                                              ("client-server", 7002)]


def _ssh_job(name: str, args: list[str], *, hostname: str | None = None) -> Obj:
    spec = job(name, [Task(name="m", rep=1, req=NO_REQUESTS), Task(name="w", rep=2, req=NO_REQUESTS)],
               min=1, plugins={"ssh": args})
    for task in spec["spec"]["tasks"]:
        task["template"]["spec"]["initContainers"] = [{"name": "init", "image": "busybox", "command": ["true"]}]
    if hostname:
        spec["spec"]["tasks"][1]["template"]["spec"]["hostname"] = hostname
    return spec


@pytest.mark.parametrize(("args", "path", "mode"), [
    ([], "/root/.ssh", 0o600), (["--ssh-key-file-path=/home/user/.ssh"], "/home/user/.ssh", 0o644)])
def test_ssh_mounts_the_four_keys_in_every_container(cluster: Cluster, args: list[str], path: str,
                                                     mode: int) -> None:
    """Every pod gets the secret volume ``<job>-ssh`` (items id_rsa, id_rsa.pub, authorized_keys,
    config under ``.ssh/``; defaultMode 0600 at the default key path, 0644 elsewhere), mounted in its
    container and its init container at the key path with subPath ``.ssh``."""
    name = "sshmount"
    cluster.apply(_ssh_job(name, args))
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 3, 60, f"pods of {name} created")
    secret = f"{name}-ssh"
    for pod_name in (f"{name}-m-0", f"{name}-w-0", f"{name}-w-1"):
        spec = cluster.get("Pod", pod_name)["spec"]
        [volume] = [v for v in spec.get("volumes") or [] if v["name"] == secret]
        assert volume["secret"]["secretName"] == secret
        assert volume["secret"]["defaultMode"] == mode, (pod_name, volume)
        assert [(i["key"], i["path"]) for i in volume["secret"]["items"]] == [
            (k, f".ssh/{k}") for k in ("id_rsa", "id_rsa.pub", "authorized_keys", "config")]
        for c in spec["containers"] + spec["initContainers"]:
            mounts = [(m["mountPath"], m.get("subPath")) for m in c.get("volumeMounts") or [] if m["name"] == secret]
            assert mounts == [(path, ".ssh")], (pod_name, c["name"], c.get("volumeMounts"))


@pytest.mark.parametrize(("port_arg", "port"), [("65535", 65535), ("65536", 22), ("0", 22)])
def test_ssh_keeps_the_users_keys_and_a_valid_port(cluster: Cluster, port_arg: str, port: int) -> None:
    """Keys given with ``--ssh-private-key``/``--ssh-public-key`` are stored as given (the public key
    also as ``authorized_keys``); ``--ssh-port`` 65535 is kept, 65536 and 0 fall back to 22. Task ``w``
    sets a template hostname ``fixed``, so its two pods share one Host block."""
    name = "sshuser"
    cluster.apply(_ssh_job(name, ["--ssh-private-key=PRIVATE", "--ssh-public-key=PUBLIC",
                                  f"--ssh-port={port_arg}"], hostname="fixed"))
    cluster.wait_until(lambda: cluster.try_get("Secret", f"{name}-ssh") is not None, 60, "the ssh Secret")
    data = {k: base64.b64decode(v).decode() for k, v in cluster.get("Secret", f"{name}-ssh")["data"].items()}
    assert (data["id_rsa"], data["id_rsa.pub"], data["authorized_keys"]) == ("PRIVATE", "PUBLIC", "PUBLIC")
    assert data["config"] == ("StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n"
                              f"Host {name}-m-0\n  HostName {name}-m-0.{name}\n  Port {port}\n"
                              f"Host fixed\n  HostName fixed.{name}\n  Port {port}\n")


@pytest.mark.parametrize("inject", [True, False])
def test_svc_keeps_a_template_hostname_and_reaches_init_containers(cluster: Cluster, inject: bool) -> None:
    """svc (controllers reference §4.2) with task ``ps`` (1 pod, template hostname ``chief`` and
    subdomain ``grid``) and task ``wk`` (2 pods), every pod with an init container: ps keeps its own
    hostname and subdomain and is listed once as ``chief.grid``; wk's pods get their names and the job's
    subdomain. Containers and init containers mount the hosts ConfigMap at /etc/volcano and read the
    ``VC_*`` variables from it, unless ``--inject-hosts-env=false``, which leaves out the variables only."""
    name = "svchost"
    spec = job(name, [Task(name="ps", rep=1, req=NO_REQUESTS), Task(name="wk", rep=2, req=NO_REQUESTS)], min=1,
               plugins={"svc": [] if inject else ["--inject-hosts-env=false"]})
    for task in spec["spec"]["tasks"]:
        task["template"]["spec"]["initContainers"] = [{"name": "init", "image": "busybox", "command": ["true"]}]
    spec["spec"]["tasks"][0]["template"]["spec"].update({"hostname": "chief", "subdomain": "grid"})
    cluster.apply(spec)
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 3, 60, f"pods of {name} created")
    cm = f"{name}-svc"
    keys = ["VC_PS_HOSTS", "VC_PS_NUM", "VC_WK_HOSTS", "VC_WK_NUM"]
    for pod_name, host in ((f"{name}-ps-0", ("chief", "grid")), (f"{name}-wk-0", (f"{name}-wk-0", name)),
                           (f"{name}-wk-1", (f"{name}-wk-1", name))):
        pod_spec = cluster.get("Pod", pod_name)["spec"]
        assert (pod_spec.get("hostname"), pod_spec.get("subdomain")) == host, pod_name
        for c in pod_spec["containers"] + pod_spec["initContainers"]:
            env = [(e["name"], (e.get("valueFrom") or {}).get("configMapKeyRef")) for e in c.get("env") or []
                   if e["name"].startswith("VC_")]
            assert env == ([(k, {"name": cm, "key": k}) for k in keys] if inject else []), (pod_name, c["name"], env)
            assert [m["mountPath"] for m in c.get("volumeMounts") or [] if m["name"] == cm] == ["/etc/volcano"]
    data = cluster.get("ConfigMap", cm)["data"]
    wk_hosts = [f"{name}-wk-0.{name}", f"{name}-wk-1.{name}"]
    assert data == {"ps.host": "chief.grid", "VC_PS_HOSTS": "chief.grid", "VC_PS_NUM": "1",
                    "wk.host": "\n".join(wk_hosts), "VC_WK_HOSTS": ",".join(wk_hosts), "VC_WK_NUM": "2"}


def test_mpi_flags_name_the_tasks_and_port_and_reach_init_containers(cluster: Cluster) -> None:
    """mpi (controllers reference §4.6) with ``--master=boss --worker=hands --port=2200``: boss's
    container (which already exposes 2200) and init container get ``MPI_HOST``, the hands hosts in
    their template subdomain ``net``; every container and init container exposes ``mpijob-port`` 2200
    unless it already has that port; hands' pods get no ``MPI_HOST``."""
    name = "mpiflags"
    spec = job(name, [Task(name="boss", rep=1, req=NO_REQUESTS), Task(name="hands", rep=2, req=NO_REQUESTS)], min=1,
               plugins={"mpi": ["--master=boss", "--worker=hands", "--port=2200"]})
    for task in spec["spec"]["tasks"]:
        task["template"]["spec"]["initContainers"] = [{"name": "init", "image": "busybox", "command": ["true"]}]
    spec["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["ports"] = [{"name": "own", "containerPort": 2200}]
    spec["spec"]["tasks"][1]["template"]["spec"]["subdomain"] = "net"
    cluster.apply(spec)
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 3, 60, f"pods of {name} created")
    hosts = f"{name}-hands-0.net,{name}-hands-1.net"
    for pod_name in (f"{name}-boss-0", f"{name}-hands-0", f"{name}-hands-1"):
        pod_spec = cluster.get("Pod", pod_name)["spec"]
        boss = "boss" in pod_name
        for c in pod_spec["containers"] + pod_spec["initContainers"]:
            mpi_env = [e.get("value") for e in c.get("env") or [] if e["name"] == "MPI_HOST"]
            assert mpi_env == ([hosts] if boss else []), (pod_name, c["name"], c.get("env"))
            own = boss and c["name"] != "init"
            assert _ports(c) == ([("own", 2200)] if own else [("mpijob-port", 2200)]), (pod_name, c["name"])


def test_tensorflow_roles_by_flag_in_compact_json(cluster: Cluster) -> None:
    """tensorflow (controllers reference §4.5; upstream ``tfClusterSpec``) with ``--chief=cf
    --worker=wk --evaluator=ev --port=3333`` and tasks cf (1), wk (2), ev (1) and aux (1, no role):
    every container (not the init container) gets ``TF_CONFIG``, compact JSON with the roles in the
    order ps, worker, chief, evaluator (absent roles left out, aux not listed) and the pod's own role
    (aux: its task name) and index."""
    name = "tfroles"
    tasks = [Task(name=t, rep=r, req=NO_REQUESTS) for t, r in (("cf", 1), ("wk", 2), ("ev", 1), ("aux", 1))]
    spec = job(name, tasks, min=1,
               plugins={"tensorflow": ["--chief=cf", "--worker=wk", "--evaluator=ev", "--port=3333"]})
    for task in spec["spec"]["tasks"]:
        task["template"]["spec"]["initContainers"] = [{"name": "init", "image": "busybox", "command": ["true"]}]
    cluster.apply(spec)
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 5, 60, f"pods of {name} created")

    def hosts(task: str, n: int) -> str:
        return ",".join(f'"{name}-{task}-{i}.{name}:3333"' for i in range(n))

    cluster_json = f'{{"worker":[{hosts("wk", 2)}],"chief":[{hosts("cf", 1)}],"evaluator":[{hosts("ev", 1)}]}}'
    for pod_name, role, index in ((f"{name}-cf-0", "chief", 0), (f"{name}-wk-0", "worker", 0),
                                  (f"{name}-wk-1", "worker", 1), (f"{name}-ev-0", "evaluator", 0),
                                  (f"{name}-aux-0", "aux", 0)):
        pod_spec = cluster.get("Pod", pod_name)["spec"]
        [c] = pod_spec["containers"]
        assert [e.get("value") for e in c.get("env") or [] if e["name"] == "TF_CONFIG"] == [
            f'{{"cluster":{cluster_json},"task":{{"type":"{role}","index":{index}}}}}'], pod_name
        assert not [e for i in pod_spec["initContainers"] for e in i.get("env") or [] if e["name"] == "TF_CONFIG"]


def test_pytorch_flags_and_a_master_template_hostname(cluster: Cluster) -> None:
    """pytorch (controllers reference §4.4) with ``--master=lead --worker=crew --port=29500``, task lead
    (1 pod, template hostname ``boss`` and subdomain ``pt``, its container already exposing 29500) and
    crew (2 pods): every container gets MASTER_ADDR ``boss.pt``, MASTER_PORT 29500 and WORLD_SIZE 3;
    RANK 0 on lead, index + 1 on crew; only containers without the port get ``pytorchjob-port``."""
    name = "ptflags"
    spec = job(name, [Task(name="lead", rep=1, req=NO_REQUESTS), Task(name="crew", rep=2, req=NO_REQUESTS)], min=1,
               plugins={"pytorch": ["--master=lead", "--worker=crew", "--port=29500"]})
    lead = spec["spec"]["tasks"][0]["template"]["spec"]
    lead.update({"hostname": "boss", "subdomain": "pt"})
    lead["containers"][0]["ports"] = [{"name": "own", "containerPort": 29500}]
    cluster.apply(spec)
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 3, 60, f"pods of {name} created")
    for pod_name, rank in ((f"{name}-lead-0", "0"), (f"{name}-crew-0", "1"), (f"{name}-crew-1", "2")):
        [c] = cluster.get("Pod", pod_name)["spec"]["containers"]
        env = {e["name"]: e.get("value") for e in c.get("env") or []}
        assert (env.get("MASTER_ADDR"), env.get("MASTER_PORT"), env.get("WORLD_SIZE"), env.get("RANK")) == \
            ("boss.pt", "29500", "3", rank), (pod_name, env)
        assert _ports(c) == ([("own", 29500)] if "lead" in pod_name else [("pytorchjob-port", 29500)]), pod_name
