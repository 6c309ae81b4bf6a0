"""API conformance: Volcano's Queue webhooks on the edges a queue administrator meets.

* ``mutatequeue``: a Queue without a spec gets ``reclaimable: true`` and ``weight: 1``; weight 0
  becomes 1; hierarchy annotations not starting at ``root`` are rooted (``a/b`` -> ``root/a/b``,
  weights ``2/3`` -> ``1/2/3``).
* ``validatequeue``: a negative capability, a queue that is its own parent, a missing parent, a
  child asking more than its parent's capability, hierarchy weights that are not positive numbers,
  a hierarchy inside another queue's; deleting ``root``, ``default`` or a queue with children;
  changing ``root``'s resources. Each is 403 with the webhook's message; nothing changes.

Queues are cluster-scoped: each case deletes the queues it made (children first).
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import QUEUE_WEBHOOK, denial, own_queue, plain, queue_manifest, webhook_message

__all__: list[str] = []

Obj = dict[str, Any]
HIERARCHY = "volcano.sh/hierarchy"
WEIGHTS = "volcano.sh/hierarchy-weights"


def _refused(call: Any) -> str:
    d = denial(call)
    assert (d.code, d.reason) == (403, "Forbidden"), d
    return webhook_message(d, QUEUE_WEBHOOK)


def _create(cluster: Cluster, request: pytest.FixtureRequest, name: str, spec: Obj | None,
            annotations: dict[str, str] | None = None) -> Obj:
    own_queue(request, cluster, name)
    obj = queue_manifest(name, spec, annotations=annotations)
    if spec is None:
        obj.pop("spec")
    return plain(cluster.create(obj))


@pytest.mark.admission
def test_mutate_queue_defaults(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """No spec: reclaimable and weight 1; weight 0: weight 1; hierarchy annotations rooted."""
    bare = _create(cluster, request, "strength-q-bare", None)
    assert (bare["spec"]["reclaimable"], bare["spec"]["weight"]) == (True, 1)
    zero = _create(cluster, request, "strength-q-zero", {"weight": 0, "reclaimable": False})
    assert (zero["spec"]["reclaimable"], zero["spec"]["weight"]) == (False, 1)
    rooted = _create(cluster, request, "strength-q-rooted", {"weight": 1},
                     {HIERARCHY: "strength-q/a/b", WEIGHTS: "2/3/4"})
    annotations = rooted["metadata"]["annotations"]
    assert (annotations[HIERARCHY], annotations[WEIGHTS]) == ("root/strength-q/a/b", "1/2/3/4")


@pytest.mark.admission
def test_validate_queue_resources_and_parents(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """A negative capability, itself as parent, a missing parent and a child above its parent's
    capability are refused, naming what is wrong; a child within it is stored."""
    def create(name: str, **spec: Any) -> None:
        cluster.create(queue_manifest(name, {"weight": 1, **spec}))

    assert _refused(lambda: create("strength-q-neg", capability={"cpu": "-1"})) \
        == 'requestBody.spec.capability.cpu: Invalid value: "-1": must be greater than or equal to 0'
    assert _refused(lambda: create("strength-q-self", parent="strength-q-self")) \
        == "queue strength-q-self cannot use itself as parent"
    assert _refused(lambda: create("strength-q-orphan", parent="strength-q-none")) \
        == ('failed to get parent queue strength-q-none of queue strength-q-orphan: queue.scheduling.volcano.sh '
            '"strength-q-none" not found')
    _create(cluster, request, "strength-q-parent", {"weight": 1, "capability": {"cpu": "4"}})
    assert _refused(lambda: create("strength-q-big", parent="strength-q-parent", capability={"cpu": "8"})) \
        == "queue strength-q-big capability[cpu]=8 exceeds its ancestor's capability=4"
    child = _create(cluster, request, "strength-q-child", {"weight": 1, "parent": "strength-q-parent",
                                                            "capability": {"cpu": "4"}})
    assert child["spec"]["parent"] == "strength-q-parent"
    assert _refused(lambda: cluster.delete("Queue", "strength-q-parent")) == \
        "queue strength-q-parent can not be deleted because it has 1 child queues: strength-q-child"
    cluster.delete("Queue", "strength-q-child")


@pytest.mark.admission
@pytest.mark.parametrize(("weights", "message"), [
    pytest.param("1/zero", 'requestBody.metadata.annotations: Invalid value: "1/zero": zero in the 1/zero is invalid '
                 'number: strconv.ParseFloat: parsing "zero": invalid syntax', id="not-a-number"),
    pytest.param("1/0", 'requestBody.metadata.annotations: Invalid value: "1/0": 0 in the 1/0 must be larger than 0',
                 id="zero"),
])
def test_hierarchy_weights_are_positive_numbers(cluster: Cluster, weights: str, message: str) -> None:
    """Each weight of ``volcano.sh/hierarchy-weights`` must parse and be above 0."""
    queue = queue_manifest("strength-q-weights", {"weight": 1},
                           annotations={HIERARCHY: "root/strength-q-w", WEIGHTS: weights})
    assert _refused(lambda: cluster.create(queue)) == message
    assert cluster.try_get("Queue", "strength-q-weights") is None


@pytest.mark.admission
def test_a_hierarchy_may_not_hold_another_queues(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """A queue whose hierarchy is a prefix of another queue's is refused, naming the other queue."""
    _create(cluster, request, "strength-q-deep", {"weight": 1}, {HIERARCHY: "root/strength-q-h/a", WEIGHTS: "1/1/1"})
    queue = queue_manifest("strength-q-shallow", {"weight": 1},
                           annotations={HIERARCHY: "root/strength-q-h", WEIGHTS: "1/1"})
    assert _refused(lambda: cluster.create(queue)) == (
        'requestBody.metadata.annotations: Invalid value: "root/strength-q-h": root/strength-q-h is not allowed to be '
        "in the sub path of root/strength-q-h/a of queue strength-q-deep")


@pytest.mark.admission
def test_root_and_default_are_kept(cluster: Cluster) -> None:
    """``root`` and ``default`` may not be deleted; ``root``'s resources may not change."""
    before = cluster.get("Queue", "root").get("spec")
    assert _refused(lambda: cluster.delete("Queue", "root")) == "`root` queue can not be deleted"
    assert _refused(lambda: cluster.delete("Queue", "default")) == "`default` queue can not be deleted"
    assert _refused(lambda: cluster.patch("Queue", "root", {"spec": {"capability": {"cpu": "1"}}})) == \
        "root queue's resource attributes (capability, deserved, guarantee) cannot be modified"
    assert cluster.get("Queue", "root").get("spec") == before


@pytest.mark.admission
def test_a_status_write_may_remove_the_status(cluster: Cluster, request: pytest.FixtureRequest) -> None:
    """A merge patch of the ``status`` subresource setting ``status: null`` is accepted (the queue
    webhooks see the write) and answers without a status; the spec is untouched."""
    name = "status-cleared"
    own_queue(request, cluster, name)
    cluster.apply(queue_manifest(name, {"weight": 3}))
    answer = plain(cluster.patch("Queue", name, {"status": None}, subresource="status"))
    assert answer["metadata"]["name"] == name and answer["spec"]["weight"] == 3, answer
    assert not answer.get("status"), answer.get("status")
