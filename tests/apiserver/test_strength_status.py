"""A ``/status`` write whose status does not decode into the kind's Go type: 400, nothing stored."""

from __future__ import annotations

import pytest

from volcano.apiserver import ApiError, ApiServer
from volcano.sim import RandomStreams, SimClock


def test_undecodable_status_write_is_bad_request() -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    pod = server.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                         "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    with pytest.raises(ApiError) as err:
        server.update_status({**pod, "status": {"phase": 5}})
    assert err.value.code == 400
    assert err.value.message.startswith('Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal '
                                        "number into Go struct field PodStatus.status.phase of type ")
    assert server.get("Pod", "p", "default") is pod
