"""API conformance: the pod fields an update may change, each with its own rule (``ValidatePodUpdate``).

* ``spec.activeDeadlineSeconds``: the pod spec allows 1 to 2147483647 (``must be between 1 and 2147483647,
  inclusive``; both bounds accepted, one past each refused, checked with dry-run creates). An update may set
  it from none, or lower it (the same value is no change); raising it is ``must be less than or equal to
  previous value``, removing it ``Invalid value: "null": must not update from a positive integer to nil
  value``; a negative or too large value also fails the update rule's own range (``between 0 and
  2147483647``), a second cause after the spec's, while 0 fails only the spec's range.
* ``spec.containers[*].image`` may change (the new image is stored), but not to empty (``Required value``)
  nor with surrounding whitespace; a container added or removed is ``spec.containers: Forbidden: pod
  updates may not add or remove containers``. The causes come in ``ValidatePodUpdate``'s order: the spec's,
  then the containers', then the deadline's.

Pods name a scheduler nobody runs, so nothing else writes them.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import plain
from volcano.conformance.test_admission import denial

__all__: list[str] = []

Obj = dict[str, Any]
MAX = 2_147_483_647
DEADLINE = "spec.activeDeadlineSeconds"


def _pod(name: str, **spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"schedulerName": "kinds-absent-scheduler", "containers": [{"name": "c", "image": "busybox:1.36"}],
                     **spec}}


def _spec_range(value: int) -> str:
    return f"{DEADLINE}: Invalid value: {value}: must be between 1 and {MAX}, inclusive"


def _refused(cluster: Cluster, name: str, patch: Obj) -> str:
    before = cluster.get("Pod", name)["metadata"]["resourceVersion"]
    d = denial(lambda: cluster.patch("Pod", name, patch, patch_type="strategic"))
    assert (d.code, d.reason) == (422, "Invalid"), d
    prefix = f'Pod "{name}" is invalid: '
    assert d.message.startswith(prefix), d.message
    assert cluster.get("Pod", name)["metadata"]["resourceVersion"] == before
    return d.message[len(prefix):]


def _deadline(cluster: Cluster, name: str, value: int | None) -> Obj:
    return plain(cluster.patch("Pod", name, {"spec": {"activeDeadlineSeconds": value}}, patch_type="strategic"))


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_active_deadline_range_and_update_rules(cluster: Cluster) -> None:
    """The create range at its bounds, then every update transition of the deadline."""
    for value in (1, MAX):
        made = plain(cluster.create(_pod("kinds-deadline-dry", activeDeadlineSeconds=value), dry_run=True))
        assert made["spec"]["activeDeadlineSeconds"] == value
    for value in (0, MAX + 1, -1):
        pod = _pod("kinds-deadline-dry", activeDeadlineSeconds=value)
        d = denial(lambda: cluster.create(pod))  # noqa: B023 (called at once)
        assert (d.code, d.message) == (422, f'Pod "kinds-deadline-dry" is invalid: {_spec_range(value)}'), d
    assert cluster.try_get("Pod", "kinds-deadline-dry") is None
    name = "kinds-deadline"
    cluster.create(_pod(name))
    assert _deadline(cluster, name, 100)["spec"]["activeDeadlineSeconds"] == 100
    assert _refused(cluster, name, {"spec": {"activeDeadlineSeconds": 101}}) == (
        f"{DEADLINE}: Invalid value: 101: must be less than or equal to previous value")
    assert _refused(cluster, name, {"spec": {"activeDeadlineSeconds": None}}) == (
        f'{DEADLINE}: Invalid value: "null": must not update from a positive integer to nil value')
    assert _refused(cluster, name, {"spec": {"activeDeadlineSeconds": 0}}) == _spec_range(0)
    for value in (-1, MAX + 1):
        assert _refused(cluster, name, {"spec": {"activeDeadlineSeconds": value}}) == (
            f"[{_spec_range(value)}, {DEADLINE}: Invalid value: {value}: must be between 0 and {MAX}, inclusive]")
    assert _deadline(cluster, name, 100)["spec"]["activeDeadlineSeconds"] == 100
    assert _deadline(cluster, name, 1)["spec"]["activeDeadlineSeconds"] == 1
    assert cluster.get("Pod", name)["spec"]["activeDeadlineSeconds"] == 1


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_container_image_updates(cluster: Cluster) -> None:
    """An image change is stored; empty, padded, or a container added: refused, causes in order."""
    name = "kinds-image"
    cluster.create(_pod(name))
    assert _refused(cluster, name, {"spec": {"containers": [{"name": "c", "image": ""}]}}) == (
        "spec.containers[0].image: Required value")
    assert _refused(cluster, name, {"spec": {"containers": [{"name": "c", "image": "busybox:1.36 "}],
                                             "activeDeadlineSeconds": -1}}) == (
        f'[{_spec_range(-1)}, spec.containers[0].image: Invalid value: "busybox:1.36 ": must not have leading or '
        f"trailing whitespace, {DEADLINE}: Invalid value: -1: must be between 0 and {MAX}, inclusive]")
    assert _refused(cluster, name, {"spec": {"containers": [{"name": "d", "image": "busybox:1.36"}]}}) == (
        "spec.containers: Forbidden: pod updates may not add or remove containers")
    out = plain(cluster.patch("Pod", name, {"spec": {"containers": [{"name": "c", "image": "busybox:1.37"}]}},
                              patch_type="strategic"))
    assert [(c["name"], c["image"]) for c in out["spec"]["containers"]] == [("c", "busybox:1.37")]
    assert cluster.get("Pod", name)["spec"]["containers"][0]["image"] == "busybox:1.37"
