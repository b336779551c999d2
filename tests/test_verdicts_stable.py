"""A port whose answers do not change gets the same verdicts from two runs
of the suite in different directories on different days: fixture cases and
property checks alike, case by case.

The second run's interpreter starts with its clock 400 days ahead (a
`sitecustomize` module moves `time.time`, `time.time_ns` and
`datetime.now`/`today`) in a time zone on the other side of the date line,
from another directory, with no CI variable in either run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from datetime import date, timedelta
from pathlib import Path

from pytest_planmode.suite import CONFORMANCE_DIR, FIXTURES_DIR

#: A port that answers as the reference but accepts every plan name holding
#: a digit: some fixture cases and property checks fail, the rest pass.
PORT = """
from pytest_planmode.targets.reference.adapter import REFERENCE

class Adapter:
    def hello(self, suite):
        return {"protocol": 1, "implementation": {"name": "steady port"},
                "operations": ["oplmodes.plans.resolve"]}

    def call(self, op, input):
        name = str(input.get("value", ""))
        if any(c.isdigit() for c in name):
            return {"output": {"accepted": True, "path": ".pi/plans/plan-x.md", "reason": None}}
        return REFERENCE.call(op, input)
"""

#: Moves this interpreter's clock 400 days ahead.
LATER = """
import datetime as _dt
import time as _time

_SHIFT = 400 * 86400
_time_time, _time_ns = _time.time, _time.time_ns
_time.time = lambda: _time_time() + _SHIFT
_time.time_ns = lambda: _time_ns() + _SHIFT * 10**9


class _Later(_dt.datetime):
    @classmethod
    def now(cls, tz=None):
        return super().now(tz) + _dt.timedelta(seconds=_SHIFT)

    @classmethod
    def today(cls):
        return super().today() + _dt.timedelta(seconds=_SHIFT)


_dt.datetime = _Later
# Proof for the test that this interpreter ran on the later day.
with open("clock-moved", "w") as _note:
    _note.write(_dt.datetime.now().date().isoformat())
"""

OPERATION = "oplmodes.plans.resolve"


def _slice() -> list[str]:
    """The fixture files holding cases of the operation, and its property checks."""
    files = sorted(
        str(path)
        for path in FIXTURES_DIR.rglob("*.toml")
        if f'"{OPERATION}"' in path.read_text(encoding="utf-8")
    )
    return [*files, str(CONFORMANCE_DIR / "test_oplmodes_plans.py")]


OUTCOME = re.compile(r"^(PASSED|FAILED|SKIPPED|XFAIL|XPASS|ERROR) (\S+)")


def _verdicts(where: Path, tz: str, *, later: bool) -> tuple[dict[str, str], str]:
    where.mkdir(parents=True)
    (where / "steady_port.py").write_text(textwrap.dedent(PORT), encoding="utf-8")
    paths = [str(where)]
    if later:
        clock = where / "clock"
        clock.mkdir()
        (clock / "sitecustomize.py").write_text(textwrap.dedent(LATER), encoding="utf-8")
        paths.insert(0, str(clock))
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CI", "HYPOTHESIS_STORAGE_DIRECTORY", "PYTEST_ADDOPTS")
    }
    env["PYTHONPATH"] = os.pathsep.join([*paths, env.get("PYTHONPATH", "")])
    env["TZ"] = tz
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--planmode-target=python:steady_port:Adapter", "-p", "no:cacheprovider",
         "-p", "no:benchmark", "-q", "-rA", *_slice()],
        cwd=where, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    text = done.stdout + done.stderr
    verdicts: dict[str, str] = {}
    for line in text.splitlines():
        found = OUTCOME.match(line)
        if found:
            # A node id is relative to the run's directory: keep the part
            # inside the package, the same from anywhere.
            node = found.group(2)
            verdicts[node[node.find("pytest_planmode/") :]] = found.group(1)
    return verdicts, text


def test_two_runs_on_different_days_in_different_directories_give_the_same_verdicts(tmp_path: Path) -> None:
    today, text_a = _verdicts(tmp_path / "one" / "here", "Pacific/Kiritimati", later=False)
    later, text_b = _verdicts(tmp_path / "two", "America/Adak", later=True)
    moved = tmp_path / "two" / "clock-moved"
    assert moved.exists(), text_b[-2000:]
    assert date.fromisoformat(moved.read_text()) > date.today() + timedelta(days=300)
    assert not (tmp_path / "one" / "here" / "clock-moved").exists()
    assert len(today) > 20, sorted(today)
    outcomes = set(today.values())
    assert {"PASSED", "FAILED"} <= outcomes, text_a[-3000:]
    assert any(node.startswith("pytest_planmode/conformance/") for node in today), sorted(today)[:20]
    assert later == today
