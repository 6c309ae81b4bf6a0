"""Task order inside a plain PodGroup (scheduler reference §3 task order): pods of equal priority and no
index go in creation order (the session's default tie-break; the uid decides only between pods created
in the same instant), so when fewer pods fit than wait, the earliest created bind.

Shape: one worker of 4 CPUs, no control-plane node. A 2-CPU filler holds the worker while four 1-CPU
pods of one PodGroup (minMember 1) are created a second apart, their names not in creation order; then
the filler goes and two pods fit.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod, pod_group
from volcano.conformance.lib.waits import bound

pytestmark = [pytest.mark.scheduling_base, pytest.mark.cluster(workers=1, cpu="4", control_plane=False)]


@pytest.mark.parametrize("created", [["ko-d", "ko-b", "ko-a", "ko-c"], ["ko-a", "ko-c", "ko-d", "ko-b"]])
def test_the_earliest_created_pods_of_a_podgroup_bind_first(cluster: Cluster, created: list[str]) -> None:
    """Pods created in the order ``created``; with room for two after the filler goes (the worker's
    other 2 CPUs hold a second filler), the first two created bind and the others wait."""
    cluster.apply(pod_group("ko-fill", min_member=1))
    cluster.apply([pod(f"ko-fill-{i}", group="ko-fill", req={"cpu": "2"}, grace_seconds=0) for i in range(2)])
    cluster.wait_until(lambda: all(bound(cluster.get("Pod", f"ko-fill-{i}")) for i in range(2)), 60,
                       "the fillers bind")
    cluster.apply(pod_group("ko", min_member=1))
    for name in created:
        cluster.apply(pod(name, group="ko", req={"cpu": "1"}, grace_seconds=0))
        cluster.sleep(1)
    assert not any(bound(cluster.get("Pod", n)) for n in created)
    cluster.delete("Pod", "ko-fill-0")
    cluster.wait_until(lambda: sum(bound(cluster.get("Pod", n)) for n in created) == 2, 60, "two pods bind")
    cluster.hold(lambda: sum(bound(cluster.get("Pod", n)) for n in created) == 2, 10, "only two")
    assert [n for n in created if bound(cluster.get("Pod", n))] == created[:2]
