"""docs/components.md stays true: its ClusterRoles allow every request the components make.

The scheduler, Volcano's controllers and the simulated nodes run in memory on simulated time
(the same classes the processes run), each through a client that records every request as
``(verb, group, resource[/subresource])``; a gang job with service and ssh plugins is submitted,
runs, completes and is deleted. Every recorded request must be allowed by the component's
ClusterRole in the document."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from volcano.admission import install_admission
from volcano.api.kinds import kind_for_object, resolve_kind
from volcano.apiserver import ApiServer, EventRecorder
from volcano.informers import InformerFactory
from volcano.kube.components import VOLCANO_CONTROLLERS
from volcano.kube.nodes import SimNodes
from volcano.kubelet.annotation_check import install_sim_annotation_check
from volcano.scheduler import Scheduler
from volcano.sim import RandomStreams, SimClock, Trace

DOC = (Path(__file__).resolve().parents[2] / "docs" / "components.md").read_text()

Request = tuple[str, str, str]


def _roles() -> dict[str, list[dict[str, Any]]]:
    roles = {}
    for block in re.findall(r"```yaml\n(.*?)```", DOC, flags=re.S):
        doc = yaml.safe_load(block)
        assert doc["kind"] == "ClusterRole" and doc["apiVersion"] == "rbac.authorization.k8s.io/v1"
        roles[doc["metadata"]["name"]] = doc["rules"]
    return roles


def _allowed(rules: list[dict[str, Any]], request: Request) -> bool:
    verb, group, resource = request
    return any(group in rule["apiGroups"] and resource in rule["resources"] and verb in rule["verbs"]
               for rule in rules)


class Recording:
    """Forwards to the server and records each request's verb, API group and resource."""

    def __init__(self, server: ApiServer, seen: set[Request]) -> None:
        self._server, self.seen = server, seen

    def _note(self, verb: str, kind: str, sub: str | None = None) -> None:
        info = resolve_kind(kind)
        self.seen.add((verb, info.group, info.plural + (f"/{sub}" if sub else "")))

    def create(self, obj: Any, **kw: Any) -> Any:
        self._note("create", kind_for_object(obj).key)
        return self._server.create(obj, **kw)

    def get(self, kind: str, *a: Any, **kw: Any) -> Any:
        self._note("get", kind)
        return self._server.get(kind, *a, **kw)

    def list(self, kind: str, *a: Any, **kw: Any) -> Any:
        self._note("list", kind)
        return self._server.list(kind, *a, **kw)

    def watch(self, kind: str, *a: Any, **kw: Any) -> Any:
        self._note("watch", kind)
        return self._server.watch(kind, *a, **kw)

    def update(self, obj: Any, **kw: Any) -> Any:
        self._note("update", kind_for_object(obj).key)
        return self._server.update(obj, **kw)

    def update_status(self, obj: Any, **kw: Any) -> Any:
        self._note("update", kind_for_object(obj).key, "status")
        return self._server.update_status(obj, **kw)

    def patch(self, kind: str, name: str, patch: Any, namespace: str | None = None, **kw: Any) -> Any:
        self._note("patch", kind, kw.get("subresource"))
        return self._server.patch(kind, name, patch, namespace, **kw)

    def delete(self, kind: str, *a: Any, **kw: Any) -> Any:
        self._note("delete", kind)
        return self._server.delete(kind, *a, **kw)

    def bind(self, name: str, namespace: str, node: str) -> None:
        self._note("create", "Pod", "binding")
        self._server.bind(name, namespace, node)

    def evict(self, name: str, namespace: str, **kw: Any) -> None:
        self._note("create", "Pod", "eviction")
        self._server.evict(name, namespace, **kw)


JOB = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "rbac", "namespace": "default"},
       "spec": {"minAvailable": 2, "schedulerName": "volcano", "plugins": {"svc": [], "ssh": [], "env": []},
                "tasks": [{"name": "w", "replicas": 2, "template": {
                    "metadata": {"annotations": {"sim.volcano.sh/duration": "20s"}},
                    "spec": {"restartPolicy": "Never", "containers": [
                        {"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}}]}}


def _run() -> dict[str, set[Request]]:
    clock = SimClock()
    streams = RandomStreams(0)
    server = ApiServer(clock, streams)
    install_admission(server)
    install_sim_annotation_check(server.admission)
    seen: dict[str, set[Request]] = {"volcano-scheduler": set(), "volcano-controllers": set(), "volcano-nodes": set()}
    ctl = Recording(server, seen["volcano-controllers"])
    ctl_informers = InformerFactory(ctl, clock)
    for cls in VOLCANO_CONTROLLERS:
        cls(ctl, ctl_informers, clock, streams=streams, trace=Trace(enabled=False),
            recorder=EventRecorder(ctl, clock, "vc-controller-manager")).start()
    nodes = Recording(server, seen["volcano-nodes"])
    SimNodes(nodes, clock, count=2, prefix="n-", cpu="2", memory="4Gi").start()
    sched = Recording(server, seen["volcano-scheduler"])
    Scheduler(sched, InformerFactory(sched, clock), clock, recorder=EventRecorder(sched, clock, "volcano")).start()
    clock.run(5_000)
    server.create(JOB)
    clock.run_until(lambda: (server.get("Job", "rbac").get("status") or {}).get("state", {}).get("phase")
                    == "Completed", 120_000)
    server.delete("Job", "rbac")
    clock.run(clock.now_ms + 10_000)
    return seen


def test_the_document_has_one_cluster_role_per_component() -> None:
    assert sorted(_roles()) == ["volcano-controllers", "volcano-nodes", "volcano-scheduler"]


@pytest.mark.parametrize("role", ["volcano-scheduler", "volcano-controllers", "volcano-nodes"])
def test_every_request_of_the_component_is_allowed(role: str) -> None:
    seen = _run()[role]
    assert len(seen) >= 8  # the run exercised the component
    missing = sorted(r for r in seen if not _allowed(_roles()[role], r))
    assert not missing, f"{role} needs: {missing}"
