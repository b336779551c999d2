"""What a failed case says: where it is, the spec section and rule it
pins, the input, expected and got, and for long values a compact diff of
only what `expect` names (keys it does not name are not checked, so they
would only be noise)."""

from __future__ import annotations

import difflib
import json
from typing import TYPE_CHECKING, Any

from pytest_planmode.matching import UNORDERED, is_any_text

if TYPE_CHECKING:
    from pytest_planmode.suite import Case
    from pytest_planmode.targets import Outcome

#: Longer one-line JSON values are shortened in the message and diffed.
LONG = 160
MAX_DIFF_LINES = 40


def one_line(value: Any, limit: int) -> str:
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= limit:
        return text
    return f"{text[: limit - 1]}… ({len(text)} characters)"


def checked_part(expected: Any, actual: Any) -> Any:
    """The part of `actual` that `expected` checks: object keys it names,
    lists element by element; anything else as it is."""
    if (
        isinstance(expected, dict)
        and not (len(expected) == 1 and UNORDERED in expected)
        and not is_any_text(expected)
    ):
        if not isinstance(actual, dict):
            return actual
        return {k: checked_part(v, actual[k]) if k in actual else "<missing>" for k, v in expected.items()}
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [checked_part(e, a) for e, a in zip(expected, actual, strict=True)]
    return actual


def _expected_shape(expected: Any) -> Any:
    if is_any_text(expected):
        return "<any text>"
    if isinstance(expected, dict):
        if len(expected) == 1 and isinstance(expected.get(UNORDERED), list):
            return [_expected_shape(v) for v in expected[UNORDERED]]
        return {k: _expected_shape(v) for k, v in expected.items()}
    if isinstance(expected, list):
        return [_expected_shape(v) for v in expected]
    return expected


def compact_diff(expected: Any, actual: Any, *, limit: int = MAX_DIFF_LINES) -> list[str]:
    """Unified diff lines (`-` expected, `+` got) of the checked part,
    pretty-printed, one line of context; at most `limit` lines."""
    want = json.dumps(_expected_shape(expected), indent=2, ensure_ascii=False, sort_keys=True)
    got = json.dumps(checked_part(expected, actual), indent=2, ensure_ascii=False, sort_keys=True)
    lines = [
        line
        for line in difflib.unified_diff(want.splitlines(), got.splitlines(), lineterm="", n=1)
        if not line.startswith(("---", "+++"))
    ]
    if len(lines) > limit:
        lines = [*lines[:limit], f"… {len(lines) - limit} more diff line(s)"]
    return lines


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
