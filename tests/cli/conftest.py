"""Fixtures of the ``volcano`` CLI tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import Writer


@pytest.fixture
def write(tmp_path: Path) -> Writer:
    """``write(name, text)`` writes a file under tmp_path and returns its path as a string."""
    def _write(name: str, text: str | bytes) -> str:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        return str(path)
    return _write
