"""The mutation runs' pytest plugin (``scripts/mutation_pytest_plugin.py``) clears the API server's small
result caches."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from volcano.apiserver import validation
from volcano.apiserver.validation import names

ROOT = Path(__file__).resolve().parents[2]


def test_the_listed_caches_exist_and_are_cleared() -> None:
    path = ROOT / "scripts" / "mutation_pytest_plugin.py"
    spec = importlib.util.spec_from_file_location("mutation_pytest_plugin", path)
    assert spec is not None and spec.loader is not None
    plugin = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plugin)
    for module, _ in (*plugin.CACHED, *plugin.MEMOS):
        importlib.import_module(module)
    listed = sum(len(names) for _, names in (*plugin.CACHED, *plugin.MEMOS))
    assert plugin.clear_caches() == listed  # no listed name is stale
    names.dns1123_subdomain_errors("Bad_Name")
    assert names._dns1123_subdomain_errors.cache_info().currsize >= 1
    plugin.pytest_runtest_setup(None)
    assert names._dns1123_subdomain_errors.cache_info().currsize == 0
    validation._PARTS[("d", "p", "v")] = True
    plugin.pytest_runtest_setup(None)
    assert validation._PARTS == {}
