"""The README's test command and `.ci/run` run the same thing: every step of
the command after the virtual environment's set-up (the installs of the
kit's own tools, the pytest invocation) is a line of `.ci/run`, and
`.ci/run` turns pytest's "no tests" into a failure."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_test_command(text: str) -> str:
    """The README's command that installs the test extras and runs the tests."""
    found, inside = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            inside = not inside
        elif inside and "'.[test]'" in line:
            found.append(line)
    assert len(found) == 1, found
    return found[0]


def steps_ci_must_run(command: str) -> list[str]:
    """The steps after the venv and the package install."""
    steps = [step.strip() for step in command.split("&&")]
    return [step for step in steps if step.startswith(("planmode ", "python -m pytest"))]


def ci_lines(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")}


def test_ci_runs_the_readme_test_command() -> None:
    steps = steps_ci_must_run(readme_test_command((ROOT / "README.md").read_text(encoding="utf-8")))
    assert any(step.startswith("python -m pytest") for step in steps), steps
    lines = ci_lines((ROOT / ".ci" / "run").read_text(encoding="utf-8"))
    assert [step for step in steps if step not in lines] == []


def test_the_check_notices_a_step_ci_leaves_out() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    steps = steps_ci_must_run(readme_test_command(readme))
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").replace("planmode sandbox install", "true")
    assert [step for step in steps if step not in ci_lines(ci)] == ["planmode sandbox install"]


def test_ci_fails_a_run_that_collected_nothing() -> None:
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r'if \[ "\$status" -eq 5 \]; then\n.*\n\s+exit 1', text), "exit 5 must become a failure"
