"""Admission hooks registered ``main_only`` (Kubernetes' Priority plugin, Volcano's webhooks, the
testbed's sim-annotation check: each returns at once for a subresource write) are not called for
status writes: over random pod histories (creates, condition and phase writes through every status
path, binds, label, owner and finalizer changes, deletions) under every admission rule, the
answers, stored objects and watch events equal those of a chain that calls every hook."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

from hypothesis import given, settings

from tests.apiserver.conftest import typed_shape
from tests.informers.test_echo_index import create_owners
from tests.informers.test_status_change import _apply, steps
from volcano.admission.install import install_admission
from volcano.apiserver.admission import AdmissionChain
from volcano.apiserver.server import ApiServer
from volcano.kubelet.annotation_check import install_sim_annotation_check
from volcano.sim import RandomStreams, SimClock

_HOOKS = AdmissionChain.hooks


def _every_hook(chain: AdmissionChain, mutating: bool, kind_key: str, operation: str,
                subresource: str | None = None) -> Any:
    """The reference: the hooks of a main-resource write, main-only ones included, for every write."""
    return _HOOKS(chain, mutating, kind_key, operation)


def _history(history: list[tuple[str, str, int]], every: bool) -> Any:
    clock = SimClock()
    server = ApiServer(clock, RandomStreams(1))
    install_admission(server)
    install_sim_annotation_check(server.admission)
    with mock.patch.object(AdmissionChain, "hooks", _every_hook) if every else mock.patch.object(
            AdmissionChain, "hooks", _HOOKS):
        server.create({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "default"},
                       "spec": {"weight": 1}})
        server.patch("Queue", "default", {"status": {"state": "Open"}}, subresource="status")
        refs = create_owners(server)
        for op, name, variant in history:
            _apply(server, refs, op, name, variant)
        clock.run()
    return (server.resource_version, typed_shape(server.snapshot()),
            [(etype, json.dumps(obj, default=str)) for etype, obj, *_ in server._hub.log("Pod").events])


@settings(max_examples=60, deadline=None)
@given(steps)
def test_status_writes_skip_main_only_hooks_exactly(history: list[tuple[str, str, int]]) -> None:
    assert _history(history, False) == _history(history, True)


def test_a_status_write_calls_no_main_only_hook() -> None:
    server = ApiServer(SimClock(), RandomStreams(1))
    install_admission(server)
    install_sim_annotation_check(server.admission)
    chain = server.admission
    assert chain.hooks(True, "Pod", "UPDATE") and chain.hooks(False, "Pod", "UPDATE")
    assert chain.hooks(True, "Pod", "UPDATE", "status") == () == chain.hooks(False, "Pod", "UPDATE", "status")
