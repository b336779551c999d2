"""Model switching and injected failures through the real-Pi host
(`--planmode-pi=VERSION`): Pi's own model registry answering from a
script, on both pinned Pi releases.

Each fact below is real Pi's behaviour where a per-model answer would
differ; a case whose expected effect rests on an answer Pi never gives is
answered unsupported, with the reason, and listed in `docs/porting.md`.

These tests need the pinned Pi releases installed (`planmode pi install
0.84.2 1.6.0`); without them they fail and say so."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode.hosts.pi import install
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.matching import mismatches
from pytest_planmode.targets.pi import TRANSLATIONS, Unsupported
from tests.pi_examples import case
from tests.pi_real_hosts import SharedHosts, SharedPi

VERSIONS = install.VERSIONS


@pytest.fixture(params=VERSIONS)
def real(request: pytest.FixtureRequest, real_pi: SharedHosts) -> SharedPi:
    return real_pi(request.param)


#: An extension whose commands ask Pi's registry: `/auth P/ID` (the
#: answer of getApiKeyAndHeaders), `/set P/ID` (pi.setModel), `/list`
#: (getAvailable and the scope), `/entry` (pi.appendEntry), `/fresh`
#: (ctx.newSession), `/send` (pi.sendUserMessage), `/read` (the settings file).
PROBE = textwrap.dedent(
    """
    import fs from "node:fs";
    import path from "node:path";
    const key = (m) => `${m.provider}/${m.id}`;
    const find = (ctx, name) => { const [p, id] = name.trim().split("/"); return ctx.modelRegistry.find(p, id); };
    export default (pi) => {
      pi.registerCommand("auth", { handler: async (args, ctx) => {
        const answer = await ctx.modelRegistry.getApiKeyAndHeaders(find(ctx, args));
        ctx.ui.notify(`auth ${answer.ok}`, "info");
      } });
      pi.registerCommand("set", { handler: async (args, ctx) => {
        try { ctx.ui.notify(`set ${await pi.setModel(find(ctx, args))}`, "info"); }
        catch (error) { ctx.ui.notify(`set threw ${error.message}`, "info"); }
      } });
      pi.registerCommand("list", { handler: async (_args, ctx) => {
        ctx.ui.notify(`available ${ctx.modelRegistry.getAvailable().map(key).join(",")}`, "info");
        ctx.ui.notify(`scoped ${(ctx.scopedModels ?? []).map((s) => key(s.model)).join(",")}`, "info");
      } });
      pi.registerCommand("entry", { handler: async (_args, ctx) => {
        try { pi.appendEntry("probe", {}); ctx.ui.notify("entry ok", "info"); }
        catch (error) { ctx.ui.notify(`entry threw ${error.code}`, "info"); }
      } });
      pi.registerCommand("fresh", { handler: async (_args, ctx) => {
        ctx.ui.notify(`fresh cancelled ${(await ctx.newSession()).cancelled}`, "info");
      } });
      pi.registerCommand("send", { handler: async () => { pi.sendUserMessage("go on"); } });
      pi.on("agent_end", (event) => {
        const last = event.messages.at(-1);
        if (last?.role === "assistant") pi.appendEntry("stop", { reason: last.stopReason });
      });
      pi.registerCommand("read", { handler: async (_args, ctx) => {
        const dir = process.env.PI_CODING_AGENT_DIR;
        try { fs.readFileSync(path.join(dir, "settings.json"), "utf8"); ctx.ui.notify("read ok", "info"); }
        catch (error) { ctx.ui.notify(`read ${error.code}`, "info"); }
      } });
    };
    """
)

CATALOGUE = [
    {"provider": "acme", "id": "current"},
    {"provider": "acme", "id": "plan"},
    {"provider": "beta", "id": "plan"},
]
ALL = [f"{m['provider']}/{m['id']}" for m in CATALOGUE]


def models(behaviour: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {
        "do": "models",
        "catalogue": CATALOGUE,
        "behaviour": behaviour,
        "given": list(behaviour),
        "available": ALL,
        "current": "acme/current",
        **more,
    }


def probe(tmp: Path) -> Path:
    path = tmp / "probe.mjs"
    path.write_text(PROBE, encoding="utf-8")
    return path


def notes(answer: dict[str, Any]) -> list[tuple[int, str]]:
    return [(int(e["t"]), str(e["args"][0])) for e in answer["trace"] if e.get("call") == "ui.notify"]


def answers(answer: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [e for e in answer["trace"] if e.get("answer") == name]


def test_authentication_is_per_provider_and_runs_on_the_virtual_clock(real: SharedPi, tmp_path: Path) -> None:
    # The case gives acme/plan a slow key; acme/current shares its provider.
    script = [
        models({"acme/plan": {"auth": "ok", "authDelay": 1500}}),
        {"do": "start"},
        {"do": "command", "name": "auth", "args": "acme/current", "wait": False},
        {"do": "advance", "ms": 1500},
        {"do": "command", "name": "auth", "args": "beta/plan"},
    ]
    answer = real.run(probe(tmp_path), script)
    assert notes(answer) == [(1500, "auth true"), (1500, "auth true")]
    traced = answers(answer, "modelRegistry.getApiKeyAndHeaders")
    assert [(e["model"], e["t"], e["outcome"]) for e in traced] == [
        ("acme/current", 1500, "ok"),
        ("beta/plan", 1500, "ok"),
    ]


def test_a_failing_or_throwing_key_answers_ok_false_never_a_rejection(real: SharedPi, tmp_path: Path) -> None:
    for auth in ("fail", "throw"):
        script = [
            models({"acme/plan": {"auth": auth, "authDelay": 40}}),
            {"do": "start"},
            {"do": "command", "name": "auth", "args": "acme/plan", "wait": False},
            {"do": "advance", "ms": 100},
        ]
        answer = real.run(probe(tmp_path), script)
        assert notes(answer) == [(40, "auth false")], auth
        assert [e["outcome"] for e in answers(answer, "modelRegistry.getApiKeyAndHeaders")] == ["fail"]


def test_set_model_rechecks_the_providers_key_with_its_latency(real: SharedPi, tmp_path: Path) -> None:
    script = [
        models({"beta/plan": {"changeDelay": 700}}),
        {"do": "start"},
        {"do": "command", "name": "set", "args": "beta/plan", "wait": False},
        {"do": "advance", "ms": 1000},
        {"do": "state"},
    ]
    answer = real.run(probe(tmp_path), script)
    assert notes(answer) == [(700, "set true")]
    assert answer["results"][-1]["state"]["model"] == "beta/plan"
    assert [(e["model"], e["t"], e["value"]) for e in answers(answer, "pi.setModel")] == [
        ("beta/plan", 700, True)
    ]


def test_a_throwing_key_check_makes_set_model_throw(real: SharedPi, tmp_path: Path) -> None:
    script = [
        models({"beta/plan": {"change": "throw"}}),
        {"do": "start"},
        {"do": "command", "name": "set", "args": "beta/plan"},
        {"do": "state"},
    ]
    answer = real.run(probe(tmp_path), script)
    [(_, text)] = notes(answer)
    assert text.startswith("set threw") and "beta" in text
    assert answer["results"][-1]["state"]["model"] == "acme/current"


def test_a_refused_change_is_a_provider_without_a_key_which_is_never_available(
    real: SharedPi, tmp_path: Path
) -> None:
    # Pi answers pi.setModel false only for a provider with no configured
    # key, at once; such a provider's models are never in getAvailable().
    script = [
        models({"beta/plan": {"change": "refuse", "changeDelay": 500}}, scoped=["beta/plan"]),
        {"do": "start"},
        {"do": "command", "name": "list"},
        {"do": "command", "name": "set", "args": "beta/plan"},
    ]
    answer = real.run(probe(tmp_path), script)
    assert notes(answer) == [
        (0, "available acme/current,acme/plan"),
        (0, "scoped beta/plan"),
        (0, "set false"),
    ]


def test_available_models_are_the_listed_ones_of_configured_providers(real: SharedPi, tmp_path: Path) -> None:
    script = [
        models({}, available=["acme/plan", "beta/plan"]),
        {"do": "start"},
        {"do": "command", "name": "list"},
        {"do": "models", "merge": True, "available": ["beta/plan"], "scoped": ["acme/plan"]},
        {"do": "command", "name": "list"},
    ]
    answer = real.run(probe(tmp_path), script)
    assert [text for _, text in notes(answer)] == [
        "available acme/plan,beta/plan",
        "scoped ",
        "available beta/plan",
        "scoped acme/plan",
    ]


def test_models_of_one_provider_given_different_answers_are_refused(real: SharedPi, tmp_path: Path) -> None:
    script = [models({"acme/plan": {"auth": "hang"}, "acme/current": {"auth": "ok"}}), {"do": "start"}]
    answer = real.run(probe(tmp_path), script)
    assert "Pi authenticates per provider" in answer["results"][0]["refused"]


def test_a_provider_change_applies_to_later_answers(real: SharedPi, tmp_path: Path) -> None:
    script = [
        models({"acme/plan": {"auth": "hang"}}),
        {"do": "start"},
        {"do": "command", "name": "auth", "args": "acme/plan", "wait": False},
        {"do": "advance", "ms": 3000},
        {"do": "models", "merge": True, "behaviour": {"acme/plan": {"auth": "ok", "authDelay": 20}}},
        {"do": "command", "name": "auth", "args": "acme/plan", "wait": False},
        {"do": "advance", "ms": 100},
    ]
    answer = real.run(probe(tmp_path), script)
    assert notes(answer) == [(3020, "auth true")]


def test_the_user_changes_the_model(real: SharedPi, tmp_path: Path) -> None:
    script = [models({}), {"do": "start"}, {"do": "set_model", "model": "beta/plan"}, {"do": "state"}]
    answer = real.run(probe(tmp_path), script)
    assert answer["results"][2]["ok"] is True
    assert answer["results"][-1]["state"]["model"] == "beta/plan"


def test_an_appended_entry_fails_only_once_pi_writes_the_session_file(real: SharedPi, tmp_path: Path) -> None:
    script = [
        {"do": "start"},
        {"do": "fail_next", "call": "appendEntry"},
        {"do": "command", "name": "entry"},
        {"do": "agent_start", "prompt": "hello"},
        {"do": "agent_end", "outcome": "completed"},
        {"do": "command", "name": "entry"},
        {"do": "command", "name": "entry"},
    ]
    answer = real.run(probe(tmp_path), script)
    # Before the first reply the entry stays in memory; the armed failure
    # waits for the first write of the file (the agent_end entry).
    texts = [text for _, text in notes(answer)]
    assert texts[0] == "entry ok"
    assert texts[1:] == ["entry ok", "entry ok"]
    assert any(e.get("failed") == "appendEntry" for e in answer["trace"])
    assert any("EIO" in e["message"] for e in answer["errors"])


def test_a_cancelled_new_session_and_a_failed_request(real: SharedPi, tmp_path: Path) -> None:
    script = [
        {"do": "start"},
        {"do": "fail_next", "call": "newSession"},
        {"do": "command", "name": "fresh"},
        {"do": "command", "name": "fresh"},
        {"do": "fail_next", "call": "sendUserMessage"},
        {"do": "command", "name": "send"},
        {"do": "state"},
    ]
    answer = real.run(probe(tmp_path), script)
    assert [text for _, text in notes(answer)] == ["fresh cancelled true", "fresh cancelled false"]
    history = answer["results"][-1]["state"]["history"]
    last = [m for m in history if m["role"] == "assistant"][-1]
    assert last["stopReason"] == "error"


def test_an_unreadable_file_fails_to_read_until_written(real: SharedPi, tmp_path: Path) -> None:
    script = [
        {"do": "write_file", "path": "settings.json", "content": "{}"},
        {"do": "start"},
        {"do": "unreadable_file", "path": "settings.json"},
        {"do": "command", "name": "read"},
        {"do": "write_file", "path": "settings.json", "content": "{}"},
        {"do": "command", "name": "read"},
    ]
    answer = real.run(probe(tmp_path), script)
    assert [text for _, text in notes(answer)] == ["read EISDIR", "read ok"]


# ---------------------------------------------------------------- the example

#: Cases on the example that pass through real Pi on both versions: a sample
#: in the default run, the rest with the whole-suite tests.
PASSING = (
    "planmode.lifecycle.host.reinjection.keep-injects-exact-plan.plan-in-context",
    "planmode.models.host.switch.budget.hang-times-out",
    "planmode.models.session.host.failed-entry-then-exit",
)
PASSING_MORE = (
    "planmode.lifecycle.host.reinjection.keep-branch-without-plan",
    "planmode.models.host.switch.chain.scope-is-the-catalogue",
    "planmode.models.host.settings.read-failure-no-switching",
)
#: Cases whose expected effect rests on an answer Pi never gives, with what
#: Pi answers instead (each fact is pinned above on a script of its own; the
#: example's verdicts are checked with the whole-suite tests).
REAL_PI_FACTS = {
    # Pi authenticates per provider: acme/build shares acme/plan's hang.
    "planmode.models.session.host.each-boundary-starts-from-first": (
        'output.transitions[1].applied: expected "acme/build", got null'
    ),
    # getApiKeyAndHeaders never rejects: a throwing key answers ok: false.
    "planmode.models.host.switch.chain.definite-throw-handed-to-change": (
        'output.log[1].outcome: expected "throw", got "fail"'
    ),
    # A refused change is a provider without a key: never available, so
    # never authenticated.
    "planmode.models.host.switch.chain.refused-moves-on": "output.authAttempts: expected 2, got 1",
    # pi.sendUserMessage never throws to its caller: a failed request is an
    # API error in the run it started, so the extension cannot restore.
    "planmode.lifecycle.host.reinjection.handoff-failed-here-restores-ready": (
        'output.final.mode: expected "ready", got "normal"'
    ),
}


@pytest.mark.parametrize(
    "case_id", [*PASSING, *(pytest.param(c, marks=pytest.mark.whole_suite) for c in PASSING_MORE)]
)
def test_model_switching_cases_pass_through_real_pi(real: SharedPi, case_id: str) -> None:
    c = case(case_id)
    outcome = real.target.request(c.operation, c.input)
    assert outcome.kind == "output", outcome.message
    assert mismatches(c.expect, outcome.output) == []


#: What the translation says when real Pi cannot give the case's answers
#: (the facts above).
REAL_PI_UNSUPPORTED = {
    "planmode.models.session.host.each-boundary-starts-from-first": "authenticates per provider",
    "planmode.models.host.restore.failed-plan-entry": "authenticates per provider",
    "planmode.models.host.switch.chain.definite-throw-handed-to-change": "never throws",
    "planmode.models.host.switch.chain.refused-moves-on": "never lists such a model as available",
    "planmode.models.host.switch.budget.refused-change-latency.timing": "only for a provider without a key, at once",
    "planmode.lifecycle.host.reinjection.handoff-failed-here-restores-ready": "never reported to its caller",
}


@pytest.mark.parametrize("case_id", sorted(REAL_PI_UNSUPPORTED))
def test_cases_pi_cannot_answer_are_unsupported_by_the_translation(case_id: str, tmp_path: Path) -> None:
    # The translation alone decides (no host runs), and names why.
    c = case(case_id)
    translation = TRANSLATIONS[c.operation]
    sandbox = Sandbox.create(tmp_path)
    with pytest.raises(Unsupported, match=REAL_PI_UNSUPPORTED[case_id]):
        translation.script(c.input, sandbox)


@pytest.mark.whole_suite
@pytest.mark.parametrize("case_id", sorted(REAL_PI_FACTS))
def test_cases_pi_cannot_answer_are_answered_unsupported(real: SharedPi, case_id: str) -> None:
    c = case(case_id)
    outcome = real.target.request(c.operation, c.input)
    assert outcome.kind == "unsupported", outcome.message


# ---------------------------------------------------------------- lifecycle steps

#: Shows the session events Pi emits to extensions, with what they carry.
WATCH = textwrap.dedent(
    """
    export default (pi) => {
      pi.on("session_compact", (e, ctx) => { ctx.ui.notify(`compact ${e.compactionEntry.summary}`, "info"); });
      pi.on("session_start", (e, ctx) => {
        const stored = ctx.sessionManager.getEntries().filter((x) => x.customType === "stored").map((x) => x.data.n);
        if (stored.length) ctx.ui.notify(`stored ${stored.join(",")}`, "info");
        ctx.ui.notify(`start ${e.reason}`, "info");
      });
      pi.on("session_tree", (_e, ctx) => {
        const branch = ctx.sessionManager.getBranch().filter((x) => x.customType === "stored").map((x) => x.data.n);
        ctx.ui.notify(`branch ${branch.join(",")}`, "info");
      });
    };
    """
)


def watch(tmp: Path) -> Path:
    path = tmp / "watch.mjs"
    path.write_text(WATCH, encoding="utf-8")
    return path


def test_compaction_is_pis_own_with_a_scripted_summary(real: SharedPi, tmp_path: Path) -> None:
    script = [
        {"do": "start"},
        {"do": "agent_start", "prompt": "first"},
        {"do": "agent_end", "outcome": "completed", "reply": "one"},
        {"do": "agent_start", "prompt": "second"},
        {"do": "agent_end", "outcome": "completed", "reply": "two"},
        {"do": "compact", "summary": "They talked twice."},
        {"do": "context"},
    ]
    answer = real.run(watch(tmp_path), script)
    assert answer["results"][5] == {**answer["results"][5], "cancelled": False}
    context = answer["results"][6]
    assert context["openedRun"] is True
    summaries = [m for m in context["context"]["messages"] if m["role"] == "compactionSummary"]
    assert len(summaries) == 1 and "They talked twice." in summaries[0]["summary"]
    [shown] = [text for _, text in notes(answer) if text.startswith("compact")]
    assert shown.startswith("compact They talked twice.")


#: Shows the order of a run's ending events and of compaction.
RUN_EVENTS = textwrap.dedent(
    """
    const CANCEL = false;
    export default (pi) => {
      const note = (text, ctx) => ctx.ui.notify(text, "info");
      pi.on("agent_end", (_e, ctx) => note("agent_end", ctx));
      pi.on("agent_settled", (_e, ctx) => note("settled", ctx));
      pi.on("session_before_compact", (_e, ctx) => {
        note("before_compact", ctx);
        if (CANCEL) return { cancel: true };
      });
      pi.on("session_compact", (e, ctx) => note(`compact ${e.compactionEntry.summary}`, ctx));
    };
    """
)


def run_events(tmp: Path, *, cancel: bool = False) -> Path:
    path = tmp / "events.mjs"
    path.write_text(RUN_EVENTS.replace("CANCEL = false", f"CANCEL = {str(cancel).lower()}"), encoding="utf-8")
    return path


#: One run ended, the second open with its first LLM call waiting.
SECOND_RUN_OPEN = (
    {"do": "start"},
    {"do": "agent_start", "prompt": "the first prompt"},
    {"do": "agent_end", "outcome": "completed", "reply": "one"},
    {"do": "agent_start", "prompt": "the second prompt"},
)


def test_compaction_inside_an_open_run_is_pis_automatic_one(real: SharedPi, tmp_path: Path) -> None:
    # While a run is open, `compact` is Pi's automatic compaction before the
    # run's next LLM call: the run goes on (no new prompt), it has not fully
    # settled, and its next call sees the summary and not the first prompt.
    script = [
        *SECOND_RUN_OPEN,
        {"do": "context"},
        {"do": "compact", "summary": "They talked once."},
        {"do": "context"},
        {"do": "agent_end", "outcome": "completed", "reply": "done"},
    ]
    answer = real.run(run_events(tmp_path), script)
    compacted, after = answer["results"][5], answer["results"][6]
    assert compacted["cancelled"] is False and compacted["automatic"] is True
    assert "runEnded" not in compacted and "openedRun" not in after
    seen = [text for _, text in notes(answer)]
    [compacted_at] = [i for i, text in enumerate(seen) if text.startswith("compact They talked once.")]
    assert seen.index("before_compact") < compacted_at
    # The second run settles once, after its last call; never between the two calls.
    assert seen.count("settled") == 2 and seen[-1] == "settled"
    assert "settled" not in seen[seen.index("before_compact") :][:-1]
    messages = after["context"]["messages"]
    summaries = [m for m in messages if m["role"] == "compactionSummary"]
    assert len(summaries) == 1 and "They talked once." in summaries[0]["summary"]
    assert "the first prompt" not in json.dumps(messages)
    # The failed attempt Pi compacted after is not kept for the retry.
    assert not any(m["role"] == "assistant" and m.get("stopReason") == "error" for m in messages)


def test_compaction_an_extension_cancels_inside_a_run_says_so(real: SharedPi, tmp_path: Path) -> None:
    answer = real.run(run_events(tmp_path, cancel=True), [*SECOND_RUN_OPEN, {"do": "compact"}])
    assert answer["results"][4]["cancelled"] is True
    assert not [text for _, text in notes(answer) if text.startswith("compact ")]


def test_resume_of_a_stored_session_and_tree_navigation_to_a_scripted_branch(
    real: SharedPi, tmp_path: Path
) -> None:
    stored = [{"type": "custom", "customType": "stored", "data": {"n": 1}}]
    branch = [
        {"type": "custom", "customType": "stored", "data": {"n": 2}},
        {"type": "custom", "customType": "stored", "data": {"n": 3}},
    ]
    script = [
        {"do": "start"},
        {"do": "resume", "entries": stored},
        {"do": "navigate_tree", "entries": branch},
        {"do": "state"},
    ]
    answer = real.run(watch(tmp_path), script)
    assert [text for _, text in notes(answer)] == ["start startup", "stored 1", "start resume", "branch 2,3"]
    assert answer["results"][-1]["state"]["sessions"] == 2


def test_a_stale_pi_object_throws_pis_stale_error(real: SharedPi, tmp_path: Path) -> None:
    script = [{"do": "start"}, {"do": "new_session"}, {"do": "stale_call", "method": "getActiveTools"}]
    answer = real.run(watch(tmp_path), script)
    assert "stale" in str(answer["results"][-1]["threw"]).lower()


def test_another_extension_registers_a_tool_mid_session(real: SharedPi, tmp_path: Path) -> None:
    script = [
        {"do": "start"},
        {"do": "register_tool", "name": "lookup", "source": "user-extension", "properties": {"q": "string"}},
        {"do": "register_tool", "name": "hidden_one", "source": "user-extension", "active": False},
        {"do": "register_tool", "name": "grep", "source": "builtin"},
        {"do": "register_tool", "name": "read", "source": "user-extension", "properties": {"path": "string"}},
        {"do": "register_tool", "name": "lookup", "source": "project-extension"},
        {"do": "state"},
    ]
    answer = real.run(watch(tmp_path), script)
    assert "lookup" in answer["results"][1]["active"]
    assert "hidden_one" not in answer["results"][2]["active"]
    assert "Pi registers its built-in tools when it starts" in answer["results"][3]["refused"]
    # Named like a built-in, it overrides it; named like another
    # extension's tool, it is refused.
    assert "read" in answer["results"][4]["active"]
    assert "already registered a tool named lookup" in answer["results"][5]["refused"]
    tools = {t["name"]: t["source"] for t in answer["results"][-1]["state"]["tools"]}
    assert tools["read"] != "builtin"


def test_a_second_context_read_is_the_open_runs_next_llm_call(real: SharedPi, tmp_path: Path) -> None:
    # Pi emits context once per LLM call of the open run: reading it again
    # reads the same run's next call (a tool-call turn Pi answers itself),
    # and the run neither ends nor settles in between.
    script = [
        {"do": "start"},
        {"do": "agent_start", "prompt": "first"},
        {"do": "context"},
        {"do": "context"},
        {"do": "state"},
        {"do": "agent_end", "outcome": "completed", "reply": "done"},
    ]
    answer = real.run(run_events(tmp_path), script)
    first, second = answer["results"][2], answer["results"][3]
    assert "openedRun" not in first and "openedRun" not in second
    roles = [m["role"] for m in second["context"]["messages"] if m["role"] != "system"]
    assert roles == ["user", "assistant", "toolResult"]
    assert answer["results"][4]["state"]["llmCalls"] == 2
    assert [text for _, text in notes(answer)] == ["agent_end", "settled"]


#: A tool whose result ends the run (`terminate: true`): Pi makes no
#: further model call, and emits agent_end itself.
TERMINATE = textwrap.dedent(
    """
    export default (pi) => {
      pi.registerTool({
        name: "finish", label: "Finish", description: "Ends the run.",
        parameters: { type: "object", properties: {} },
        execute: async () => ({ content: [{ type: "text", text: "finished" }], details: {}, terminate: true }),
      });
      pi.on("agent_end", (event, ctx) => { ctx.ui.notify(`agent_end ${event.messages.at(-1)?.role}`, "info"); });
    };
    """
)


def test_agent_end_after_a_run_pi_already_ended_answers_how_it_ended(real: SharedPi, tmp_path: Path) -> None:
    path = tmp_path / "terminate.mjs"
    path.write_text(TERMINATE, encoding="utf-8")
    script = [
        {"do": "start"},
        {"do": "agent_start", "prompt": "go"},
        {"do": "tool_call", "tool": "finish", "input": {}, "execute": True},
        {"do": "agent_end", "outcome": "completed"},
        {"do": "agent_end", "outcome": "completed"},
        {"do": "state"},
    ]
    answer = real.run(path, script)
    results = answer["results"]
    assert results[2]["allowed"] is True
    # Pi ended the run after the tool result: no LLM call waits, yet the
    # case's agent_end is answered with that run's outcome ...
    ended = results[3]
    assert "refused" not in ended, ended
    assert ended["endedByPi"] is True and ended["outcome"] == "completed"
    assert notes(answer) == [(0, "agent_end toolResult")]
    assert results[-1]["state"]["llmCalls"] == 1
    # ... once: a second one has no run to end.
    assert "no LLM call is waiting" in results[4]["refused"]


PICK = textwrap.dedent(
    """
    export default (pi) => {
      pi.registerCommand("pick", { handler: async (_args, ctx) => {
        const chosen = await ctx.ui.select("Pick one", ["Alpha", "Beta: two", "Gamma"]);
        ctx.ui.notify(`picked ${chosen}`, "info");
      } });
    };
    """
)


def test_a_select_is_answered_by_position_pattern_or_text(real: SharedPi, tmp_path: Path) -> None:
    """The host answers a select with one rule (`hosts/pi/ui_select.mjs`):
    a menu answered by position or role picks that item."""
    path = tmp_path / "pick.mjs"
    path.write_text(PICK, encoding="utf-8")
    answers = [{"index": 2}, {"pattern": "^Beta"}, {"select": "Alp"}]
    script: list[dict[str, Any]] = [{"do": "start"}]
    for reply in answers:
        script += [{"do": "ui", "answers": [reply]}, {"do": "command", "name": "pick"}]
    picked = [text for _, text in notes(real.run(path, script)) if text.startswith("picked")]
    assert picked == ["picked Gamma", "picked Beta: two", "picked Alpha"]
