"""Every output field is an effect or an explanation; must cases pin
effects only; the schemas and the reference agree with the declarations."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import Field

from pytest_planmode.contract import operations
from pytest_planmode.contract.base import CLASS_KEYWORD, ContractOutput, effect, explanation, field_class
from pytest_planmode.observability import (
    effects_only,
    explanation_pins,
    field_rows,
    missing_effects,
    output_models,
)
from pytest_planmode.schemas_export import generate
from pytest_planmode.suite import load_suite

OPS = operations()


@pytest.mark.parametrize("name", sorted(OPS))
def test_every_output_field_has_a_class(name: str) -> None:
    unclassified = [row.path for row in field_rows(OPS[name].output) if row.cls is None]
    assert not unclassified, (
        f"{name}: output fields without a class (declare them with effect() or explanation()): {unclassified}"
    )


@pytest.mark.parametrize("name", sorted(OPS))
def test_effect_fields_are_required_and_explanations_optional(name: str) -> None:
    problems = []
    for model, through_effects in output_models(OPS[name].output):
        for field_name, info in model.model_fields.items():
            cls = field_class(info)
            if cls in ("explanation", "screen") and info.is_required():
                problems.append(f"{model.__name__}.{field_name}: an {cls} field must be optional")
            if cls == "effect" and through_effects and not info.is_required():
                problems.append(f"{model.__name__}.{field_name}: an effect must be required")
    assert not problems, f"{name}: " + "; ".join(problems)


def test_the_checks_above_can_fail() -> None:
    class Unclassified(ContractOutput):
        verdict: bool = effect()
        why: str = Field(description="no class")

    class LaxEffect(ContractOutput):
        verdict: bool | None = Field(default=None, json_schema_extra=effect().json_schema_extra)

    rows = {row.path: row.cls for row in field_rows(Unclassified)}
    assert rows == {"verdict": "effect", "why": None}
    ((model, through_effects),) = output_models(LaxEffect)
    info = model.model_fields["verdict"]
    assert through_effects and field_class(info) == "effect" and not info.is_required()
    with pytest.raises(TypeError, match="required"):
        effect(default=None)
    with pytest.raises(TypeError, match="optional"):
        explanation(default_factory=list)


def test_no_must_case_pins_an_explanation() -> None:
    problems = []
    for case in load_suite():
        if case.level != "must":
            continue
        pins = explanation_pins(OPS[case.operation].output, case.expect)
        if pins:
            problems.append(f"{case.where}: pins {', '.join(pins)} (move it to a reference twin)")
    assert not problems, "\n".join(problems[:40])


def test_explanation_pins_are_found_at_any_depth() -> None:
    authorize = OPS["planmode.tools.authorize"].output
    assert explanation_pins(authorize, {"verdicts": [{"tool": "read", "verdict": "allow"}]}) == []
    assert explanation_pins(
        authorize, {"verdicts": [{"tool": "read"}, {"tool": "grep", "reason": "not-admitted", "cause": "x"}]}
    ) == ["verdicts[].reason", "verdicts[].cause"]
    assert explanation_pins(authorize, {"trace": []}) == ["trace"]
    config = OPS["oplmodes.config.load"].output
    assert explanation_pins(config, {"modes": {"review": {"tools": ["read"], "toolsSource": "config"}}}) == [
        "modes.review.toolsSource"
    ]
    assert explanation_pins(config, {"problems": {"$unordered": [{"message": "m", "field": "ui"}]}}) == [
        "problems[].field"
    ]
    lifecycle = OPS["planmode.lifecycle.run"].output
    assert explanation_pins(lifecycle, {"final": {"activePlan": None}, "notices": [{"code": "x"}]}) == [
        "final.activePlan",
        "notices[].code",
    ]


def test_effects_only_leaves_out_every_explanation_and_keeps_every_effect() -> None:
    lifecycle = OPS["planmode.lifecycle.run"].output
    answer: dict[str, Any] = {
        "trace": [{"at": 0, "type": "mode", "mode": "planning", "cause": "plan-start"}],
        "contexts": [{"at": 0, "type": "context", "activePlan": True, "injected": False, "extra": 1}],
        "notices": [{"text": "shown", "code": "c"}],
        "final": {"mode": "normal", "activePlan": None, "shortcut": {"loaded": None, "pending": False}},
    }
    assert effects_only(lifecycle, answer) == {
        "contexts": [{"at": 0, "type": "context", "injected": False, "extra": 1}],
        "notices": [{"text": "shown"}],
        "final": {"mode": "normal", "shortcut": {"loaded": None}},
    }
    assert "output.final.shortcut.registrations" in missing_effects(lifecycle, answer)


@pytest.mark.parametrize("name", sorted(OPS))
def test_schemas_publish_the_class_of_every_output_property(name: str) -> None:
    schema = generate()[f"operations/{name}.output.schema.json"]
    problems = []
    for where, node in [("(top)", schema), *schema.get("$defs", {}).items()]:
        for prop, body in node.get("properties", {}).items():
            cls = body.get(CLASS_KEYWORD)
            if cls not in ("effect", "explanation", "screen"):
                problems.append(f"{where}.{prop}")
            elif cls != "effect" and prop in node.get("required", []):
                problems.append(f"{where}.{prop} ({cls} listed as required)")
    assert not problems, f"{name}: properties without {CLASS_KEYWORD}: {problems}"


def test_the_reference_answers_every_effect() -> None:
    from pytest_planmode.targets.reference.adapter import REFERENCE

    problems = []
    for case in load_suite():
        answer = REFERENCE.call(case.operation, json.loads(json.dumps(case.input)))
        if "output" in answer:
            missing = missing_effects(OPS[case.operation].output, answer["output"])
            if missing:
                problems.append(f"{case.id}: {missing[:5]}")
    assert not problems, "\n".join(problems[:20])


def test_explain_operation_lists_each_output_field_with_its_class(capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_planmode.cli import main

    assert main(["explain", "--operation", "planmode.tools.authorize"]) == 0
    out = capsys.readouterr().out
    assert "planmode.tools.authorize  (script)" in out
    assert "  verdicts[].verdict  [effect]" in out
    assert "  verdicts[].reason  [explanation]" in out
    assert "  trace  [explanation]" in out
    assert "input fields:" in out and "  registry: array of ToolEntry (optional)" in out
    assert main(["explain", "--operation", "planmode.tools.nope"]) == 2
    assert "no operation 'planmode.tools.nope'" in capsys.readouterr().err
    assert main(["explain"]) == 2
