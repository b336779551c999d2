"""The `pi:` translation of `planmode.tools.freeze` seen passing and failing
against the example extension and planted-bug variants of it; the tools
picker and the settings operations answering `unsupported` with a reason
per case."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_planmode.contract import operations
from pytest_planmode.contract import planmode_tools as contract
from pytest_planmode.harness import judge_output
from pytest_planmode.observability import explanation_pins
from pytest_planmode.suite import Case, load_suite
from pytest_planmode.targets.pi import UNSUPPORTED
from pytest_planmode.targets.pi import planmode_tools_freeze as freeze
from pytest_planmode.targets.pi_target import PiTarget
from pytest_planmode.targets.reference.ops.planmode_tools import authorize
from pytest_planmode.targets.reference.ops.planmode_tools import freeze as reference_freeze
from tests.pi_examples import case, planted, problems, running

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "pi-extension" / "index.mjs"
EXPECTATIONS = ROOT / "examples" / "pi-extension" / "planmode-expectations.json"
OP = "planmode.tools.freeze"

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js (.ci/run installs it)")

#: Planted bugs: (name, text of the example, replacement, must cases that
#: catch it).
MUTANTS = {
    # Automatic defaults admit an extension's override of a safe built-in name.
    "override-admitted": (
        'if (automatic && tool.sourceInfo?.source !== "builtin") continue;',
        "",
        [
            "planmode.tools.freeze.auto.override-needs-opt-in",
            "planmode.tools.freeze.auto.user-extension-named-read",
        ],
    ),
    # The allowlist is resolved again at each call instead of frozen at the
    # first context: a tool activated later widens it.
    "resolved-per-call": (
        "if (!state.allowlist.includes(name)) {",
        "if (!resolveAllowlist(Array.isArray(state.names) ? state.names : undefined, "
        "pi.getAllTools(), pi.getActiveTools()).includes(name)) {",
        ["planmode.tools.freeze.explicit.inactive-pending", "planmode.tools.freeze.exposure.direct-inactive"],
    ),
    # Plan mode narrows Pi's active set when it starts (as pi-plan-mode 0.52 does).
    "narrows-active-set": (
        'ctx.ui.notify("Plan mode enabled. I will explore and plan, but not modify files.", "info");',
        "pi.setActiveTools(pi.getActiveTools().filter((n) => !BLOCKED.has(n)));\n"
        '    ctx.ui.notify("Plan mode enabled. I will explore and plan, but not modify files.", "info");',
        ["planmode.tools.freeze.explicit.never-activates", "planmode.tools.freeze.auto.never-activates"],
    ),
}


def cases(operation: str) -> list[Case]:
    return [c for c in load_suite() if c.operation == operation]


@pytest.fixture(scope="module")
def example() -> Iterator[PiTarget]:
    yield from running(EXAMPLE)


@pytest.fixture(scope="module", params=sorted(MUTANTS))
def mutant(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, PiTarget]]:
    old, new, _ = MUTANTS[request.param]
    path = planted(tmp_path_factory.mktemp(request.param), old, new)
    for target in running(path):
        yield request.param, target


def test_the_probe_workflow_gives_the_reference_allowlist_on_every_case() -> None:
    """The allowlist read back from verdicts is the frozen one: replayed on
    the reference as a `planmode.tools.authorize` script, the probes of
    every translatable case allow exactly the reference's allowlist and
    helpers, in the order the translation presents them."""
    checked = 0
    for c in cases(OP):
        parsed = freeze.parse(c.input)
        if parsed.session_selection is not None or any(t.annotations for t in parsed.registry):
            continue
        ref = reference_freeze(parsed)
        script = contract.ToolsAuthorizeInput(
            registry=parsed.registry, settings=parsed.settings, events=freeze.probe_events(parsed)
        )
        allowed = {v.tool for v in authorize(script).verdicts if v.verdict == "allow"}
        assert [n for n in freeze.candidates(parsed) if n in allowed] == list(ref.allowlist), c.id
        assert [h for h in freeze.HELPERS if h in allowed] == list(ref.helpers), c.id
        checked += 1
    assert checked > 50


@needs_node
@pytest.mark.parametrize(
    "case_id",
    [
        "planmode.tools.freeze.explicit.active-grep-left-out-active-set",
        "planmode.tools.freeze.explicit.unknown-name-pending",
        "planmode.tools.freeze.explicit.override-opted-in",
        "planmode.tools.freeze.exposure.codemode-without-activation",
        "planmode.tools.freeze.auto.override-needs-opt-in",
        "planmode.tools.freeze.auto.never-activates",
        "planmode.tools.freeze.invalid.not-an-array",
        "planmode.tools.freeze.exposure.codemode-deferred-is-deferred",
    ],
)
def test_the_example_passes_its_slice(example: PiTarget, case_id: str) -> None:
    assert problems(example, case_id) == []


@needs_node
def test_the_expectations_list_exactly_the_freeze_cases_the_example_fails(example: PiTarget) -> None:
    listed = json.loads(EXPECTATIONS.read_text(encoding="utf-8"))
    freeze_cases = cases(OP)
    ids = {c.id for c in freeze_cases}
    proposed = {k for k in listed if k in ids}
    judged = passed = 0
    for c in freeze_cases:
        if explanation_pins(operations()[OP].output, c.expect):
            continue
        outcome = example.request(OP, c.input)
        if outcome.kind == "unsupported":
            continue
        assert outcome.kind == "output" and outcome.output is not None, (c.id, outcome.message)
        shape, found = judge_output(OP, c.expect, outcome.output)
        assert not shape, (c.id, shape)
        assert bool(found) == (c.id in proposed), (c.id, found)
        judged += 1
        passed += not found
    assert passed > 40 and judged > passed


@needs_node
def test_the_example_fails_where_it_has_no_question_helper(example: PiTarget) -> None:
    found = problems(example, "planmode.tools.freeze.auto.helpers-stay-available")
    assert found and all(p.startswith("output.helpers") for p in found), found


@needs_node
def test_invalid_settings_show_their_warning(example: PiTarget) -> None:
    c = case("planmode.tools.freeze.invalid.not-an-array")
    outcome = example.request(OP, c.input)
    assert outcome.output is not None
    (warning,) = outcome.output["warnings"]
    assert "defaultPlanTools" in warning
    valid = example.request(OP, {**c.input, "settings": {"defaultPlanTools": ["read"]}})
    assert valid.output is not None and valid.output["warnings"] == []


@needs_node
def test_each_planted_bug_fails_must_cases(mutant: tuple[str, PiTarget]) -> None:
    name, target = mutant
    for case_id in MUTANTS[name][2]:
        assert case(case_id).level == "must"
        assert problems(target, case_id), (name, case_id)


@needs_node
def test_inputs_the_host_cannot_express_are_unsupported_per_case(example: PiTarget) -> None:
    selection = example.request(OP, case("planmode.tools.freeze.selection.over-settings").input)
    assert selection.kind == "unsupported" and "stored in the session" in (selection.message or "")
    # Pi never holds a hidden tool active: the case's premise is not a state of Pi.
    hidden = example.request(OP, case("planmode.tools.freeze.exposure.hidden-active").input)
    assert hidden.kind == "unsupported" and "Pi activates only direct and model-only tools" in (
        hidden.message or ""
    )
    garbage = example.request(OP, {"registry": "read"})
    assert garbage.kind == "unsupported" and "not a planmode.tools.freeze input" in (garbage.message or "")


@needs_node
def test_the_picker_is_unsupported_with_its_reason(example: PiTarget) -> None:
    outcome = example.request(
        "planmode.tools.picker", case("planmode.tools.picker.one-row.inactive-built-in").input
    )
    assert outcome.kind == "unsupported"
    assert UNSUPPORTED["planmode.tools.picker"] in (outcome.message or "")


@needs_node
def test_settings_cases_name_what_they_need(example: PiTarget) -> None:
    messages = {}
    for operation in ("planmode.settings.load", "planmode.settings.save"):
        for c in cases(operation):
            outcome = example.request(operation, c.input)
            assert outcome.kind == "unsupported", c.id
            messages[c.id] = outcome.message or ""
    assert all("not visible at the Pi boundary" in m for m in messages.values())
    # The reasons differ with each case's input.
    fifo = [m for m in messages.values() if "a FIFO pi-plan-mode.json" in m]
    legacy = [m for m in messages.values() if "a file plan-mode.json" in m]
    reload = [m for m in messages.values() if "after a watched reload" in m]
    crash = [m for m in messages.values() if "a crash of Pi at the save's rename step" in m]
    assert fifo and legacy and reload and crash
    saves = [m for i, m in messages.items() if i.startswith("planmode.settings.save.")]
    assert saves and all("Settings screen" in m for m in saves)


#: The example's helper check moved from its `tool_call` handler into the
#: helper itself (as pi-plan-mode 0.52.0 does for an inactive contract).
REFUSES_INSIDE = (
    "      if (state.enabled && Array.isArray(state.allowlist)) return undefined;\n"
    "      return { block: true, reason: `${name} needs an active Plan workflow.` };",
    "      return undefined;",
)


def test_a_helper_refusing_inside_itself_is_not_read_as_allowed(tmp_path: Path, example: PiTarget) -> None:
    # The case's last helper call runs, so a refusal inside the helper shows:
    # the translation cannot tell it from a refusal of the host's placeholder
    # arguments, so it answers unsupported rather than "allow".
    c = case("planmode.tools.authorize.host.helpers.visible-without-plan")
    path = planted(tmp_path, *REFUSES_INSIDE)
    for target in running(path):
        outcome = target.request(c.operation, c.input)
        assert outcome.kind == "unsupported", outcome
        assert "plan_mode_complete answered the call with an error" in (outcome.message or "")
        assert "Plan mode is not active." in (outcome.message or "")
    # The example refuses in its tool_call handler: a verdict, the expected one.
    assert problems(example, c.id) == []
    # An authorized last helper call runs and stays "allow".
    assert problems(example, "planmode.tools.authorize.host.helpers.active-contract") == []
