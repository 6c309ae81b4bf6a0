"""Tests written for mutants that survived a mutation run (``make mutation``, ``docs/testing.md``):
each pins a behaviour nothing asserted before."""

from __future__ import annotations

import pytest

from volcano.apiserver import ApiError, ApiServer

from .conftest import pod


def test_already_exists_names_the_object_in_its_details(server: ApiServer) -> None:
    """A real server's AlreadyExists Status carries ``details`` with the name and the resource."""
    server.create(pod("p"))
    with pytest.raises(ApiError) as err:
        server.create(pod("p"))
    status = err.value.status()
    assert (status["code"], status["reason"]) == (409, "AlreadyExists")
    assert status["details"] == {"name": "p", "kind": "pods"}
