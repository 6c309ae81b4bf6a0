"""README.md and docs/*.md stay true: every Python block runs, every shell line that names a
``volcano`` command, a make target or a package extra names one that exists, and the examples
in module docstrings pass as doctests.

docs/architecture.md's Python blocks run in ``tests/test_architecture_examples.py``; kubectl
lines are exercised against ``volcano serve`` by ``tests/httpapi/test_kubectl.py``.
"""

from __future__ import annotations

import argparse
import doctest
import importlib
import pkgutil
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import volcano
from volcano.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "architecture.md")]


def blocks(path: Path, lang: str) -> list[str]:
    """The fenced ``lang`` blocks of a Markdown file, in order."""
    return re.findall(rf"```{lang}\n(.*?)```", path.read_text(), flags=re.S)


def is_pytest_block(block: str) -> bool:
    return re.search(r"^def test_", block, flags=re.M) is not None


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_python_blocks_run_in_order(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain blocks run in one namespace, in order (a block may continue the one before), from the
    repository root, as a reader of a fresh clone would run them."""
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {"__name__": f"docs_{path.stem}"}
    for block in blocks(path, "python"):
        if not is_pytest_block(block):
            exec(compile(block, str(path.relative_to(ROOT)), "exec"), namespace)


def test_the_readme_has_runnable_examples() -> None:
    readme = blocks(ROOT / "README.md", "python")
    assert len([b for b in readme if not is_pytest_block(b)]) >= 5
    assert len([b for b in readme if is_pytest_block(b)]) >= 2


def test_pytest_blocks_pass_under_pytest(tmp_path: Path) -> None:
    """Blocks that define tests are test files: they pass when pytest runs them with the
    package's plugin (the ``fake_cluster`` and ``kube_api`` fixtures)."""
    pytest.importorskip("kubernetes", reason="the kube_api example uses the official client")
    files = []
    for path in DOCS:
        for i, block in enumerate(blocks(path, "python")):
            if is_pytest_block(block):
                target = tmp_path / f"test_{path.stem.lower()}_{i}.py"
                target.write_text(block)
                files.append(str(target))
    assert files
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir",
                           str(tmp_path), *files], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert f"{len(files)} passed" in done.stdout


def shell_lines(path: Path) -> list[str]:
    lines = []
    for block in blocks(path, "sh"):
        joined = block.replace("\\\n", " ")
        lines += [line.strip() for line in joined.splitlines() if line.strip() and not line.startswith("#")]
    return lines


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_shell_lines_name_what_exists(path: Path) -> None:
    commands = _subcommands()
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), flags=re.M))
    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    for line in shell_lines(path):
        words = shlex.split(re.sub(r"\[[^\]'\"]*\]", "", line.split(" #")[0]).rstrip("&").strip())
        while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
            words = words[1:]  # VAR=value prefixes
        if not words:
            continue
        if words[0].endswith("bin/volcano") or words[0] == "volcano":
            assert words[1] in commands, f"{path.name}: {line}: no command {words[1]!r}"
            known = commands[words[1]]._option_string_actions
            for word in words[2:]:
                flag = word.split("=", 1)[0]
                if flag.startswith("--") and words[1] != "conformance":
                    assert flag in known, f"{path.name}: {line}: volcano {words[1]} has no {flag}"
        elif words[0] == "make":
            named = [w for w in words[1:] if "=" not in w and not w.startswith("-")]  # not VAR=value, not flags
            assert all(t in targets for t in named), f"{path.name}: {line}: unknown make target"
        elif words[:2] == ["pip", "install"]:
            for extra in re.findall(r"\[([\w,-]+)\]", line):
                assert set(extra.split(",")) <= extras, f"{path.name}: {line}: unknown extra {extra}"


def _public_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(volcano.__path__, "volcano."):
        leaf = info.name.rsplit(".", 1)[-1]
        if leaf.startswith("test_") or leaf in ("conftest", "__main__"):
            continue
        names.append(info.name)
    return sorted(names)


MUST_HAVE_EXAMPLES = ("volcano.testbed", "volcano.conformance.lib", "volcano.api.jsonpath",
                      "volcano.controllers.base", "volcano.scheduler.framework.state")


def test_module_docstring_examples_pass() -> None:
    """Every doctest in the package passes; the public entry points have one."""
    attempted: dict[str, int] = {}
    failures = []
    for name in _public_modules():
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:  # an optional third-party package this environment lacks
            if (err.name or "").startswith("volcano") or name in MUST_HAVE_EXAMPLES:
                raise
            continue
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        attempted[name] = result.attempted
        if result.failed:
            failures.append(name)
    assert not failures, f"doctests failed in {failures}"
    assert all(attempted[name] > 0 for name in MUST_HAVE_EXAMPLES), {n: attempted[n] for n in MUST_HAVE_EXAMPLES}


def test_no_module_docstring_shows_python_that_is_not_a_doctest() -> None:
    """A ``::`` literal block of Python code in a module docstring never runs; write it as ``>>>``."""
    offenders = []
    for name in _public_modules():
        try:
            doc = importlib.import_module(name).__doc__ or ""
        except ModuleNotFoundError as err:
            if (err.name or "").startswith("volcano"):
                raise
            continue
        for literal in re.findall(r"::\n\n((?:    .*\n|\n)+)", doc):
            if re.search(r"^    (from |import |\w+ = |\w+\.\w+\()", literal, flags=re.M) and ">>>" not in literal:
                offenders.append(name)
    assert not offenders
