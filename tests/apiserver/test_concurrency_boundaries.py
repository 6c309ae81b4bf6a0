"""Optimistic concurrency and generation at the boundary: the current resourceVersion is
accepted, one older or one newer is a 409 Conflict, on every write verb; ``metadata.generation``
moves by one for each spec change and for nothing else (Kubernetes API conventions; reference
kubernetes-rest-api §3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from volcano.api.frozen import thaw
from volcano.apiserver import ApiError, ApiServer

Obj = dict[str, Any]


def _job(server: ApiServer) -> Obj:
    return thaw(server.create({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "j"},
                               "spec": {"minAvailable": 1, "tasks": []}}))


def _writes(server: ApiServer) -> dict[str, Callable[[str], Obj]]:
    """Each write verb of the Job ``j`` with a given resourceVersion."""
    def update(rv: str) -> Obj:
        obj = thaw(server.get("Job", "j", "default"))
        obj["metadata"]["resourceVersion"] = rv
        obj["metadata"]["labels"] = {"v": rv}
        return thaw(server.update(obj))

    def update_status(rv: str) -> Obj:
        obj = thaw(server.get("Job", "j", "default"))
        obj["metadata"]["resourceVersion"] = rv
        obj["status"] = {"state": {"phase": "Running"}, "retryCount": int(rv)}
        return thaw(server.update_status(obj))

    def patch(rv: str) -> Obj:
        return thaw(server.patch("Job", "j", {"metadata": {"resourceVersion": rv, "labels": {"p": rv}}}, "default"))

    return {"update": update, "update_status": update_status, "patch": patch}


@pytest.mark.parametrize("verb", ["update", "update_status", "patch"])
@pytest.mark.parametrize(("offset", "accepted"), [(-1, False), (0, True), (1, False)])
def test_resource_version_must_be_the_current_one(server: ApiServer, verb: str, offset: int, accepted: bool) -> None:
    _job(server)
    current = int(server.get("Job", "j", "default")["metadata"]["resourceVersion"])
    write = _writes(server)[verb]
    if accepted:
        out = write(str(current + offset))
        assert int(out["metadata"]["resourceVersion"]) > current
        return
    with pytest.raises(ApiError) as err:
        write(str(current + offset))
    assert (err.value.code, err.value.reason) == (409, "Conflict")
    assert int(server.get("Job", "j", "default")["metadata"]["resourceVersion"]) == current


@pytest.mark.parametrize(("offset", "deleted"), [(-1, False), (0, True), (1, False)])
def test_delete_precondition_on_resource_version(server: ApiServer, offset: int, deleted: bool) -> None:
    _job(server)
    current = int(server.get("Job", "j", "default")["metadata"]["resourceVersion"])
    if deleted:
        server.delete("Job", "j", "default", preconditions={"resourceVersion": str(current + offset)})
        with pytest.raises(ApiError) as gone:
            server.get("Job", "j", "default")
        assert gone.value.code == 404
        return
    with pytest.raises(ApiError) as err:
        server.delete("Job", "j", "default", preconditions={"resourceVersion": str(current + offset)})
    assert (err.value.code, err.value.reason) == (409, "Conflict")


def test_generation_moves_by_one_per_spec_change_only(server: ApiServer) -> None:
    job = _job(server)
    assert job["metadata"]["generation"] == 1
    steps: list[tuple[Callable[[Obj], None], int]] = [
        (lambda o: o["metadata"].setdefault("annotations", {}).update(a="1"), 1),
        (lambda o: o["spec"].update(minAvailable=2), 2),
        (lambda o: None, 2),  # the same spec again
        (lambda o: o["spec"].update(minAvailable=2), 2),
        (lambda o: o["spec"].update(minAvailable=3), 3),
        (lambda o: o["spec"].pop("tasks"), 4),
    ]
    for change, generation in steps:
        obj = thaw(server.get("Job", "j", "default"))
        change(obj)
        out = server.update(obj)
        assert out["metadata"]["generation"] == generation, (change, out["metadata"])
    obj = thaw(server.get("Job", "j", "default"))
    obj["status"] = {"state": {"phase": "Running"}}
    assert server.update_status(obj)["metadata"]["generation"] == 4
