"""The `pi:` translations of the stateful operations (`planmode.tools.authorize`,
`oplmodes.modes.script`) seen passing and failing against the example
extensions, and answering `unsupported` per case where the host cannot
express an input."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_planmode.targets.pi_target import PiTarget
from tests.pi_examples import case, planted, problems, running

ROOT = Path(__file__).resolve().parent.parent
PLAN_EXAMPLE = ROOT / "examples" / "pi-extension" / "index.mjs"
OPL_EXAMPLE = ROOT / "examples" / "pi-extension-opl" / "index.mjs"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js (.ci/run installs it)")


@pytest.fixture(scope="module")
def plan_example() -> Iterator[PiTarget]:
    yield from running(PLAN_EXAMPLE)


@pytest.fixture(scope="module")
def opl_example() -> Iterator[PiTarget]:
    yield from running(OPL_EXAMPLE)


@pytest.fixture(scope="module")
def reresolving(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PiTarget]:
    """The example with one mutation: it resolves its Plan allowlist again at
    every context instead of freezing it at the workflow's first."""
    frozen = "if (!state.enabled || Array.isArray(state.allowlist)) return undefined;"
    mutant = planted(tmp_path_factory.mktemp("mutant"), frozen, "if (!state.enabled) return undefined;")
    yield from running(mutant)


FREEZE = "planmode.tools.authorize.host.freeze."
RESTORE = "planmode.tools.authorize.host.restore."


@pytest.mark.parametrize(
    "case_id",
    [
        FREEZE + "at-first-context",
        FREEZE + "later-context-does-not-reresolve",
        FREEZE + "inactive-call-refused-by-pi",
        RESTORE + "reload",
        RESTORE + "tree-navigation",
        "planmode.tools.authorize.host.blocked.edit-write-update-plan",
    ],
)
def test_authorize_passes_on_the_example(plan_example: PiTarget, case_id: str) -> None:
    assert problems(plan_example, case_id) == []


@pytest.mark.parametrize("case_id", [FREEZE + "later-context-does-not-reresolve", RESTORE + "reload"])
def test_authorize_fails_an_extension_that_does_not_freeze(reresolving: PiTarget, case_id: str) -> None:
    found = problems(reresolving, case_id)
    assert any("verdict" in line for line in found), found


def test_authorize_answers_unsupported_per_case(plan_example: PiTarget) -> None:
    by_reason = {
        "planmode.tools.authorize.host.selection.choose-then-start": "chooser",
        "planmode.tools.authorize.host.freeze.handler-activation-included": "second extension",
    }
    for case_id, reason in by_reason.items():
        c = case(case_id)
        outcome = plan_example.request(c.operation, c.input)
        assert outcome.kind == "unsupported" and reason in (outcome.message or ""), (case_id, outcome)


def test_pi_plan_mode_translations_stand_aside_for_opl_modes(opl_example: PiTarget) -> None:
    c = case(FREEZE + "at-first-context")
    outcome = opl_example.request(c.operation, c.input)
    assert outcome.kind == "unsupported" and "/mode" in (outcome.message or "")


@pytest.mark.parametrize(
    "case_id",
    [
        "oplmodes.modes.host.state.persisted-entry-type",
        "oplmodes.modes.host.state.published-each-step",
        "oplmodes.modes.host.tools.off-restores",
        "oplmodes.modes.host.state.round-trip-kit-entry",
    ],
)
def test_modes_script_passes_on_the_opl_example(opl_example: PiTarget, case_id: str) -> None:
    assert problems(opl_example, case_id) == []


@pytest.mark.parametrize(
    ("case_id", "field"),
    [
        # The example has no plan action menu, no configurable Bash patterns.
        ("oplmodes.modes.host.menu.shown", "menu"),
        ("oplmodes.modes.host.execute-tools.bash-gated", "result.allowed"),
    ],
)
def test_modes_script_fails_what_the_opl_example_lacks(
    opl_example: PiTarget, case_id: str, field: str
) -> None:
    found = problems(opl_example, case_id)
    assert any(field in line for line in found), found


def test_modes_script_reads_what_the_extension_publishes(opl_example: PiTarget) -> None:
    outcome = opl_example.request(
        "oplmodes.modes.script",
        {"plans": ["plan-auth.md"], "events": [{"type": "command", "name": "plan", "args": "auth"}]},
    )
    assert outcome.kind == "output" and outcome.output is not None
    (step,) = outcome.output["steps"]
    assert step["mode"] == "plan" and step["planFile"] == ".pi/plans/plan-auth.md"
    assert step["planFiles"] == [{"action": "loaded", "path": ".pi/plans/plan-auth.md"}]
    assert step["persisted"]["data"]["planFile"] == "plan-auth.md"
    assert step["widget"] == {"text": "Plan", "color": None}
    assert outcome.output["final"]["plans"] == ["plan-auth.md"]
