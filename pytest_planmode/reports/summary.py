"""The side-by-side table (operations × targets) and the failures, as
text for a terminal and as Markdown for a pull request comment or
`$GITHUB_STEP_SUMMARY`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_planmode.reports import (
    add,
    failing,
    implementation_label,
    level_counts,
    operations,
    percent,
    selection_text,
    show_percent,
)

#: Columns per target: (heading, how a row's counts give the cell).
COLUMNS: tuple[tuple[str, Callable[[dict[str, int]], int]], ...] = (
    ("passed", lambda c: c["passed"]),
    ("failed", lambda c: c["failed"] + c["error"]),
    ("xfail", lambda c: c["xfailed"]),
    ("skipped", lambda c: c["skipped"]),
    ("explained", lambda c: c["explained"]),
)
MAX_FAILURES = 50


def _rows(report: dict[str, Any]) -> list[tuple[str, list[tuple[dict[str, int], dict[str, int]]]]]:
    """Per operation (then the total): per target, (all counts, must counts)."""
    rows = []
    for op in operations(report):
        cells = [(add([t["operations"].get(op, {})]), level_counts(t, "must", op)) for t in report["targets"]]
        rows.append((op, cells))
    rows.append(("total", [(add([t["totals"]]), level_counts(t, "must")) for t in report["targets"]]))
    return rows


def terminal_table(report: dict[str, Any]) -> list[tuple[str, bool]]:
    """The table's lines, each with whether it shows a failure."""
    rows = _rows(report)
    width = max(len("operation"), *(len(name) for name, _ in rows))
    cell = "  ".join(f"{h:>{max(7, len(h))}}" for h, _ in COLUMNS) + f"  {'must':>7}"
    lines: list[tuple[str, bool]] = []
    if len(report["targets"]) > 1:
        names = "  ".join(f"{t['name'][: len(cell)]:<{len(cell)}}" for t in report["targets"])
        lines.append((f"{'':<{width}}  {names}".rstrip(), False))
    lines.append((f"{'operation':<{width}}  " + "    ".join([cell] * len(report["targets"])), False))
    for name, cells in rows:
        parts = []
        for counts, must in cells:
            numbers = "  ".join(f"{get(counts):>{max(7, len(h))}}" for h, get in COLUMNS)
            parts.append(f"{numbers}  {show_percent(percent(must)):>7}")
        bad = any(c["failed"] or c["error"] for c, _ in cells)
        lines.append((f"{name:<{width}}  " + "    ".join(parts), bad))
    return lines


def _failure_lines(failure: dict[str, Any]) -> list[str]:
    lines = [f"{failure['id']} ({failure.get('level')}, {failure['outcome']})"]
    if failure.get("spec"):
        lines.append(f"    spec: {failure['spec']}")
    if failure.get("rule"):
        lines.append(f"    rule: {failure['rule']}")
    lines.append(f"    why:  {failure.get('summary') or 'failed'}")
    return lines


def text(report: dict[str, Any]) -> str:
    lines = [f"planmode suite {report['suite']} ({selection_text(report)})"]
    for target in report["targets"]:
        lines.append(f"  {target['name']}: {implementation_label(target)}  [{target['target']}]")
    lines.append("")
    lines.extend(line for line, _ in terminal_table(report))
    for target in report["targets"]:
        failures = target["failures"]
        if not failures:
            continue
        lines.append("")
        lines.append(f"{target['name']}: {len(failures)} failure(s)")
        for failure in failures[:MAX_FAILURES]:
            lines.extend(f"  {line}" for line in _failure_lines(failure))
        if len(failures) > MAX_FAILURES:
            lines.append(f"  … {len(failures) - MAX_FAILURES} more (see the JSON report)")
    return "\n".join(lines) + "\n"


def md_escape(value: str) -> str:
    """Text safe inside a Markdown table cell or list item."""
    out = value.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
    return " ".join(out.split())


def _md_cell(counts: dict[str, int], must: dict[str, int]) -> str:
    bits = [f"{counts['passed']} passed"]
    if counts["failed"] + counts["error"]:
        bits.append(f"**{counts['failed'] + counts['error']} failed**")
    if counts["xfailed"]:
        bits.append(f"{counts['xfailed']} xfail")
    if counts["skipped"]:
        bits.append(f"{counts['skipped']} skipped")
    if counts["explained"]:
        bits.append(f"{counts['explained']} explained")
    return f"{show_percent(percent(must))} · " + ", ".join(bits)


def markdown(report: dict[str, Any]) -> str:
    targets = report["targets"]
    out = [f"### planmode conformance (suite {report['suite']})", ""]
    out.append(f"Selection: {md_escape(selection_text(report))}. Cells: must-level conformance · counts.")
    out.append("")
    out.append("| target | implementation | must | failed |")
    out.append("|---|---|---:|---:|")
    for t in targets:
        status = "❌" if failing(t) else "✅"
        out.append(
            f"| {status} `{md_escape(t['name'])}` | {md_escape(implementation_label(t))} | "
            f"{show_percent(percent(level_counts(t, 'must')))} | {failing(t)} |"
        )
    out.append("")
    out.append("| operation | " + " | ".join(f"`{md_escape(t['name'])}`" for t in targets) + " |")
    out.append("|---|" + "---|" * len(targets))
    for name, cells in _rows(report):
        label = "**total**" if name == "total" else f"`{name}`"
        out.append(f"| {label} | " + " | ".join(_md_cell(c, m) for c, m in cells) + " |")
    for t in targets:
        failures = t["failures"]
        if not failures:
            continue
        out.append("")
        out.append(f"<details><summary><b>{md_escape(t['name'])}</b>: {len(failures)} failure(s)</summary>")
        out.append("")
        for f in failures[:MAX_FAILURES]:
            where = f" — {md_escape(f['spec'])}" if f.get("spec") else ""
            out.append(f"- `{md_escape(f['id'])}` ({f.get('level')}){where}")
            if f.get("rule"):
                out.append(f"  - rule: {md_escape(f['rule'])}")
            out.append(f"  - {md_escape(f.get('summary') or 'failed')}")
        if len(failures) > MAX_FAILURES:
            out.append(f"- … {len(failures) - MAX_FAILURES} more (see the JSON report)")
        out.append("")
        out.append("</details>")
    return "\n".join(out) + "\n"
