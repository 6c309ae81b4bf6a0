"""backfill (scheduler reference §4.3): allocate skips best-effort pods (no resource request at
all); backfill places them, on any node that passes the predicates, however full its CPU is. A pod
asking even one millicore is allocate's, with or without backfill.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound

pytestmark = pytest.mark.scheduling_base


def _conf(backfill: bool) -> str:
    actions = "enqueue, allocate, backfill" if backfill else "enqueue, allocate"
    return (f'actions: "{actions}"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
            "- plugins:\n  - name: predicates\n  - name: proportion\n  - name: nodeorder\n")


@pytest.mark.cluster(workers=1, cpu="4", control_plane=False)
@pytest.mark.parametrize(("backfill", "milli", "binds"), [
    pytest.param(backfill, milli, binds, marks=pytest.mark.scheduler_conf(_conf(backfill)))
    for backfill, milli, binds in [(True, 0, True), (False, 0, False), (False, 1, True), (True, 1, True)]
])
def test_only_backfill_places_a_best_effort_pod(cluster: Cluster, backfill: bool, milli: int, binds: bool) -> None:
    """A pod (in a PodGroup of minMember 1) asking ``milli`` millicores, or nothing at all for 0, on
    an idle worker: it binds unless it is best effort and the configuration has no backfill."""
    cluster.apply(pod_group("be", min_member=1))
    p = pod("be-0", group="be", req={"cpu": f"{milli}m"} if milli else None)
    if not milli:
        p["spec"]["containers"][0]["resources"] = {}
    cluster.apply(p)
    if binds:
        cluster.wait_until(lambda: bound(cluster.get("Pod", "be-0")), 60, "the pod binds")
    else:
        cluster.hold(lambda: not bound(cluster.get("Pod", "be-0")), 30, "the pod waits")


@pytest.mark.cluster(workers=1, cpu="4", pods=3, control_plane=False)
@pytest.mark.scheduler_conf(_conf(True))
def test_backfill_fills_a_node_with_no_cpu_left_up_to_its_pod_count(cluster: Cluster) -> None:
    """The one worker (3 pods) runs a pod of all its 4 CPUs; three best-effort pods arrive: two bind
    there (CPU is not checked for them), the third finds the pod count full and waits."""
    worker = cluster.worker_nodes()[0]["metadata"]["name"]
    cluster.apply(pod("hog", req={"cpu": "4"}, node_selector={"kubernetes.io/hostname": worker}))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "hog")), 60, "hog bound")
    names = [f"free-{i}" for i in range(3)]
    for n in names:
        cluster.apply(pod_group(n, min_member=1))
        p = pod(n, group=n)
        p["spec"]["containers"][0]["resources"] = {}
        cluster.apply(p)

    def placed() -> int:
        return sum(1 for n in names if bound(cluster.get("Pod", n)))

    cluster.wait_until(lambda: placed() == 2, 60, "two best-effort pods bound")
    cluster.hold(lambda: placed() == 2, 30, "the third waits")


def _as_config_map(conf: str) -> str:
    """``conf`` as Volcano's Helm chart ships it: the ConfigMap ``volcano-scheduler-configmap`` with the
    configuration under the key ``volcano-scheduler.conf``."""
    body = "".join(f"    {line}\n" for line in conf.splitlines())
    return ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: volcano-scheduler-configmap\n"
            "  namespace: volcano-system\ndata:\n  volcano-scheduler.conf: |\n" + body)


@pytest.mark.cluster(workers=1, cpu="4", control_plane=False)
@pytest.mark.parametrize(("backfill", "binds"), [
    pytest.param(b, b, marks=pytest.mark.scheduler_conf(_as_config_map(_conf(b)))) for b in (True, False)
])
def test_a_configuration_in_the_charts_config_map_is_the_one_used(cluster: Cluster, backfill: bool,
                                                                 binds: bool) -> None:
    """The scheduler configuration given as the chart's ConfigMap is read from its data key: with
    backfill among its actions a best-effort pod binds, without it the pod waits."""
    cluster.apply(pod_group("be", min_member=1))
    p = pod("be-0", group="be")
    p["spec"]["containers"][0]["resources"] = {}
    cluster.apply(p)
    if binds:
        cluster.wait_until(lambda: bound(cluster.get("Pod", "be-0")), 60, "the pod binds")
    else:
        cluster.hold(lambda: not bound(cluster.get("Pod", "be-0")), 30, "the pod waits")
