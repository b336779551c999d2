"""The conformance run: collection of fixture cases, dispatch to the target,
expectations, the terminal summary and the JSON report.

Registered as a plugin object only when a target is given, so none of these
hooks touch an unrelated pytest session.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import pytest

from pytest_planmode import SUITE_VERSION, failure_text, lineup
from pytest_planmode.answer_shape import shape_problems
from pytest_planmode.contract import operations
from pytest_planmode.contract.virtual_paths import sandbox
from pytest_planmode.limits import DEFAULT_MAX_LINE, DEFAULT_STARTUP_TIMEOUT, DEFAULT_TIMEOUT
from pytest_planmode.matching import mismatches
from pytest_planmode.plugin import option
from pytest_planmode.reports import OUTCOMES
from pytest_planmode.suite import CONFORMANCE_DIR, FIXTURES_DIR, Case, FixtureError, load_file
from pytest_planmode.targets import Handshake, Outcome, Target, TargetError, resolve_target

MAX_CALLS_SHOWN = 3

#: The skip reason of a case that needs an explanation field from a target
#: that observes effects only; such a case counts as `explained`.
EXPLANATION_SKIP = "explanation: "


#: The heading of an answer's shape problems in a failure message.
SHAPE_HEADING = "shape (the answer does not have the operation's output shape):"


def judge_output(operation: str, expect: Any, output: dict[str, Any]) -> tuple[list[str], list[str]]:
    """What is wrong with an output answer to a case: its shape problems
    (checked whole against the operation's output model), then where it
    does not match `expect`. Both empty: the case passes."""
    shape = shape_problems(operation, output)
    # A field the shape check names is not named again by the mismatches.
    wrong = tuple(problem.split(": ", 1)[0] for problem in shape)
    problems = [p for p in mismatches(expect, output) if not _within(p.split(": ", 1)[0], wrong)]
    return shape, problems


def _within(path: str, outer: tuple[str, ...]) -> bool:
    return any(path == o or path.startswith((f"{o}.", f"{o}[")) for o in outer)


class CaseFailure(Exception):
    """A case failed; the message is complete and shown without a traceback.
    `summary`, when given, is its one line for reports and expectations."""

    def __init__(self, message: str, summary: str | None = None) -> None:
        super().__init__(message)
        self.summary = summary


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


@dataclass
class Judged:
    """One target of the run and what it got."""

    name: str
    spec: str
    target: Target | None
    handshake: Handshake
    expectations: dict[str, str] = field(default_factory=dict)
    expectations_paths: list[str] = field(default_factory=list)
    write_path: str | None = None
    #: What the file to write already records: it survives a partial refresh.
    written_before: dict[str, str] = field(default_factory=dict)
    exit_status: int | None = 0
    counts: dict[tuple[str, str], Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    results: dict[str, dict[str, Any]] = field(default_factory=dict)

    def stop(self) -> None:
        """End of input: close the target; an exec: target must exit with status 0."""
        if self.target is not None:
            status = self.target.close()
            self.target = None
            if self.exit_status == 0:
                self.exit_status = status


class TargetClient:
    """What property checks in `conformance/` get from the `planmode_target` fixture."""

    def __init__(self, run: PlanmodeRun, name: str) -> None:
        self._run = run
        self.name = name

    @property
    def handshake(self) -> Handshake:
        return self._run.judged[self.name].handshake

    def supports(self, operation: str) -> bool:
        return operation in self.handshake.operations

    def request(self, operation: str, payload: Mapping[str, Any]) -> Outcome:
        outcome = self._run.request(self.name, operation, payload)
        self._run.record(operation, payload, outcome)
        return outcome

    def call(self, operation: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        """The output for `payload`; an error, unsupported or broken answer fails the check."""
        outcome = self.request(operation, payload)
        if outcome.kind == "output":
            assert outcome.output is not None
            shape = shape_problems(operation, outcome.output)
            if shape:
                raise CaseFailure(
                    f"{operation} with input {json.dumps(dict(payload), ensure_ascii=False)[:500]}\n"
                    f"{SHAPE_HEADING}\n" + "\n".join(f"  {p}" for p in shape),
                    summary="; ".join(f"shape: {p}" for p in shape),
                )
            return outcome.output
        if outcome.kind == "unsupported":
            self._run.unsupported_example(operation, outcome.message)
        raise CaseFailure(
            f"{operation} with input {json.dumps(dict(payload), ensure_ascii=False)[:500]}\n"
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
        names = list(run.judged) if run else []
        for case in cases:
            for name in names:
                # One target keeps the plain case id as the item name.
                item_name = case.id if len(names) == 1 else f"{case.id}[{name}]"
                yield CaseItem.from_parent(self, name=item_name, case=case, target_name=name)


class CaseItem(pytest.Item):
    def __init__(self, *, case: Case, target_name: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.target_name = target_name
        self.add_marker(
            pytest.mark.planmode(operation=case.operation, level=case.level, id=case.id, spec=case.spec)
        )

    @property
    def run(self) -> PlanmodeRun:
        run = self.config.pluginmanager.get_plugin(PlanmodeRun.PLUGIN_NAME)
        assert isinstance(run, PlanmodeRun)
        return run

    def runtest(self) -> None:
        case = self.case
        if self.run.observes_effects_only(self.target_name):
            from pytest_planmode.contract import operations
            from pytest_planmode.observability import explanation_pins

            pins = explanation_pins(operations()[case.operation].output, case.expect)
            if pins:
                pytest.skip(f"{EXPLANATION_SKIP}{pins[0]}")
        outcome = self.run.request(self.target_name, case.operation, case.input)
        if outcome.kind == "unsupported":
            pytest.skip(f"unsupported: the target answered unsupported for {case.operation}")
        if outcome.kind == "output":
            assert outcome.output is not None
            shape, problems = judge_output(case.operation, case.expect, outcome.output)
            if not problems and not shape:
                return
            got = json.dumps(outcome.output, ensure_ascii=False)
            what = "\n".join(
                [
                    *([SHAPE_HEADING, *(f"  {p}" for p in shape)] if shape else []),
                    *(["mismatch:", *(f"  {p}" for p in problems)] if problems else []),
                ]
            )
            summary = "; ".join([*(f"shape: {p}" for p in shape), *problems])
        elif outcome.kind == "error":
            got = f"an error: {outcome.message}"
            what = "the target answered an error where an output was expected"
            summary = f"answered an error: {_first_line(outcome.message or '')}"
        else:
            got = f"no legal answer: {outcome.message}"
            what = "the target did not answer legally (it was restarted for the next case)"
            summary = f"no legal answer: {_first_line(outcome.message or '')}"
        # One line for people and for written expectations files; the
        # values for reports that show the failure.
        self.user_properties.append(("planmode_summary", summary[:300]))
        self.user_properties.append(("planmode_failure", failure_text.detail(case, outcome)))
        raise CaseFailure(failure_text.message(case, outcome, got, what))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.case.operation}: {self.case.id}"


@pytest.fixture(scope="session")
def planmode_target(request: pytest.FixtureRequest) -> TargetClient:
    """The target under test, for property checks in `conformance/` (with
    several targets, the one this item's parameter names)."""
    run = request.config.pluginmanager.get_plugin(PlanmodeRun.PLUGIN_NAME)
    assert isinstance(run, PlanmodeRun)
    return TargetClient(run, getattr(request, "param", None) or next(iter(run.judged)))


class PlanmodeRun:
    PLUGIN_NAME = "planmode-run"

    def __init__(self, config: pytest.Config, target_specs: list[str]) -> None:
        self.config = config
        try:
            self.given = lineup.parse_targets(target_specs)
        except lineup.LineupError as exc:
            raise pytest.UsageError(str(exc)) from None
        self.timeout = _positive_number(option(config, "timeout"), "timeout", DEFAULT_TIMEOUT)
        self.startup_timeout = _positive_number(
            option(config, "startup-timeout"), "startup-timeout", DEFAULT_STARTUP_TIMEOUT
        )
        self.max_line = int(_positive_number(option(config, "max-line"), "max-line", DEFAULT_MAX_LINE))
        self.strict = bool(option(config, "strict"))
        level = option(config, "level") or "all"
        if level not in ("all", "must"):
            raise pytest.UsageError(f"planmode_level must be 'all' or 'must', got {level!r}")
        self.level = level
        spec = option(config, "spec")
        self.spec_filter: str | None = str(spec).strip() if spec is not None else None
        if spec is not None and not self.spec_filter:
            raise pytest.UsageError("--planmode-spec needs a non-empty text to look for in spec sections")
        if self.spec_filter is not None:
            _check_spec_filter(self.spec_filter)
        fixtures = option(config, "fixtures")
        self.fixtures_dir = Path(fixtures).resolve() if fixtures else FIXTURES_DIR
        if not self.fixtures_dir.is_dir():
            raise pytest.UsageError(f"--planmode-fixtures {fixtures}: not a directory")
        from pytest_planmode.sandbox_session import sandbox_flag

        self.sandbox = sandbox_flag(option(config, "sandbox"))
        self.report_path = option(config, "report")
        self.html_path = option(config, "html")
        self.is_worker = hasattr(config, "workerinput")
        # Checked now, not after the run: a run whose results cannot be
        # written is wasted.
        if self.report_path:
            check_writable(self.report_path, "--planmode-report")
        if self.html_path:
            check_writable(self.html_path, "--planmode-html")
        self.vacuous: list[str] = []
        #: Target name -> its target, in the order given.
        self.judged: dict[str, Judged] = {}
        self.collected_ids: dict[str, set[str]] = defaultdict(set)
        #: The requests of the current property example (the last one run is
        #: the shrunk counterexample when the check fails).
        self.calls: list[tuple[str, Mapping[str, Any], Outcome]] = []
        #: The last request of the running property check answered `unsupported`.
        self.unsupported_seen: str | None = None

    # -- lifecycle ------------------------------------------------------------

    def start(self) -> None:
        config = self.config
        _ACTIVE["run"] = self
        if config.option.help or config.option.version:
            return
        started: list[tuple[Target, Handshake]] = []
        try:
            for given in self.given:
                target = resolve_target(
                    given.spec,
                    timeout=self.timeout,
                    startup_timeout=self.startup_timeout,
                    max_line=self.max_line,
                    option=lambda name: option(config, name),
                )
                started.append((target, target.handshake()))
        except TargetError as exc:
            for target, _ in started:
                target.close()
            where = f" {given.spec}" if len(self.given) > 1 else ""
            raise pytest.UsageError(f"--planmode-target{where}: {exc}") from None
        announced = [str(h.implementation.get("name", "")) for _, h in started]
        names = lineup.assign_names(self.given, announced)
        for name, given, (target, handshake) in zip(names, self.given, started, strict=True):
            self.judged[name] = Judged(name, given.spec, target, handshake)
        try:
            self._assign_expectations(names)
        except (lineup.LineupError, pytest.UsageError) as exc:
            self.stop()
            raise pytest.UsageError(str(exc)) from None
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
            # Under xdist each worker starts its own targets; the controller's
            # processes were only needed to check the handshakes.
            for judged in self.judged.values():
                if judged.target is not None:
                    judged.target.close()
                    judged.target = None

    def _assign_expectations(self, names: list[str]) -> None:
        read = lineup.assign_files("expectations", option(self.config, "expectations") or [], names)
        for name, paths in read.items():
            judged = self.judged[name]
            judged.expectations_paths = paths
            for path in paths:
                judged.expectations.update(load_expectations(path))
        written = lineup.one_file_each(
            "write-expectations", option(self.config, "write-expectations") or [], names
        )
        flag = "--planmode-write-expectations"
        for name, path in written.items():
            judged = self.judged[name]
            judged.write_path = path
            check_writable(path, flag)
            if Path(path).exists():
                judged.written_before = load_expectations(path, flag)

    def stop(self) -> None:
        for judged in self.judged.values():
            judged.stop()

    def request(self, name: str, operation: str, payload: Mapping[str, Any]) -> Outcome:
        """One request to target `name`; an operation whose inputs name files
        gets a fresh sandbox (one directory per root), removed after the answer."""
        target = self.judged[name].target
        assert target is not None
        spec = operations().get(operation)
        if spec is None or not spec.sandbox:
            return target.request(operation, payload)
        with sandbox() as roots:
            return target.request(operation, payload, roots)

    def unsupported_example(self, operation: str, message: str | None) -> NoReturn:
        """A property check's request the target answered `unsupported`.
        Inside a generated example the example is set aside (a target may
        support an operation for some inputs only, as a Pi host does) and
        the others are judged; a check none of whose examples was supported
        is skipped (`pytest_pyfunc_call`). Outside one, the check is skipped."""
        from hypothesis import reject
        from hypothesis.control import currently_in_test_context

        why = message or operation
        if not currently_in_test_context():
            pytest.skip(f"unsupported: the target answered unsupported for {why}")
        self.unsupported_seen = why
        reject()

    @pytest.hookimpl(wrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> Any:
        from hypothesis.errors import Unsatisfiable

        self.unsupported_seen = None
        try:
            return (yield)
        except Unsatisfiable:
            if self.unsupported_seen is None:
                raise
            pytest.skip(
                "unsupported: the target answered unsupported for every generated example "
                f"(the last: {self.unsupported_seen})"
            )

    def record(self, operation: str, payload: Mapping[str, Any], outcome: Outcome) -> None:
        self.calls.append((operation, payload, outcome))
        del self.calls[:-MAX_CALLS_SHOWN]

    def observes_effects_only(self, name: str) -> bool:
        return self.judged[name].handshake.observes == "effects"

    # -- collection -------------------------------------------------------------

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        if file_path.suffix == ".toml" and file_path.resolve().is_relative_to(self.fixtures_dir):
            return FixtureFileCollector.from_parent(parent, path=file_path)
        return None

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        """Several targets: every property check runs once against each."""
        if "planmode_target" in metafunc.fixturenames and len(self.judged) > 1:
            names = list(self.judged)
            metafunc.parametrize("planmode_target", names, indirect=True, ids=names, scope="session")

    def item_target(self, item: pytest.Item) -> str:
        if isinstance(item, CaseItem):
            return item.target_name
        callspec = getattr(item, "callspec", None)
        name = callspec.params.get("planmode_target") if callspec is not None else None
        return str(name) if name is not None else next(iter(self.judged))

    # First, so that duplicate ids are found among all collected items and
    # case ids are keywords before -k deselects.
    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        selected: list[pytest.Item] = []
        deselected: list[pytest.Item] = []
        first: dict[tuple[str, str], pytest.Item] = {}
        judged_any = False
        for item in items:
            marker = item.get_closest_marker("planmode")
            if marker is None:
                selected.append(item)
                continue
            judged_any = True
            ops = list(marker.kwargs.get("operations", ())) or [marker.kwargs.get("operation")]
            level = marker.kwargs.get("level", "must")
            case_id = marker.kwargs.get("id") or item.name
            spec = marker.kwargs.get("spec")
            name = self.item_target(item)
            key = (case_id, name)
            # Two cases of one file share a node id: compare the items.
            if key in first and first[key] is not item:
                raise pytest.UsageError(
                    f"duplicate case id {case_id!r}: {_where(first[key])} and {_where(item)}"
                )
            first[key] = item
            self.collected_ids[name].add(case_id)
            item.extra_keyword_matches.add(case_id)
            if not isinstance(item, CaseItem):
                self._track_examples(item)
            item.user_properties.extend(
                [
                    ("planmode_case", case_id),
                    ("planmode_operation", ops[0]),
                    ("planmode_level", level),
                    ("planmode_target", name),
                ]
            )
            if spec:
                item.user_properties.append(("planmode_spec", spec))
            for op in ops:
                item.add_marker(marker_name(op))
            item.add_marker(f"planmode_{level}")
            expectations = self.judged[name].expectations
            if case_id in expectations:
                item.add_marker(pytest.mark.xfail(reason=expectations[case_id], strict=True))
            if (
                (self.level == "must" and level != "must")
                or not self._spec_selects(spec)
                or (".sandbox." in case_id and not self.sandbox)
            ):
                deselected.append(item)
            else:
                selected.append(item)
        if (
            self.spec_filter is not None
            and judged_any
            and not self.is_worker  # a worker cannot end the run cleanly; the controller checked
            and not any(item.get_closest_marker("planmode") for item in selected)
        ):
            raise pytest.UsageError(
                f"--planmode-spec {self.spec_filter!r}: no case's spec section contains it "
                "(`planmode fixtures export` lists every case with its spec)"
            )
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            items[:] = selected

    def _spec_selects(self, spec: str | None) -> bool:
        if self.spec_filter is None:
            return True
        return spec is not None and self.spec_filter.casefold() in spec.casefold()

    def _track_examples(self, item: pytest.Item) -> None:
        """Start each example of a property check with an empty call log, so
        a failure shows the requests of the (shrunk) failing example."""
        handle = getattr(getattr(item, "obj", None), "hypothesis", None)
        if handle is None or getattr(handle.inner_test, "planmode_tracked", False):
            return
        inner = handle.inner_test

        @functools.wraps(inner)
        def each_example(*args: Any, **kwargs: Any) -> Any:
            run = _ACTIVE.get("run")
            if run is not None:
                run.calls.clear()
            return inner(*args, **kwargs)

        each_example.planmode_tracked = True  # type: ignore[attr-defined]
        handle.inner_test = each_example

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """A run that selects no fixture case, or none for an operation a
        target supports, proves nothing about it: a loud warning, an error
        under --planmode-strict."""
        if not self.judged:
            return
        from pytest_planmode.contract import operations

        covered: dict[str, set[str]] = {name: set() for name in self.judged}
        for item in session.items:
            if isinstance(item, CaseItem):
                covered[item.target_name].add(item.case.operation)
        if not any(covered.values()):
            has_files = any(self.fixtures_dir.rglob("*.toml"))
            self.vacuous.append(
                f"no fixture case selected: {self.fixtures_dir} holds no fixture file (*.toml)"
                if not has_files
                else "no fixture case selected: the run's paths and selection leave none"
            )
        else:
            for name, judged in self.judged.items():
                missing = sorted((set(judged.handshake.operations) & set(operations())) - covered[name])
                if missing:
                    who = f"{name}: " if len(self.judged) > 1 else ""
                    self.vacuous.append(
                        f"{who}no fixture case selected for operation(s) the target supports: "
                        + ", ".join(missing)
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
        if marker is None or not self.judged:
            return
        handshake = self.judged[self.item_target(item)].handshake
        self.calls.clear()
        ops = list(marker.kwargs.get("operations", ())) or [marker.kwargs.get("operation")]
        missing = [op for op in ops if op not in handshake.operations]
        if missing:
            pytest.skip(f"unsupported: {handshake.label} does not list operation {', '.join(missing)}")
        # A property check that reads explanation fields names them.
        explains = list(marker.kwargs.get("explains", ()))
        if explains and handshake.observes == "effects":
            pytest.skip(f"{EXPLANATION_SKIP}{explains[0]}")

    # -- results ------------------------------------------------------------------

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
            message, summary = property_failure(item, marker.kwargs, call.excinfo.value, self.calls)
            report.longrepr = message
            report.user_properties.append(("planmode_summary", summary[:300]))
        if str(report.longrepr).startswith("[XPASS(strict)]"):
            # A fixed case: say what to do, not the failure it once had.
            judged = self.judged[self.item_target(item)]
            files = " or ".join(f"`{p}`" for p in judged.expectations_paths) or "the expectations"
            message = f"passes now: remove `{case_id}` from {files}"
            report.longrepr = f"{message}\n(it was listed as: {judged.expectations.get(case_id, '')})"
            report.user_properties.append(("planmode_summary", message))
            report.user_properties.append(("planmode_xpass", True))
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = {str(k): v for k, v in report.user_properties}
        case_id = props.get("planmode_case")
        judged = self.judged.get(str(props.get("planmode_target")))
        if not isinstance(case_id, str) or judged is None:
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
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
        if outcome == "skipped" and str(reason).removeprefix("Skipped: ").startswith(EXPLANATION_SKIP):
            outcome = "explained"
        op = str(props.get("planmode_operation"))
        level = str(props.get("planmode_level"))
        judged.counts[(op, level)][outcome] += 1
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
        judged.results[case_id] = entry

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist: a worker finished; keep its targets' exit statuses."""
        output = getattr(node, "workeroutput", {})
        for line in output.get("planmode_vacuous", ()):
            if line not in self.vacuous:
                self.vacuous.append(line)
        for name, status in output.get("planmode_exit_status", {}).items():
            judged = self.judged.get(name)
            if judged is not None and status != 0 and judged.exit_status == 0:
                judged.exit_status = status

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker or not self.judged:
            return
        from pytest_planmode.reports import summary

        tr = terminalreporter
        several = len(self.judged) > 1
        if several:
            tr.write_sep("=", f"planmode: {len(self.judged)} targets against suite {SUITE_VERSION}")
            for judged in self.judged.values():
                tr.write_line(f"{judged.name}: {judged.handshake.label}  [{judged.spec}]")
        else:
            label = next(iter(self.judged.values())).handshake.label
            tr.write_sep("=", f"planmode: {label} against suite {SUITE_VERSION}")
        for judged in self.judged.values():
            who = f"{judged.name}: " if several else ""
            if judged.handshake.observes == "effects":
                tr.write_line(
                    f"{who}the target observes effects only: cases that need an explanation field are "
                    "skipped and counted as explained"
                )
            stale = sorted(set(judged.expectations) - self.collected_ids[judged.name])
            if stale and self.collected_ids[judged.name]:
                tr.write_line(
                    f"{who}expectations file lists {len(stale)} case id(s) this suite does not have "
                    f"(remove them): {', '.join(stale[:10])}{' ...' if len(stale) > 10 else ''}",
                    yellow=True,
                )
            unjudged = sorted(
                case_id
                for case_id in judged.expectations
                if judged.results.get(case_id, {}).get("outcome") == "explained"
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
        for line in self.vacuous:
            tr.write_line(
                f"planmode {'error' if self.strict else 'warning'}: {line}", red=self.strict, yellow=True
            )
        if not any(j.counts for j in self.judged.values()):
            tr.write_line("no conformance case ran")
            return
        for line, failing in summary.terminal_table(self.report()):
            tr.write_line(line, red=failing, bold=line.startswith("total"))
        written = [(self.report_path, "report"), (self.html_path, "page")]
        written += [(j.write_path, f"expectations of {j.name}") for j in self.judged.values()]
        for path, what in written:
            if path:
                tr.write_line(f"planmode {what} written to {path}")

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.stop()
        if self.is_worker:
            # The controller reports the workers' targets' exit statuses.
            workeroutput = self.config.workeroutput  # type: ignore[attr-defined]
            workeroutput["planmode_exit_status"] = {n: j.exit_status for n, j in self.judged.items()}
            workeroutput["planmode_vacuous"] = self.vacuous
            return
        if not self.judged:
            return
        failed = pytest.ExitCode.TESTS_FAILED
        if any(j.exit_status != 0 for j in self.judged.values()) and session.exitstatus == pytest.ExitCode.OK:
            # The message is in the summary; a status the run must not hide.
            session.exitstatus = failed
        if self.vacuous and self.strict and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = failed
        if session.exitstatus == pytest.ExitCode.USAGE_ERROR:
            return  # nothing ran: no report, and the expectations files stay as they are
        writes: list[tuple[str, Any]] = []
        if self.report_path or self.html_path:
            document = self.report()
            if self.report_path:
                writes.append((self.report_path, lambda: _json_text(document)))
            if self.html_path:
                from pytest_planmode.reports import html

                writes.append((self.html_path, lambda: html.render(document)))
        for judged in self.judged.values():
            if judged.write_path:
                writes.append((judged.write_path, lambda j=judged: _json_text(_written_expectations(j))))
        for path, text in writes:
            try:
                target = Path(path)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text(), encoding="utf-8")
            except OSError as exc:
                sys.stderr.write(f"planmode: cannot write {path}: {exc}\n")
                session.exitstatus = pytest.ExitCode.USAGE_ERROR

    def report(self) -> dict[str, Any]:
        options = self.config.option
        return {
            "suite": SUITE_VERSION,
            "level": self.level,
            "selection": {
                "level": self.level,
                "spec": self.spec_filter,
                "keyword": getattr(options, "keyword", "") or None,
                "markers": getattr(options, "markexpr", "") or None,
            },
            "targets": [_target_report(judged) for judged in self.judged.values()],
        }


def _check_spec_filter(text: str) -> None:
    """A --planmode-spec text that no known spec section contains can select nothing."""
    from pytest_planmode.suite import spec_sections

    known = sorted(f"{doc} § {head}" for doc, heads in spec_sections().items() for head in heads)
    if not any(text.casefold() in section.casefold() for section in known):
        raise pytest.UsageError(
            f"--planmode-spec {text!r}: no case's spec section contains it; sections read "
            f"'<document> § <heading>', e.g. {known[0]!r}"
        )


def _json_text(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _written_expectations(judged: Judged) -> dict[str, str]:
    """A target's expectations file after this run: an entry leaves only
    when its case ran and passed (or passed although listed), or when the
    case needs an explanation this target does not give (it is skipped as
    explained on every run); cases that did not run keep their entries,
    listed failures keep their reasons, new failures get their one-line
    summary."""
    known = {**judged.written_before, **judged.expectations}
    written = dict(known)
    for case_id, entry in judged.results.items():
        outcome = entry["outcome"]
        if outcome in ("passed", "explained") or entry.get("xpassStrict"):
            written.pop(case_id, None)
        elif outcome in ("failed", "error", "xfailed"):
            written[case_id] = known.get(case_id) or entry.get("summary") or "failed"
    return dict(sorted(written.items()))


def _where(item: pytest.Item) -> str:
    return item.case.where if isinstance(item, CaseItem) else item.nodeid


def _counts(counters: Any) -> dict[str, int]:
    total: Counter[str] = Counter()
    for counter in counters:
        total.update(counter)
    return {o: total[o] for o in OUTCOMES}


def _target_report(judged: Judged) -> dict[str, Any]:
    """One target's part of the report."""
    results = judged.results
    ops = sorted({op for op, _ in judged.counts})
    levels = sorted({level for _, level in judged.counts})
    return {
        "name": judged.name,
        "target": judged.spec,
        "implementation": judged.handshake.implementation,
        "operationsListed": sorted(judged.handshake.operations),
        "observes": judged.handshake.observes,
        "expectationsFiles": judged.expectations_paths,
        "targetExitStatus": judged.exit_status,
        "totals": _counts(judged.counts.values()),
        "operations": {op: _counts(c for (o, _), c in judged.counts.items() if o == op) for op in ops},
        "levels": {
            level: {
                op: _counts(c for (o, lv), c in judged.counts.items() if o == op and lv == level)
                for op in ops
                if (op, level) in judged.counts
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
        return _first_line(str(crash.message))
    return _first_line(report.longreprtext)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:300]
    return "failed"


#: The run of this session, for hypothesis's per-example wrapper.
_ACTIVE: dict[str, PlanmodeRun] = {}


def property_failure(
    item: pytest.Item,
    marker: Mapping[str, Any],
    exc: BaseException,
    calls: list[tuple[str, Mapping[str, Any], Outcome]],
) -> tuple[str, str]:
    """A failed property check in the layout of a failed fixture case: where,
    spec, rule, the requests of the shrunk counterexample and the answers,
    what failed, and a one-line summary."""
    from hypothesis.errors import FailedHealthCheck, Flaky, HypothesisException, Unsatisfiable

    from pytest_planmode.properties import rule_of, spec_of

    function = getattr(item, "function", None)
    spec = spec_of(function, marker) if function is not None else "(no section cited)"
    rule = rule_of(function) if function is not None else item.name
    lines = [
        f"{item.nodeid} ({marker.get('id') or item.name})",
        f"spec: {spec} (level {marker.get('level', 'must')})",
        f"rule: {rule}",
    ]
    for operation, payload, outcome in calls:
        lines.append(f"input:    {operation} {_json(payload, 2000)}")
        if outcome.kind == "output":
            lines.append(f"got:      {_json(outcome.output, 4000)}")
        else:
            lines.append(f"got:      {outcome.kind}: {(outcome.message or '')[:2000]}")
    last = f" (last request: {calls[-1][0]} {_json(calls[-1][1], 120)})" if calls else ""
    if isinstance(exc, (Unsatisfiable, FailedHealthCheck)):
        what = (
            "the target's answers never met the check's precondition (it answers alike for "
            "inputs the rule tells apart, e.g. it blocks or allows everything)"
        )
        lines.append(f"failed:   {what}")
        return "\n".join(lines), what
    if isinstance(exc, Flaky):
        what = "the target answered the same requests differently when they were repeated"
        lines.append(f"failed:   {what}")
        return "\n".join(lines), what + last
    if isinstance(exc, HypothesisException):
        what = f"the check could not run against this target: {type(exc).__name__}: {_first_line(str(exc))}"
        lines.append(f"failed:   {what}")
        return "\n".join(lines), what
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, CaseFailure):
        lines.append(f"failed:   {text}")
        return "\n".join(lines), exc.summary or _first_line(text.splitlines()[-1] if text else text)
    lines.append("failed:   " + text.replace("\n", "\n          "))
    example: list[str] = []
    for note in getattr(exc, "__notes__", []):
        for line in str(note).splitlines():
            line = line.strip()
            if "reproduce_failure" in line:
                lines.append(f"replay:   {line}")
            elif line and not line.startswith(
                ("planmode_target=", "Falsifying example", "Failing test case", "#", ")")
            ):
                example.append(re.sub(r"\s+# .*$", "", line))
    if example:
        lines.append("counterexample: " + " ".join(example).rstrip(",")[:2000])
    first = _first_line(text)
    summary = first + last if first.startswith("assert ") else first
    return "\n".join(lines), summary


def _json(value: Any, limit: int) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)[:limit]
    except (TypeError, ValueError, RecursionError):
        return repr(value)[:limit]
