"""Preemption inside one Job (scheduler reference, preempt action: "preemption between tasks within
a job", and the priority plugin's preemptable rule): a starving job's pending task may evict a
running task of the same job whose pod priority is strictly lower; of equal priority it may not.
Between tasks of one job, the job priority plays no part.

Shape: one 4-CPU worker. Task ``low`` (4 one-CPU pods, labelled ``volcano.sh/preemptable``: a pod
without it is never a victim) fills it; task ``high`` (1 pod) depends on
``low`` and so is created only once low runs, when the worker is full. The job (minAvailable 3) is
starving while its high pod waits (ready + waiting 4 < 5 tasks) by the priority plugin's rule; gang's
own starving rule is switched off (``enableJobStarving: false``), as it would call a ready job not
starving.
"""

from __future__ import annotations

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import Task, job
from volcano.conformance.lib.waits import bound
from volcano.conformance.test_scheduling_support import CI_CONF, PREEMPTABLE, conf_with, make_priority_classes

# gang's starving rule (ready + waiting < minAvailable) would hold the job not starving once it is
# ready; with it off the priority plugin's (ready + waiting < all tasks) decides.
CONF = conf_with(CI_CONF, old="    enablePreemptable: false\n  - name: conformance",
                 new="    enablePreemptable: false\n    enableJobStarving: false\n  - name: conformance")

pytestmark = [pytest.mark.preemption, pytest.mark.cluster(workers=1, cpu="4", memory="16Gi", control_plane=False),
              pytest.mark.scheduler_conf(CONF)]


@pytest.mark.parametrize(("high_value", "preempts"), [(100, True), (11, True), (10, False)])
def test_a_task_preempts_a_lower_priority_task_of_its_own_job(cluster: Cluster, high_value: int,
                                                              preempts: bool) -> None:
    """Task ``low`` at priority 10 and task ``high`` at ``high_value``: above 10 the high pod evicts
    one low pod and binds (3 low pods keep running, the replaced one waits); at 10 nothing is
    evicted and the high pod stays unbound."""
    make_priority_classes(cluster, {"cov-low": 10, "cov-high": high_value})
    name = "selfpreempt"
    cluster.apply(job(name, [Task(name="low", rep=4, req={"cpu": "1"}, priority_class="cov-low", grace_seconds=0,
                                  labels=dict(PREEMPTABLE)),
                             Task(name="high", rep=1, req={"cpu": "1"}, priority_class="cov-high", grace_seconds=0,
                                  depends_on=["low"])], min=3))

    def of(task: str) -> list[dict[str, object]]:
        return [p for p in cluster.job_pods(name) if p["metadata"]["name"].startswith(f"{name}-{task}-")
                and not p["metadata"].get("deletionTimestamp")]

    cluster.wait_until(lambda: len(of("high")) == 1, 120, "the high pod created")
    if not preempts:
        cluster.hold(lambda: sum(bound(p) for p in of("low")) == 4 and not bound(of("high")[0]), 30,
                     "no low pod evicted, the high pod waits")
        return
    cluster.wait_until(lambda: bool(of("high")) and bound(of("high")[0]), 120, "the high pod binds")
    cluster.hold(lambda: sum(bound(p) for p in of("low")) == 3 and bound(of("high")[0]), 20,
                 "three low pods and the high pod run")
    evicted = {obj["metadata"]["name"] for _, kind, event, obj in cluster.recorded_history()
               if kind == "Pod" and event == "DELETED" and obj["metadata"]["name"].startswith(f"{name}-")}
    assert len(evicted) == 1 and evicted <= {f"{name}-low-{i}" for i in range(4)}, evicted
