"""Every answer is checked whole against its operation's output model
before a case compares what its `expect` names (issue: the strict judge,
point 1): effect fields present and well-typed, explanation fields
well-typed when present, strictly (no coercion), in fixture cases and
property checks alike."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import python_adapter
from garble import garbled, rates

from pytest_planmode.answer_shape import MAX_PROBLEMS, shape_problems
from pytest_planmode.suite import load_suite

BASH = "planmode.bash.check"


@pytest.mark.parametrize(
    ("answer", "problems"),
    [
        ({"allowed": True, "blocked": None}, []),
        # Explanations may be left out, or present with their type; extra fields are allowed.
        ({"allowed": False, "blocked": "x", "rule": "r", "segments": ["x"], "mine": {"a": 1}}, []),
        ({"blocked": None}, ["output.allowed: missing (required: every answer carries it)"]),
        ({"allowed": 1, "blocked": None}, ["output.allowed: expected a boolean, got 1"]),
        ({"allowed": "true", "blocked": None}, ['output.allowed: expected a boolean, got "true"']),
        ({"allowed": None, "blocked": None}, ["output.allowed: expected a boolean, got null"]),
        ({"allowed": True, "blocked": 0}, ["output.blocked: expected a string, got 0"]),
        (
            {"allowed": True, "blocked": None, "segments": ["a", {"b": 1}]},
            ['output.segments[1]: expected a string, got {"b": 1}'],
        ),
        (
            {"allowed": True, "blocked": None, "reason": ["?"]},
            ['output.reason: expected a string, got ["?"]'],
        ),
    ],
)
def test_a_bash_answer_is_checked_whole_and_strictly(answer: dict[str, Any], problems: list[str]) -> None:
    assert shape_problems(BASH, answer) == problems


def test_nested_problems_name_the_path_through_lists_and_tagged_unions() -> None:
    answer = {
        "trace": [
            {"at": 0, "type": "mode", "mode": "planning", "cause": 3},
            {"at": 1.0, "type": "nosuch"},
            {"at": "1", "type": "mode", "mode": "normal"},
        ],
        "contexts": [],
        "kickoffs": [],
        "thinking": [],
        "exports": [],
        "notices": [],
    }
    problems = shape_problems("planmode.lifecycle.run", answer)
    assert "output.final: missing (required: every answer carries it)" in problems
    assert "output.trace[0].cause: expected a string, got 3" in problems
    assert any(p.startswith("output.trace[1].type: expected one of 'context'") for p in problems), problems
    assert 'output.trace[2].at: expected an integer, got "1"' in problems
    # An integral number is an integer (JSON has one number type).
    assert not any(p.startswith("output.trace[1].at") for p in problems)


def test_many_problems_are_listed_once_and_bounded() -> None:
    answer = {"segments": [1] * 50}
    problems = shape_problems(BASH, answer)
    assert len(problems) == MAX_PROBLEMS + 1
    assert problems[-1].endswith("more shape problem(s)")
    assert len(set(problems)) == len(problems)


def test_garbled_answers_fail_their_cases() -> None:
    """The reference's answers to a deterministic sample of cases of every
    operation, with every place `expect` does not name damaged: all of
    them pass on `expect` alone; with the shape check, every one the
    published output schema rejects fails its case, and the shape check
    rejects nothing that schema accepts."""
    items = list(garbled(load_suite(), per_operation=4, seed=16))
    # Every operation but one whose cases name its whole answer (the list of segments).
    every_op = {c.operation for c in load_suite()}
    assert {item.case.operation for item in items} == every_op - {"oplmodes.bash.segments"}
    found = rates(items)
    for kind, rate in found.items():
        print(rate.line(kind))
    every = found["all"]
    assert every.total > 250
    assert every.failing_on_expect == 0
    assert every.failing_of_schema_rejected / every.schema_rejects >= 0.95
    assert every.failing == every.failing_of_schema_rejected  # nothing the schema accepts fails
    # Only a null where the contract allows null is not garbage.
    for kind in ("drop", "retype", "nest"):
        assert found[kind].failing / found[kind].total >= 0.95, found[kind].line(kind)


@pytest.fixture
def dropping_adapter(pytester: pytest.Pytester) -> str:
    """The reference, with `allowed` left out of every Bash answer and `rule`
    (an explanation) sent as a number."""
    return python_adapter(
        pytester,
        "dropping",
        """
        from pytest_planmode.targets.reference.adapter import REFERENCE
        answer = REFERENCE.call(op, input)
        if "output" in answer:
            answer["output"].pop("allowed", None)
            answer["output"]["rule"] = 7
        return answer
        """,
        ("planmode.bash.check",),
    )


def test_a_target_missing_an_effect_field_fails_cases_and_properties_with_shape_messages(
    suite: Any, dropping_adapter: str
) -> None:
    run = suite(
        dropping_adapter,
        "-k",
        "kubectl-get-pods or bash.property.spoiler-blocks or bash.property.chain-iff-segments",
    )
    assert run.result.ret == 1, run.text[-3000:]
    failures = run.report["failures"]
    assert failures, run.text[-3000:]
    for failure in failures:
        assert "output.allowed: missing (required: every answer carries it)" in failure["message"], failure
        assert "output.rule: expected a string, got 7" in failure["message"], failure
        assert "Hypothesis" not in failure["message"] and "Traceback" not in failure["message"]
    fixture = [f for f in failures if ".property." not in f["id"]]
    prop = [f for f in failures if ".property." in f["id"]]
    assert fixture and prop, [f["id"] for f in failures]
    assert fixture[0]["summary"].startswith("shape: output.allowed: missing")
    assert "shape (the answer does not have the operation's output shape):" in fixture[0]["message"]
    assert prop[0]["summary"].startswith("shape: output.allowed: missing")
