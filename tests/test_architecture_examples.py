"""docs/architecture.md stays true: its Python examples run, its layer chart names every
import-linter layer, and the module examples (doctests) of the extension seams pass."""

from __future__ import annotations

import doctest
import re
import tomllib
from pathlib import Path

import pytest

from volcano.controllers import base
from volcano.scheduler.framework import state

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text()


def test_every_python_example_runs_in_order() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC, flags=re.S)
    assert len(blocks) >= 5  # a plugin, an action, an extension point, a kind, a controller
    namespace: dict[str, object] = {"__name__": "architecture_examples"}
    for block in blocks:
        exec(compile(block, "docs/architecture.md", "exec"), namespace)


def test_the_layer_chart_names_every_layer() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    layers = config["tool"]["importlinter"]["contracts"][0]["layers"]
    chart = DOC.split("## Layers", 1)[1].split("## ", 1)[0]
    for layer in layers:
        for module in layer.split("|"):
            assert module.strip() in chart, module
    assert "volcano.pytest_plugin" in chart


@pytest.mark.parametrize("module", [base, state], ids=lambda m: m.__name__)
def test_module_examples(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0
