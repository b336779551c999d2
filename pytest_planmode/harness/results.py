"""Results: what each conformance item's report says (a property check's
failure in the layout of a case, a fixed case's XPASS), each result counted
per target, the report model built from them, and at the end the files the
run writes and the exit status it must not hide."""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode import SUITE_VERSION
from pytest_planmode.harness.items import CaseItem, Collection, item_target
from pytest_planmode.harness.lifecycle import Judged, Targets
from pytest_planmode.harness.options import Options
from pytest_planmode.harness.property_checks import PropertyChecks, property_failure
from pytest_planmode.harness.verdict import EXPLANATION_SKIP, first_line
from pytest_planmode.reports import OUTCOMES


@dataclass
class Tally:
    """What one target got: counts per (operation, level) and every case's entry."""

    counts: dict[tuple[str, str], Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    results: dict[str, dict[str, Any]] = field(default_factory=dict)


class Results:
    PLUGIN_NAME = "planmode-results"

    def __init__(
        self,
        config: pytest.Config,
        options: Options,
        targets: Targets,
        collection: Collection,
        checks: PropertyChecks,
    ) -> None:
        self.config = config
        self.options = options
        self.targets = targets
        self.collection = collection
        self.checks = checks
        self.tallies: dict[str, Tally] = defaultdict(Tally)
        #: The run's failures were all written to expectations files, and it exits 0.
        self.recorded = False

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        report: pytest.TestReport = yield
        marker = item.get_closest_marker("planmode")
        if marker is None or not report.failed or report.when != "call":
            return report
        case_id = marker.kwargs.get("id") or item.name
        if (
            not isinstance(item, CaseItem)
            and call.excinfo is not None
            and not str(report.longrepr).startswith("[XPASS(strict)]")
        ):
            message, summary = property_failure(
                item, marker.kwargs, call.excinfo.value, self.checks.calls, self.checks.illegal
            )
            report.longrepr = message
            report.user_properties.append(("planmode_summary", summary[:300]))
        if str(report.longrepr).startswith("[XPASS(strict)]"):
            # A fixed case: say what to do, not the failure it once had.
            judged = self.targets.judged[item_target(item, self.targets)]
            files = " or ".join(f"`{p}`" for p in judged.files.paths) or "the expectations"
            message = f"passes now: remove `{case_id}` from {files}"
            report.longrepr = f"{message}\n(it was listed as: {judged.expectations.get(case_id, '')})"
            report.user_properties.append(("planmode_summary", message))
            report.user_properties.append(("planmode_xpass", True))
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = {str(k): v for k, v in report.user_properties}
        case_id = props.get("planmode_case")
        name = str(props.get("planmode_target"))
        if not isinstance(case_id, str) or name not in self.targets.judged:
            return
        outcome = _outcome(report)
        if outcome is None:
            return
        op = str(props.get("planmode_operation"))
        level = str(props.get("planmode_level"))
        tally = self.tallies[name]
        tally.counts[(op, level)][outcome] += 1
        entry: dict[str, Any] = {
            "id": case_id,
            "operation": op,
            "level": props.get("planmode_level"),
            "nodeid": report.nodeid,
            "outcome": outcome,
        }
        if isinstance(props.get("planmode_spec"), str):
            entry["spec"] = props["planmode_spec"]
        if outcome in ("failed", "error"):
            entry["message"] = report.longreprtext[:8000]
            entry["summary"] = _summary(report, props)
            detail = props.get("planmode_failure")
            if isinstance(detail, dict):
                entry.update(detail)
            if props.get("planmode_xpass"):
                entry["xpassStrict"] = True
        elif outcome == "xfailed":
            entry["message"] = str(getattr(report, "wasxfail", ""))
        elif outcome in ("skipped", "explained") and isinstance(report.longrepr, tuple):
            entry["message"] = str(report.longrepr[2]).removeprefix("Skipped: ")
        tally.results[case_id] = entry

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist: a worker finished; keep its targets' exit statuses."""
        output = getattr(node, "workeroutput", {})
        for line in output.get("planmode_vacuous", ()):
            if line not in self.collection.vacuous:
                self.collection.vacuous.append(line)
        for name, status in output.get("planmode_exit_status", {}).items():
            judged = self.targets.judged.get(name)
            if judged is not None and status != 0 and judged.exit_status == 0:
                judged.exit_status = status

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> Any:
        self._finish(session)
        result = yield
        if self.recorded and session.exitstatus == pytest.ExitCode.TESTS_FAILED:
            # Last, after every other plugin has had its say on the status.
            session.exitstatus = pytest.ExitCode.OK
        return result

    def _finish(self, session: pytest.Session) -> None:
        self.targets.stop()
        judged = self.targets.judged
        if self.options.is_worker:
            # The controller reports the workers' targets' exit statuses.
            workeroutput = self.config.workeroutput  # type: ignore[attr-defined]
            workeroutput["planmode_exit_status"] = {n: j.exit_status for n, j in judged.items()}
            workeroutput["planmode_vacuous"] = self.collection.vacuous
            return
        if not judged:
            return
        failed = pytest.ExitCode.TESTS_FAILED
        if any(j.exit_status != 0 for j in judged.values()) and session.exitstatus == pytest.ExitCode.OK:
            # The message is in the summary; a status the run must not hide.
            session.exitstatus = failed
        if self.collection.vacuous and self.options.strict and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = failed
        if session.exitstatus == pytest.ExitCode.USAGE_ERROR:
            return  # nothing ran: no report, and the expectations files stay as they are
        writes: list[tuple[str, Any]] = []
        options = self.options
        if options.report_path or options.html_path:
            document = self.report()
            if options.report_path:
                writes.append((options.report_path, lambda: _json_text(document)))
            if options.html_path:
                from pytest_planmode.reports import html

                writes.append((options.html_path, lambda: html.render(document)))
        for one in judged.values():
            if one.files.write_path:
                writes.append((one.files.write_path, lambda j=one: _json_text(self.written_expectations(j))))
        for path, text in writes:
            try:
                target = Path(path)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text(), encoding="utf-8")
            except OSError as exc:
                sys.stderr.write(f"planmode: cannot write {path}: {exc}\n")
                session.exitstatus = pytest.ExitCode.USAGE_ERROR
        # An update run did what it was asked when every failure is in the
        # file it wrote: the next gated run passes, and this one exits 0.
        self.recorded = session.exitstatus == failed and self.all_failures_recorded(session)

    def all_failures_recorded(self, session: pytest.Session) -> bool:
        """Whether every failure of the run is a case of a target whose
        expectations file this run wrote (and nothing else failed the run)."""
        judged = self.targets.judged
        if any(j.exit_status != 0 for j in judged.values()) or (
            self.collection.vacuous and self.options.strict
        ):
            return False
        recorded = 0
        for name, one in judged.items():
            failing = sum(
                1 for entry in self.tallies[name].results.values() if entry["outcome"] in ("failed", "error")
            )
            if failing and not one.files.write_path:
                return False
            recorded += failing
        return recorded > 0 and recorded == session.testsfailed

    def report(self) -> dict[str, Any]:
        """The run as the report model (`contract.report.Report`)."""
        options = self.config.option
        level = self.options.level
        return {
            "suite": SUITE_VERSION,
            "level": level,
            "selection": {
                "level": level,
                "spec": self.options.spec_filter,
                "keyword": getattr(options, "keyword", "") or None,
                "markers": getattr(options, "markexpr", "") or None,
            },
            "targets": [_target_report(j, self.tallies[j.name]) for j in self.targets.judged.values()],
        }

    def written_expectations(self, judged: Judged) -> dict[str, str]:
        """A target's expectations file after this run: an entry leaves only
        when its case ran and passed (or passed although listed), or when the
        case needs an explanation this target does not give (it is skipped as
        explained on every run); cases that did not run keep their entries,
        listed failures keep their reasons, new failures get their one-line
        summary."""
        known = {**judged.files.written_before, **judged.expectations}
        written = dict(known)
        for case_id, entry in self.tallies[judged.name].results.items():
            outcome = entry["outcome"]
            if outcome in ("passed", "explained") or entry.get("xpassStrict"):
                written.pop(case_id, None)
            elif outcome in ("failed", "error", "xfailed"):
                written[case_id] = known.get(case_id) or entry.get("summary") or "failed"
        return dict(sorted(written.items()))


def _outcome(report: pytest.TestReport) -> str | None:
    """A report's outcome in the report model's words; None for a phase that adds none."""
    outcome: str | None = None
    if report.when == "call":
        if report.passed:
            outcome = "passed"
        elif report.skipped:
            outcome = "xfailed" if hasattr(report, "wasxfail") else "skipped"
        else:
            outcome = "failed"
    elif report.when == "setup":
        if report.skipped:
            outcome = "xfailed" if hasattr(report, "wasxfail") else "skipped"
        elif report.failed:
            outcome = "error"
    elif report.failed:
        outcome = "error"
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
    if outcome == "skipped" and str(reason).removeprefix("Skipped: ").startswith(EXPLANATION_SKIP):
        outcome = "explained"
    return outcome


def _json_text(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _counts(counters: Any) -> dict[str, int]:
    total: Counter[str] = Counter()
    for counter in counters:
        total.update(counter)
    return {o: total[o] for o in OUTCOMES}


def _target_report(judged: Judged, tally: Tally) -> dict[str, Any]:
    """One target's part of the report."""
    results = tally.results
    counts = tally.counts
    ops = sorted({op for op, _ in counts})
    levels = sorted({level for _, level in counts})
    return {
        "name": judged.name,
        "target": judged.spec,
        "implementation": judged.handshake.implementation,
        "operationsListed": sorted(judged.handshake.operations),
        "observes": judged.handshake.observes,
        "expectationsFiles": judged.files.paths,
        "targetExitStatus": judged.exit_status,
        "totals": _counts(counts.values()),
        "operations": {op: _counts(c for (o, _), c in counts.items() if o == op) for op in ops},
        "levels": {
            level: {
                op: _counts(c for (o, lv), c in counts.items() if o == op and lv == level)
                for op in ops
                if (op, level) in counts
            }
            for level in levels
        },
        "failures": [
            {k: v for k, v in entry.items() if k != "xpassStrict"}
            for _, entry in sorted(results.items())
            if entry["outcome"] in ("failed", "error")
        ],
        "skipReasons": {
            case_id: entry.get("message", "")
            for case_id, entry in sorted(results.items())
            if entry["outcome"] in ("skipped", "explained")
        },
        "results": {case_id: entry["outcome"] for case_id, entry in sorted(results.items())},
        "expectedFailures": sorted(
            case_id for case_id, entry in results.items() if entry["outcome"] == "xfailed"
        ),
    }


def _summary(report: pytest.TestReport, props: dict[str, Any]) -> str:
    """One line saying why a case failed."""
    if isinstance(props.get("planmode_summary"), str):
        return str(props["planmode_summary"])
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        return first_line(str(crash.message))
    return first_line(report.longreprtext)
