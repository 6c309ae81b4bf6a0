"""Tests written for mutants that survived a mutation run (``make mutation``, ``docs/testing.md``):
each pins a behaviour nothing asserted before."""

from __future__ import annotations

import pytest

from volcano.apiserver import ApiError, ApiServer, WatchEvent

from .conftest import pod


def test_already_exists_names_the_object_in_its_details(server: ApiServer) -> None:
    """A real server's AlreadyExists Status carries ``details`` with the name and the resource."""
    server.create(pod("p"))
    with pytest.raises(ApiError) as err:
        server.create(pod("p"))
    status = err.value.status()
    assert (status["code"], status["reason"]) == (409, "AlreadyExists")
    assert status["details"] == {"name": "p", "kind": "pods"}


def test_each_write_takes_the_next_resource_version_delete_included(server: ApiServer) -> None:
    """Create, patch and delete each take the next resourceVersion; the DELETED event's object
    carries the deletion's, which is the server's latest (what a watch resumes from)."""
    got: list[WatchEvent] = []
    start = int(server.resource_version)
    server.watch("Pod", got.append)
    server.create(pod("a"))
    server.patch("Pod", "a", {"metadata": {"labels": {"x": "1"}}})
    server.delete("Pod", "a")
    server.clock.run()
    assert [(e.type, int(e.object["metadata"]["resourceVersion"])) for e in got] == \
        [("ADDED", start + 1), ("MODIFIED", start + 2), ("DELETED", start + 3)]
    assert int(server.resource_version) == start + 3
