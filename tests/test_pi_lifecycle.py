"""The `pi:` translations of `planmode.lifecycle.run` and
`planmode.export.run` seen passing and failing against the example
extension, failing must cases on a planted bug, and answering
`unsupported` per case where the host cannot express an input."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from pytest_planmode.suite import Case, load_suite
from pytest_planmode.targets.pi_target import PiTarget
from tests.pi_examples import case, planted, problems, running

ROOT = Path(__file__).resolve().parent.parent
PLAN_EXAMPLE = ROOT / "examples" / "pi-extension" / "index.mjs"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js (.ci/run installs it)")

REINJECTION = "planmode.lifecycle.host.reinjection."
THINKING = "planmode.lifecycle.host.thinking."
EXPORT = "planmode.lifecycle.host.export."


def _mutant(tmp_path_factory: pytest.TempPathFactory, old: str, new: str) -> Path:
    return planted(tmp_path_factory.mktemp("mutant"), old, new)


@pytest.fixture(scope="module")
def plan_example() -> Iterator[PiTarget]:
    yield from running(PLAN_EXAMPLE)


@pytest.fixture(scope="module")
def no_reinjection(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PiTarget]:
    """The example with one mutation: its `context` hook never restores the plan."""
    yield from running(
        _mutant(
            tmp_path_factory, "const reinjected = reinject(event.messages);", "const reinjected = undefined;"
        )
    )


@pytest.fixture(scope="module")
def no_restore(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PiTarget]:
    """The example with one mutation: leaving Plan mode keeps the Plan thinking level."""
    yield from running(
        _mutant(tmp_path_factory, "      pi.setThinkingLevel(state.previousThinking);\n", "\n")
    )


@pytest.fixture(scope="module")
def overwriting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PiTarget]:
    """The example with one mutation: an export overwrites an existing file."""
    yield from running(_mutant(tmp_path_factory, '{ flag: "wx" }', '{ flag: "w" }'))


@cache
def suite() -> dict[str, Case]:
    return {c.id: c for c in load_suite()}


PASSING = [
    REINJECTION + "default-here-kickoff",
    REINJECTION + "clear-on-start-relies-on-history",
    REINJECTION + "clear-on-start-no-injection-after-compaction",
    REINJECTION + "keep-survives-settled-runs",
    REINJECTION + "keep-branch-without-plan",
    THINKING + "fixed-applied-on-start",
    THINKING + "restored-on-exit",
    THINKING + "restored-on-implement-here",
    THINKING + "restored-on-plan-save",
    THINKING + "inherit-manual-change-kept",
    "planmode.export.default-plan-md",
    "planmode.export.configured-absolute",
    "planmode.export.configured-relative-other-cwd",
]


@pytest.mark.parametrize("case_id", PASSING)
def test_lifecycle_and_export_pass_on_the_example(plan_example: PiTarget, case_id: str) -> None:
    c = case(case_id)
    assert c.level == "must"
    assert problems(plan_example, case_id) == []


@pytest.mark.parametrize(
    ("case_id", "field"),
    [
        # The slice has no fresh-session implementation and guarantees the
        # plan for `keep` only.
        (REINJECTION + "clear-on-start-fresh-kickoff-holds-plan", "kickoffs"),
        (REINJECTION + "first-run-reinjects-after-compaction.plan-in-context", "planCopies"),
    ],
)
def test_lifecycle_fails_what_the_example_lacks(plan_example: PiTarget, case_id: str, field: str) -> None:
    found = problems(plan_example, case_id)
    assert any(field in line for line in found), found


@pytest.mark.parametrize(
    "case_id", [REINJECTION + "keep-survives-settled-runs", REINJECTION + "keep-branch-without-plan"]
)
def test_lifecycle_fails_an_extension_that_never_reinjects(no_reinjection: PiTarget, case_id: str) -> None:
    assert case(case_id).level == "must"
    found = problems(no_reinjection, case_id)
    assert any("injected" in line for line in found), found


@pytest.mark.parametrize("case_id", [THINKING + "restored-on-exit", THINKING + "restored-on-plan-save"])
def test_lifecycle_fails_an_extension_that_keeps_plan_thinking(no_restore: PiTarget, case_id: str) -> None:
    assert case(case_id).level == "must"
    found = problems(no_restore, case_id)
    assert any("thinking" in line for line in found), found


def test_export_fails_an_extension_that_overwrites(overwriting: PiTarget) -> None:
    refusing = [
        c
        for c in suite().values()
        if c.operation == "planmode.export.run"
        and c.level == "must"
        and c.expect.get("outcome") == "refused"
        and any(p.get("kind") == "file" for p in c.input.get("paths", []))
    ]
    assert refusing
    failed = [c.id for c in refusing if problems(overwriting, c.id)]
    assert failed, "no must export case caught an overwrite"


def test_export_reads_the_file_written(plan_example: PiTarget) -> None:
    outcome = plan_example.request(
        "planmode.export.run",
        {
            "state": {"source": "saved", "plan": "# Saved\n\n- one"},
            "request": {"path": "docs/out/plan.md"},
            "paths": [{"path": "$CWD/docs", "kind": "directory"}],
            "settings": {"defaultPlanExportPath": "$TMP/unused.md"},
        },
    )
    assert outcome.kind == "output" and outcome.output is not None, outcome.message
    out = outcome.output
    assert out["outcome"] == "written" and out["destination"] == "$CWD/docs/out/plan.md"
    assert out["content"] == "# Saved\n\n- one\n" and out["size"] == len(out["content"])
    assert out["createdDirectories"] == ["$CWD/docs/out"]
    assert out["stateAfter"] == {"planMode": False}
    assert out["settingsAfter"] == {"defaultPlanExportPath": "$TMP/unused.md"}


def test_lifecycle_answers_unsupported_per_case(plan_example: PiTarget) -> None:
    events = [{"type": "command", "name": "plan", "args": "start"}]
    for payload, reason in [
        ({"savedPlan": "# Saved", "events": events}, "earlier session"),
        ({"home": "$TMP/home", "events": events}, "home directory"),
        ({"events": [{"type": "settings.screen", "settings": {"thinkingLevel": "high"}}]}, "Settings screen"),
    ]:
        outcome = plan_example.request("planmode.lifecycle.run", payload)
        assert outcome.kind == "unsupported" and reason in (outcome.message or ""), (payload, outcome)


def test_export_answers_unsupported_per_case(plan_example: PiTarget) -> None:
    for payload, reason in [
        ({"state": {"source": "active", "plan": "# P"}}, "guaranteed retention"),
        (
            {"state": {"source": "ready", "plan": "# P"}, "request": {"path": "x.md", "cancel": True}},
            "dismissed",
        ),
    ]:
        outcome = plan_example.request("planmode.export.run", payload)
        assert outcome.kind == "unsupported" and reason in (outcome.message or ""), (payload, outcome)


def test_a_rewritten_history_message_is_no_injection(tmp_path_factory: pytest.TempPathFactory) -> None:
    stripped = _mutant(
        tmp_path_factory,
        "const reinjected = reinject(event.messages);",
        "const reinjected = { messages: event.messages.map((m) => "
        '(m.role === "assistant" ? { ...m, content: [] } : m)) };',
    )
    for target in running(stripped):
        c = case(REINJECTION + "clear-on-start-relies-on-history")
        outcome = target.request(c.operation, c.input)
        assert outcome.kind == "output" and outcome.output is not None, outcome.message
        contexts = outcome.output["contexts"]
        assert [ctx["injected"] for ctx in contexts] == [False, False]
        # The plan was in the stripped tool call: the model no longer sees it.
        assert [ctx["planCopies"] for ctx in contexts] == [0, 0]


def test_a_custom_screen_where_a_menu_is_answered_is_unsupported(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    custom = _mutant(
        tmp_path_factory,
        "const choice = await ctx.ui.select(READY_TITLE, READY_ITEMS);",
        "const choice = await ctx.ui.custom(() => null);",
    )
    for target in running(custom):
        c = case(REINJECTION + "default-here-kickoff")
        outcome = target.request(c.operation, c.input)
        assert outcome.kind == "unsupported" and "custom TUI component" in (outcome.message or "")
