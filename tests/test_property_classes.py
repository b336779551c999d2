"""Property checks judge effects at `must` level: a `must` check never reads
an explanation field, so a target that observes effects only meets every
`must` rule (the property-check side of tests/test_field_classes.py)."""

from __future__ import annotations

import types

import pytest

from pytest_planmode.contract import operations
from pytest_planmode.observability import field_rows
from pytest_planmode.properties import checks_in, must_checks_reading_explanations, property_checks


def test_no_must_property_reads_an_explanation() -> None:
    problems = must_checks_reading_explanations(property_checks().values())
    assert not problems, (
        "must property checks read explanation fields (state the rule over effects, or make the check "
        "level reference and say why in its docstring):\n" + "\n".join(problems)
    )


def test_the_checker_catches_a_must_property_that_reads_an_explanation() -> None:
    module = types.ModuleType("pytest_planmode.conformance.test_fake")

    @pytest.mark.planmode(
        operation="planmode.settings.load", level="must", id="fake.must", explains=("status",)
    )
    def test_reads_status() -> None:
        """Reads status."""

    @pytest.mark.planmode(
        operation="planmode.settings.load", level="reference", id="fake.reference", explains=("status",)
    )
    def test_reads_status_at_reference() -> None:
        """Reads status, at reference level."""

    @pytest.mark.planmode(operation="planmode.settings.load", level="must", id="fake.effects")
    def test_reads_effects() -> None:
        """Reads effects only."""

    @pytest.mark.parametrize(
        "op",
        [
            pytest.param(
                "planmode.bash.check",
                marks=pytest.mark.planmode(
                    operation="planmode.bash.check", level="must", id="fake.param", explains=("blocked",)
                ),
            )
        ],
    )
    def test_per_shell(op: str) -> None:
        """One check per parameter."""

    for function in (test_reads_status, test_reads_status_at_reference, test_reads_effects, test_per_shell):
        setattr(module, function.__name__, function)
    checks = checks_in(module)
    assert set(checks) == {"fake.must", "fake.reference", "fake.effects", "fake.param"}
    assert checks["fake.must"].explains == ("status",) and checks["fake.effects"].explains == ()
    flagged = must_checks_reading_explanations(checks.values())
    assert sorted(line.split(" ", 1)[0] for line in flagged) == ["fake.must", "fake.param"]
    assert any("test_fake.test_reads_status) reads status" in line for line in flagged), flagged


def test_every_declared_explanation_is_an_explanation_field() -> None:
    # `explains` names output fields by path (`status`, `final.activePlan`):
    # each must exist and be classed an explanation in one of the check's
    # operations, or the skip reason names something that is not one.
    ops = operations()
    problems = []
    for check in property_checks().values():
        classes = {
            row.path: row.cls for op in check.operations if op in ops for row in field_rows(ops[op].output)
        }
        for field in check.explains:
            if classes.get(field) != "explanation":
                problems.append(f"{check.id}: {field} is {classes.get(field) or 'not an output field'}")
    assert not problems, "\n".join(problems)
