"""What a failed case says: where it is, the spec section and rule it
pins, the input, expected and got, and for long values a compact diff of
only what `expect` names (keys it does not name are not checked, so they
would only be noise)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pytest_planmode.reports.expect_diff import checked_part, compact_diff

if TYPE_CHECKING:
    from pytest_planmode.suite import Case
    from pytest_planmode.targets import Outcome

#: Longer one-line JSON values are shortened in the message and diffed.
LONG = 160


def one_line(value: Any, limit: int) -> str:
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= limit:
        return text
    return f"{text[: limit - 1]}… ({len(text)} characters)"


def needs_diff(expected: Any, actual: Any) -> bool:
    return len(json.dumps(expected, ensure_ascii=False)) > LONG or (
        len(json.dumps(checked_part(expected, actual), ensure_ascii=False)) > LONG
    )


def rule_lines(spec: str, level: str, rule: str, case_description: str | None) -> list[str]:
    """The spec section, the group's rule and, when the case says more, the case's own words."""
    lines = [f"spec: {spec} (level {level})", f"rule: {rule}"]
    if case_description and case_description != rule:
        lines.append(f"case: {case_description}")
    return lines


def message(case: Case, outcome: Outcome, got: str, what: str) -> str:
    """The whole text of a failed fixture case."""
    lines = [case.where, *rule_lines(case.spec, case.level, case.rule, case.description)]
    lines.append(f"input:    {one_line(case.input, 2000)}")
    if outcome.kind == "output" and needs_diff(case.expect, outcome.output):
        lines.append(f"expected: {one_line(case.expect, LONG)}")
        lines.append(f"got:      {one_line(outcome.output, LONG)}")
        lines.append(what)
        lines.append("diff of what expect checks (- expected, + got):")
        lines.extend(f"  {line}" for line in compact_diff(case.expect, outcome.output))
    else:
        lines.append(f"expected: {one_line(case.expect, 2000)}")
        lines.append(f"got:      {got[:4000]}")
        lines.append(what)
    return "\n".join(lines)


def detail(case: Case, outcome: Outcome) -> dict[str, Any]:
    """Spec, rule, input, expected and got of a failed case, as the report keeps them."""
    out: dict[str, Any] = {"spec": case.spec, "rule": case.rule or case.description}
    if case.description != case.rule:
        out["description"] = case.description
    out["input"] = _bounded(case.input)
    out["expected"] = case.expect
    if outcome.kind == "output":
        out["got"] = _bounded(outcome.output)
    else:
        out["answer"] = f"{outcome.kind}: {outcome.message or ''}"[:4000]
    return out


def _bounded(value: Any, limit: int = 20000) -> Any:
    """A JSON value, or its shortened text when it is too large for a report."""
    return value if len(json.dumps(value, ensure_ascii=False)) <= limit else one_line(value, limit)
