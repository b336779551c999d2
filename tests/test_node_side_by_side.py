"""The reference and the Node.js example judged side by side in one run,
and the report views a port's CI uses on the results: the Markdown
summary, the badge, the page, and the diff that catches the wrong variant.
Skipped where Node.js is absent (.ci/run installs it)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_planmode.cli import main
from pytest_planmode.reports import load
from pytest_planmode.suite import CONFORMANCE_DIR, FIXTURES_DIR, Case, load_file

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "node-target"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is not installed (.ci/run installs it)")
PLANS_OP = "oplmodes.plans.resolve"
#: The fixture files judged side by side: the example's operation and two
#: it does not implement (test_conformance_full.py runs every fixture file
#: against the reference; test_node_target.py the whole suite against the example).
FILES = (
    FIXTURES_DIR / "oplmodes" / "plans.toml",
    FIXTURES_DIR / "planmode" / "bash.toml",
    FIXTURES_DIR / "planmode" / "shortcut.toml",
)


#: The plan-name fixtures and property checks.
PLANS_ONLY = (str(FILES[0]), str(CONFORMANCE_DIR / "test_oplmodes_plans.py"))


def cases() -> list[Case]:
    return [case for path in FILES for case in load_file(path)]


def node(script: str) -> str:
    assert NODE is not None
    return "exec:" + shlex.join([NODE, str(EXAMPLE / script)])


def pytest_run(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.fixture(scope="module")
def side_by_side(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The fixture cases of FILES, against the reference and the example."""
    directory = tmp_path_factory.mktemp("node-side-by-side")
    report = directory / "report.json"
    done = pytest_run(
        directory,
        "--planmode-target=reference",
        f"--planmode-target=node={node('target.mjs')}",
        f"--planmode-report={report}",
        f"--planmode-html={directory / 'planmode.html'}",
        *map(str, FILES),
    )
    return report, done


def test_one_run_judges_both(side_by_side: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    report_path, done = side_by_side
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    report = load(report_path)
    ref, ex = report["targets"]
    assert (ref["name"], ex["name"]) == ("reference", "node")
    assert ex["implementation"]["name"] == "planmode-node-example"
    ids = {c.id for c in cases()}
    assert set(ref["results"]) == set(ex["results"]) == ids
    assert set(ref["results"].values()) == {"passed"}
    plans = {c.id for c in cases() if c.operation == PLANS_OP}
    assert plans and ids - plans
    assert {ex["results"][i] for i in plans} == {"passed"}
    assert {ex["results"][i] for i in ids - plans} == {"skipped"}
    assert ex["targetExitStatus"] == 0
    row = next(line for line in done.stdout.splitlines() if line.startswith(PLANS_OP))
    assert row.split()[1:] == [str(len(plans)), "0", "0", "0", "0", "100", "%"] * 2
    assert (report_path.parent / "planmode.html").is_file()


def test_markdown_summary_and_badges_for_ci(
    side_by_side: tuple[Path, subprocess.CompletedProcess[str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    report_path, _ = side_by_side
    assert main(["report", "summary", str(report_path), "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert "| ✅ `node` | planmode-node-example" in markdown
    assert f"| `{PLANS_OP}` | 100 % · " in markdown
    # The operations the example does not implement are skipped, not judged.
    bash = {c.id for c in cases() if c.operation == "planmode.bash.check"}
    n = len(bash)
    assert f"| `planmode.bash.check` | 100 % · {n} passed | – · 0 passed, {n} skipped |" in markdown
    assert main(["report", "badge", str(report_path), "--out", str(tmp_path)]) == 0
    badge = json.loads((tmp_path / "node.json").read_text())
    assert badge == {"schemaVersion": 1, "label": "planmode must", "message": "100 %", "color": "brightgreen"}
    assert (tmp_path / "node.svg").read_text().startswith("<svg ")


def test_diff_from_the_reference_to_the_wrong_variant_exits_1(
    side_by_side: tuple[Path, subprocess.CompletedProcess[str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    reference = tmp_path / "reference.json"
    done = pytest_run(
        tmp_path,
        "--planmode-target=reference",
        f"--planmode-report={reference}",
        *PLANS_ONLY,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    wrong = tmp_path / "wrong.json"
    done = pytest_run(
        tmp_path,
        f"--planmode-target={node('wrong-target.mjs')}",
        f"--planmode-report={wrong}",
        *PLANS_ONLY,
    )
    assert done.returncode == 1, done.stdout[-3000:]
    failed = {f["id"] for f in load(wrong)["targets"][0]["failures"]}
    assert failed and all(i.startswith("oplmodes.plans.") for i in failed)
    capsys.readouterr()
    assert main(["report", "diff", str(reference), str(wrong)]) == 1
    out = capsys.readouterr().out
    listed = {line.split()[0] for line in out.splitlines() if line.startswith("    ") and "[failed]" in line}
    assert listed == failed
    assert f"{len(failed)} regression(s), 0 fix(es)" in out
