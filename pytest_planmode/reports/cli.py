"""`planmode report summary|diff|badge|html`: the views of a JSON report.

Exit status: 0 done, 1 `diff` found a regression, 2 a report cannot be
read or an output cannot be written."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_planmode import reports


def _load(command: str, path: str) -> dict[str, Any] | None:
    try:
        return reports.load(path)
    except reports.ReportError as exc:
        print(f"planmode report {command}: {exc}", file=sys.stderr)
        return None


def _summary(args: argparse.Namespace) -> int:
    from pytest_planmode.reports import summary

    report = _load("summary", args.file)
    if report is None:
        return 2
    sys.stdout.write(summary.markdown(report) if args.format == "markdown" else summary.text(report))
    return 0


def _diff(args: argparse.Namespace) -> int:
    from pytest_planmode.reports import diff

    old, new = _load("diff", args.old), _load("diff", args.new)
    if old is None or new is None:
        return 2
    comparison = diff.compare(old, new)
    sys.stdout.write(diff.markdown(comparison) if args.format == "markdown" else diff.text(comparison))
    return 1 if comparison.regressed else 0


def _write(command: str, path: Path, text: str) -> bool:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"planmode report {command}: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return False
    return True


def _badge(args: argparse.Namespace) -> int:
    from pytest_planmode.reports import badge

    report = _load("badge", args.file)
    if report is None:
        return 2
    try:
        written = badge.write(report, Path(args.out))
    except OSError as exc:
        print(f"planmode report badge: cannot write to {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


def _html(args: argparse.Namespace) -> int:
    from pytest_planmode.reports import html

    report = _load("html", args.file)
    if report is None:
        return 2
    out = Path(args.out) if args.out else Path(args.file).with_suffix(".html")
    if out.resolve() == Path(args.file).resolve():
        print(
            f"planmode report html: the page would overwrite the report {args.file}; give --out",
            file=sys.stderr,
        )
        return 2
    if not _write("html", out, html.render(report)):
        return 2
    print(out)
    return 0


def add_report_command(sub: Any) -> None:
    report = sub.add_parser(
        "report", help="views of a JSON report: summary, diff, badge, html (see `planmode report -h`)"
    )
    rsub = report.add_subparsers(dest="action", metavar="ACTION")
    rsub.required = True
    formats = {"choices": ["text", "markdown"], "default": "text", "help": "text (default) or markdown"}

    summary = rsub.add_parser("summary", help="operations × targets and the failures, with spec and rule")
    summary.add_argument(
        "file", metavar="FILE", help="a report written by --planmode-report ('-' reads it from stdin)"
    )
    summary.add_argument("--format", **formats)
    summary.set_defaults(func=_summary)

    diff = rsub.add_parser(
        "diff",
        help="regressions, fixes, new and removed case ids between two reports (exit 1 on a regression)",
    )
    diff.add_argument("old", metavar="OLD")
    diff.add_argument("new", metavar="NEW")
    diff.add_argument("--format", **formats)
    diff.set_defaults(func=_diff)

    badge = rsub.add_parser("badge", help="a shields.io endpoint JSON and an SVG badge per target")
    badge.add_argument("file", metavar="FILE")
    badge.add_argument(
        "--out", required=True, metavar="DIR", help="directory for <target>.json and <target>.svg"
    )
    badge.set_defaults(func=_badge)

    page = rsub.add_parser("html", help="one self-contained HTML page of the report")
    page.add_argument("file", metavar="FILE")
    page.add_argument("--out", metavar="FILE", help="where to write the page (default: FILE with .html)")
    page.set_defaults(func=_html)
