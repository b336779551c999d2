"""The terminal summary of a conformance run: which targets, what each got
(the table of `reports.summary`), what their expectations files say that
the run contradicts, and which files were written."""

from __future__ import annotations

from typing import Any

from pytest_planmode import SUITE_VERSION
from pytest_planmode.harness.items import Collection
from pytest_planmode.harness.lifecycle import Targets
from pytest_planmode.harness.options import Options
from pytest_planmode.harness.results import Results


class TerminalSummary:
    PLUGIN_NAME = "planmode-summary"

    def __init__(self, options: Options, targets: Targets, collection: Collection, results: Results) -> None:
        self.options = options
        self.targets = targets
        self.collection = collection
        self.results = results

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        judged_all = self.targets.judged
        if self.options.is_worker or not judged_all:
            return
        from pytest_planmode.reports import summary

        tr = terminalreporter
        several = len(judged_all) > 1
        if several:
            tr.write_sep("=", f"planmode: {len(judged_all)} targets against suite {SUITE_VERSION}")
            for judged in judged_all.values():
                tr.write_line(f"{judged.name}: {judged.handshake.label}  [{judged.spec}]")
        else:
            label = next(iter(judged_all.values())).handshake.label
            tr.write_sep("=", f"planmode: {label} against suite {SUITE_VERSION}")
        for judged in judged_all.values():
            who = f"{judged.name}: " if several else ""
            if judged.handshake.observes == "effects":
                tr.write_line(
                    f"{who}the target observes effects only: cases that need an explanation field are "
                    "skipped and counted as explained"
                )
            collected = self.collection.collected_ids[judged.name]
            stale = sorted(set(judged.expectations) - collected)
            if stale and collected:
                tr.write_line(
                    f"{who}expectations file lists {len(stale)} case id(s) this suite does not have "
                    f"(remove them): {', '.join(stale[:10])}{' ...' if len(stale) > 10 else ''}",
                    yellow=True,
                )
            results = self.results.tallies[judged.name].results
            unjudged = sorted(
                case_id
                for case_id in judged.expectations
                if results.get(case_id, {}).get("outcome") == "explained"
            )
            if unjudged:
                tr.write_line(
                    f"{who}expectations file lists {len(unjudged)} case id(s) this target is never judged "
                    f"on (they need an explanation it does not give; remove them): "
                    f"{', '.join(unjudged[:10])}{' ...' if len(unjudged) > 10 else ''}",
                    yellow=True,
                )
            if judged.exit_status != 0:
                status = judged.exit_status
                tr.write_line(
                    f"{who}the target did not exit with status 0 at end of input "
                    f"({'it hung' if status is None else f'status {status}'})",
                    red=True,
                )
        strict = self.options.strict
        for line in self.collection.vacuous:
            tr.write_line(f"planmode {'error' if strict else 'warning'}: {line}", red=strict, yellow=True)
        if not any(self.results.tallies[name].counts for name in judged_all):
            tr.write_line("no conformance case ran")
            return
        for line, failing in summary.terminal_table(self.results.report()):
            tr.write_line(line, red=failing, bold=line.startswith("total"))
        written = [(self.options.report_path, "report"), (self.options.html_path, "page")]
        written += [(j.files.write_path, f"expectations of {j.name}") for j in judged_all.values()]
        for path, what in written:
            if path:
                tr.write_line(f"planmode {what} written to {path}")
        if self.results.recorded:
            tr.write_line(
                "planmode: every failure of this run is recorded in the expectations file(s) written, "
                "so the run exits 0 (--planmode-write-expectations)"
            )
