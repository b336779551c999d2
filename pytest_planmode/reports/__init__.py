"""Views of a JSON report (`--planmode-report`) for the people who read it:
a summary table for a terminal or a pull request, the difference between
two reports, badges and one static HTML page.

Every view reads the report as its schema (`report.schema.json`) states
it, so a report written by an older or newer kit of the same schema works.

The conformance percentage of a set of cases is the share of the judged
ones that passed: passed / (passed + failed + xfailed + error). Skipped
cases (an operation the target does not list, or answers `unsupported`
for) are not judged; the views show their count next to the percentage.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pytest_planmode.implementation_text import implementation_text

OUTCOMES = ("passed", "failed", "skipped", "explained", "xfailed", "error")
JUDGED = ("passed", "failed", "xfailed", "error")
FAILING = ("failed", "error", "xfailed")
LEVELS = ("must", "reference")


class ReportError(Exception):
    """A report file cannot be read; the message names the file and the problem."""


def load(path: str | Path) -> dict[str, Any]:
    """Read and validate a report file; `-` reads it from standard input."""
    import sys

    from pydantic import ValidationError

    from pytest_planmode.contract.report import Report

    try:
        if str(path) == "-":
            path = "(stdin)"
            text = sys.stdin.buffer.read().decode("utf-8")
        else:
            text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text)
    except OSError as exc:
        raise ReportError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: not a JSON report: {exc}") from None
    try:
        Report.model_validate(data)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(p) for p in err['loc']) or '(document)'}: {err['msg']}"
            for err in exc.errors(include_url=False)[:8]
        ]
        raise ReportError(
            f"{path}: not a planmode report of this schema (written by `--planmode-report`):\n  "
            + "\n  ".join(problems)
        ) from None
    return dict(data)


def add(counts: Iterable[dict[str, int]]) -> dict[str, int]:
    total = dict.fromkeys(OUTCOMES, 0)
    for each in counts:
        for outcome in OUTCOMES:
            total[outcome] += int(each.get(outcome, 0))
    return total


def percent(counts: dict[str, int]) -> float | None:
    """Passed share of the judged cases, rounded down to one decimal (so a
    single failure never shows as 100 %); None when none was judged."""
    judged = sum(counts.get(o, 0) for o in JUDGED)
    if judged == 0:
        return None
    return math.floor(1000 * counts.get("passed", 0) / judged) / 10


def show_percent(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.0f} %" if value in (0, 100) else f"{value:.1f} %"


def level_counts(target: dict[str, Any], level: str, operation: str | None = None) -> dict[str, int]:
    """Counts of one level's cases, for one operation or all of them."""
    per_op: dict[str, dict[str, int]] = target.get("levels", {}).get(level, {})
    if operation is not None:
        return add([per_op.get(operation, {})])
    return add(per_op.values())


def operations(report: dict[str, Any]) -> list[str]:
    """Every operation any target ran a case of, sorted."""
    return sorted({op for target in report["targets"] for op in target["operations"]})


def failing(target: dict[str, Any]) -> int:
    totals = target["totals"]
    return int(totals.get("failed", 0)) + int(totals.get("error", 0))


def selection_text(report: dict[str, Any]) -> str:
    sel = report.get("selection", {})
    parts = [f"level {sel.get('level', report.get('level', 'all'))}"]
    if sel.get("spec"):
        parts.append(f"spec contains {sel['spec']!r}")
    if sel.get("keyword"):
        parts.append(f"-k {sel['keyword']!r}")
    if sel.get("markers"):
        parts.append(f"-m {sel['markers']!r}")
    return ", ".join(parts)


def implementation_label(target: dict[str, Any]) -> str:
    return implementation_text(target.get("implementation", {}))
