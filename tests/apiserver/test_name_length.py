"""metadata.name at the 253-character limit, as apimachinery's IsDNS1123Subdomain words it.

The length and the pattern are separate checks, each with its own cause: a long but
well-formed name gets only "must be no more than 253 characters"; a long, malformed one
gets both causes, aggregated as "[a, b]".
"""

from __future__ import annotations

import pytest

from volcano.apiserver.errors import ApiError
from volcano.apiserver.server import ApiServer
from volcano.sim.clock import SimClock
from volcano.sim.rand import RandomStreams

TOO_LONG = "must be no more than 253 characters"
PATTERN = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters"


def _create(name: str) -> dict[str, object]:
    server = ApiServer(SimClock(), RandomStreams(1))
    return server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}})


def _causes(name: str) -> list[str]:
    with pytest.raises(ApiError) as err:
        _create(name)
    assert err.value.code == 422
    causes = err.value.details["causes"]
    assert all(c["field"] == "metadata.name" and c["reason"] == "FieldValueInvalid" for c in causes)
    prefix = f'Invalid value: "{name}": '
    assert all(c["message"].startswith(prefix) for c in causes)
    return [c["message"][len(prefix):] for c in causes]


def test_a_name_of_253_characters_is_stored() -> None:
    assert _create("a" * 253)["metadata"]["name"] == "a" * 253  # type: ignore[index]


def test_a_well_formed_name_of_254_characters_is_only_too_long() -> None:
    assert _causes("a" * 254) == [TOO_LONG]


def test_a_long_malformed_name_gets_both_causes() -> None:
    causes = _causes("A" * 254)
    assert len(causes) == 2 and causes[0] == TOO_LONG and causes[1].startswith(PATTERN)


def test_the_value_is_quoted_as_go_quotes_it() -> None:
    with pytest.raises(ApiError) as err:
        _create("Bad_Name")
    assert 'metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123' in str(err.value)
