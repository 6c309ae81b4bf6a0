"""``$retainKeys`` in a strategic merge patch, as kube-apiserver answers it: every key of the patched map
that is neither null nor a directive must be named by the list (400 ``invalid patch format of
retainKeys`` otherwise, wherever that key stands among the nulls and directives), and the keys the list
does not name are cleared from the stored map."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver import ApiError, ApiServer
from volcano.sim import RandomStreams, SimClock

BAD = "invalid patch format of retainKeys"


def _server() -> ApiServer:
    server = ApiServer(SimClock(), RandomStreams(0))
    server.create({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "d"}},
                 "template": {"metadata": {"labels": {"app": "d"}}, "spec": {
                     "containers": [{"name": "c", "image": "busybox"}],
                     "volumes": [{"name": "v", "emptyDir": {}}]}}}})
    return server


def _volume_patch(volume: dict[str, Any]) -> dict[str, Any]:
    return {"spec": {"template": {"spec": {"volumes": [volume]}}}}


@pytest.mark.parametrize("volume", [
    # a key the list does not name, after a null
    {"name": "v", "emptyDir": None, "hostPath": {"path": "/x"}, "$retainKeys": ["emptyDir", "name"]},
    # ... after a $setElementOrder directive
    {"name": "v", "$setElementOrder/items": [], "hostPath": {"path": "/x"}, "$retainKeys": ["name"]},
    # ... after a $deleteFromPrimitiveList directive
    {"name": "v", "$deleteFromPrimitiveList/x": ["a"], "hostPath": {"path": "/x"}, "$retainKeys": ["name"]},
    # ... first
    {"hostPath": {"path": "/x"}, "name": "v", "$retainKeys": ["name"]},
    # ... last, the list before it
    {"$retainKeys": ["name", "emptyDir"], "name": "v", "emptyDir": None, "hostPath": {"path": "/x"}},
    # the list is not a list
    {"name": "v", "$retainKeys": "name"},
    {"name": "v", "$retainKeys": {"name": True}},
])
def test_retain_keys_refuses_a_key_it_does_not_name(volume: dict[str, Any]) -> None:
    server = _server()
    before = server.get("Deployment", "d", "default")
    with pytest.raises(ApiError) as err:
        server.patch("Deployment", "d", _volume_patch(volume), "default", patch_type="strategic")
    assert (err.value.code, err.value.reason, err.value.message) == (400, "BadRequest", BAD)
    assert server.get("Deployment", "d", "default") == before


@pytest.mark.parametrize(("volume", "stored", "generation"), [
    ({"name": "v", "emptyDir": None, "hostPath": {"path": "/x"}, "$retainKeys": ["hostPath", "name"]},
     {"name": "v", "hostPath": {"path": "/x"}}, 2),
    ({"name": "v", "$setElementOrder/x": [], "hostPath": {"path": "/x"}, "$retainKeys": ["hostPath", "name"]},
     {"name": "v", "hostPath": {"path": "/x"}}, 2),
    ({"name": "v", "$retainKeys": ["name", "emptyDir"]}, {"name": "v", "emptyDir": {}}, 1),
])
def test_retain_keys_clears_what_it_does_not_name(volume: dict[str, Any], stored: dict[str, Any],
                                                  generation: int) -> None:
    server = _server()
    out = server.patch("Deployment", "d", _volume_patch(volume), "default", patch_type="strategic")
    # (hostPath's ``type: ""`` default is not applied here: see validation.defaults)
    assert out["spec"]["template"]["spec"]["volumes"] == [stored]
    assert out["metadata"]["generation"] == generation
