"""The e2e benchmark: the same gang workload on whichever Volcano the kubeconfig points at.

Creates ``--jobs`` Volcano Jobs of ``--replicas`` pods each (``minAvailable`` = replicas, 10m CPU,
the pause image; with ``--nodes`` > 0, on the simulated nodes, labelled ``type: simulated``) in a
fresh namespace, waits until every pod is bound to a node (or ``--timeout``
wall seconds pass), deletes the namespace, and writes the workload shape, the pods bound and the
pods bound per wall second to ``--out`` (JSON). Scheduling throughput is what is measured: binding,
not running, so simulated nodes and real ones count alike.

    python scripts/e2e_bench.py --kubeconfig KC --impl this --jobs 20 --replicas 10 --out bench.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

JOBS = ("batch.volcano.sh", "v1alpha1")


SIMULATED = {"type": "simulated"}
"""The label ``volcano nodes`` puts on its nodes: with simulated nodes, the workload runs there."""


def job(name: str, replicas: int, node_selector: dict[str, str] | None = None) -> dict[str, Any]:
    """One gang job of the workload (on nodes matching ``node_selector`` when given)."""
    pod_spec: dict[str, Any] = {"restartPolicy": "Never", "containers": [{
        "name": "c", "image": "registry.k8s.io/pause:3.9",
        "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}]}
    out: dict[str, Any] = {
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": name},
        "spec": {"minAvailable": replicas, "schedulerName": "volcano", "queue": "default", "tasks": [{
            "name": "w", "replicas": replicas,
            "template": {"metadata": {"labels": {"e2e-bench": "yes"}}, "spec": pod_spec}}]}}
    if node_selector:
        out["spec"]["tasks"][0]["template"]["spec"]["nodeSelector"] = dict(node_selector)
    return out


def run(api: Any, *, impl: str, jobs: int, replicas: int, nodes: int, timeout: float, namespace: str,
        poll: float = 0.5) -> dict[str, Any]:
    """Run the workload on the cluster behind ``api`` (an ``ApiClient``); return the measurements."""
    from kubernetes import client

    core, custom = client.CoreV1Api(api), client.CustomObjectsApi(api)
    core.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    total = jobs * replicas
    start = time.monotonic()
    bound = 0
    try:
        for i in range(jobs):
            custom.create_namespaced_custom_object(JOBS[0], JOBS[1], namespace, "jobs",
                                                   job(f"bench-{i}", replicas, SIMULATED if nodes else None))
        while time.monotonic() - start < timeout:
            pods = core.list_namespaced_pod(namespace, label_selector="e2e-bench=yes").items
            bound = sum(1 for p in pods if p.spec.node_name)
            if bound >= total:
                break
            time.sleep(poll)
        seconds = time.monotonic() - start
    finally:
        core.delete_namespace(namespace)
    return {"impl": impl, "jobs": jobs, "replicas": replicas, "pods": total, "nodes": nodes, "bound": bound,
            "seconds": seconds, "pods_per_second": bound / seconds if seconds > 0 else 0.0,
            "timed_out": bound < total}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON; exit 1 when not every pod was bound in time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--impl", default="unknown")
    parser.add_argument("--jobs", type=int, default=20)
    parser.add_argument("--replicas", type=int, default=10)
    parser.add_argument("--nodes", type=int, default=0,
                        help="simulated nodes added (> 0: the workload goes to them, by their label)")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--namespace", default="e2e-bench")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    from kubernetes import config

    api = config.new_client_from_config(config_file=args.kubeconfig)
    result = run(api, impl=args.impl, jobs=args.jobs, replicas=args.replicas, nodes=args.nodes,
                 timeout=args.timeout, namespace=args.namespace)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"e2e bench ({args.impl}): {result['bound']} of {result['pods']} pods bound in {result['seconds']:.1f} s "
          f"({result['pods_per_second']:.1f} pods per wall second; {args.jobs} gang jobs x {args.replicas} pods)")
    return 1 if result["timed_out"] else 0


if __name__ == "__main__":
    sys.exit(main())
