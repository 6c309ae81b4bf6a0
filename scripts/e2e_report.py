"""The implementations side by side, case by case: ``out/e2e/side-by-side.md``.

Reads the JUnit XML of every implementation run so far (``<root>/<impl>/junit.xml``, as
``scripts/e2e-kind.sh`` writes them) and of the local runs named with ``--column NAME=PATH`` (the
in-memory run of ``make conformance``, ``make conformance-http``, ``make conformance-wire``; a file
not there yet is left out); writes one Markdown table with a row per case and a column per
implementation (``pass``, ``FAIL``, ``error``, ``skip``, ``-`` when the case did not run there),
the totals, and the benchmark results (``<root>/<impl>/bench.json``) with their workload shape.

    python scripts/e2e_report.py out/e2e --column memory=out/conformance/junit.xml --out out/e2e/side-by-side.md
"""

from __future__ import annotations

import argparse
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

IMPLS = ("upstream", "this")


def outcomes(junit: Path) -> dict[str, str]:
    """``{case id: outcome}`` of one JUnit XML file (case id: ``module::name``)."""
    found: dict[str, str] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        module = str(case.get("classname", "")).rsplit(".", 1)[-1]
        outcome = "pass"
        for tag, word in (("failure", "FAIL"), ("error", "error"), ("skipped", "skip")):
            if case.find(tag) is not None:
                outcome = word
                break
        found[f"{module}::{case.get('name', '')}"] = outcome
    return found


def report(root: Path, local: dict[str, Path] | None = None) -> str:
    """The Markdown report (see the module docstring); ``local`` maps column names to JUnit files."""
    columns: dict[str, dict[str, str]] = {}
    for name, junit in (local or {}).items():
        if junit.is_file():
            columns[name] = outcomes(junit)
    for impl in IMPLS:
        junit = root / impl / "junit.xml"
        if junit.is_file():
            columns[impl] = outcomes(junit)
    lines = ["# Conformance, implementations side by side", ""]
    if not columns:
        return "\n".join([*lines, "No results yet: run `make conformance` and `make e2e IMPL=upstream|this`.", ""])
    names = list(columns)
    cases = sorted(set().union(*(set(c) for c in columns.values())))
    lines += ["| case | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for case in cases:
        lines.append(f"| `{case}` | " + " | ".join(columns[n].get(case, "-") for n in names) + " |")
    lines.append("| **passed** | " + " | ".join(
        f"{sum(v == 'pass' for v in columns[n].values())} of {len(columns[n])}" for n in names) + " |")
    differ = [c for c in cases if len({columns[n].get(c, "-") for n in names}) > 1]
    lines += ["", f"{len(differ)} of {len(cases)} cases differ between the columns.", ""]
    benches = [(impl, json.loads((root / impl / "bench.json").read_text())) for impl in IMPLS
               if (root / impl / "bench.json").is_file()]
    if benches:
        lines += ["## Benchmark (the same workload on each)", "",
                  "| implementation | workload | nodes | pods bound | wall seconds | pods per wall second |",
                  "|---|---|---:|---:|---:|---:|"]
        for impl, b in benches:
            lines.append(f"| {impl} | {b['jobs']} gang jobs x {b['replicas']} pods | {b['nodes']} | "
                         f"{b['bound']} of {b['pods']} | {b['seconds']:.1f} | {b['pods_per_second']:.1f} |")
        lines += ["", "Pods per CPU second are not shown: the scheduler's CPU time is not observable from a "
                      "client of a real cluster.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Write the report; print where."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--column", action="append", default=[], metavar="NAME=PATH",
                        help="a local run's JUnit XML as a column (repeatable)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    local = {}
    for spec in args.column:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            parser.error(f"--column {spec}: expected NAME=PATH")
        local[name] = Path(path)
    args.out.write_text(report(args.root, local))
    print(f"e2e: side-by-side report in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
