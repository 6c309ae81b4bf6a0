"""Job controller limits at the boundary, seen the way a Volcano user sees them.

Each limit is tested at the limit itself and one step on each side, with replicas different from
the limit so that a check against the wrong count shows:

* task ``maxRetry``: ``TaskFailed`` fires when the container restarts of the task reach it, not one
  restart earlier or later (controllers reference §2.2, ``cache.TaskFailed``: restarts >= maxRetry);
* job ``maxRetry``: a job restarted on ``PodFailed`` runs ``maxRetry`` times and then fails with
  ``retryCount`` = maxRetry (§3.4: Restarting -> Failed once retryCount >= maxRetry);
* ``minSuccess`` below replicas: the job completes at the ``minSuccess``-th succeeded pod (§3.3);
* a task's ``minAvailable`` (the PodGroup's ``minTaskMember``): a job whose total reaches its
  ``minAvailable`` still waits while one task is below its own minimum (scheduler reference §5.2).
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job, pod
from volcano.conformance.lib.waits import bound, count_phase, job_phase, pod_group_of, wait_job_phase

pytestmark = pytest.mark.job_lifecycle
Obj = dict[str, Any]
NO_REQUESTS: dict[str, str] = {}


def _restarts(p: Obj) -> int:
    return sum(int(cs.get("restartCount") or 0) for cs in p.get("status", {}).get("containerStatuses") or [])


@pytest.mark.parametrize("max_retry", [1, 2, 3])
def test_task_failed_fires_at_the_max_retry_restart(cluster: Cluster, max_retry: int) -> None:
    """A task whose one pod restarts in place (OnFailure, exit 1 every 20 s) with ``maxRetry`` m and a
    job policy TaskFailed -> TerminateJob: the job terminates on the m-th restart, so the pod never
    shows more (nor, the job having run until then, fewer) than m restarts. A second task keeps the
    job above its minAvailable throughout."""
    name = f"task-retry-{max_retry}"
    cluster.apply(job(name, [
        Task(name="steady", rep=2, min=1, req=NO_REQUESTS),
        Task(name="flaky", rep=1, min=1, req=NO_REQUESTS, duration="20s", exit_code=1, max_retry=max_retry),
    ], policies=[{"event": "TaskFailed", "action": "TerminateJob"}]))
    wait_job_phase(cluster, name, "Terminated", 900)
    restarts = [_restarts(obj) for _, kind, _, obj in cluster.recorded_history()
                if kind == "Pod" and obj["metadata"]["name"] == f"{name}-flaky-0"]
    assert max(restarts) == max_retry, restarts


def _runs(cluster: Cluster, name: str) -> set[str]:
    """Uids of every pod of ``name`` the watch saw created."""
    return {obj["metadata"]["uid"] for _, kind, event, obj in cluster.recorded_history()
            if kind == "Pod" and event == "ADDED"
            and (obj["metadata"].get("labels") or {}).get("volcano.sh/job-name") == name}


@pytest.mark.parametrize("max_retry", [1, 2, 3])
def test_a_restarted_job_runs_max_retry_times_then_fails(cluster: Cluster, max_retry: int) -> None:
    """One pod failing after 5 s, policy PodFailed -> RestartJob, job ``maxRetry`` m: the job runs m
    times (m pods created, one per run); the m-th restart request moves it to Restarting with
    retryCount m and from there straight to Failed, without another Pending or Running."""
    name = f"job-retry-{max_retry}"
    cluster.apply(job(name, [Task(name="fails", rep=1, min=1, req=NO_REQUESTS, duration="5s", exit_code=1,
                                  restart_policy="Never")],
                      policies=[{"event": "PodFailed", "action": "RestartJob"}], max_retry=max_retry))
    wait_job_phase(cluster, name, "Failed", 900)
    status = cluster.get("Job", name)["status"]
    # The controller appends a condition per phase it sets (dropping the older one of that phase).
    written = [c.get("status") for c in status.get("conditions") or []]
    assert written[-2:] == ["Restarting", "Failed"], written
    assert status.get("retryCount") == max_retry, status
    assert len(_runs(cluster, name)) == max_retry
    cluster.hold(lambda: job_phase(cluster, name) == "Failed" and len(_runs(cluster, name)) == max_retry, 30,
                 "a Failed job starts no further run")


@pytest.mark.parametrize(("succeeding", "completes"), [(1, False), (2, True), (3, True)])
def test_min_success_completes_at_the_limit_not_at_replicas(cluster: Cluster, succeeding: int,
                                                             completes: bool) -> None:
    """minSuccess 2 over 4 pods, of which ``succeeding`` end after 5 s and the rest run on: the job
    completes with 2 or 3 succeeded pods (not waiting for all 4) and keeps running with 1."""
    name = f"min-success-{succeeding}"
    cluster.apply(job(name, [Task(name="short", rep=succeeding, min=0, req=NO_REQUESTS, duration="5s"),
                             Task(name="long", rep=4 - succeeding, min=0, req=NO_REQUESTS)],
                      min=1, min_success=2))
    cluster.wait_until(lambda: count_phase(cluster.job_pods(name), ("Succeeded",)) >= succeeding
                       or job_phase(cluster, name) == "Completed", 120, f"{succeeding} pods of {name} done")
    if completes:
        wait_job_phase(cluster, name, "Completed", 60)
    else:
        cluster.hold(lambda: job_phase(cluster, name) == "Running", 60, f"{name} keeps running")


def _first_worker_with_room(cluster: Cluster, room: int) -> dict[str, str]:
    """Fill the first worker but ``room`` CPUs; the node selector of that worker."""
    worker = cluster.worker_nodes()[0]
    host = {"kubernetes.io/hostname": worker["metadata"]["name"]}
    cpu = int(worker["status"]["allocatable"]["cpu"])
    cluster.apply(pod("filler", req={"cpu": str(cpu - room)}, node_selector=host))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "filler")), 60, "filler bound")
    return host


@pytest.mark.gang
@pytest.mark.parametrize(("room", "bound_pods"), [(1, 0), (2, 4), (3, 5)])
def test_a_task_below_its_min_available_holds_the_whole_job(cluster: Cluster, room: int, bound_pods: int) -> None:
    """Task ``pinned`` (3 replicas, minAvailable 2) may only use the first worker, which has ``room``
    free CPUs; task ``free`` (2 replicas, minAvailable 1) fits anywhere; the job's minAvailable is 3.
    With room 1 the total could reach 3 (1 + 2) but ``pinned`` is below its minimum: nothing binds.
    From room 2 everything that fits binds."""
    host = _first_worker_with_room(cluster, room)
    name = f"task-min-{room}"
    cluster.apply(job(name, [Task(name="pinned", rep=3, min=2, min_available=2, node_selector=host),
                             Task(name="free", rep=2, min=1, min_available=1)]))
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 5, 60, f"pods of {name} created")
    pg = pod_group_of(cluster, name)
    assert pg is not None and pg["spec"]["minMember"] == 3
    assert pg["spec"].get("minTaskMember") == {"pinned": 2, "free": 1}

    def placed() -> int:
        return sum(1 for p in cluster.job_pods(name) if bound(p))

    if bound_pods:
        cluster.wait_until(lambda: placed() == bound_pods, 120, f"{bound_pods} pods of {name} bound")
    cluster.hold(lambda: placed() == bound_pods, 30, f"exactly {bound_pods} pods of {name} bound")


def _rank(p: Obj) -> str | None:
    return (p["metadata"].get("annotations") or {}).get("hccl/rankIndex")


@pytest.mark.job_plugins
@pytest.mark.parametrize(("args", "master", "worker"), [
    ([], "master", "worker"),
    (["--master=chief", "--worker=node"], "chief", "node"),
])
def test_hcclrank_numbers_masters_then_workers(cluster: Cluster, args: list[str], master: str, worker: str) -> None:
    """The hcclrank plugin (controllers reference §4.7): master pods get their task index as
    ``hccl/rankIndex``, worker pods the master replicas plus their index, other tasks nothing; a
    container env ``RANK`` with a literal value wins over both."""
    name = "hccl"
    rank_env = Task(name="ranked", rep=1, req=NO_REQUESTS).manifest(name, 3)
    rank_env["template"]["spec"]["containers"][0]["env"] = [{"name": "RANK", "value": "7"}]
    spec = job(name, [Task(name=master, rep=2, req=NO_REQUESTS), Task(name=worker, rep=3, req=NO_REQUESTS),
                      Task(name="other", rep=1, req=NO_REQUESTS)], plugins={"hcclrank": args})
    spec["spec"]["tasks"].append(rank_env)
    spec["spec"]["minAvailable"] = 7
    cluster.apply(spec)
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 7, 60, f"pods of {name} created")
    ranks = {p["metadata"]["name"]: _rank(p) for p in cluster.job_pods(name)}
    assert ranks == {f"{name}-{master}-0": "0", f"{name}-{master}-1": "1", f"{name}-{worker}-0": "2",
                     f"{name}-{worker}-1": "3", f"{name}-{worker}-2": "4", f"{name}-other-0": None,
                     f"{name}-ranked-0": "7"}


def _claims(p: Obj) -> list[tuple[str, list[str]]]:
    """(claim, mount paths of the volume in the pod's containers) per PVC volume of the pod."""
    out = []
    for v in p["spec"].get("volumes") or []:
        claim = (v.get("persistentVolumeClaim") or {}).get("claimName")
        if claim:
            mounts = [m["mountPath"] for c in p["spec"]["containers"] for m in c.get("volumeMounts") or []
                      if m["name"] == v["name"]]
            out.append((claim, mounts))
    return out


PVC_SPEC = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}


@pytest.mark.parametrize("kind", ["generated", "existing", "missing"])
def test_job_volumes_become_claims_mounted_in_every_pod(cluster: Cluster, kind: str) -> None:
    """A Job volume (controllers reference §1.2.4): with only ``volumeClaim`` the controller creates
    the PVC ``<job>-pvc-<12 characters>``, owned by the job, and writes its name back (admission refuses a name and a
    ``volumeClaim`` together); a named claim that exists is used as it is; a named claim that does
    not exist keeps the job without pods (a PVCError event) until it is created. Every container of
    every pod mounts each distinct claim once."""
    name = f"vol-{kind}"
    spec = job(name, [Task(name="task", rep=2, req=NO_REQUESTS)])
    if kind == "generated":
        spec["spec"]["volumes"] = [{"mountPath": "/data", "volumeClaim": dict(PVC_SPEC)}]
    else:
        spec["spec"]["volumes"] = [{"mountPath": "/data", "volumeClaimName": "shared"},
                                   {"mountPath": "/again", "volumeClaimName": "shared"}]
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "shared"}, "spec": PVC_SPEC}
    if kind == "existing":
        cluster.apply(pvc)
    cluster.apply(spec)
    if kind == "missing":
        cluster.wait_until(lambda: any(e.get("reason") == "PVCError" for e in cluster.events(kind="Job", name=name)),
                           60, "a PVCError event")
        cluster.hold(lambda: not cluster.job_pods(name), 20, "no pod while the claim is missing")
        cluster.apply(pvc)
    cluster.wait_until(lambda: len(cluster.job_pods(name)) == 2, 120, f"pods of {name} created")
    claim = cluster.get("Job", name)["spec"]["volumes"][0].get("volumeClaimName", "")
    assert cluster.try_get("PersistentVolumeClaim", claim) is not None, claim
    if kind == "generated":
        assert claim.startswith(f"{name}-pvc-") and len(claim) == len(f"{name}-pvc-") + 12, claim
        owners = cluster.get("PersistentVolumeClaim", claim)["metadata"].get("ownerReferences") or []
        assert [(o["kind"], o["name"], o.get("controller")) for o in owners] == [("Job", name, True)], owners
    assert [_claims(p) for p in cluster.job_pods(name)] == [[(claim, ["/data"])]] * 2


@pytest.mark.parametrize(("room", "follows"), [(1, False), (2, True)])
def test_a_dependent_task_waits_for_its_dependency_to_be_ready(cluster: Cluster, room: int, follows: bool) -> None:
    """Task ``b`` depends on task ``a`` (3 replicas, minAvailable 2): b's pods are created only once
    2 of a's pods run. ``a`` may only use the first worker, which has ``room`` free CPUs."""
    host = _first_worker_with_room(cluster, room)
    name = f"dag-{room}"
    cluster.apply(job(name, [Task(name="a", rep=3, min_available=2, node_selector=host),
                             Task(name="b", rep=1, min_available=1, depends_on=["a"])], min=1))

    def of(task: str) -> list[Obj]:
        return [p for p in cluster.job_pods(name) if p["metadata"]["name"].startswith(f"{name}-{task}-")]

    cluster.wait_until(lambda: count_phase(of("a"), ("Running",)) == room, 120, f"{room} pods of a running")
    if follows:
        cluster.wait_until(lambda: count_phase(of("b"), ("Running",)) == 1, 120, "b's pod running")
    else:
        cluster.hold(lambda: not of("b"), 60, "no pod of b while a is below its minAvailable")


@pytest.mark.job_plugins
@pytest.mark.parametrize(("args", "port"), [([], 22), (["--ssh-port=2222"], 2222)])
def test_ssh_secret_holds_a_key_pair_and_a_host_per_pod(cluster: Cluster, args: list[str], port: int) -> None:
    """The ssh plugin's Secret ``<job>-ssh`` (controllers reference §4.3): ``id_rsa`` a PKCS#1 PEM
    private key, ``id_rsa.pub`` and ``authorized_keys`` the same ``ssh-rsa`` public key, and
    ``config`` without host-key checking followed by one Host block per pod on the ssh port."""
    name = "sshkeys"
    cluster.apply(job(name, [Task(name="m", rep=1, req=NO_REQUESTS), Task(name="w", rep=2, req=NO_REQUESTS)],
                      plugins={"ssh": args}))
    cluster.wait_until(lambda: cluster.try_get("Secret", f"{name}-ssh") is not None, 60, "the ssh Secret")
    data = {k: base64.b64decode(v).decode() for k, v in cluster.get("Secret", f"{name}-ssh")["data"].items()}
    assert sorted(data) == ["authorized_keys", "config", "id_rsa", "id_rsa.pub"]
    private = data["id_rsa"].splitlines()
    assert private[0] == "-----BEGIN RSA PRIVATE KEY-----" and private[-1] == "-----END RSA PRIVATE KEY-----"
    assert base64.b64decode("".join(private[1:-1]))[:1] == b"\x30"  # a DER SEQUENCE
    assert data["id_rsa.pub"].startswith("ssh-rsa ") and data["authorized_keys"] == data["id_rsa.pub"]
    hosts = "".join(f"Host {h}\n  HostName {h}.{name}\n  Port {port}\n"
                    for h in (f"{name}-m-0", f"{name}-w-0", f"{name}-w-1"))
    assert data["config"] == "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n" + hosts


OUT_OF_SYNC = "volcano.sh/controller-out-of-sync"


def _last_seen(cluster: Cluster, pod_uid: str) -> Obj:
    """The last state of a pod the watch saw before it was removed (or now)."""
    return [obj for _, kind, _, obj in cluster.recorded_history()
            if kind == "Pod" and obj["metadata"]["uid"] == pod_uid][-1]


@pytest.mark.parametrize("action", ["RestartJob", "TerminateJob"])
def test_pods_the_controller_kills_are_marked_out_of_sync(cluster: Cluster, action: str) -> None:
    """PodEvicted -> ``action``: the user deletes one pod; the controller kills the others, marking
    each ``volcano.sh/controller-out-of-sync`` before deleting it (controllers reference §2.7), so
    their deletions are not taken for further evictions: a RestartJob restarts the job once (one
    retry, every task back to running) and a TerminateJob ends Terminated."""
    name = f"oos-{action.lower()}"
    cluster.apply(job(name, [Task(name="a", rep=2, req=NO_REQUESTS), Task(name="b", rep=1, req=NO_REQUESTS)],
                      policies=[{"event": "PodEvicted", "action": action}]))
    cluster.wait_until(lambda: count_phase(cluster.job_pods(name), ("Running",)) == 3, 120, f"{name} running")
    first = {p["metadata"]["name"]: p["metadata"]["uid"] for p in cluster.job_pods(name)}
    cluster.delete("Pod", f"{name}-a-0")
    if action == "RestartJob":
        cluster.wait_until(lambda: len({p["metadata"]["uid"] for p in cluster.job_pods(name)
                                        if p["status"].get("phase") == "Running"} - set(first.values())) == 3,
                           300, f"{name} running again with new pods")
        cluster.hold(lambda: job_phase(cluster, name) == "Running"
                     and cluster.get("Job", name)["status"].get("retryCount") == 1, 60, "one restart only")
    else:
        wait_job_phase(cluster, name, "Terminated", 300)
    marked = {n: (_last_seen(cluster, uid)["metadata"].get("annotations") or {}).get(OUT_OF_SYNC)
              for n, uid in first.items()}
    assert marked == {f"{name}-a-0": None, f"{name}-a-1": "true", f"{name}-b-0": "true"}


@pytest.mark.parametrize(("succeeding", "min_available", "phase"), [
    (1, 2, "Failed"), (2, 2, "Completed"), (3, 2, "Completed"), (0, 0, "Completed"),
])
def test_a_finished_job_completes_when_its_successes_reach_min_available(cluster: Cluster, succeeding: int,
                                                                         min_available: int, phase: str) -> None:
    """Three pods end after 5 s, ``succeeding`` of them with exit 0 and the rest with exit 1 (no
    policy): once all have ended the job is Completed when the successes reach the job's
    minAvailable, else Failed (controllers reference §3.5, 3b; the tasks set no minAvailable of their
    own, so 3a does not apply). With minAvailable 0 (every task's minAvailable 0) nothing is required."""
    name = f"finish-{succeeding}-of-{min_available}"
    task_min = 0 if min_available == 0 else None
    tasks = [Task(name="ok", rep=succeeding, min=0, req=NO_REQUESTS, duration="5s", restart_policy="Never",
                  min_available=task_min),
             Task(name="bad", rep=3 - succeeding, min=0, req=NO_REQUESTS, duration="5s", exit_code=1,
                  restart_policy="Never", min_available=task_min)]
    spec = job(name, [t for t in tasks if t.rep], min=min_available)
    spec["spec"]["minAvailable"] = min_available
    cluster.apply(spec)
    wait_job_phase(cluster, name, phase, 300)


@pytest.mark.podgroup_status
def test_the_podgroup_and_pods_mirror_the_job(cluster: Cluster) -> None:
    """What the Job controller copies (controllers reference §2.5, §2.6): the PodGroup gets the job's
    networkTopology, minTaskMember per task (a partitioned task's minPartitions x partitionSize) and
    one subGroupPolicy per partitioned task, whatever the task order; pods get their partition id and,
    of the job's labels, only ``volcano.sh/preemptable``; the plugins that ran are recorded in
    ``status.controlledResources``."""
    name = "mirror"
    parted = Task(name="parted", rep=4, req=NO_REQUESTS).manifest(name, 1)
    parted["partitionPolicy"] = {"totalPartitions": 2, "partitionSize": 2, "minPartitions": 1}
    spec = job(name, [Task(name="plain", rep=2, req=NO_REQUESTS)], plugins={"env": [], "svc": []},
               labels={"volcano.sh/preemptable": "true", "team": "blue"})
    spec["spec"]["tasks"].append(parted)
    spec["spec"]["minAvailable"] = 4
    spec["spec"]["networkTopology"] = {"mode": "hard", "highestTierAllowed": 2}
    cluster.apply(spec)
    cluster.wait_until(lambda: count_phase(cluster.job_pods(name), ("Running",)) == 6, 120, f"{name} running")
    pg = pod_group_of(cluster, name)
    assert pg is not None
    assert pg["spec"]["minTaskMember"] == {"plain": 2, "parted": 2}
    assert pg["spec"]["networkTopology"] == {"mode": "hard", "highestTierAllowed": 2}
    [policy] = pg["spec"]["subGroupPolicy"]
    assert (policy["name"], policy["subGroupSize"], policy["minSubGroups"], policy["matchLabelKeys"]) == \
        ("parted", 2, 1, ["volcano.sh/partition-id"])
    labels = {p["metadata"]["name"]: p["metadata"].get("labels") or {} for p in cluster.job_pods(name)}
    assert {n: lb.get("volcano.sh/partition-id") for n, lb in labels.items()} == {
        f"{name}-plain-0": None, f"{name}-plain-1": None, f"{name}-parted-0": "0", f"{name}-parted-1": "0",
        f"{name}-parted-2": "1", f"{name}-parted-3": "1"}
    assert all(lb.get("volcano.sh/preemptable") == "true" and "team" not in lb for lb in labels.values())
    resources = cluster.get("Job", name)["status"].get("controlledResources")
    assert resources == {"plugin-env": "env", "plugin-svc": "svc"}, resources
