"""Property checks draw the same examples everywhere unless exploration is
asked for, and write nothing into the directory they run in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_planmode.hypothesis_profiles import explore_examples, seed_of
from pytest_planmode.suite import CONFORMANCE_DIR

CHECK = f"{CONFORMANCE_DIR / 'test_oplmodes_plans.py'}::test_names_without_letter_or_digit_are_rejected"
CHECK_ID = "oplmodes.plans.property.no-alnum-rejected"

#: A port that logs every request into `requests.jsonl` of its directory and
#: answers as the reference, or (WRONG) accepts every name.
ADAPTER = """
import json, pathlib
from pytest_planmode.targets.reference.adapter import REFERENCE
WRONG = {wrong}
class Adapter:
    def hello(self, suite):
        return {{"protocol": 1, "implementation": {{"name": "logging port"}},
                "operations": ["oplmodes.plans.resolve"]}}
    def call(self, op, input):
        with open(pathlib.Path(__file__).parent / "requests.jsonl", "a") as log:
            log.write(json.dumps(input) + "\\n")
        if WRONG:
            return {{"output": {{"accepted": True, "path": ".pi/plans/plan-x.md", "reason": None}}}}
        return REFERENCE.call(op, input)
"""


def _run(where: Path, *args: str, wrong: bool = False) -> tuple[list[str], str]:
    """Run the check in `where` (a fresh directory) in a fresh interpreter,
    as a user would: no CI variable, no Hypothesis settings of its own."""
    where.mkdir()
    (where / "logging_port.py").write_text(textwrap.dedent(ADAPTER.format(wrong=wrong)), encoding="utf-8")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CI", "HYPOTHESIS_STORAGE_DIRECTORY", "PYTEST_ADDOPTS")
    }
    env["PYTHONPATH"] = os.pathsep.join([str(where), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--planmode-target=python:logging_port:Adapter", "-p", "no:cacheprovider",
         "-p", "no:benchmark", "-q", CHECK, *args],
        cwd=where, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    log = where / "requests.jsonl"
    return (log.read_text(encoding="utf-8").splitlines() if log.exists() else []), done.stdout + done.stderr


def test_two_runs_in_different_directories_draw_the_same_examples_and_write_nothing(tmp_path: Path) -> None:
    first, text_a = _run(tmp_path / "a")
    second, text_b = _run(tmp_path / "b")
    assert "1 passed" in text_a and "1 passed" in text_b, text_a[-2000:] + text_b[-2000:]
    assert len(set(first)) > 10, "the check drew a handful of examples only"
    assert first == second
    assert not (tmp_path / "a" / ".hypothesis").exists()
    assert not (tmp_path / "b" / ".hypothesis").exists()


def test_exploration_draws_other_examples_as_many_as_asked(tmp_path: Path) -> None:
    fixed, _ = _run(tmp_path / "fixed")
    explored, text = _run(tmp_path / "explored", "--planmode-explore=30")
    assert "1 passed" in text, text[-2000:]
    assert explored and set(explored) != set(fixed)
    # Hypothesis runs at most N valid examples (a rejected draw is not one).
    assert len(explored) <= 30 * 2
    assert not (tmp_path / "explored" / ".hypothesis").exists()


def test_a_failing_check_names_its_case_id_and_the_same_smallest_input_everywhere(tmp_path: Path) -> None:
    _, text_a = _run(tmp_path / "a", "-rA", wrong=True)
    _, text_b = _run(tmp_path / "b", "-rA", wrong=True)
    assert "1 failed" in text_a, text_a[-3000:]
    assert CHECK_ID in text_a
    shrunk = [line for line in text_a.splitlines() if line.strip().startswith("counterexample:")]
    assert shrunk, text_a[-3000:]
    assert shrunk == [line for line in text_b.splitlines() if line.strip().startswith("counterexample:")]
    assert json.dumps(CHECK_ID)[1:-1] in text_b


def test_the_seed_is_a_function_of_the_case_id() -> None:
    assert seed_of(CHECK_ID) == seed_of(CHECK_ID)
    assert seed_of(CHECK_ID) != seed_of(CHECK_ID + "x")


@pytest.mark.parametrize(("given", "examples"), [(None, None), ("", None), ("1000", 1000), (" 7 ", 7)])
def test_the_explore_option_reads_a_number_of_examples(given: str | None, examples: int | None) -> None:
    assert explore_examples(given) == examples


@pytest.mark.parametrize("given", ["0", "-3", "many", "1.5"])
def test_the_explore_option_refuses_anything_but_a_positive_whole_number(given: str) -> None:
    with pytest.raises(ValueError, match="--planmode-explore: N must be a positive whole number"):
        explore_examples(given)


def test_a_check_draws_its_own_number_of_examples_and_the_same_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    from pytest_planmode import hypothesis_profiles

    hypothesis_profiles.load(hypothesis_profiles.CI)
    seen: list[int] = []

    @given(st.integers())
    def check(value: int) -> None:
        seen.append(value)

    monkeypatch.setitem(hypothesis_profiles.EXAMPLES, "demo.property.few", 7)
    hypothesis_profiles.fix_examples(check, "demo.property.few")
    check()
    few = list(seen)
    assert 0 < len(few) <= 7
    seen.clear()
    hypothesis_profiles.fix_examples(check, "demo.property.few")
    check()
    assert seen == few, "the same case id draws the same examples"
    seen.clear()
    hypothesis_profiles.fix_examples(check, "demo.property.default")
    check()
    assert len(seen) > 7 and seen != few


def test_every_check_given_its_own_number_of_examples_exists() -> None:
    from pytest_planmode import hypothesis_profiles
    from pytest_planmode.properties import property_checks

    ids = set(property_checks())
    unknown = sorted(set(hypothesis_profiles.EXAMPLES) - ids)
    assert unknown == [], f"EXAMPLES names checks the suite does not have: {unknown}"
    assert all(n > 0 for n in hypothesis_profiles.EXAMPLES.values())
