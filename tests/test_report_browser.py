"""The HTML page in a real browser: headless Chromium loads it, the test
reads the rendered DOM (`--dump-dom`, after the page's script ran) and
saves a screenshot under the test's temporary directory."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from conftest import side_by_side_report

from pytest_planmode.reports import level_counts, load, percent
from pytest_planmode.reports.html import render

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (Debian package `chromium`; .ci/run installs it)"
)


def chromium(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


class Dom(HTMLParser):
    """The cells of the operation table and the failure items, as rendered."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: dict[tuple[str, str, str], str | None] = {}
        self.failures: list[dict[str, str | None]] = []
        self.shown = ""
        self._row: dict[str, str | None] = {}
        self._in_shown = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "tr" and "data-op" in a:
            self._row = a
        elif tag == "td" and a.get("class") == "cell" and self._row:
            key = (str(self._row["data-op"]), str(self._row["data-level"]), str(a["data-target"]))
            self.cells[key] = a.get("data-percent")
        elif tag == "li" and a.get("class") == "failure":
            self.failures.append(a)
        elif tag == "p" and a.get("id") == "shown":
            self._in_shown = True

    def handle_data(self, data: str) -> None:
        if self._in_shown:
            self.shown += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "p":
            self._in_shown = False


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    directory = tmp_path_factory.mktemp("browser")
    report = load(side_by_side_report(directory))
    path = directory / "planmode.html"
    path.write_text(render(report), encoding="utf-8")
    return path, report


def test_the_page_renders_the_per_operation_percentages(
    page: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    path, report = page
    done = chromium(tmp_path / "profile", "--dump-dom", path.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    dom = Dom()
    dom.feed(done.stdout)
    expected = {}
    for target in report["targets"]:
        for op in target["operations"]:
            for level in ("must", "reference"):
                value = percent(level_counts(target, level, op))
                expected[(op, level, target["name"])] = None if value is None else str(value)
    assert expected and {k: dom.cells.get(k) for k in expected} == expected
    assert dom.cells[("oplmodes.plans.resolve", "must", "reference")] == "100.0"
    assert float(str(dom.cells[("oplmodes.plans.resolve", "must", "wrong")])) < 100
    # The script ran in the browser: it replaced the static count.
    total = len(report["targets"][1]["failures"])
    assert dom.shown == f"{total} of {total} failure(s) shown"


def test_the_filter_hides_non_matching_failures(page: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    path, report = page
    wanted = "dotdot"
    done = chromium(tmp_path / "profile", "--dump-dom", f"{path.as_uri()}#q={wanted}&target=wrong")
    assert done.returncode == 0, done.stderr[-2000:]
    dom = Dom()
    dom.feed(done.stdout)
    visible = [f for f in dom.failures if "hidden" not in f]
    ids = {f["id"] for f in report["targets"][1]["failures"] if wanted in f["id"]}
    assert ids and len(visible) == len(ids)
    assert all(wanted in str(f["data-text"]) and f["data-target"] == "wrong" for f in visible)
    assert dom.shown == f"{len(ids)} of {len(dom.failures)} failure(s) shown"


def test_a_screenshot_is_saved(page: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    path, _ = page
    shot = tmp_path / "planmode.png"
    done = chromium(tmp_path / "profile", "--window-size=1280,1400", f"--screenshot={shot}", path.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
