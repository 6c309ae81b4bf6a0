"""The scheduler's decision-trace records (what ``volcano trace`` shows) carry the scheduler's own
name as their component: a second scheduler, ``second``, records the bind of a pod that names it
as a ``Bind`` record of component ``second`` on ``<namespace>/<pod>``, with the node as detail."""

from __future__ import annotations

from volcano.scheduler.scheduler import Scheduler
from volcano.testbed import FakeCluster


def test_a_named_schedulers_session_records_its_binds_under_its_name() -> None:
    fc = FakeCluster(seed=1)
    fc.add_node("n1")
    second = Scheduler(fc.client, fc.informers, fc.clock, trace=fc.trace, scheduler_name="second")
    second.start()
    fc.apply({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
              "metadata": {"name": "mine", "namespace": "default"}, "spec": {"minMember": 1}})
    fc.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {
              "name": "mine", "namespace": "default", "annotations": {"scheduling.k8s.io/group-name": "mine"}},
              "spec": {"schedulerName": "second", "containers": [{"name": "c", "image": "nginx",
                                                                   "resources": {"requests": {"cpu": "100m"}}}]}})
    fc.run(5)
    node = fc.client.get("Pod", "mine", "default")["spec"].get("nodeName")
    assert node
    binds = fc.trace.records(component="second", event="Bind", obj="default/mine")
    assert [r.detail for r in binds] == [node]
    assert not fc.trace.records(component="volcano", event="Bind", obj="default/mine")
