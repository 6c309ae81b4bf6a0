"""The pytest plugin installed with the package (entry point ``pytest11``).

It provides one fixture, ``fake_cluster``: a fresh ``volcano.testbed.FakeCluster``
with seed 0 for each test. The testbed is imported only when the fixture is
used, so loading the plugin costs nothing for tests that do not need it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from volcano.testbed import FakeCluster

__all__ = ["fake_cluster"]


@pytest.fixture
def fake_cluster() -> Iterator[FakeCluster]:
    """A new in-memory cluster (seed 0): namespace ``default``, queues ``root`` and ``default``."""
    from volcano.testbed import FakeCluster

    yield FakeCluster(seed=0)
