"""``inject_stored_object`` sets server fields as a create would, generation only where the kind keeps one."""

from __future__ import annotations

from volcano.apiserver import ApiServer
from volcano.apiserver.faults import inject_stored_object
from volcano.sim import RandomStreams, SimClock


def test_generation_only_for_kinds_that_keep_one() -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    cm = inject_stored_object(server, {"apiVersion": "v1", "kind": "ConfigMap",
                                       "metadata": {"name": "c", "generation": 7}, "data": {"k": "v"}})
    assert "generation" not in cm["metadata"]
    assert cm["metadata"]["namespace"] == "default" and cm["metadata"]["uid"]
    queue = inject_stored_object(server, {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                                          "metadata": {"name": "q", "namespace": "x"}, "spec": {"weight": -1}})
    assert queue["metadata"]["generation"] == 1 and "namespace" not in queue["metadata"]
    created = server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}, "data": {}})
    assert "generation" not in created["metadata"]  # what a create does, for comparison
