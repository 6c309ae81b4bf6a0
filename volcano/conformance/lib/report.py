"""The conformance report: outcomes per area, upstream-mirrored count, and the
upstream cases deliberately not covered (``volcano/conformance/not_covered.yaml``)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import yaml

__all__ = ["AREAS", "ConformanceReport"]

AREAS = ("gang", "preemption", "reclaim", "fairshare", "podgroup_status", "job_lifecycle", "queue",
         "admission", "job_plugins", "scheduling_base")


def area_of(item: pytest.Item) -> str:
    """The first area marker a case carries ("other" when none)."""
    for area in AREAS:
        if item.get_closest_marker(area):
            return area
    return "other"


class ConformanceReport:
    """A pytest plugin that counts conformance outcomes and prints/writes the report."""

    def __init__(self, config: pytest.Config, not_covered_path: Path) -> None:
        self.config = config
        self.not_covered_path = not_covered_path
        self.results: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self.upstream_passed = 0

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        here = self.not_covered_path.parent
        for item in items:
            if here not in item.path.parents:
                continue  # unit tests and benchmarks run in the same session are not conformance cases
            item.user_properties.append(("area", area_of(item)))
            up = item.get_closest_marker("upstream")
            if up:
                item.user_properties.append(("upstream", " / ".join(str(a) for a in up.args)))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = {str(k): v for k, v in report.user_properties}
        if "area" not in props:
            return
        if report.when == "call" or report.outcome != "passed":
            self.results[str(props["area"])][report.outcome] += 1
            if report.when == "call" and report.outcome == "passed" and "upstream" in props:
                self.upstream_passed += 1

    def not_covered(self) -> dict[str, list[dict[str, str]]]:
        """Upstream cases listed as not covered, by area."""
        if not self.not_covered_path.exists():
            return {}
        out: dict[str, list[dict[str, str]]] = defaultdict(list)
        for case in (yaml.safe_load(self.not_covered_path.read_text()) or {}).get("cases", []):
            out[case.get("area", "other")].append(case)
        return out

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.results:
            return
        not_covered = self.not_covered()
        rows = [(a, self.results[a]["passed"], self.results[a]["failed"], self.results[a]["skipped"],
                 len(not_covered.get(a, []))) for a in sorted(set(self.results) | set(not_covered))]
        tr = terminalreporter
        tr.section("Volcano conformance")
        tr.write_line(f"{'area':<18}{'passed':>8}{'failed':>8}{'skipped':>9}{'not covered':>13}")
        for a, p, f, s, n in rows:
            tr.write_line(f"{a:<18}{p:>8}{f:>8}{s:>9}{n:>13}")
        tr.write_line(f"upstream-mirrored cases passing: {self.upstream_passed}")
        path = self.config.getoption("--conformance-report")
        if not path:
            return
        lines = ["# Volcano conformance report", "",
                 f"Backend: `{self.config.getoption('--backend')}`. "
                 f"Upstream-mirrored cases passing: **{self.upstream_passed}**.", "",
                 "| area | passed | failed | skipped | not covered |", "|---|---:|---:|---:|---:|"]
        lines += [f"| {a} | {p} | {f} | {s} | {n} |" for a, p, f, s, n in rows]
        lines += ["", "## Upstream cases not covered", "", "| area | upstream case | reason |", "|---|---|---|"]
        for a in sorted(not_covered):
            lines += [f"| {a} | {c.get('suite', '')}: {c.get('name', '')} | {c.get('reason', '')} |"
                      for c in not_covered[a]]
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text("\n".join(lines) + "\n")
        tr.write_line(f"report written to {path}")
