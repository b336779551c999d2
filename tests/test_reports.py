"""The views of a JSON report: summary, diff, badge and the static page
(`planmode report ...`, pytest_planmode.reports)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from conftest import PLANS, PLANS_PROPERTIES, side_by_side_report

from pytest_planmode.cli import main
from pytest_planmode.reports import load, percent, show_percent
from pytest_planmode.reports import summary as summary_view
from pytest_planmode.reports.diff import compare
from pytest_planmode.suite import load_file

CASES = {c.id: c for c in load_file(PLANS)}
#: The fixture cases the wrong adapter breaks (a command name with no letter or digit).
BROKEN = {
    c.id
    for c in CASES.values()
    if c.input["source"] == "command"
    and not any(ch.isalnum() for ch in c.input["value"])
    and c.expect.get("accepted") is False
}
NO_ALNUM_PROPERTY = "oplmodes.plans.property.no-alnum-rejected"


@pytest.fixture(scope="module")
def report_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return side_by_side_report(tmp_path_factory.mktemp("side-by-side"))


@pytest.fixture
def report(report_path: Path) -> dict[str, Any]:
    return load(report_path)


def one_target(report: dict[str, Any], name: str, path: Path) -> Path:
    """A report of `name` alone, as a run of that target alone writes it."""
    (target,) = [t for t in report["targets"] if t["name"] == name]
    path.write_text(json.dumps({**report, "targets": [target]}))
    return path


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_the_fixture_report_holds_both_targets(report: dict[str, Any]) -> None:
    ref, wrong = report["targets"]
    assert (ref["name"], wrong["name"]) == ("reference", "wrong")
    assert BROKEN and {f["id"] for f in wrong["failures"]} == BROKEN | {NO_ALNUM_PROPERTY}
    assert ref["failures"] == []


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ({"passed": 1, "failed": 0, "xfailed": 0, "error": 0, "skipped": 5}, 100.0),
        ({"passed": 1999, "failed": 1, "xfailed": 0, "error": 0, "skipped": 0}, 99.9),
        ({"passed": 2, "failed": 0, "xfailed": 1, "error": 0, "skipped": 0}, 66.6),
        ({"passed": 0, "failed": 0, "xfailed": 0, "error": 1, "skipped": 0}, 0.0),
        ({"passed": 0, "failed": 0, "xfailed": 0, "error": 0, "skipped": 3}, None),
    ],
)
def test_percent_is_the_passed_share_of_judged_cases_rounded_down(
    counts: dict[str, int], expected: float | None
) -> None:
    assert percent(counts) == expected


def test_show_percent() -> None:
    assert [show_percent(v) for v in (100.0, 99.9, 0.0, None)] == ["100 %", "99.9 %", "0 %", "–"]


def property_levels() -> dict[str, str]:
    """Level of each property check of the plans operation, read from its marker."""
    text = PLANS_PROPERTIES.read_text(encoding="utf-8")
    return dict((i, lvl) for lvl, i in re.findall(r'level="(\w+)", id="([^"]+)"', text))


class TestSummary:
    def test_text_has_the_table_and_the_failures_with_spec_and_rule(
        self, report_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        status, out, _ = run_cli(capsys, "report", "summary", str(report_path))
        assert status == 0
        assert "reference: pytest-planmode reference" in out
        assert "wrong: wrong plans 9.9 (python)  [python:wrongplans:Adapter]" in out
        row = next(line for line in out.splitlines() if line.startswith("oplmodes.plans.resolve"))
        assert row.split()[6] == "100"  # the reference's must column
        dot = next(c for c in CASES.values() if c.input["value"] == "." and c.id in BROKEN)
        block = out.split(f"{dot.id} (must, failed)")[1]
        assert f"spec: {dot.spec}" in block.splitlines()[1]
        assert f"rule: {dot.rule}" in block.splitlines()[2]
        assert "output.accepted: expected false, got true" in block.splitlines()[3]

    def test_markdown_fits_a_pull_request_comment(
        self, report_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        status, out, _ = run_cli(capsys, "report", "summary", str(report_path), "--format", "markdown")
        assert status == 0
        assert out.startswith("### planmode conformance (suite ")
        assert "| ✅ `reference` | pytest-planmode reference" in out
        assert "| ❌ `wrong` | wrong plans 9.9 (python) |" in out
        rows = [line for line in out.splitlines() if line.startswith("| `oplmodes.plans.resolve` |")]
        assert len(rows) == 1 and rows[0].count("|") == 4
        assert "<details><summary><b>wrong</b>: " in out and "</details>" in out
        for case_id in BROKEN:
            assert f"- `{case_id}` (must) — opl-modes.md § Commands, flags, and shortcuts" in out

    def test_dash_reads_the_report_on_stdin(self, report_path: Path) -> None:
        import subprocess
        import sys

        piped = subprocess.run(
            [sys.executable, "-m", "pytest_planmode.cli", "report", "summary", "-"],
            input=report_path.read_bytes(),
            capture_output=True,
            timeout=120,
            check=False,
        )
        from_file = subprocess.run(
            [sys.executable, "-m", "pytest_planmode.cli", "report", "summary", str(report_path)],
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert piped.returncode == from_file.returncode, piped.stderr
        assert piped.stdout == from_file.stdout and b"oplmodes.plans.resolve" in piped.stdout
        broken = subprocess.run(
            [sys.executable, "-m", "pytest_planmode.cli", "report", "summary", "-"],
            input=b"{}",
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert broken.returncode == 2
        assert b"(stdin): not a planmode report of this schema" in broken.stderr

    def test_markdown_escapes_table_syntax(self) -> None:
        assert summary_view.md_escape("a | b <c>\nd") == "a \\| b &lt;c&gt; d"

    def test_an_unreadable_report_is_a_clear_error(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        status, _, err = run_cli(capsys, "report", "summary", str(tmp_path / "missing.json"))
        assert status == 2 and "missing.json: cannot read" in err
        other = tmp_path / "other.json"
        other.write_text('{"suite": "0.1.0"}')
        status, _, err = run_cli(capsys, "report", "summary", str(other))
        assert status == 2 and "not a planmode report of this schema" in err and "targets" in err
        garbage = tmp_path / "garbage.json"
        garbage.write_text("{oops")
        status, _, err = run_cli(capsys, "report", "html", str(garbage))
        assert status == 2 and "not a JSON report" in err


class TestDiff:
    def test_a_regression_exits_1_and_lists_the_regressed_ids(
        self, report: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        old = one_target(report, "reference", tmp_path / "old.json")
        new = one_target(report, "wrong", tmp_path / "new.json")
        status, out, _ = run_cli(capsys, "report", "diff", str(old), str(new))
        assert status == 1
        listed = re.findall(r"^    (\S+)  \[failed\]", out, re.MULTILINE)
        assert set(listed) == BROKEN | {NO_ALNUM_PROPERTY}
        assert "reference -> wrong: " in out and out.rstrip().endswith("REGRESSED")
        status, md, _ = run_cli(capsys, "report", "diff", str(old), str(new), "--format", "markdown")
        assert status == 1 and md.startswith("### planmode report diff: ❌ regressions")
        assert all(f"- `{case_id}` (failed): " in md for case_id in BROKEN)

    def test_the_other_way_round_is_fixes_and_exits_0(
        self, report: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        old = one_target(report, "wrong", tmp_path / "old.json")
        new = one_target(report, "reference", tmp_path / "new.json")
        status, out, _ = run_cli(capsys, "report", "diff", str(old), str(new))
        assert status == 0
        assert f"0 regression(s), {len(BROKEN) + 1} fix(es)" in out
        assert out.rstrip().endswith("no regression")

    def test_new_and_removed_ids_and_the_suite_version(self, report: dict[str, Any]) -> None:
        ref = report["targets"][0]
        gone, *_ = sorted(ref["results"])
        old_target = {**ref, "results": {k: v for k, v in ref["results"].items() if k != gone}}
        old_target["results"]["retired.case"] = "passed"
        old = {**report, "suite": "0.0.9", "targets": [old_target]}
        comparison = compare(old, {**report, "targets": [ref]})
        (change,) = comparison.targets
        assert change.added == [gone] and change.removed == ["retired.case"]
        assert not comparison.regressed
        from pytest_planmode.reports.diff import text

        assert f"suite version changed: 0.0.9 -> {report['suite']}" in text(comparison)

    def test_targets_pair_by_name_and_lone_ones_are_named(self, report: dict[str, Any]) -> None:
        ref, wrong = report["targets"]
        old = {**report, "targets": [ref, {**wrong, "name": "retired"}]}
        comparison = compare(old, report)
        assert [c.name for c in comparison.targets] == ["reference"]
        assert comparison.only_old == ["retired"] and comparison.only_new == ["wrong"]
        assert not comparison.regressed

    def test_passed_then_skipped_is_listed_but_not_a_regression(self, report: dict[str, Any]) -> None:
        ref = report["targets"][0]
        some = sorted(ref["results"])[0]
        skipped = {
            **ref,
            "results": {**ref["results"], some: "skipped"},
            "skipReasons": {some: "unsupported: x"},
        }
        comparison = compare({**report, "targets": [ref]}, {**report, "targets": [skipped]})
        assert comparison.targets[0].unjudged == [(some, "unsupported: x")]
        assert not comparison.regressed


class TestBadge:
    def test_an_endpoint_json_and_an_svg_per_target(
        self, report: dict[str, Any], report_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        out = tmp_path / "badges"
        status, printed, _ = run_cli(capsys, "report", "badge", str(report_path), "--out", str(out))
        assert status == 0
        assert sorted(p.name for p in out.iterdir()) == [
            "reference.json",
            "reference.svg",
            "wrong.json",
            "wrong.svg",
        ]
        assert str(out / "wrong.svg") in printed
        ref = json.loads((out / "reference.json").read_text())
        assert ref == {
            "schemaVersion": 1,
            "label": "planmode must",
            "message": "100 %",
            "color": "brightgreen",
        }
        wrong = json.loads((out / "wrong.json").read_text())
        assert wrong["message"] == summary_must(report, "wrong") and wrong["color"] in (
            "red",
            "orange",
            "yellow",
        )
        svg = (out / "wrong.svg").read_text()
        root = ET.fromstring(svg)
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
        assert texts == ["planmode must", wrong["message"]]
        assert "href" not in svg and "<image" not in svg


def summary_must(report: dict[str, Any], name: str) -> str:
    """The must cell of the total row of `name`, as the text summary prints it."""
    index = [t["name"] for t in report["targets"]].index(name)
    total = next(line for line, _ in summary_view.terminal_table(report) if line.startswith("total"))
    groups = total.split()[1:]
    # per target: passed failed xfail skipped explained <percent> %
    return " ".join(groups[index * 7 + 5 : index * 7 + 7])


def test_the_must_percentage_counts_must_cases_only(report: dict[str, Any]) -> None:
    wrong = report["targets"][1]
    levels = {**{i: c.level for i, c in CASES.items()}, **property_levels()}
    assert set(wrong["results"]) == set(levels)
    must = [i for i, lvl in levels.items() if lvl == "must"]
    passed = sum(1 for i in must if wrong["results"][i] == "passed")
    assert passed < len(must)
    assert summary_must(report, "wrong") == show_percent(int(1000 * passed / len(must)) / 10)


class TestHtmlPage:
    def test_self_contained(
        self, report_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        page = tmp_path / "page.html"
        status, _, _ = run_cli(capsys, "report", "html", str(report_path), "--out", str(page))
        assert status == 0
        text = page.read_text()
        assert not re.search(r"""(src|href)\s*=|@import|url\(|<link\b""", text, re.IGNORECASE)
        assert text.count("<script>") == 1 and "<script src" not in text

    def test_default_output_is_next_to_the_report(
        self, report_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        status, printed, _ = run_cli(capsys, "report", "html", str(report_path))
        assert status == 0 and printed.strip() == str(report_path.with_suffix(".html"))

    def test_never_overwrites_the_report(
        self, report_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        copy = tmp_path / "report.html"
        copy.write_bytes(report_path.read_bytes())
        status, _, err = run_cli(capsys, "report", "html", str(copy))
        assert status == 2 and "would overwrite the report" in err
        assert copy.read_bytes() == report_path.read_bytes()

    def test_values_are_escaped(self, report: dict[str, Any]) -> None:
        from pytest_planmode.reports import html

        wrong = report["targets"][1]
        evil = {
            **wrong,
            "name": "<img onerror=x>",
            "failures": [{**wrong["failures"][0], "summary": "</li><b>x"}],
        }
        text = html.render({**report, "targets": [evil]})
        assert "<img onerror" not in text and "</li><b>x" not in text
        assert "&lt;img onerror=x&gt;" in text
