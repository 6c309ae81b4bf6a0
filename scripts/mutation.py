"""Mutation testing of the scheduler, the Job controller, the API server and admission (``make mutation``).

The tool is mutmut 3: it compiles every mutant of a function into one copy of the source and
switches between them at run time, records which tests reach which function, and runs only those
tests per mutant (fastest first, stopping at the first failure) in a process forked from a warm
one. Its results live beside the mutated copy and are keyed by a hash of each function, so a
second run re-tests only mutants of functions that changed. cosmic-ray, the other maintained
tool, runs the whole test command per mutant; here that is ~40 s of unit and conformance tests,
against well under a second for most mutants with mutmut.

Two suites are measured as a cascade, each in its own work directory under ``out/mutation/``:
first the conformance suite (``volcano/conformance``) on every sampled mutant, then the unit
tests (``tests/``) on the mutants the conformance suite left alive. A mutant is killed by the two
suites together when either kills it, so the cascade gives both scores asked for (conformance
alone; unit and conformance together) while the unit tests, whose slow scenario tests reach
most of the scheduler, run only where they can still change the verdict.

The scope holds some 30,000 mutants, far more than a 2-core machine tests in a few hours, so a
run may take a seeded, stratified sample: ``--sample N`` (``MUTATION_SAMPLE``) mutants spread over
the four packages in proportion to their sizes, each package's share being the mutants whose
``sha256(seed:name)`` ranks lowest. The ranking of a mutant never changes, so a sample is stable
as the code changes and re-testing it is incremental too. ``--sample 0`` runs every mutant.
Every run is bounded: ``--max-minutes`` (``MUTATION_MAX_MINUTES``) stops mutmut, keeping what it
finished; the next run goes on from there.

The report (``out/mutation/report.md`` and ``report.json``) gives the score per package and suite
with a 95% confidence interval (stratified estimate, finite-population corrected) and lists every
surviving mutant with its diff and, where ``scripts/mutation_reasons.yaml`` has one, the reason it
is equivalent or accepted.

A recorded verdict stands until the mutated function changes; ``--retest-survivors``
(``MUTATION_RETEST_SURVIVORS=1``) tests the sample's survivors again, for after tests were added.

Usage: ``python scripts/mutation.py [--sample N] [--seed S] [--max-minutes M] [--max-children K]
[--stage both|conformance|unit] [--packages scheduler,admission,...] [--unit-tests tests/a,tests/b]
[--retest-survivors] [--report-only]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "out" / "mutation"
REASONS = Path(__file__).resolve().with_name("mutation_reasons.yaml")

PACKAGES = {
    "scheduler": "volcano/scheduler/",
    "controllers/job": "volcano/controllers/job/",
    "apiserver": "volcano/apiserver/",
    "admission": "volcano/admission/",
}
SUITES = {
    "conformance": ["volcano/conformance"],
    "unit": ["tests"],
}
# With --packages, the unit stage runs only the chosen packages' own unit tests, in a work directory of
# its own: mutmut first records which tests reach which function by running the whole selection, and
# over all of tests/ that never finished within a run's time bound on the shared 2-core machine.
UNIT_TESTS = {
    "scheduler": ["tests/scheduler"],
    "controllers/job": ["tests/controllers/job"],
    "apiserver": ["tests/apiserver", "tests/api"],
    "admission": ["tests/admission", "tests/webhooks"],
}
# mutmut's exit-code classes (mutmut.stats.status_by_exit_code); timeouts count as killed, as its badge does.
KILLED = {1, 3, 36, 24, -24, 152, 255, 37}
SURVIVED = {0, 5, 33}
UNCOUNTED = {None, 2, 34}
TIMEOUT_MULTIPLIER = 4.0


def mutmut_config(suite: str, selection: list[str] | None = None, packages: list[str] | None = None) -> str:
    """The ``[tool.mutmut]`` section of a suite's work directory (``selection``: its test paths, by
    default the suite's; ``packages``: the packages it mutates, by default all)."""
    only = [f"{PACKAGES[pkg]}*" for pkg in packages or PACKAGES]
    lines = [
        "",
        "[tool.mutmut]",
        'source_paths = ["volcano"]',
        f"only_mutate = {json.dumps(only)}",
        f"also_copy = {json.dumps(top_level())}",
        f"pytest_add_cli_args_test_selection = {json.dumps(selection or SUITES[suite])}",
        # The plugin clears the mutated code's small result caches before each test (see its docstring).
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "scripts.mutation_pytest_plugin"]',
        "use_git_change_detection = false",
        # A mutant gets (estimated test time + 1 s) x multiplier x 2 CPU seconds. mutmut's default
        # multiplier of 15 let a mutant that makes the Job controller flap between phases spin for
        # most of an hour; its tests stop at the first failure, so 8 x their time is ample.
        f"timeout_multiplier = {TIMEOUT_MULTIPLIER}",
        "",
    ]
    return "\n".join(lines)


def top_level() -> list[str]:
    """The repository's tracked top-level files and directories besides the sources and pyproject.toml:
    tests read some of them (scripts/, docs/, deploy/, fixtures/, README.md ...) relative to the tree."""
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    names = {line.split("/", 1)[0] for line in listed.splitlines() if line}
    return sorted(names - {"volcano", "pyproject.toml"})


def unit_selection(chosen: set[str]) -> tuple[str, list[str] | None, list[str] | None]:
    """The unit stage's work directory name, test paths and mutated packages for the chosen packages
    (all of them: ``unit``, every test, every package)."""
    if chosen >= set(PACKAGES):
        return "unit", None, None
    picked = sorted(chosen)
    name = "unit-" + "+".join(p.replace("/", "-") for p in picked)
    return name, [t for p in picked for t in UNIT_TESTS[p]], picked


def prepare(suite: str, name: str | None = None, selection: list[str] | None = None,
            packages: list[str] | None = None) -> Path:
    """The suite's work directory (``out/mutation/<name or suite>``): links to the sources, tests and
    other top-level entries, and a pyproject with its mutmut section."""
    work = OUT / (name or suite)
    work.mkdir(parents=True, exist_ok=True)
    for name in ("volcano", *top_level()):
        link = work / name
        if not link.is_symlink():
            link.symlink_to(ROOT / name)
    text = (ROOT / "pyproject.toml").read_text() + mutmut_config(suite, selection, packages)
    target = work / "pyproject.toml"
    if not target.exists() or target.read_text() != text:
        target.write_text(text)
    return work


GENERATE = """
import os
from mutmut.__main__ import create_mutants
from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir, setup_source_paths
os.makedirs("mutants", exist_ok=True)
copy_src_dir(); copy_also_copy_files(); setup_source_paths()
print(create_mutants({children}))
"""


def generate(work: Path, children: int, packages: list[str] | None = None) -> None:
    """Create (or bring up to date) every mutant of the scope (or of ``packages``), without running anything."""
    subprocess.run([sys.executable, "-c", GENERATE.format(children=children)], cwd=work, check=True,
                   stdout=subprocess.DEVNULL)
    sync_unmutated(work, packages)


def sync_unmutated(work: Path, packages: list[str] | None = None) -> None:
    """Bring the copies of files outside the scope (the conformance suite among them) up to date.

    mutmut copies the source tree into ``mutants/`` once and afterwards re-creates only the files
    it mutates, so an edited or added conformance case, or a removed one, would otherwise not reach
    the mutants."""
    src, dst = ROOT / "volcano", work / "mutants" / "volcano"
    scoped = tuple(PACKAGES[pkg].removeprefix("volcano/") for pkg in packages or PACKAGES)
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src).as_posix()
        if not path.is_file() or "__pycache__" in rel or rel.startswith(scoped):
            continue
        target = dst / rel
        if not target.exists() or target.read_bytes() != path.read_bytes():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    for target in sorted(dst.rglob("*.py")):
        rel = target.relative_to(dst).as_posix()
        if "__pycache__" not in rel and not rel.startswith(scoped) and not (src / rel).exists():
            target.unlink()


def package_of(name: str) -> str | None:
    """The package of a mutant name (``volcano.scheduler.actions.preempt.x_f__mutmut_3``)."""
    dotted = name.replace(".", "/")
    return next((pkg for pkg, prefix in PACKAGES.items() if dotted.startswith(prefix)), None)


def results(work: Path) -> dict[str, int | None]:
    """Every mutant of the scope with its recorded exit code (None: not tested yet)."""
    out: dict[str, int | None] = {}
    for meta in sorted((work / "mutants" / "volcano").rglob("*.py.meta")):
        data = json.loads(meta.read_text())
        for name, code in data.get("exit_code_by_key", {}).items():
            if package_of(name):
                out[name] = code
    return out


def rank(seed: int, name: str) -> str:
    """A mutant's place in the seeded order (stable across runs and code changes)."""
    return hashlib.sha256(f"{seed}:{name}".encode()).hexdigest()


def stratified_sample(names: list[str], size: int, seed: int) -> dict[str, list[str]]:
    """Per package, the lowest-ranked mutants; shares proportional to package size (at least 10 each)."""
    strata: dict[str, list[str]] = {pkg: [] for pkg in PACKAGES}
    for name in names:
        strata[package_of(name) or ""].append(name)
    total = sum(len(v) for v in strata.values())
    out: dict[str, list[str]] = {}
    for pkg, members in strata.items():
        share = len(members) if size <= 0 else min(len(members), max(10, round(size * len(members) / total)))
        out[pkg] = sorted(sorted(members, key=lambda n: rank(seed, n))[:share])
    return out


def run_mutmut(work: Path, names: list[str], children: int, deadline: float) -> bool:
    """Test ``names`` with mutmut until done or ``deadline`` (monotonic seconds); False when cut short."""
    if not names:
        return True
    left = deadline - time.monotonic()
    if left <= 0:
        return False
    log = (work / "mutmut.log").open("a")
    proc = subprocess.Popen([sys.executable, "-m", "mutmut", "run", "--max-children", str(children), *names],
                            cwd=work, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        proc.wait(timeout=left)
        return True
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        return False
    finally:
        log.close()


@dataclass
class Stratum:
    """Counts for one package in one suite."""

    population: int
    killed: int = 0
    survived: int = 0
    untested: int = 0
    survivors: list[str] = field(default_factory=list)

    @property
    def tested(self) -> int:
        return self.killed + self.survived


def estimate(strata: dict[str, Stratum]) -> tuple[float, float]:
    """Stratified kill rate and the half-width of its 95% interval (finite-population corrected)."""
    total = sum(s.population for s in strata.values() if s.tested)
    if not total:
        return 0.0, 0.0
    score = var = 0.0
    for s in strata.values():
        if not s.tested:
            continue
        w = s.population / total
        p = s.killed / s.tested
        score += w * p
        fpc = 1 - s.tested / s.population if s.population > 1 else 0.0
        var += w * w * p * (1 - p) / max(1, s.tested - 1) * fpc
    return score, 1.96 * math.sqrt(var)


def tally(sample: dict[str, list[str]], population: dict[str, int],
          *suite_codes: dict[str, int | None]) -> dict[str, Stratum]:
    """Per package: sampled mutants killed by any of the suites (in cascade order), survived by
    all of them, or not yet decided (untested by a suite that could still kill them)."""
    out = {pkg: Stratum(population=population[pkg]) for pkg in PACKAGES}
    for pkg, names in sample.items():
        for name in names:
            verdict = "untested"
            for codes in suite_codes:
                code = codes.get(name)
                if code in KILLED:
                    verdict = "killed"
                    break
                if code not in SURVIVED:
                    verdict = "untested"
                    break
                verdict = "survived"
            if verdict == "killed":
                out[pkg].killed += 1
            elif verdict == "survived":
                out[pkg].survived += 1
                out[pkg].survivors.append(name)
            else:
                out[pkg].untested += 1
    return out


def diff_of(work: Path, name: str) -> str:
    """mutmut's diff for one mutant."""
    res = subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=work, capture_output=True, text=True)
    lines = res.stdout.splitlines()
    return "\n".join(line for line in lines[1:] if line.startswith(("+", "-")) and not line.startswith(("+++", "---")))


def _score_table(strata: dict[str, Stratum]) -> list[str]:
    score, half = estimate(strata)
    md = [f"Score: **{score:.1%}** ± {half:.1%}", "",
          "| package | mutants | tested | killed | survived | untested | score |",
          "|---|---:|---:|---:|---:|---:|---:|"]
    for pkg, s in strata.items():
        rate = f"{s.killed / s.tested:.1%}" if s.tested else "-"
        md.append(f"| {pkg} | {s.population} | {s.tested} | {s.killed} | {s.survived} | {s.untested} | {rate} |")
    return [*md, ""]


def adjusted(strata: dict[str, Stratum], reasons: dict[str, str]) -> dict[str, Stratum]:
    """The strata with each survivor's recorded reason applied: an ``equivalent`` mutant leaves
    the count (no test can kill it), one ``killed by`` a test written since counts as killed."""
    out: dict[str, Stratum] = {}
    for pkg, s in strata.items():
        t = Stratum(population=s.population, killed=s.killed, untested=s.untested)
        for name in s.survivors:
            reason = reasons.get(name, "")
            if reason.startswith("killed by"):
                t.killed += 1
            elif not reason.startswith("equivalent"):
                t.survived += 1
                t.survivors.append(name)
        out[pkg] = t
    return out


def write_report(args: argparse.Namespace, combined: dict[str, Stratum], conformance: dict[str, Stratum],
                 elapsed: float, unit_killed: set[str] | None = None) -> None:
    """out/mutation/report.md and report.json (``unit_killed``: the mutants the unit stage killed)."""
    reasons: dict[str, str] = (yaml.safe_load(REASONS.read_text()) or {}) if REASONS.exists() else {}
    sample_note = "every mutant" if args.sample <= 0 else f"a stratified sample of {args.sample} (seed {args.seed})"
    md = ["# Mutation testing report", "",
          f"Tool: mutmut; scope: {', '.join(PACKAGES.values())}; {sample_note}; this run {elapsed / 60:.1f} min.",
          "Score = killed / (killed + survived) over tested mutants; timeouts count as killed; a mutant no test",
          "reaches counts as survived. The interval is 95% (stratified, finite-population corrected).",
          "Sampled mutants a run left untested (time bound) are not counted: mutmut tests the mutants reached by",
          "the fewest tests first, so the untested ones lean to code every case reaches.", "",
          "## Unit tests and conformance suite together", "", *_score_table(combined),
          "Surviving mutants:", ""]
    for s in combined.values():
        for name in s.survivors:
            md += [f"- `{name}`: {reasons.get(name, 'not yet classified')}", "", "```diff",
                   diff_of(OUT / "conformance", name), "```", ""]
    md += ["### With the recorded reasons applied", "",
           "Equivalent mutants leave the count; those killed by a test written since count as killed.", "",
           *_score_table(adjusted(combined, reasons))]
    md += ["## Conformance suite alone", "", *_score_table(conformance),
           "Survivors of the conformance suite that the unit tests kill:", ""]
    md += [f"- `{n}`" for s in conformance.values() for n in s.survivors if n in (unit_killed or set())]
    (OUT / "report.md").write_text("\n".join(md) + "\n")
    data: dict[str, Any] = {"sample": args.sample, "seed": args.seed}
    for key, strata in (("combined", combined), ("combined_adjusted", adjusted(combined, reasons)),
                        ("conformance", conformance)):
        score, half = estimate(strata)
        data[key] = {"score": score, "ci95": half, "packages": {p: vars(s) for p, s in strata.items()}}
    (OUT / "report.json").write_text(json.dumps(data, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Run the cascade (bounded), then write the report."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sample", type=int, default=int(os.environ.get("MUTATION_SAMPLE", "200")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("MUTATION_SEED", "1")))
    ap.add_argument("--max-minutes", type=float, default=float(os.environ.get("MUTATION_MAX_MINUTES", "120")))
    ap.add_argument("--max-children", type=int, default=int(os.environ.get("MUTATION_CHILDREN", "2")))
    ap.add_argument("--report-only", action="store_true", help="write the report from recorded results")
    ap.add_argument("--stage", choices=("both", *SUITES), default=os.environ.get("MUTATION_STAGE", "both"),
                    help="run one stage of the cascade only (the other is read from recorded results)")
    ap.add_argument("--retest-survivors", action="store_true",
                    default=os.environ.get("MUTATION_RETEST_SURVIVORS", "") not in ("", "0"),
                    help="test the sample's recorded survivors again (after tests were added)")
    ap.add_argument("--packages", default=os.environ.get("MUTATION_PACKAGES", ""),
                    help=f"comma-separated subset of {', '.join(PACKAGES)} to sample (default: all)")
    ap.add_argument("--unit-tests", default=os.environ.get("MUTATION_UNIT_TESTS", "tests"),
                    help="comma-separated test paths of the unit stage (default: tests); a subset that covers "
                         "the sampled packages records which tests reach which function in minutes, not hours")
    args = ap.parse_args(argv)
    SUITES["unit"] = [p for p in args.unit_tests.split(",") if p]
    start = time.monotonic()
    deadline = start + args.max_minutes * 60
    codes: dict[str, dict[str, int | None]] = {}
    sample: dict[str, list[str]] = {}
    population: dict[str, int] = {}
    chosen = set(filter(None, args.packages.split(","))) or set(PACKAGES)
    if chosen - set(PACKAGES):
        ap.error(f"--packages: unknown {', '.join(sorted(chosen - set(PACKAGES)))}")
    for suite in SUITES:
        name, selection, mutated = (suite, None, None) if suite == "conformance" else unit_selection(chosen)
        work = prepare(suite, name, selection, mutated)
        if not args.report_only and args.stage in ("both", suite):
            generate(work, args.max_children, mutated)
        codes[suite] = results(work)
        if suite == "conformance":
            population = {pkg: sum(1 for n in codes[suite] if package_of(n) == pkg) for pkg in PACKAGES}
            sample = stratified_sample(sorted(codes[suite]), args.sample, args.seed)
            sample = {pkg: names if pkg in chosen else [] for pkg, names in sample.items()}
            redo = UNCOUNTED | (SURVIVED if args.retest_survivors else set())
            todo = [n for names in sample.values() for n in names if codes[suite].get(n) in redo]
        else:  # the unit tests only where the conformance suite left the mutant alive
            redo = UNCOUNTED | (SURVIVED if args.retest_survivors else set())
            todo = [n for names in sample.values() for n in names
                    if codes["conformance"].get(n) in SURVIVED and codes[suite].get(n) in redo]
        if args.report_only or args.stage not in ("both", suite):
            continue
        print(f"[{suite}] {sum(population.values())} mutants; sample {sum(map(len, sample.values()))}; "
              f"{len(todo)} to test", flush=True)
        # The conformance suite gets at most 55% of the budget; the unit tests what is left.
        share = (deadline - time.monotonic()) * (0.55 if suite == "conformance" and args.stage == "both" else 1.0)
        if not run_mutmut(work, todo, args.max_children, time.monotonic() + share):
            print(f"[{suite}] stopped at the time bound; the next run goes on from here", flush=True)
        codes[suite] = results(work)
    combined = tally(sample, population, codes["conformance"], codes["unit"])
    conformance = tally(sample, population, codes["conformance"])
    unit_killed = {n for n, code in codes["unit"].items() if code in KILLED}
    write_report(args, combined, conformance, time.monotonic() - start, unit_killed)
    print((OUT / "report.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
