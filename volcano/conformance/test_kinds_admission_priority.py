"""Admission conformance: every rule a client meets creating a ``scheduling.k8s.io/v1`` PriorityClass.

Kubernetes' ``ValidatePriorityClass`` (``pkg/apis/scheduling/validation``), its defaults
(``SetDefaults_PriorityClass``) and the JSON decoding of the ``int32`` ``value``:

* ``value`` at most 1,000,000,000 for a name without the ``system-`` prefix (the limit itself is
  accepted, one more is ``value: Forbidden: maximum allowed value of a user defined priority is
  1000000000``); no lower bound but ``int32``'s: ``-2147483648`` is stored, one less, one past the
  upper end and a fraction are 400 BadRequest decode errors naming the number and ``int32``.
* a ``system-`` name must be a known system class with its exact value and ``globalDefault`` false:
  ``metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use
  only. error: <why>``, ``<why>`` one of ``IsKnownSystemPriorityClass``'s three sentences.
* ``value`` is a plain ``int32`` (no pointer, no ``omitempty``): a class without it is stored with value
  0; ``preemptionPolicy`` is defaulted only when absent (``nil``), so an empty one is ``Required value``,
  and any other than ``PreemptLowerPriority``/``Never`` is ``Unsupported value``.

PriorityClasses are cluster-scoped: every case deletes the classes it made.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import plain
from volcano.conformance.test_admission import denial

__all__: list[str] = []

Obj = dict[str, Any]
KIND = "PriorityClass.scheduling.k8s.io"
RESERVED = ("metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use "
            "only. error: ")


def _pc(name: str, **fields: Any) -> Obj:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, **fields}


@pytest.fixture
def made(cluster: Cluster) -> Iterator[list[str]]:
    """Names of the classes a case created, deleted when it ends."""
    names: list[str] = []
    yield names
    for name in names:
        if cluster.try_get("PriorityClass", name) is not None:
            cluster.delete("PriorityClass", name)


def _create(cluster: Cluster, made: list[str], name: str, **fields: Any) -> Obj:
    out = plain(cluster.create(_pc(name, **fields)))
    made.append(name)
    return out


def _invalid(cluster: Cluster, name: str, **fields: Any) -> str:
    d = denial(lambda: cluster.create(_pc(name, **fields)))
    assert (d.code, d.reason) == (422, "Invalid"), d
    prefix = f'{KIND} "{name}" is invalid: '
    assert d.message.startswith(prefix), d.message
    if not name.startswith("system-"):  # the built-in system classes exist from the start
        assert cluster.try_get("PriorityClass", name) is None
    return d.message[len(prefix):]


def _undecodable(cluster: Cluster, name: str, value: Any) -> str:
    d = denial(lambda: cluster.create(_pc(name, value=value)))
    assert (d.code, d.reason) == (400, "BadRequest"), d
    prefix = 'PriorityClass in version "v1" cannot be handled as a PriorityClass: '
    assert d.message.startswith(prefix), d.message
    assert cluster.try_get("PriorityClass", name) is None
    return d.message[len(prefix):]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_user_class_value_is_bounded_above_and_by_int32(cluster: Cluster, made: list[str]) -> None:
    """1e9 is stored (policy defaulted, no ``globalDefault`` invented); 1e9+1 is Forbidden on ``value``;
    ``-2**31`` is stored; ``2**31``, ``-2**31-1`` and ``1.5`` do not decode into the ``int32``."""
    top = _create(cluster, made, "kinds-pc-top", value=1_000_000_000)
    assert (top["value"], top["preemptionPolicy"], top.get("globalDefault")) == (
        1_000_000_000, "PreemptLowerPriority", None)
    assert _invalid(cluster, "kinds-pc-over", value=1_000_000_001) == (
        "value: Forbidden: maximum allowed value of a user defined priority is 1000000000")
    low = _create(cluster, made, "kinds-pc-low", value=-2_147_483_648)
    assert low["value"] == -2_147_483_648
    assert _undecodable(cluster, "kinds-pc-big", 2_147_483_648) == (
        "json: cannot unmarshal number 2147483648 into Go struct field PriorityClass.value of type int32")
    assert _undecodable(cluster, "kinds-pc-small", -2_147_483_649) == (
        "json: cannot unmarshal number -2147483649 into Go struct field PriorityClass.value of type int32")
    assert _undecodable(cluster, "kinds-pc-frac", 1.5) == (
        "json: cannot unmarshal number 1.5 into Go struct field PriorityClass.value of type int32")
    assert _undecodable(cluster, "kinds-pc-text", "5") == (
        "json: cannot unmarshal string into Go struct field PriorityClass.value of type int32")


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_system_names_must_be_known_system_classes(cluster: Cluster) -> None:
    """An unknown ``system-`` name, a system class with another value, and one marked global default:
    each Forbidden on ``metadata.name`` with ``IsKnownSystemPriorityClass``'s reason; a user class may use
    a system class's value under another name only up to the user limit (``value`` Forbidden)."""
    assert _invalid(cluster, "system-kinds", value=5) == RESERVED + "system-kinds is not a known system priority class"
    assert _invalid(cluster, "system-cluster-critical", value=5) == (
        RESERVED + "value of system-cluster-critical PriorityClass must be 2000000000")
    assert _invalid(cluster, "system-node-critical", value=2_000_001_000, globalDefault=True) == (
        RESERVED + "globalDefault of system-node-critical PriorityClass must be false")
    assert _invalid(cluster, "kinds-system-value", value=2_000_000_000) == (
        "value: Forbidden: maximum allowed value of a user defined priority is 1000000000")
    kept = cluster.get("PriorityClass", "system-cluster-critical")
    assert (kept["value"], kept.get("globalDefault")) == (2_000_000_000, None)


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_value_and_policy_defaults(cluster: Cluster, made: list[str]) -> None:
    """No ``value``: stored as 0. ``preemptionPolicy`` absent: ``PreemptLowerPriority``; ``Never``: kept;
    ``""``: ``preemptionPolicy: Required value``; ``Sometimes``: ``Unsupported value`` listing both."""
    zero = _create(cluster, made, "kinds-pc-zero")
    assert (zero["value"], zero["preemptionPolicy"]) == (0, "PreemptLowerPriority")
    never = _create(cluster, made, "kinds-pc-never", value=3, preemptionPolicy="Never")
    assert (never["value"], never["preemptionPolicy"]) == (3, "Never")
    assert _invalid(cluster, "kinds-pc-empty", value=3, preemptionPolicy="") == "preemptionPolicy: Required value"
    text = _invalid(cluster, "kinds-pc-odd", value=3, preemptionPolicy="Sometimes")
    assert text.startswith('preemptionPolicy: Unsupported value: "Sometimes": supported values: '), text
    assert sorted(text.split("supported values: ", 1)[1].split(", ")) == ['"Never"', '"PreemptLowerPriority"'], text
