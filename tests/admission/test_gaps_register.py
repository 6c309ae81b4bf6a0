"""A Volcano webhook that meets a data error in the object it reads denies the request (403 naming
the webhook), as the real webhook does when the request does not unmarshal into its Go type; a
Kubernetes built-in hook's data error is not turned into a denial."""

from __future__ import annotations

import pytest

from volcano.admission.install import _register
from volcano.apiserver.admission import AdmissionRequest
from volcano.apiserver.errors import ApiError
from volcano.apiserver.server import ApiServer


def _broken(req: AdmissionRequest) -> None:
    raise KeyError("spec")


def _cm(name: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}


def test_a_volcano_webhooks_data_error_is_a_403_naming_it(server: ApiServer) -> None:
    _register(server.admission, False, "ConfigMap", ("CREATE",), _broken, "gaps.volcano.sh")
    with pytest.raises(ApiError) as err:
        server.create(_cm("gaps"))
    assert (err.value.code, err.value.reason) == (403, "Forbidden")
    assert err.value.message == ('configmaps "gaps" is forbidden: admission webhook "gaps.volcano.sh" denied the '
                                 "request: cannot decode the ConfigMap: 'spec'")
    with pytest.raises(ApiError):
        server.get("ConfigMap", "gaps", "default")


def test_a_built_in_hooks_data_error_is_raised_as_is(server: ApiServer) -> None:
    _register(server.admission, False, "ConfigMap", ("CREATE",), _broken, "gaps-builtin")
    with pytest.raises(KeyError):
        server.create(_cm("gaps"))
