"""``scripts/mutation.py``: the parts that decide what a run tests and how it scores it (with
``--packages`` the unit stage runs only those packages' unit tests, mutating only those packages,
in a work directory of its own; with every package, all of ``tests``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_script", ROOT / "scripts" / "mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


mutation = _load()


def test_sync_unmutated_refreshes_copies_outside_the_scope(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Edited, added and removed files outside the mutated packages reach ``mutants/``; files of the
    mutated packages (mutmut's own) are left alone."""
    src, work = tmp_path / "repo", tmp_path / "work"
    (src / "volcano" / "conformance").mkdir(parents=True)
    (src / "volcano" / "scheduler").mkdir(parents=True)
    (src / "volcano" / "conformance" / "test_a.py").write_text("edited\n")
    (src / "volcano" / "conformance" / "test_new.py").write_text("new\n")
    (src / "volcano" / "scheduler" / "x.py").write_text("source\n")
    copy = work / "mutants" / "volcano"
    (copy / "conformance").mkdir(parents=True)
    (copy / "scheduler").mkdir(parents=True)
    (copy / "conformance" / "test_a.py").write_text("old\n")
    (copy / "conformance" / "test_gone.py").write_text("removed upstream\n")
    (copy / "scheduler" / "x.py").write_text("mutated\n")
    monkeypatch.setattr(mutation, "ROOT", src)
    mutation.sync_unmutated(work)
    assert (copy / "conformance" / "test_a.py").read_text() == "edited\n"
    assert (copy / "conformance" / "test_new.py").read_text() == "new\n"
    assert not (copy / "conformance" / "test_gone.py").exists()
    assert (copy / "scheduler" / "x.py").read_text() == "mutated\n"


def test_the_mutmut_section_bounds_timeouts() -> None:
    assert f"timeout_multiplier = {mutation.TIMEOUT_MULTIPLIER}" in mutation.mutmut_config("conformance")
    assert 'pytest_add_cli_args_test_selection = ["volcano/conformance"]' in mutation.mutmut_config("conformance")


def test_the_sample_is_stratified_and_stable() -> None:
    names = [f"volcano.scheduler.m.x_f__mutmut_{i}" for i in range(300)] + \
            [f"volcano.admission.m.x_f__mutmut_{i}" for i in range(100)]
    first = mutation.stratified_sample(names, 40, seed=1)
    assert (len(first["scheduler"]), len(first["admission"]), len(first["apiserver"])) == (30, 10, 0)
    assert mutation.stratified_sample(list(reversed(names)), 40, seed=1) == first
    assert mutation.stratified_sample(names, 40, seed=2) != first


def test_the_estimate_weights_packages_by_size() -> None:
    strata = {"a": mutation.Stratum(population=300, killed=30, survived=0),
              "b": mutation.Stratum(population=100, killed=5, survived=5)}
    score, half = mutation.estimate(strata)
    assert score == pytest.approx(0.75 * 1.0 + 0.25 * 0.5)
    assert 0 < half < 0.25


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
