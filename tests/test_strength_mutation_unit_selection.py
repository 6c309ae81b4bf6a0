"""``scripts/mutation.py``: with ``--packages`` the unit stage runs only those packages' unit tests,
mutating only those packages, in a work directory of its own; with every package, all of ``tests``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_script_units", ROOT / "scripts" / "mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


mutation = _load()


def test_chosen_packages_get_their_own_unit_tests_and_work_directory() -> None:
    name, selection, packages = mutation.unit_selection({"scheduler", "controllers/job"})
    assert name == "unit-controllers-job+scheduler"
    assert selection == ["tests/controllers/job", "tests/scheduler"]
    assert packages == ["controllers/job", "scheduler"]
    config = mutation.mutmut_config("unit", selection, packages)
    assert 'pytest_add_cli_args_test_selection = ["tests/controllers/job", "tests/scheduler"]' in config
    assert 'only_mutate = ["volcano/controllers/job/*", "volcano/scheduler/*"]' in config


def test_every_package_keeps_the_whole_unit_suite() -> None:
    assert mutation.unit_selection(set(mutation.PACKAGES)) == ("unit", None, None)
    config = mutation.mutmut_config("unit")
    assert 'pytest_add_cli_args_test_selection = ["tests"]' in config
    assert all(f'"{prefix}*"' in config for prefix in mutation.PACKAGES.values())


def test_every_package_has_unit_tests_that_exist() -> None:
    assert set(mutation.UNIT_TESTS) == set(mutation.PACKAGES)
    assert all((ROOT / path).is_dir() for paths in mutation.UNIT_TESTS.values() for path in paths)
