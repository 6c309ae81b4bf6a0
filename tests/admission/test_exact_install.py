"""Exactly what ``install_admission`` registers, in which order, and how it refuses bad arguments; the
scheduler names it passes to the Job and pod webhooks."""

from __future__ import annotations

import pytest

from volcano.admission import install_admission
from volcano.admission.install import ALL_WEBHOOKS, EXCLUDED_NAMESPACES
from volcano.apiserver.errors import ApiError
from volcano.apiserver.server import ApiServer
from volcano.sim.clock import SimClock
from volcano.sim.rand import RandomStreams

from .conftest import base_job, open_queue


def _server() -> ApiServer:
    return ApiServer(SimClock(), RandomStreams(0))


def test_every_hook_in_chain_order() -> None:
    srv = _server()
    install_admission(srv)
    assert srv.admission.names() == [
        "ServiceAccount", "Priority", "mutatejob.volcano.sh", "mutatepodgroup.volcano.sh", "mutatequeue.volcano.sh",
        "priorityclass-validation", "validatejob.volcano.sh", "validatepodgroup.volcano.sh",
        "validatequeue.volcano.sh", "validatepod.volcano.sh"]
    assert ALL_WEBHOOKS == ("/jobs/mutate", "/jobs/validate", "/podgroups/mutate", "/podgroups/validate",
                            "/pods/validate", "/queues/mutate", "/queues/validate")
    assert EXCLUDED_NAMESPACES == ("kube-system", "volcano-system")


def test_selected_webhooks_only() -> None:
    srv = _server()
    install_admission(srv, webhooks=("/queues/validate", "/pods/validate"))
    assert srv.admission.names() == ["ServiceAccount", "Priority", "priorityclass-validation",
                                     "validatequeue.volcano.sh", "validatepod.volcano.sh"]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"webhooks": ("/jobs/nope", "/a", "/jobs/mutate")},
     "webhooks: unknown admission paths ['/a', '/jobs/nope']; known: ['/jobs/mutate', '/jobs/validate', "
     "'/podgroups/mutate', '/podgroups/validate', '/pods/validate', '/queues/mutate', '/queues/validate']"),
    ({"scheduler_names": ()}, "scheduler_names must be non-empty strings, got ()"),
    ({"scheduler_names": ("volcano", "")}, "scheduler_names must be non-empty strings, got ('volcano', '')"),
])
def test_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    srv = _server()
    with pytest.raises(ValueError) as err:
        install_admission(srv, **kwargs)  # type: ignore[arg-type]
    assert str(err.value) == message
    assert srv.admission.names() == []


def test_first_scheduler_name_is_the_job_default_and_every_name_is_checked() -> None:
    srv = _server()
    install_admission(srv, scheduler_names=("s1", "s2"))
    open_queue(srv, "root")
    open_queue(srv, "default")
    assert srv.create(base_job())["spec"]["schedulerName"] == "s1"
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "p", "namespace": "default", "annotations": {"volcano.sh/jdb-min-available": "0"}},
           "spec": {"schedulerName": "s2", "containers": [{"name": "c", "image": "nginx"}]}}
    with pytest.raises(ApiError) as err:
        srv.create(pod)
    assert (err.value.code, err.value.message) == (403, 'pods "p" is forbidden: admission webhook '
                                                        '"validatepod.volcano.sh" denied the request: invalid value '
                                                        '<"0"> for volcano.sh/jdb-min-available, it must be a '
                                                        "positive integer")
    pod["spec"]["schedulerName"] = "volcano"
    assert srv.create(pod)["metadata"]["name"] == "p"


@pytest.mark.parametrize("namespace", ["kube-system", "volcano-system", "custom-skip"])
def test_excluded_namespaces_skip_volcano_webhooks(namespace: str) -> None:
    srv = _server()
    install_admission(srv, excluded_namespaces=("kube-system", "volcano-system", "custom-skip"))
    if namespace != "kube-system":
        srv.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    job = base_job()
    job["metadata"]["namespace"] = namespace
    job["spec"]["queue"] = "absent"
    stored = srv.create(job)
    assert stored["spec"]["queue"] == "absent" and "schedulerName" not in stored["spec"]
