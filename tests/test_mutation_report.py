"""The mutation benchmark's account of mutants killed only by `reference`
cases: why no `must` case saw each (explanation fields only, a reference
choice, or a gap), from the killing case's mismatches and the field classes."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pytest_planmode.contract import operations
from pytest_planmode.observability import effect_mismatches
from pytest_planmode.suite import load_suite
from pytest_planmode.targets import resolve_target

ROOT = Path(__file__).resolve().parent.parent
BASH = "planmode.bash.check"
CONFIG = "oplmodes.config.load"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "planmode_mutation_bench", ROOT / "benchmarks" / "mutation.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def record(operation: str, spec: str, expected: dict[str, Any], **answer: Any) -> dict[str, Any]:
    return {"test": "t", "case": "c", "operation": operation, "spec": spec, "expected": expected, **answer}


SPEC = "pi-plan-mode-settings.md § Safe shell subcommands"
CHOICE = "reference-choices.md § pi-plan-mode: limited Bash"


def test_effect_mismatches_leave_out_explanations_only() -> None:
    out = operations()[BASH].output
    expect = {"allowed": False, "rule": "git-global-option", "blocked": "git -c x log"}
    wrong_rule = {"allowed": False, "rule": "other", "blocked": "git -c x log", "segments": []}
    assert effect_mismatches(out, expect, wrong_rule) == []
    wrong_verdict = {**wrong_rule, "allowed": True}
    assert effect_mismatches(out, expect, wrong_verdict) == ["output.allowed: expected false, got true"]


def test_effect_mismatches_strip_inside_an_expected_set() -> None:
    # `problems[].field` is an explanation, `message` an effect, in an unordered list.
    out = operations()[CONFIG].output
    expect = {"problems": {"$unordered": [{"message": "m", "field": "ui"}]}}
    assert effect_mismatches(out, expect, {"problems": [{"message": "m", "field": "other"}]}) == []
    assert effect_mismatches(out, expect, {"problems": [{"message": "n", "field": "ui"}]})


def test_explanation_only_kills_are_out_of_musts_reach(bench: ModuleType) -> None:
    got = {"allowed": False, "blocked": "x", "segments": ["x"], "rule": "other", "reason": "r"}
    kind, paths = bench.why_not_must(record(BASH, SPEC, {"allowed": False, "rule": "git"}, got=got))
    assert (kind, paths) == ("explanation", ["output.rule"])


def test_an_effect_is_a_choice_or_a_gap_by_the_cited_spec(bench: ModuleType) -> None:
    got = {"allowed": True, "blocked": None, "segments": ["x"], "rule": None, "reason": None}
    expected = {"allowed": False, "rule": "git"}
    assert bench.why_not_must(record(BASH, CHOICE, expected, got=got)) == (
        "choice",
        ["output.allowed", "output.rule"],
    )
    assert bench.why_not_must(record(BASH, SPEC, expected, got=got))[0] == "gap"


def test_an_error_or_a_wrong_shape_is_an_effect(bench: ModuleType) -> None:
    assert bench.why_not_must(record(BASH, SPEC, {"allowed": False}, answer="error: boom"))[0] == "gap"
    # `allowed` missing from the answer is a shape problem, even though the
    # case pins only an explanation.
    kind, paths = bench.why_not_must(record(BASH, CHOICE, {"rule": "git"}, got={"rule": "other"}))
    assert kind == "choice" and "output.allowed" in paths


def test_what_cannot_be_read_stays_unclassified(bench: ModuleType) -> None:
    assert bench.why_not_must({"test": "conformance/test_x.py::test_property"})[0] == "unclassified"
    too_large = record(BASH, SPEC, {"allowed": False}, got='{"allowed": true, ...')
    assert bench.why_not_must(too_large)[0] == "unclassified"


def test_real_reference_answers_classify_as_expected(bench: ModuleType) -> None:
    """On the suite's own cases and the reference's own answers: spoiling an
    explanation field gives "explanation", spoiling the verdict gives an
    effect class."""
    target = resolve_target("reference", timeout=30)
    seen = 0
    for case in load_suite():
        if case.operation != BASH or case.level != "reference" or "rule" not in case.expect:
            continue
        answer = target.request(case.operation, case.input)
        assert answer.kind == "output" and answer.output is not None
        got = dict(answer.output)
        spoiled_rule = {**got, "rule": f"not-{got['rule']}"}
        base = record(BASH, case.spec, case.expect)
        assert bench.why_not_must({**base, "got": spoiled_rule})[0] == "explanation", case.id
        spoiled_verdict = {**got, "allowed": not got["allowed"]}
        expected_kind = "choice" if case.spec.startswith("reference-choices.md") else "gap"
        assert bench.why_not_must({**base, "got": spoiled_verdict})[0] == expected_kind, case.id
        seen += 1
        if seen == 20:
            break
    assert seen == 20


def test_constructors_of_tables_built_at_import_run_at_import(bench: ModuleType) -> None:
    """A forked child never switches on a mutant that runs while its module
    is imported; the benchmark rechecks those in a fresh process, and a
    dataclass table's `__post_init__` is one of them."""
    module = "pytest_planmode.reference.planmode.program_rules"
    assert "OptionRule.__post_init__" in bench.import_time_functions(module)
    assert bench.runs_at_import(f"{module}.xǁOptionRuleǁ__post_init____mutmut_1")
    assert bench.runs_at_import("pytest_planmode.reference.oplmodes.bash_patterns.x__words__mutmut_1")
    # A method that runs only when an operation calls it does not.
    assert not bench.runs_at_import(
        "pytest_planmode.reference.planmode.settings_store.xǁSettingsStoreǁload__mutmut_3"
    )


def test_the_must_goal_counts_spec_stated_effects_only(bench: ModuleType) -> None:
    """The goal figure is must kills over must kills plus gaps: explanation-only
    and reference-choice kills are outside it, survivors are listed apart."""
    outcomes = {
        "a": "killed",
        "b": "timeout",
        "c": "killed-reference",
        "d": "killed-reference",
        "e": "killed-reference",
        "f": "survived",
        "g": "killed-reference",
    }
    why = {"c": "gap", "d": "explanation", "e": "choice"}
    classes = bench.must_goal(outcomes, why)
    assert classes == {
        "must": ["a", "b"],
        "gap": ["c"],
        "explanation": ["d"],
        "choice": ["e"],
        "unclassified": ["g"],
        "survived": ["f"],
    }
    assert bench.goal_rate(classes) == (2, 3)


def test_the_must_goal_fails_when_a_gap_is_counted_as_killed(bench: ModuleType) -> None:
    # A gap moved to the must class would raise the goal to 100 %; the rate sees it.
    classes = bench.must_goal({"a": "killed", "c": "killed-reference"}, {"c": "gap"})
    assert bench.goal_rate(classes) == (1, 2)
    assert bench.goal_rate(bench.must_goal({"a": "killed"}, {})) == (1, 1)
