"""The model-switching fixtures and properties catch wrong targets.

Each mutant wraps the reference and breaks one rule of the spec; the suite
must fail it on the cases and properties that pin that rule, and only there.
"""

from __future__ import annotations

import textwrap

import pytest

from pytest_planmode.suite import CONFORMANCE_DIR, FIXTURES_DIR

SWITCH_CASES = FIXTURES_DIR / "planmode" / "models.toml"
FRESH_CASES = FIXTURES_DIR / "planmode" / "models-fresh.toml"
SESSION_CASES = FIXTURES_DIR / "planmode" / "models-session.toml"
OPL_CASES = FIXTURES_DIR / "oplmodes" / "models.toml"
PROPERTIES = CONFORMANCE_DIR / "test_models.py"

MUTANTS = textwrap.dedent(
    '''
    import copy
    from pytest_planmode.targets.reference.adapter import REFERENCE

    OPS = ["oplmodes.models.script", "planmode.models.fresh", "planmode.models.session",
           "planmode.models.switch"]


    class _Base:
        def hello(self, suite):
            return {"protocol": 1, "implementation": {"name": type(self).__name__},
                    "operations": OPS}

        def call(self, op, input):
            return REFERENCE.call(op, input)


    class LateWins(_Base):
        """A slow primary takes the model back when its late answer is ok."""

        def call(self, op, input):
            answer = REFERENCE.call(op, input)
            out = answer.get("output")
            if op == "planmode.models.switch" and out:
                for entry in out["log"]:
                    if entry["type"] == "auth.late" and entry["outcome"] == "ok":
                        out["model"] = entry["model"]
                        out["applied"] = entry["model"]
            return answer


    class InclusiveDeadline(_Base):
        """An answer at exactly 2,000 ms counts as in time."""

        def call(self, op, input):
            if op.startswith("planmode.models."):
                input = copy.deepcopy(input)
                moved = set()
                for key, b in input.get("models", {}).items():
                    if b.get("authLatencyMs") == 2000 and b.get("auth", "ok") != "hang":
                        b["authLatencyMs"] = 1999
                        moved.add(key)
                answer = REFERENCE.call(op, input)
                for entry in answer.get("output", {}).get("log", []):
                    if entry["at"] == 1999 and entry["model"] in moved:
                        entry["at"] = 2000
                return answer
            return REFERENCE.call(op, input)


    class NoCollapse(_Base):
        """Duplicates are tried again at every position."""

        def call(self, op, input):
            answer = REFERENCE.call(op, input)
            if op == "planmode.models.switch" and "output" in answer:
                out = answer["output"]
                field = "planModel" if input["trigger"].get("args") == "start" else "normalModel"
                raw = input.get("settings", {}).get(field)
                if isinstance(raw, list):
                    keys = [f"{m.get('provider')}/{m.get('modelId')}" for m in raw if isinstance(m, dict)]
                    seen = {c["model"] for c in out["candidates"]}
                    for key in keys[len(seen):]:
                        out["candidates"].append({"model": key, "result": "not-tried"})
                    # A chain that failed throughout authenticates its
                    # duplicates again.
                    tried = [e["model"] for e in out["log"] if e["type"] == "auth.start"]
                    if out["applied"] is None and out["elapsedMs"] is not None:
                        at = out["log"][-1]["at"] if out["log"] else 0
                        for index, key in enumerate(keys):
                            if key in keys[:index] and key in tried:
                                out["log"].append({"at": at, "type": "auth.start", "model": key, "outcome": None})
                                out["authAttempts"] += 1
            return answer


    class StickyFallback(_Base):
        """A later boundary starts from the fallback applied last time."""

        def call(self, op, input):
            if op != "planmode.models.session":
                return REFERENCE.call(op, input)
            answer = REFERENCE.call(op, input)
            out = answer["output"]
            sticky = {}
            for t in out["transitions"]:
                if t["trigger"] in sticky and t["applied"] is not None and t["applied"] != sticky[t["trigger"]]:
                    t["applied"] = sticky[t["trigger"]]
                    t["model"] = sticky[t["trigger"]]
                if t["warnings"] and t["applied"]:
                    sticky[t["trigger"]] = t["applied"]
            return answer


    class Unserialized(_Base):
        """Every change is reported as starting at the instant it was asked for."""

        def call(self, op, input):
            answer = REFERENCE.call(op, input)
            if op == "oplmodes.models.script" and "output" in answer:
                changes = answer["output"]["changes"]
                mode_events = [e["at"] for e in input["events"] if e["type"] == "command"]
                for change, at in zip(changes[1:], mode_events[1:]):
                    if change["at"] > at:
                        change["at"] = at
            return answer
    '''
)


@pytest.fixture
def mutants(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(model_mutants=MUTANTS)
    pytester.syspathinsert()


def test_reference_passes_every_model_case_and_property(suite) -> None:  # type: ignore[no-untyped-def]
    run = suite(
        "reference",
        str(SWITCH_CASES),
        str(FRESH_CASES),
        str(SESSION_CASES),
        str(OPL_CASES),
        str(PROPERTIES),
    )
    outcomes = run.result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0, run.text[-4000:]
    assert outcomes["passed"] >= 120 + 12


def test_a_late_answer_taking_the_model_back_is_caught(mutants, suite) -> None:  # type: ignore[no-untyped-def]
    run = suite("python:model_mutants:LateWins", str(SWITCH_CASES), str(PROPERTIES), "-k", "switch")
    failed = set(run.outcomes)
    assert "planmode.models.host.switch.budget.slow-primary-cannot-take-back" in failed
    assert "planmode.models.property.late-result-discarded" in failed
    assert "planmode.models.host.switch.budget.answer-at-1999-in-time" not in failed


def test_an_inclusive_deadline_fails_only_reference_cases(mutants, suite) -> None:  # type: ignore[no-untyped-def]
    run = suite("python:model_mutants:InclusiveDeadline", str(SWITCH_CASES), str(FRESH_CASES))
    failed = set(run.outcomes)
    assert "planmode.models.host.switch.budget.answer-at-2000-too-late" in failed
    assert "planmode.models.host.preflight.2000-aborts" in failed
    assert "planmode.models.fresh.budget.2000-too-late" in failed
    must = suite(
        "python:model_mutants:InclusiveDeadline",
        str(SWITCH_CASES),
        str(FRESH_CASES),
        "--planmode-level=must",
    )
    assert must.result.parseoutcomes().get("failed", 0) == 0, must.text[-3000:]


def test_duplicates_tried_twice_are_caught(mutants, suite) -> None:  # type: ignore[no-untyped-def]
    run = suite("python:model_mutants:NoCollapse", str(SWITCH_CASES), str(PROPERTIES), "-k", "switch")
    failed = set(run.outcomes)
    # Only the candidates list (an explanation) shows the duplicate: the
    # reference twin catches it.
    assert "planmode.models.host.switch.chain.duplicates-collapsed.explained" in failed
    assert "planmode.models.property.one-warning-per-direction" in failed


def test_unserialized_changes_are_caught(mutants, suite) -> None:  # type: ignore[no-untyped-def]
    run = suite("python:model_mutants:Unserialized", str(OPL_CASES), str(PROPERTIES), "-k", "oplmodes")
    failed = set(run.outcomes)
    assert "oplmodes.models.host.serial.exit-during-mode-change" in failed
    assert "oplmodes.models.host.serial.two-modes-then-exit" in failed


def test_a_fallback_remembered_across_boundaries_is_caught(mutants, suite) -> None:  # type: ignore[no-untyped-def]
    run = suite("python:model_mutants:StickyFallback", str(SESSION_CASES))
    failed = set(run.outcomes)
    assert "planmode.models.session.host.recovered-primary-used-again" in failed
    assert "planmode.models.session.host.each-boundary-starts-from-first" not in failed
