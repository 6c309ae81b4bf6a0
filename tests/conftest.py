"""Fixtures shared by the unit tests: a fresh simulated clock and an API server on it (seed 0)."""

from __future__ import annotations

import pytest

from volcano.apiserver import ApiServer
from volcano.sim import RandomStreams, SimClock


@pytest.fixture
def clock() -> SimClock:
    return SimClock()


@pytest.fixture
def server(clock: SimClock) -> ApiServer:
    return ApiServer(clock, RandomStreams(0))
