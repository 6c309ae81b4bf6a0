"""Fixtures for the HTTP front-end tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.httpapi.helpers import Http
from volcano.serve import ServedCluster


@pytest.fixture
def http(kube_api: ServedCluster) -> Iterator[Http]:
    """A raw HTTP client for the ``kube_api`` server."""
    client = Http(kube_api.url)
    yield client
    client.close()
