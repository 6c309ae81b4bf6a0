"""Status writes of the workload controllers: counters validated as kube-apiserver's status strategies do."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.validation.workloads import controller_status_errors
from volcano.sim import RandomStreams, SimClock


def _deployment() -> dict[str, Any]:
    labels = {"app": "d"}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}


def test_negative_status_replicas_is_invalid_and_nothing_is_stored() -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    made = server.create(_deployment())
    with pytest.raises(ApiError) as err:
        server.update_status({**made, "status": {"replicas": -1}})
    assert (err.value.code, err.value.reason) == (422, "Invalid")
    causes = err.value.details["causes"]
    assert causes[0] == {"reason": "FieldValueInvalid", "field": "status.replicas",
                         "message": "Invalid value: -1: must be greater than or equal to 0"}
    assert [c["field"] for c in causes] == ["status.replicas", "status.updatedReplicas", "status.readyReplicas",
                                            "status.availableReplicas"]  # each 0 is above -1
    assert server.get("Deployment", "d", "default") is made


@pytest.mark.parametrize(("kind", "status", "expected"), [
    ("Deployment", {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1, "updatedReplicas": 1}, []),
    ("Deployment", {"replicas": 1, "readyReplicas": 1, "availableReplicas": 2},
     ["status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas",
      "status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas"]),
    ("ReplicaSet", {"replicas": 0, "fullyLabeledReplicas": 1},
     ["status.fullyLabeledReplicas: Invalid value: 1: cannot be greater than status.replicas"]),
    ("ReplicationController", {"observedGeneration": -2},
     ["status.observedGeneration: Invalid value: -2: must be greater than or equal to 0"]),
    ("StatefulSet", {"replicas": 2, "readyReplicas": 1, "availableReplicas": 2},
     ["status.availableReplicas: Invalid value: 2: cannot be greater than status.readyReplicas"]),
    ("StatefulSet", {"replicas": 1, "currentReplicas": 2, "updatedReplicas": 2},
     ["status.currentReplicas: Invalid value: 2: cannot be greater than status.replicas",
      "status.updatedReplicas: Invalid value: 2: cannot be greater than status.replicas"]),
    ("StatefulSet", {"collisionCount": -1, "replicas": "x"},
     ["status.collisionCount: Invalid value: -1: must be greater than or equal to 0"]),
])
def test_status_counters(kind: str, status: dict[str, Any], expected: list[str]) -> None:
    assert [str(e) for e in controller_status_errors(kind, {"status": status})] == expected
