"""What the property checks of `conformance/` meet: the `planmode_target`
fixture and its client, the log of each generated example's requests, the
skip of a check whose examples were all unsupported, and the message of a
failed check in the layout of a failed fixture case."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any, NoReturn

import pytest

from pytest_planmode.answer_shape import shape_problems
from pytest_planmode.harness.lifecycle import Targets
from pytest_planmode.harness.verdict import (
    SHAPE_HEADING,
    CaseFailure,
    first_line,
    unsupported_reason,
    unsupported_why,
)
from pytest_planmode.targets import Handshake, Outcome

MAX_CALLS_SHOWN = 3

Call = tuple[str, Mapping[str, Any], Outcome]


class PropertyChecks:
    """The requests of the current property example (the last one run is
    the shrunk counterexample when the check fails)."""

    PLUGIN_NAME = "planmode-properties"

    def __init__(self, targets: Targets) -> None:
        self.targets = targets
        self.calls: list[Call] = []
        #: The last request of the running property check answered `unsupported`.
        self.unsupported_seen: str | None = None
        #: What the target did instead of a legal answer during the running
        #: check (a timeout, a crash): the cause when repeats disagree.
        self.illegal: list[str] = []

    def record(self, operation: str, payload: Mapping[str, Any], outcome: Outcome) -> None:
        if outcome.kind == "failure":
            self.illegal.append(outcome.message or "no legal answer")
        self.calls.append((operation, payload, outcome))
        del self.calls[:-MAX_CALLS_SHOWN]

    def unsupported_example(self, operation: str, message: str | None) -> NoReturn:
        """A property check's request the target answered `unsupported`.
        Inside a generated example the example is set aside (a target may
        support an operation for some inputs only, as a Pi host does) and
        the others are judged; a check none of whose examples was supported
        is skipped (`pytest_pyfunc_call`). Outside one, the check is skipped."""
        from hypothesis import reject
        from hypothesis.control import currently_in_test_context

        why = unsupported_why(operation, message)
        if not currently_in_test_context():
            pytest.skip(unsupported_reason(operation, message))
        self.unsupported_seen = why
        reject()

    @pytest.hookimpl(wrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> Any:
        from hypothesis.errors import Unsatisfiable

        self.unsupported_seen = None
        self.illegal.clear()
        try:
            return (yield)
        except Unsatisfiable:
            if self.unsupported_seen is None:
                raise
            pytest.skip(
                "unsupported: the target answered unsupported for every generated example "
                f"(the last: {self.unsupported_seen})"
            )

    def track_examples(self, item: pytest.Item) -> None:
        """Start each example of a property check with an empty call log, so
        a failure shows the requests of the (shrunk) failing example."""
        handle = getattr(getattr(item, "obj", None), "hypothesis", None)
        if handle is None:
            return
        inner = handle.inner_test
        if getattr(inner, "planmode_log", None) is self:
            return
        # A check function outlives a run (pytester runs in one process):
        # wrap the original, for this run's log.
        inner = getattr(inner, "planmode_inner", inner)

        @functools.wraps(inner)
        def each_example(*args: Any, **kwargs: Any) -> Any:
            self.calls.clear()
            return inner(*args, **kwargs)

        each_example.planmode_log = self  # type: ignore[attr-defined]
        each_example.planmode_inner = inner  # type: ignore[attr-defined]
        handle.inner_test = each_example


class TargetClient:
    """What property checks in `conformance/` get from the `planmode_target` fixture."""

    def __init__(self, checks: PropertyChecks, name: str) -> None:
        self._checks = checks
        self.name = name

    @property
    def handshake(self) -> Handshake:
        return self._checks.targets.judged[self.name].handshake

    def supports(self, operation: str) -> bool:
        return operation in self.handshake.operations

    def request(self, operation: str, payload: Mapping[str, Any]) -> Outcome:
        outcome = self._checks.targets.request(self.name, operation, payload)
        self._checks.record(operation, payload, outcome)
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
            self._checks.unsupported_example(operation, outcome.message)
        raise CaseFailure(
            f"{operation} with input {json.dumps(dict(payload), ensure_ascii=False)[:500]}\n"
            f"the target answered {'an error' if outcome.kind == 'error' else 'illegally'}: "
            f"{outcome.message}"
        )


@pytest.fixture(scope="session")
def planmode_target(request: pytest.FixtureRequest) -> TargetClient:
    """The target under test, for property checks in `conformance/` (with
    several targets, the one this item's parameter names)."""
    checks = request.config.pluginmanager.get_plugin(PropertyChecks.PLUGIN_NAME)
    assert isinstance(checks, PropertyChecks)
    return TargetClient(checks, getattr(request, "param", None) or checks.targets.first())


def property_failure(
    item: pytest.Item,
    marker: Mapping[str, Any],
    exc: BaseException,
    calls: list[Call],
    illegal: list[str] | None = None,
) -> tuple[str, str]:
    """A failed property check in the layout of a failed fixture case: where,
    spec, rule, the requests of the shrunk counterexample and the answers,
    what failed, and a one-line summary. `illegal`: what the target did
    instead of answering during the check (a timeout names itself)."""
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
    if isinstance(exc, Flaky) and illegal:
        what = (
            f"the target did not answer {len(illegal)} request(s) of the check legally, so repeated "
            f"requests got different results; the first: {first_line(illegal[0])}"
        )
        lines.append(f"failed:   {what}")
        return "\n".join(lines), what
    if isinstance(exc, Flaky):
        what = "the target answered the same requests differently when they were repeated"
        lines.append(f"failed:   {what}")
        return "\n".join(lines), what + last
    if isinstance(exc, HypothesisException):
        what = f"the check could not run against this target: {type(exc).__name__}: {first_line(str(exc))}"
        lines.append(f"failed:   {what}")
        return "\n".join(lines), what
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, CaseFailure):
        lines.append(f"failed:   {text}")
        return "\n".join(lines), exc.summary or first_line(text.splitlines()[-1] if text else text)
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
    first = first_line(text)
    summary = first + last if first.startswith("assert ") else first
    return "\n".join(lines), summary


def _json(value: Any, limit: int) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)[:limit]
    except (TypeError, ValueError, RecursionError):
        return repr(value)[:limit]
