"""API conformance: what the server fills in or refuses on its own, at create and on eviction.

* ``generateName``: the name is the prefix (cut to 58 characters) and five characters of the
  generator's alphabet (no vowels, no ``0``, ``1`` or ``3``); the prefix stays in the object.
* Server-owned metadata a client sends (``uid``, ``creationTimestamp``, ``deletionTimestamp``,
  ``deletionGracePeriodSeconds``) is replaced or dropped.
* ``pods/eviction`` of a pod that does not exist is 404 NotFound; of a pod no node runs, the
  pod goes at once.

Every case uses only the backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.test_admission import denial, plain

__all__: list[str] = []

Obj = dict[str, Any]
SUFFIX = "[bcdfghjklmnpqrstvwxz2456789]{5}"


def _generated(prefix: str) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": prefix}, "data": {"k": "v"}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_generate_name(cluster: Cluster) -> None:
    """A short prefix gets five generated characters; a 70-character prefix is cut to 58, so the
    name is 63 characters long."""
    made = plain(cluster.create(_generated("gen-")))
    assert re.fullmatch(f"gen-{SUFFIX}", made["metadata"]["name"]), made["metadata"]["name"]
    assert made["metadata"]["generateName"] == "gen-"
    assert cluster.get("ConfigMap", made["metadata"]["name"])["metadata"]["uid"] == made["metadata"]["uid"]
    long_prefix = "p" * 69 + "-"
    long_made = plain(cluster.create(_generated(long_prefix)))
    name = long_made["metadata"]["name"]
    assert len(name) == 63 and re.fullmatch(f"p{{58}}{SUFFIX}", name), name
    assert long_made["metadata"]["generateName"] == long_prefix


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_server_owned_metadata_is_ignored_at_create(cluster: Cluster) -> None:
    """A client's uid and timestamps are not kept: the object is created fresh, not deleting."""
    meta = {"name": "owned-meta", "uid": "00000000-0000-0000-0000-000000000001",
            "creationTimestamp": "2001-01-01T00:00:00Z", "deletionTimestamp": "2001-01-01T00:00:00Z",
            "deletionGracePeriodSeconds": 5}
    made = plain(cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"k": "v"}}))
    got = made["metadata"]
    assert got["uid"] and got["uid"] != meta["uid"]
    assert got["creationTimestamp"] != meta["creationTimestamp"]
    assert "deletionTimestamp" not in got and "deletionGracePeriodSeconds" not in got
    assert "deletionTimestamp" not in cluster.get("ConfigMap", "owned-meta")["metadata"]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_eviction_of_absent_and_unscheduled_pods(cluster: Cluster) -> None:
    """Evicting a pod that does not exist is 404 naming it; a pod no node runs goes at once."""
    d = denial(lambda: cluster.evict("evict-absent"))
    assert (d.code, d.reason, d.message) == (404, "NotFound", 'pods "evict-absent" not found'), d
    cluster.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "evict-me"},
                    "spec": {"schedulerName": "strength-absent-scheduler",
                             "containers": [{"name": "c", "image": "busybox:1.36"}]}})
    cluster.evict("evict-me")
    cluster.wait_until(lambda: cluster.try_get("Pod", "evict-me") is None, 30, "the evicted pod goes")
