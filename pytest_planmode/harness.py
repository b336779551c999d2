"""The conformance run: collection of fixture cases, dispatch to the target,
expectations, the terminal summary and the JSON report.

Registered as a plugin object only when a target is given, so none of these
hooks touch an unrelated pytest session.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode import SUITE_VERSION
from pytest_planmode.matching import mismatches
from pytest_planmode.plugin import DEFAULT_MAX_LINE, DEFAULT_TIMEOUT, option
from pytest_planmode.suite import CONFORMANCE_DIR, FIXTURES_DIR, Case, FixtureError, load_file
from pytest_planmode.targets import Handshake, Outcome, Target, TargetError, resolve_target

OUTCOMES = ("passed", "failed", "skipped", "xfailed", "error")


class CaseFailure(Exception):
    """A case failed; the message is complete and shown without a traceback."""


def marker_name(text: str) -> str:
    """`oplmodes.plans.resolve` -> `oplmodes_plans_resolve` (usable with -m)."""
    return "".join(ch if ch.isalnum() else "_" for ch in text)


def load_expectations(path: str, flag: str = "--planmode-expectations") -> dict[str, str]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise pytest.UsageError(f"{flag} {path}: cannot read: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise pytest.UsageError(f"{flag} {path}: not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise pytest.UsageError(f"{flag} {path}: expected a JSON object mapping case id -> reason")
    bad = [k for k, v in data.items() if not isinstance(v, str) or not v.strip()]
    if bad:
        raise pytest.UsageError(
            f"{flag} {path}: every case needs a non-empty reason string; missing for {sorted(bad)[:10]}"
        )
    return dict(data)


def _positive_number(value: Any, name: str, default: float) -> float:
    """An option value in seconds or bytes: finite and greater than 0."""
    if value is None:
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise pytest.UsageError(f"--planmode-{name} must be a number, got {value!r}") from None
    if not math.isfinite(number) or number <= 0:
        raise pytest.UsageError(f"--planmode-{name} must be finite and greater than 0, got {value!r}")
    return number


def check_writable(path: str, flag: str) -> None:
    """A usage error unless a file can be written at `path` (its missing
    parent directories are created when it is written)."""
    target = Path(path)
    if target.is_dir():
        raise pytest.UsageError(f"{flag} {path}: is a directory")
    if target.exists():
        if not os.access(target, os.W_OK):
            raise pytest.UsageError(f"{flag} {path}: the file is not writable")
        return
    probe = target.absolute().parent
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise pytest.UsageError(f"{flag} {path}: {probe} is not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise pytest.UsageError(f"{flag} {path}: cannot create files in {probe}")


class TargetClient:
    """What property checks in `conformance/` get from the `planmode_target` fixture."""

    def __init__(self, run: PlanmodeRun) -> None:
        self._run = run

    @property
    def handshake(self) -> Handshake:
        assert self._run.handshake is not None
        return self._run.handshake

    def supports(self, operation: str) -> bool:
        return operation in self.handshake.operations

    def request(self, operation: str, input: Mapping[str, Any]) -> Outcome:
        return self._run.request(operation, input)

    def call(self, operation: str, input: Mapping[str, Any]) -> dict[str, Any]:
        """The output for `input`; an error, unsupported or broken answer fails the check."""
        outcome = self._run.request(operation, input)
        if outcome.kind == "output":
            assert outcome.output is not None
            return outcome.output
        if outcome.kind == "unsupported":
            pytest.skip(f"unsupported: the target answered unsupported for {operation}")
        raise CaseFailure(
            f"{operation} with input {json.dumps(dict(input), ensure_ascii=False)[:500]}\n"
            f"the target answered {'an error' if outcome.kind == 'error' else 'illegally'}: "
            f"{outcome.message}"
        )


class FixtureFileCollector(pytest.File):
    def collect(self) -> Iterator[CaseItem]:
        try:
            run = self.config.pluginmanager.get_plugin(PlanmodeRun.PLUGIN_NAME)
            cases = load_file(self.path, root=run.fixtures_dir if run else None)
        except FixtureError as exc:
            raise self.CollectError(f"malformed fixture file:\n{exc}") from None
        for case in cases:
            yield CaseItem.from_parent(self, name=case.id, case=case)


class CaseItem(pytest.Item):
    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.add_marker(pytest.mark.planmode(operation=case.operation, level=case.level, id=case.id))

    @property
    def run(self) -> PlanmodeRun:
        run = self.config.pluginmanager.get_plugin(PlanmodeRun.PLUGIN_NAME)
        assert isinstance(run, PlanmodeRun)
        return run

    def runtest(self) -> None:
        case = self.case
        outcome = self.run.request(case.operation, case.input)
        if outcome.kind == "unsupported":
            pytest.skip(f"unsupported: the target answered unsupported for {case.operation}")
        if outcome.kind == "output":
            assert outcome.output is not None
            problems = mismatches(case.expect, outcome.output)
            if not problems:
                return
            got = json.dumps(outcome.output, ensure_ascii=False)
            what = "mismatch:\n" + "\n".join(f"  {p}" for p in problems)
            summary = "; ".join(problems)
        elif outcome.kind == "error":
            got = f"an error: {outcome.message}"
            what = "the target answered an error where an output was expected"
            summary = f"answered an error: {_first_line(outcome.message or '')}"
        else:
            got = f"no legal answer: {outcome.message}"
            what = "the target did not answer legally (it was restarted for the next case)"
            summary = f"no legal answer: {_first_line(outcome.message or '')}"
        # One line for people and for written expectations files.
        self.user_properties.append(("planmode_summary", summary[:300]))
        raise CaseFailure(
            f"{case.where}\n"
            f"spec: {case.spec} (level {case.level})\n"
            f"rule: {case.description}\n"
            f"input:    {json.dumps(case.input, ensure_ascii=False)[:2000]}\n"
            f"expected: {json.dumps(case.expect, ensure_ascii=False)[:2000]}\n"
            f"got:      {got[:4000]}\n"
            f"{what}"
        )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.case.operation}: {self.case.id}"


@pytest.fixture(scope="session")
def planmode_target(request: pytest.FixtureRequest) -> TargetClient:
    """The target under test, for property checks in `conformance/`."""
    run = request.config.pluginmanager.get_plugin(PlanmodeRun.PLUGIN_NAME)
    assert isinstance(run, PlanmodeRun)
    return TargetClient(run)


class PlanmodeRun:
    PLUGIN_NAME = "planmode-run"

    def __init__(self, config: pytest.Config, target_spec: str) -> None:
        self.config = config
        self.target_spec = target_spec
        self.timeout = _positive_number(option(config, "timeout"), "timeout", DEFAULT_TIMEOUT)
        self.max_line = int(_positive_number(option(config, "max-line"), "max-line", DEFAULT_MAX_LINE))
        self.strict = bool(option(config, "strict"))
        level = option(config, "level") or "all"
        if level not in ("all", "must"):
            raise pytest.UsageError(f"planmode_level must be 'all' or 'must', got {level!r}")
        self.level = level
        path = option(config, "expectations")
        self.expectations = load_expectations(path) if path else {}
        self.expectations_path = path
        fixtures = option(config, "fixtures")
        self.fixtures_dir = Path(fixtures).resolve() if fixtures else FIXTURES_DIR
        if not self.fixtures_dir.is_dir():
            raise pytest.UsageError(f"--planmode-fixtures {fixtures}: not a directory")
        from pytest_planmode.sandbox_session import sandbox_flag

        self.sandbox = sandbox_flag(option(config, "sandbox"))
        self.report_path = option(config, "report")
        self.write_path = option(config, "write-expectations")
        self.is_worker = hasattr(config, "workerinput")
        # Checked now, not after the run: a run whose results cannot be
        # written is wasted.
        if self.report_path:
            check_writable(self.report_path, "--planmode-report")
        # What an existing file already records survives a partial refresh.
        self.written_before: dict[str, str] = {}
        if self.write_path:
            check_writable(self.write_path, "--planmode-write-expectations")
            if Path(self.write_path).exists():
                self.written_before = load_expectations(self.write_path, "--planmode-write-expectations")
        self.vacuous: list[str] = []
        self.target: Target | None = None
        self.exit_status: int | None = 0
        self.handshake: Handshake | None = None
        self.collected_ids: set[str] = set()
        self.counts: dict[str, Counter[str]] = defaultdict(Counter)
        self.results: dict[str, dict[str, Any]] = {}

    # -- lifecycle ------------------------------------------------------------

    def start(self) -> None:
        config = self.config
        if config.option.help or config.option.version:
            return
        try:
            self.target = resolve_target(self.target_spec, timeout=self.timeout, max_line=self.max_line)
            self.handshake = self.target.handshake()
        except TargetError as exc:
            raise pytest.UsageError(f"--planmode-target: {exc}") from None
        if config.args_source != pytest.Config.ArgsSource.ARGS:
            config.args = [str(CONFORMANCE_DIR), str(self.fixtures_dir)]
        if not config.getoption("hypothesis_profile", None):
            from pytest_planmode import hypothesis_profiles

            hypothesis_profiles.load()
        from pytest_planmode.contract import operations

        for name in operations():
            config.addinivalue_line("markers", f"{marker_name(name)}: cases of operation {name}")
        for level in ("must", "reference"):
            config.addinivalue_line("markers", f"planmode_{level}: cases of level {level!r}")
        if self.sandbox:
            from pytest_planmode.sandbox_session import SandboxSession

            config.pluginmanager.register(SandboxSession(config), SandboxSession.PLUGIN_NAME)
        if not self.is_worker and getattr(config.option, "dist", "no") != "no":
            # Under xdist each worker starts its own target; the controller's
            # process was only needed to check the handshake.
            self.target.close()
            self.target = None

    def stop(self) -> None:
        """End of input: close the target; an exec: target must exit with status 0."""
        if self.target is not None:
            status = self.target.close()
            self.target = None
            if self.exit_status == 0:
                self.exit_status = status

    def request(self, operation: str, input: Mapping[str, Any]) -> Outcome:
        assert self.target is not None
        return self.target.request(operation, input)

    # -- collection -------------------------------------------------------------

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        if file_path.suffix == ".toml" and file_path.resolve().is_relative_to(self.fixtures_dir):
            return FixtureFileCollector.from_parent(parent, path=file_path)
        return None

    # First, so that duplicate ids are found among all collected items and
    # case ids are keywords before -k deselects.
    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        selected: list[pytest.Item] = []
        deselected: list[pytest.Item] = []
        first: dict[str, pytest.Item] = {}
        for item in items:
            marker = item.get_closest_marker("planmode")
            if marker is None:
                selected.append(item)
                continue
            ops = list(marker.kwargs.get("operations", ())) or [marker.kwargs.get("operation")]
            level = marker.kwargs.get("level", "must")
            case_id = marker.kwargs.get("id") or item.name
            # Two cases of one file share a node id: compare the items.
            if case_id in first and first[case_id] is not item:
                raise pytest.UsageError(
                    f"duplicate case id {case_id!r}: {_where(first[case_id])} and {_where(item)}"
                )
            first[case_id] = item
            self.collected_ids.add(case_id)
            item.extra_keyword_matches.add(case_id)
            item.user_properties.extend(
                [("planmode_case", case_id), ("planmode_operation", ops[0]), ("planmode_level", level)]
            )
            for op in ops:
                item.add_marker(marker_name(op))
            item.add_marker(f"planmode_{level}")
            if case_id in self.expectations:
                item.add_marker(pytest.mark.xfail(reason=self.expectations[case_id], strict=True))
            if (self.level == "must" and level != "must") or (".sandbox." in case_id and not self.sandbox):
                deselected.append(item)
            else:
                selected.append(item)
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            items[:] = selected

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """A run that selects no fixture case, or none for an operation the
        target supports, proves nothing about it: a loud warning, an error
        under --planmode-strict."""
        if self.handshake is None:
            return
        from pytest_planmode.contract import operations

        covered = {item.case.operation for item in session.items if isinstance(item, CaseItem)}
        if not covered:
            has_files = any(self.fixtures_dir.rglob("*.toml"))
            self.vacuous.append(
                f"no fixture case selected: {self.fixtures_dir} holds no fixture file (*.toml)"
                if not has_files
                else "no fixture case selected: the run's paths and selection leave none"
            )
        else:
            missing = sorted((set(self.handshake.operations) & set(operations())) - covered)
            if missing:
                self.vacuous.append(
                    "no fixture case selected for operation(s) the target supports: " + ", ".join(missing)
                )
        if not self.vacuous or self.is_worker:
            return
        if self.strict:
            raise pytest.UsageError(f"{'; '.join(self.vacuous)} (--planmode-strict)")
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            for line in self.vacuous:
                reporter.write_line(f"planmode warning: {line}", yellow=True, bold=True)

    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        marker = item.get_closest_marker("planmode")
        if marker is None or self.handshake is None:
            return
        ops = list(marker.kwargs.get("operations", ())) or [marker.kwargs.get("operation")]
        missing = [op for op in ops if op not in self.handshake.operations]
        if missing:
            pytest.skip(f"unsupported: {self.handshake.label} does not list operation {', '.join(missing)}")

    # -- results ------------------------------------------------------------------

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        report: pytest.TestReport = yield
        marker = item.get_closest_marker("planmode")
        if marker is None or not report.failed or report.when != "call":
            return report
        case_id = marker.kwargs.get("id") or item.name
        if str(report.longrepr).startswith("[XPASS(strict)]"):
            # A fixed case: say what to do, not the failure it once had.
            message = f"passes now: remove `{case_id}` from `{self.expectations_path}`"
            report.longrepr = f"{message}\n(it was listed as: {self.expectations.get(case_id, '')})"
            report.user_properties.append(("planmode_summary", message))
            report.user_properties.append(("planmode_xpass", True))
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = {str(k): v for k, v in report.user_properties}
        case_id = props.get("planmode_case")
        if not isinstance(case_id, str):
            return
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
        if outcome is None:
            return
        op = str(props.get("planmode_operation"))
        self.counts[op][outcome] += 1
        entry: dict[str, Any] = {
            "id": case_id,
            "operation": op,
            "level": props.get("planmode_level"),
            "nodeid": report.nodeid,
            "outcome": outcome,
        }
        if outcome in ("failed", "error"):
            entry["message"] = report.longreprtext[:8000]
            entry["summary"] = _summary(report, props)
            if props.get("planmode_xpass"):
                entry["xpassStrict"] = True
        elif outcome == "xfailed":
            entry["message"] = str(getattr(report, "wasxfail", ""))
        elif outcome == "skipped" and isinstance(report.longrepr, tuple):
            entry["message"] = str(report.longrepr[2]).removeprefix("Skipped: ")
        self.results[case_id] = entry

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist: a worker finished; keep its target's exit status."""
        output = getattr(node, "workeroutput", {})
        status = output.get("planmode_exit_status", 0)
        if status != 0 and self.exit_status == 0:
            self.exit_status = status
        for line in output.get("planmode_vacuous", ()):
            if line not in self.vacuous:
                self.vacuous.append(line)

    def totals(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for counts in self.counts.values():
            total.update(counts)
        return total

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker or self.handshake is None:
            return
        tr = terminalreporter
        tr.write_sep("=", f"planmode: {self.handshake.label} against suite {SUITE_VERSION}")
        stale = sorted(set(self.expectations) - self.collected_ids)
        if stale and self.collected_ids:
            tr.write_line(
                f"expectations file lists {len(stale)} case id(s) this suite does not have "
                f"(remove them): {', '.join(stale[:10])}{' ...' if len(stale) > 10 else ''}",
                yellow=True,
            )
        if self.exit_status != 0:
            tr.write_line(
                f"the target did not exit with status 0 at end of input "
                f"({'it hung' if self.exit_status is None else f'status {self.exit_status}'})",
                red=True,
            )
        for line in self.vacuous:
            tr.write_line(
                f"planmode {'error' if self.strict else 'warning'}: {line}", red=self.strict, yellow=True
            )
        if not self.counts:
            tr.write_line("no conformance case ran")
            return
        width = max(len("operation"), *(len(op) for op in self.counts))
        header = f"{'operation':<{width}}  " + "  ".join(f"{o:>7}" for o in OUTCOMES)
        tr.write_line(header)
        for op in sorted(self.counts):
            row = self.counts[op]
            line = f"{op:<{width}}  " + "  ".join(f"{row[o]:>7}" for o in OUTCOMES)
            tr.write_line(line, red=bool(row["failed"] or row["error"]))
        total = self.totals()
        tr.write_line(f"{'total':<{width}}  " + "  ".join(f"{total[o]:>7}" for o in OUTCOMES), bold=True)
        for path, what in ((self.report_path, "report"), (self.write_path, "expectations")):
            if path:
                tr.write_line(f"planmode {what} written to {path}")

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.stop()
        if self.is_worker:
            # The controller reports the workers' targets' exit statuses.
            workeroutput = self.config.workeroutput  # type: ignore[attr-defined]
            workeroutput["planmode_exit_status"] = self.exit_status
            workeroutput["planmode_vacuous"] = self.vacuous
            return
        failed = pytest.ExitCode.TESTS_FAILED
        if self.exit_status != 0 and session.exitstatus == pytest.ExitCode.OK:
            # The message is in the summary; a status the run must not hide.
            session.exitstatus = failed
        if self.vacuous and self.strict and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = failed
        if session.exitstatus == pytest.ExitCode.USAGE_ERROR:
            return  # nothing ran: no report, and the expectations file stays as it is
        for path, data in (
            (self.report_path, self.report),
            (self.write_path, self.written_expectations),
        ):
            if not path:
                continue
            try:
                self._write_json(path, data())
            except OSError as exc:
                sys.stderr.write(f"planmode: cannot write {path}: {exc}\n")
                session.exitstatus = pytest.ExitCode.USAGE_ERROR

    def written_expectations(self) -> dict[str, str]:
        """The expectations file after this run: an entry leaves only when
        its case ran and passed (or passed although listed); cases that did
        not run keep their entries, listed failures keep their reasons, new
        failures get their one-line summary."""
        known = {**self.written_before, **self.expectations}
        written = dict(known)
        for case_id, entry in self.results.items():
            outcome = entry["outcome"]
            if outcome == "passed" or entry.get("xpassStrict"):
                written.pop(case_id, None)
            elif outcome in ("failed", "error", "xfailed"):
                written[case_id] = known.get(case_id) or entry.get("summary") or "failed"
        return dict(sorted(written.items()))

    def report(self) -> dict[str, Any]:
        assert self.handshake is not None
        return {
            "suite": SUITE_VERSION,
            "target": self.target_spec,
            "implementation": self.handshake.implementation,
            "level": self.level,
            "targetExitStatus": self.exit_status,
            "totals": {o: self.totals()[o] for o in OUTCOMES},
            "operations": {
                op: {o: counts[o] for o in OUTCOMES} for op, counts in sorted(self.counts.items())
            },
            "failures": [
                {k: v for k, v in entry.items() if k != "xpassStrict"}
                for _, entry in sorted(self.results.items())
                if entry["outcome"] in ("failed", "error")
            ],
            "skipReasons": {
                case_id: entry.get("message", "")
                for case_id, entry in sorted(self.results.items())
                if entry["outcome"] == "skipped"
            },
            "results": {case_id: entry["outcome"] for case_id, entry in sorted(self.results.items())},
            "expectedFailures": sorted(
                case_id for case_id, entry in self.results.items() if entry["outcome"] == "xfailed"
            ),
        }

    @staticmethod
    def _write_json(path: str, data: Any) -> None:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _where(item: pytest.Item) -> str:
    return item.case.where if isinstance(item, CaseItem) else item.nodeid


def _summary(report: pytest.TestReport, props: dict[str, Any]) -> str:
    """One line saying why a case failed."""
    if isinstance(props.get("planmode_summary"), str):
        return str(props["planmode_summary"])
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        return _first_line(str(crash.message))
    return _first_line(report.longreprtext)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:300]
    return "failed"
