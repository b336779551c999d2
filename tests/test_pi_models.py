"""The `pi:` translations of the model-switching operations
(`planmode.models.switch`, `.session`, `.fresh`) seen passing and failing
against the example extension, failing must cases on planted bugs of its
model slice, and answering `unsupported` per case where the host cannot
express an input."""

from __future__ import annotations

import functools
import json
import shutil
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_planmode.suite import Case, load_suite
from pytest_planmode.targets.pi_target import PiTarget
from tests.pi_examples import case, planted, problems, running

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_DIR = ROOT / "examples" / "pi-extension"
EXAMPLE = EXAMPLE_DIR / "index.mjs"
EXPECTATIONS = EXAMPLE_DIR / "planmode-expectations.json"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js (.ci/run installs it)")

SWITCH = "planmode.models.host.switch."
SESSION = "planmode.models.session.host."


@pytest.fixture(scope="module")
def example() -> Iterator[PiTarget]:
    yield from running(EXAMPLE)


def _mutant(tmp: Path, old: str, new: str) -> Path:
    """The example with one substitution in its model slice."""
    return planted(tmp, old, new, module="models.mjs")


@pytest.fixture(scope="module")
def patient(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PiTarget]:
    """A planted bug: a 5-second authentication budget instead of 2."""
    yield from running(_mutant(tmp_path_factory.mktemp("patient"), "BUDGET_MS = 2000", "BUDGET_MS = 5000"))


@pytest.fixture(scope="module")
def unrestoring(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PiTarget]:
    """A planted bug: a failed transition keeps the switched model."""
    yield from running(
        _mutant(
            tmp_path_factory.mktemp("unrestoring"),
            "await pi.setModel(switched.previous);",
            "void switched.previous;",
        )
    )


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PiTarget]:
    """A planted bug: a definite authentication failure skips the candidate
    instead of handing it to Pi's model change."""
    yield from running(
        _mutant(
            tmp_path_factory.mktemp("strict"),
            "const answered = Promise.resolve(promise).then(() => true, () => true);",
            "const answered = Promise.resolve(promise).then((a) => a?.ok === true, () => false);",
        )
    )


@pytest.fixture(scope="module")
def giving_up(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PiTarget]:
    """A planted bug: a candidate Pi's model change refuses ends the chain
    instead of moving on to the next one."""
    yield from running(
        _mutant(tmp_path_factory.mktemp("giving-up"), "if (!accepted) continue;", "if (!accepted) break;")
    )


@pytest.fixture(scope="module")
def repeating(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PiTarget]:
    """A planted bug: duplicate candidates are not collapsed, so a refused
    one is tried again at its later position."""
    yield from running(
        _mutant(
            tmp_path_factory.mktemp("repeating"),
            "if (!chain.some((c) => c.provider === provider && c.modelId === modelId)) chain.push",
            "chain.push",
        )
    )


@functools.cache
def _suite() -> dict[str, Case]:
    return {c.id: c for c in load_suite()}


@pytest.mark.parametrize(
    "case_id",
    [
        SWITCH + "applied-log-and-thinking",
        SWITCH + "plan-exit-targets-normal-model",
        SWITCH + "chain.definite-fail-handed-to-change",
        SWITCH + "chain.third-applies-one-warning.keyless",
        SWITCH + "chain.refused-moves-on.keyless",
        SWITCH + "budget.late-ok-after-all-failed.keyless",
        SWITCH + "budget.answer-at-1999-in-time",
        SWITCH + "budget.answer-at-2001-too-late",
        SWITCH + "budget.two-hangs-then-third",
        SWITCH + "budget.slow-primary-cannot-take-back",
        SWITCH + "budget.hanging-model-change-cannot-be-interrupted",
        "planmode.models.host.restore.failed-plan-entry.per-provider",
        "planmode.models.host.restore.restore-throws-logged.per-provider",
        "planmode.models.host.settings.read-failure-no-switching",
        SESSION + "each-boundary-starts-from-first.per-provider",
        SESSION + "late-answer-after-next-transition.per-provider",
        SESSION + "failed-entry-then-exit",
        SESSION + "auto-switch-turned-off",
    ],
)
def test_models_pass_on_the_example(example: PiTarget, case_id: str) -> None:
    c = case(case_id)
    assert c.level == "must"
    assert problems(example, case_id) == []


@pytest.mark.parametrize(
    ("case_id", "field"),
    [
        # The example switches only at /plan start and /plan exit; it has no fresh screen.
        (SWITCH + "implement-here-targets-normal-model", "applied"),
        ("planmode.models.host.preflight.hang-aborts", "savedPlanKept"),
        (SESSION + "already-active-at-next-boundary", "transitions"),
    ],
)
def test_models_fail_what_the_example_lacks(example: PiTarget, case_id: str, field: str) -> None:
    found = problems(example, case_id)
    assert any(field in line for line in found), found


def test_a_fresh_handoff_without_its_screen_is_a_clear_error(example: PiTarget) -> None:
    # The example has no Start fresh and implement: the case fails with what is missing.
    c = case("planmode.models.fresh.initial-first-usable")
    outcome = example.request(c.operation, c.input)
    assert outcome.kind == "error", outcome
    assert "no fresh-session screen naming a model was shown" in (outcome.message or "")


def test_the_expectations_give_a_reason_for_each_model_case_the_example_fails() -> None:
    main = json.loads(EXPECTATIONS.read_text(encoding="utf-8"))
    listed = {
        k: v
        for k, v in main.items()
        if k.startswith(("planmode.models.", "planmode.settings-document.models"))
    }
    assert listed and all(len(reason) > 40 and "expected" not in reason for reason in listed.values())


@pytest.mark.parametrize(
    "case_id",
    [
        SWITCH + "budget.hang-times-out",
        SWITCH + "budget.answer-at-2001-too-late",
        SWITCH + "budget.three-hangs-six-seconds",
        SESSION + "each-boundary-starts-from-first.per-provider",
    ],
)
def test_a_longer_budget_fails_must_cases(patient: PiTarget, case_id: str) -> None:
    assert case(case_id).level == "must"
    found = problems(patient, case_id)
    assert found, case_id


def test_a_missing_restore_fails_must_cases(unrestoring: PiTarget) -> None:
    for case_id in (
        "planmode.models.host.restore.failed-plan-entry.per-provider",
        SESSION + "failed-entry-then-exit",
    ):
        assert case(case_id).level == "must"
        found = problems(unrestoring, case_id)
        assert any("model" in line or "restored" in line for line in found), (case_id, found)


def test_skipping_definite_failures_fails_must_cases(strict: PiTarget) -> None:
    for case_id in (
        SWITCH + "chain.definite-fail-handed-to-change",
        SWITCH + "budget.fail-at-1999-definite",
    ):
        assert case(case_id).level == "must"
        assert problems(strict, case_id), case_id


@pytest.mark.parametrize(
    "case_id",
    [
        SWITCH + "chain.refused-moves-on.keyless",
        SWITCH + "chain.third-applies-one-warning.keyless",
        SWITCH + "budget.slow-throwing-change-moves-on",
    ],
)
def test_giving_up_on_a_refusal_fails_must_cases(giving_up: PiTarget, case_id: str) -> None:
    # A refusal as Pi gives one (the candidate's provider has no key), or a
    # model change that throws after a while.
    assert case(case_id).level == "must"
    assert any("applied" in line for line in problems(giving_up, case_id)), case_id


def test_retrying_a_duplicate_fails_a_must_case(repeating: PiTarget) -> None:
    case_id = SWITCH + "chain.duplicate-not-retried.keyless"
    assert case(case_id).level == "must"
    assert any("authAttempts" in line for line in problems(repeating, case_id)), case_id


def test_the_log_is_read_from_calls_and_answers(example: PiTarget) -> None:
    """The primary answers after the budget: the extension went on at 2000 ms
    (the timeout), the late answer is listed at its own instant."""
    outcome = example.request(
        "planmode.models.switch",
        {
            "trigger": {"type": "command", "name": "plan", "args": "start"},
            "currentModel": "acme/current",
            "availableModels": ["acme/current", "acme/plan", "beta/plan"],
            "settings": {
                "autoSwitchModel": True,
                "planModel": [
                    {"provider": "acme", "modelId": "plan"},
                    {"provider": "beta", "modelId": "plan"},
                ],
            },
            "models": {"acme/plan": {"authLatencyMs": 2001}, "beta/plan": {"changeLatencyMs": 5}},
        },
    )
    assert outcome.kind == "output" and outcome.output is not None
    out = outcome.output
    assert [(e["at"], e["type"], e["model"]) for e in out["log"]] == [
        (0, "auth.start", "acme/plan"),
        (2000, "auth.timeout", "acme/plan"),
        (2000, "auth.start", "beta/plan"),
        (2000, "auth.end", "beta/plan"),
        (2000, "change.start", "beta/plan"),
        (2001, "auth.late", "acme/plan"),
        (2005, "change.end", "beta/plan"),
        (2005, "thinking.restore", None),
    ]
    assert out["applied"] == "beta/plan" and out["model"] == "beta/plan"
    assert out["elapsedMs"] == 2005 and out["authAttempts"] == 2
    assert [w["message"] for w in out["warnings"]] == [
        "Plan enter model: acme/plan unavailable; switched to beta/plan"
    ]


def test_models_answer_unsupported_per_case(example: PiTarget) -> None:
    base = {"currentModel": "acme/current", "availableModels": ["acme/current", "acme/build"]}
    fresh = example.request("planmode.models.fresh", {**base, "pick": "acme/build"})
    assert fresh.kind == "unsupported" and "rows" in (fresh.message or "")
    session = example.request(
        "planmode.models.session",
        {**base, "events": [{"at": 0, "type": "settings.screen", "settings": {"autoSwitchModel": True}}]},
    )
    assert session.kind == "unsupported" and "Settings screen" in (session.message or "")


#: A stand-in for an extension with the ready menu and the fresh screen (the
#: example has neither): just enough to see the fresh translation pass.
FRESH_EXTENSION = """
import fs from "node:fs";
import path from "node:path";
export default function (pi) {
  let ready = false;
  const chain = () => {
    const doc = JSON.parse(fs.readFileSync(path.join(process.env.PI_CODING_AGENT_DIR, "pi-plan-mode.json"), "utf8"));
    const list = doc.autoSwitchModel ? [doc.normalModel ?? []].flat() : [];
    return list.map((m) => `${m.provider}/${m.modelId}`);
  };
  pi.registerTool({ name: "plan_mode_complete", label: "c", description: "d",
    parameters: { type: "object", properties: { plan: { type: "string" } }, required: ["plan"] },
    async execute() { ready = true; return { content: [{ type: "text", text: "ok" }] }; } });
  pi.registerCommand("plan", { handler: async () => {} });
  pi.on("agent_settled", async (_e, ctx) => {
    if (!ready) return;
    const choice = await ctx.ui.select("Proposed plan ready. What next?", ["Implement here", "Start fresh and implement"]);
    if (choice !== "Start fresh and implement") return;
    const names = (ctx.scopedModels.length ? ctx.scopedModels.map((s) => s.model) : ctx.modelRegistry.getAvailable())
      .map((m) => `${m.provider}/${m.id}`);
    const usable = chain().filter((n) => names.includes(n));
    const initial = usable[0] ?? `${ctx.model.provider}/${ctx.model.id}`;
    const thinking = pi.getThinkingLevel();
    const start = await ctx.ui.select(`Start fresh\\nModel: ${initial}\\nThinking: ${thinking}`, ["Start", "Back"]);
    if (start !== "Start") return;
    for (const name of usable) {
      const [provider, id] = name.split("/");
      const model = ctx.modelRegistry.find(provider, id);
      if (!model) continue;
      await ctx.modelRegistry.getApiKeyAndHeaders(model);
      if (await pi.setModel(model)) { pi.setThinkingLevel(thinking); break; }
    }
    pi.sendUserMessage("Implement the plan.");
  });
}
"""


@pytest.fixture(scope="module")
def fresh_screen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PiTarget]:
    entry = tmp_path_factory.mktemp("fresh") / "index.mjs"
    entry.write_text(textwrap.dedent(FRESH_EXTENSION), encoding="utf-8")
    yield from running(entry)


@pytest.mark.parametrize(
    "case_id",
    ["planmode.models.fresh.initial-first-usable", "planmode.models.fresh.first-outside-catalogue-skipped"],
)
def test_fresh_reads_the_screen_and_the_handoff(fresh_screen: PiTarget, case_id: str) -> None:
    assert problems(fresh_screen, case_id) == []
