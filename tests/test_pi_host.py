"""The mock Pi host (pytest_planmode/hosts/pi/host.mjs) at host-script level:
Pi's gating of tool calls, its result-combination rules, the virtual clock,
stale contexts after reload, the watcher, and sandbox containment."""

from __future__ import annotations

import json
import shutil
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode.hosts.pi.client import HostError, PiHost, Sandbox
from pytest_planmode.hosts.pi.steps import StepError

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js (.ci/run installs it)")

EXTENSION = """
let evaluations = 0;
export default function (pi) {
  evaluations += 1;
  globalThis.__testLeak = (globalThis.__testLeak ?? 0) + 1;
  pi.registerFlag("plan", { type: "boolean", default: false });
  pi.registerTool({ name: "helper", label: "h", description: "d",
    parameters: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    async execute(_id, params) { return { content: [{ type: "text", text: `n=${params.n}` }] }; } });
  pi.registerCommand("probe", { handler: async (args, ctx) => {
    globalThis.__savedCtx = ctx;
    ctx.ui.notify(`args=${args} evaluations=${evaluations} leak=${globalThis.__testLeak} now=${Date.now()}`);
    setTimeout(() => ctx.ui.notify(`timer at ${Date.now()}`), 1000);
    const id = setInterval(() => ctx.ui.notify("tick"), 300);
    setTimeout(() => clearInterval(id), 1000);
  }});
  pi.registerCommand("ask", { handler: async (_args, ctx) => {
    const choice = await ctx.ui.select("Pick", ["Alpha", "Beta"]);
    ctx.ui.notify(`chose ${choice}`);
  }});
  pi.registerCommand("stale", { handler: async (_args, ctx) => {
    try { globalThis.__savedCtx.ui.notify("x"); globalThis.__savedCtx.cwd; ctx.ui.notify("not stale"); } catch (e) { ctx.ui.notify(`stale: ${e.message}`); }
  }});
  pi.registerCommand("escape", { handler: async (args, ctx) => {
    const fs = await import("node:fs");
    try { fs.writeFileSync(args, "x"); ctx.ui.notify("wrote"); } catch (e) { ctx.ui.notify(`refused: ${e.code}`); }
    fs.writeFileSync(ctx.cwd + "/inside.txt", "kept");
  }});
  pi.registerCommand("slow", { handler: async (_args, ctx) => {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    ctx.ui.notify(`slow done at ${Date.now()}`);
  }});
  pi.registerCommand("watch", { handler: async (_args, ctx) => {
    const fs = await import("node:fs");
    let debounce;
    fs.watch(process.env.PI_CODING_AGENT_DIR, (_type, name) => {
      clearTimeout(debounce);
      debounce = setTimeout(() => ctx.ui.notify(`reloaded ${name}`), 75);
    });
  }});
  pi.on("tool_call", (event) => {
    if (event.toolName === "edit") return { block: true, reason: "first" };
    if (event.input.command === "throw") throw new Error("handler threw");
    if (event.input.command === "patch") event.input.command = "patched";
    return undefined;
  });
  pi.on("tool_call", (event) => {
    if (event.toolName === "edit") return { block: true, reason: "second" };
    if (event.input.command === "patched") return { block: true, reason: "saw patched" };
    return undefined;
  });
  pi.on("before_agent_start", (event) => ({ systemPrompt: event.systemPrompt + " +one" }));
  pi.on("before_agent_start", (event) => ({ systemPrompt: event.systemPrompt + " +two", message: { customType: "m", content: "c", display: false } }));
  pi.on("input", (event) => (event.text === "rewrite" ? { action: "transform", text: "rewritten" } : undefined));
  pi.on("input", (event) => (event.text === "stop" ? { action: "handled" } : undefined));
  pi.on("session_before_switch", () => ({ cancel: false }));
}
"""


@pytest.fixture(scope="module")
def host() -> Iterator[PiHost]:
    pi = PiHost("node", timeout=30)
    pi.start()
    yield pi
    pi.close()


@pytest.fixture
def extension(tmp_path: Path) -> Path:
    path = tmp_path / "ext" / "index.mjs"
    path.parent.mkdir()
    path.write_text(textwrap.dedent(EXTENSION), encoding="utf-8")
    return path


def run(host: PiHost, extension: Path, tmp_path: Path, *steps: dict[str, Any]) -> dict[str, Any]:
    sandbox = Sandbox.create(tmp_path)
    return host.run(extension, sandbox, [{"do": "start"}, *steps])


def notes(answer: dict[str, Any]) -> list[str]:
    return [t["args"][0] for t in answer["trace"] if t.get("call") == "ui.notify"]


def test_handshake_states_the_pi_version_and_api(host: PiHost) -> None:
    assert host.hello["pi"] == "0.84.2"
    assert "setActiveTools" in host.hello["api"]["pi"]
    assert "tool_call" in host.hello["api"]["events"]


def test_inactive_and_unregistered_tools_never_reach_tool_call(
    host: PiHost, extension: Path, tmp_path: Path
) -> None:
    answer = run(
        host,
        extension,
        tmp_path,
        {"do": "tool_call", "tool": "grep", "input": {"pattern": "x"}},
        {"do": "tool_call", "tool": "nosuch", "input": {}},
        {"do": "set_active", "tools": ["read", "bash", "grep", "nosuch"]},
        {"do": "tool_call", "tool": "grep", "input": {"pattern": "x"}},
        {"do": "tool_call", "tool": "bash", "input": {"command": 1}},
    )
    grep, missing, active, grep2, bad = answer["results"][1:]
    assert grep == {**grep, "reached": False, "error": "Tool grep not found"}
    assert missing["error"] == "Tool nosuch not found"
    assert active["active"] == ["read", "bash", "grep"]  # unknown names are dropped silently
    assert grep2["reached"] is True and grep2["allowed"] is True
    assert bad["reached"] is False and "Validation failed" in bad["error"]
    assert [t for t in answer["trace"] if t.get("hook") == "tool_call"] == [
        t for t in answer["trace"] if t.get("hook") == "tool_call" and t["t"] == 0
    ]
    assert sum(1 for t in answer["trace"] if t.get("hook") == "tool_call") == 2  # only grep2 reached


def test_tool_call_first_block_wins_throw_blocks_and_input_patches_carry(
    host: PiHost, extension: Path, tmp_path: Path
) -> None:
    answer = run(
        host,
        extension,
        tmp_path,
        {"do": "tool_call", "tool": "edit", "input": {"path": "a", "oldText": "", "newText": ""}},
        {"do": "tool_call", "tool": "bash", "input": {"command": "throw"}},
        {"do": "tool_call", "tool": "bash", "input": {"command": "patch"}},
        {"do": "tool_call", "tool": "helper", "input": {"n": 3}, "execute": True},
    )
    edit, thrown, patched, helper = answer["results"][1:]
    assert edit["blocked"] is True and edit["reason"] == "first"
    assert thrown["blocked"] is True and thrown["thrown"] == "handler threw"
    assert patched["reason"] == "saw patched" and patched["input"] == {"command": "patched"}
    assert helper["allowed"] is True and helper["result"]["content"][0]["text"] == "n=3"


def test_chained_system_prompt_collected_messages_and_input_rules(
    host: PiHost, extension: Path, tmp_path: Path
) -> None:
    answer = run(
        host,
        extension,
        tmp_path,
        {"do": "emit", "event": "before_agent_start", "payload": {"prompt": "p", "systemPrompt": "base"}},
        {"do": "emit", "event": "input", "payload": {"text": "rewrite"}},
        {"do": "emit", "event": "input", "payload": {"text": "stop"}},
        {"do": "emit", "event": "session_before_switch", "payload": {"reason": "new"}},
    )
    before, rewrite, stop, switch = (r["result"] for r in answer["results"][1:])
    assert before["systemPrompt"] == "base +one +two"
    assert [m["customType"] for m in before["messages"]] == ["m"]
    assert rewrite == {"action": "transform", "text": "rewritten"}
    assert stop == {"action": "handled"}
    assert switch == {"cancel": False}


def test_timers_and_date_run_on_the_virtual_clock(host: PiHost, extension: Path, tmp_path: Path) -> None:
    answer = run(
        host,
        extension,
        tmp_path,
        {"do": "command", "name": "probe", "args": "a b"},
        {"do": "advance", "ms": 999},
        {"do": "state"},
        {"do": "advance", "ms": 1},
    )
    said = notes(answer)
    assert said[0].startswith("args=a b ") and said[0].endswith("now=1767225600000")
    assert said[1:] == ["tick", "tick", "tick", "timer at 1767225601000"]
    instants = [t["t"] for t in answer["trace"] if t.get("call") == "ui.notify"]
    assert instants == [0, 300, 600, 900, 1000]
    assert answer["results"][3]["state"]["now"] == 999


def test_a_step_waiting_on_the_clock_stays_pending_until_advanced(
    host: PiHost, extension: Path, tmp_path: Path
) -> None:
    answer = run(
        host,
        extension,
        tmp_path,
        {"do": "command", "name": "slow", "wait": False},
        {"do": "state"},
        {"do": "advance", "ms": 2000},
    )
    slow, state, _ = answer["results"][1:]
    assert state["state"]["now"] == 0 and notes(answer) == ["slow done at 1767225602000"]
    assert slow["pending"] is False  # it finished during the advance


def test_ui_answers_by_label_and_cancel(host: PiHost, extension: Path, tmp_path: Path) -> None:
    answer = run(
        host,
        extension,
        tmp_path,
        {"do": "ui", "answers": [{"select": "Beta"}, {"cancel": True}]},
        {"do": "command", "name": "ask"},
        {"do": "command", "name": "ask"},
        {"do": "command", "name": "ask"},
    )
    assert notes(answer) == ["chose Beta", "chose undefined", "chose undefined"]
    prompts = [t for t in answer["trace"] if t.get("call") == "ui.select"]
    assert prompts[0]["args"] == ["Pick", ["Alpha", "Beta"]]


def test_ui_answers_by_position_and_by_pattern(host: PiHost, extension: Path, tmp_path: Path) -> None:
    answer = run(
        host,
        extension,
        tmp_path,
        {"do": "ui", "answers": [{"index": 1}, {"pattern": "^Al"}, {"pattern": "a"}, {"index": 5}]},
        {"do": "command", "name": "ask"},
        {"do": "command", "name": "ask"},
        {"do": "command", "name": "ask"},
        {"do": "command", "name": "ask"},
    )
    # A pattern that matches both items, or a position past the end, picks nothing and says so.
    assert notes(answer) == ["chose Beta", "chose Alpha", "chose undefined", "chose undefined"]
    errors = " ".join(str(e) for e in answer["errors"])
    assert "2 items match /a/" in errors and "no item at position 5" in errors


def test_a_translation_spells_answers_for_the_host() -> None:
    """`ui_answer`: a label selects, null cancels, a position stays a position,
    a role becomes the translation's pattern with the plan name in it."""
    import re

    from pytest_planmode.contract import host_events
    from pytest_planmode.targets.pi.oplmodes_modes_script import MENU_ROLE_PATTERNS
    from pytest_planmode.targets.pi.translation import Unsupported, ui_answer

    def answer(**fields: object) -> dict[str, object]:
        event = host_events.UiAnswer.model_validate({"type": "ui.answer", **fields})
        return ui_answer(event, MENU_ROLE_PATTERNS)

    assert answer(label="Execute") == {"select": "Execute"}
    assert answer(label=None) == {"cancel": True}
    assert answer(index=2) == {"index": 2}
    pattern = str(answer(role="execute", plan="auth")["pattern"])
    items = ["normal", "Execute: auth", "Execute: authz", "Execute: db"]
    assert [item for item in items if re.search(pattern, item)] == ["Execute: auth"]
    assert re.search(str(answer(role="refine")["pattern"]), "Refine (2 cycles so far)")
    with pytest.raises(Unsupported, match="spells no item"):
        ui_answer(host_events.UiAnswer.model_validate({"type": "ui.answer", "role": "refine"}), {})


def test_reload_reevaluates_the_module_and_old_ctx_is_stale(
    host: PiHost, extension: Path, tmp_path: Path
) -> None:
    answer = run(
        host,
        extension,
        tmp_path,
        {"do": "command", "name": "probe"},
        {"do": "reload"},
        {"do": "command", "name": "stale"},
        {"do": "stale_call", "method": "getActiveTools"},
        {"do": "command", "name": "probe"},
    )
    said = notes(answer)
    assert "evaluations=1 leak=1" in said[0]
    assert said[1].startswith("stale: This extension ctx is stale after session replacement or reload")
    assert answer["results"][4]["threw"].startswith("This extension ctx is stale")
    assert "evaluations=1 leak=2" in said[2]  # a fresh module top level; globalThis kept within the run
    # and a new run starts from a clean globalThis
    again = run(host, extension, tmp_path, {"do": "command", "name": "probe"})
    assert "leak=1" in notes(again)[0]


def test_write_file_fires_the_watcher_and_debounce_runs_virtually(
    host: PiHost, extension: Path, tmp_path: Path
) -> None:
    answer = run(
        host,
        extension,
        tmp_path,
        {"do": "command", "name": "watch"},
        {"do": "write_file", "root": "agent", "path": "pi-plan-mode.json", "content": {"a": 1}},
        {"do": "advance", "ms": 74},
        {"do": "state"},
        {"do": "advance", "ms": 1},
    )
    assert notes(answer) == ["reloaded pi-plan-mode.json"]
    assert [t["t"] for t in answer["trace"] if t.get("call") == "ui.notify"] == [75]
    assert answer["files"] == {"home/.pi/agent/pi-plan-mode.json": '{\n  "a": 1\n}'}


def test_writes_outside_the_sandbox_are_refused(host: PiHost, extension: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    answer = run(host, extension, tmp_path, {"do": "command", "name": "escape", "args": str(outside)})
    assert not outside.exists()
    assert notes(answer) == ["refused: EACCES"]
    assert [t["escape"] for t in answer["trace"] if "escape" in t] == ["writeFileSync"]
    assert answer["files"] == {"project/inside.txt": "kept"}


def test_a_bad_script_is_refused_with_a_message(host: PiHost, extension: Path, tmp_path: Path) -> None:
    # The client refuses a step that is not one of the vocabulary's before
    # the host sees it; the host refuses one that reaches it all the same.
    with pytest.raises(StepError, match="step 1 \\('fly'\\) is not a host step"):
        run(host, extension, tmp_path, {"do": "fly"})
    host.start()
    message = {"op": "run", "extension": str(extension), "sandbox": Sandbox.create(tmp_path).paths()}
    answer = host._request({**message, "script": [{"do": "start"}, {"do": "fly"}], "options": {}})
    assert "unknown step" in answer["results"][1]["threw"]
    sandbox = Sandbox.create(tmp_path)
    with pytest.raises(HostError, match="default export"):
        bad = tmp_path / "bad.mjs"
        bad.write_text("export default 42;\n")
        result = host.run(bad, sandbox, [{"do": "start"}])
        raise HostError(result["results"][0]["threw"])


def test_a_missing_node_command_is_a_clear_error() -> None:
    with pytest.raises(HostError, match="cannot start the Pi host"):
        PiHost("no-such-node-binary-here").start()


SESSION_EXTENSION = """
export default function (pi) {
  pi.on("thinking_level_select", (event, ctx) => ctx.ui.notify(`thinking ${event.previousLevel}->${event.level}`));
  pi.on("session_start", (event, ctx) => {
    const mine = ctx.sessionManager.getBranch().filter((e) => e.type === "custom" && e.customType === "t");
    ctx.ui.notify(`start ${event.reason} entries=${mine.length}`);
  });
  pi.registerCommand("go", { handler: async (_args, ctx) => {
    pi.appendEntry("t", { n: 1 });
    pi.setThinkingLevel("high");
    const model = ctx.modelRegistry.find("p", "m");
    const auth = await ctx.modelRegistry.getApiKeyAndHeaders(model);
    ctx.ui.notify(`auth ${auth.ok} at ${Date.now() - 1767225600000}`);
    ctx.ui.notify(`setModel ${await pi.setModel(model)} other ${await pi.setModel(ctx.modelRegistry.find("p", "x"))}`);
  }});
  pi.registerCommand("fresh", { handler: async (_args, ctx) => {
    await ctx.newSession({ withSession: async (next) => { next.ui.notify(`new session ${next.sessionManager.getSessionId()}`); } });
    try { ctx.ui.notify("old ctx alive"); } catch (e) { /* stale */ }
  }});
}
"""


def test_models_auth_delays_thinking_echo_and_session_replacement(host: PiHost, tmp_path: Path) -> None:
    ext = tmp_path / "session.mjs"
    ext.write_text(textwrap.dedent(SESSION_EXTENSION), encoding="utf-8")
    answer = host.run(
        ext,
        Sandbox.create(tmp_path),
        [
            {
                "do": "models",
                "catalogue": [{"provider": "p", "id": "m"}, {"provider": "p", "id": "x"}],
                "auth": {"p/m": {"ok": True, "delay": 1500}, "p/x": {"ok": False}},
            },
            {"do": "start"},
            {"do": "command", "name": "go", "wait": False},
            {"do": "advance", "ms": 1500},
            {"do": "resume"},
            {"do": "command", "name": "fresh"},
            {"do": "state"},
        ],
    )
    assert notes(answer) == [
        "start startup entries=0",
        "thinking off->high",
        "auth true at 1500",
        "setModel true other false",
        "start resume entries=1",
        "start new entries=0",
        "new session session-2",
    ]
    state = answer["results"][-1]["state"]
    assert state["model"] == "p/m" and state["thinkingLevel"] == "high" and state["session"] == "session-2"


MODEL_EXTENSION = """
export default function (pi) {
  pi.registerCommand("switch", { handler: async (args, ctx) => {
    const [provider, id] = args.split("/");
    const model = ctx.modelRegistry.find(provider, id);
    ctx.ui.notify(`find ${model ? "yes" : "no"} auth ${model ? ctx.modelRegistry.hasConfiguredAuth(model) : "-"}`);
    ctx.ui.notify(`switched ${await pi.setModel(model ?? { provider, id })} at ${Date.now() - 1767225600000}`);
  }});
}
"""


def test_provider_changes_and_set_model_latency_on_the_virtual_clock(host: PiHost, tmp_path: Path) -> None:
    ext = tmp_path / "models.mjs"
    ext.write_text(textwrap.dedent(MODEL_EXTENSION), encoding="utf-8")

    def change(model: str, **behaviour: object) -> dict[str, object]:
        provider, _, model_id = model.partition("/")
        return {
            "do": "models",
            "merge": True,
            "catalogue": [{"provider": provider, "id": model_id}],
            "behaviour": {model: behaviour},
        }

    answer = host.run(
        ext,
        Sandbox.create(tmp_path),
        [
            {
                "do": "models",
                "catalogue": [{"provider": "a", "id": "base"}, {"provider": "r", "id": "m"}],
                "behaviour": {"a/base": {}, "r/m": {"changeDelay": 500}},
                "current": "a/base",
            },
            {"do": "start"},
            {"do": "command", "name": "switch", "args": "r/m", "wait": False},
            {"do": "advance", "ms": 500},
            change("a/base", credentials=False),
            {"do": "command", "name": "switch", "args": "a/base"},
            change("a/base", resolves=False),
            {"do": "command", "name": "switch", "args": "a/base"},
            change("n/new"),
            {"do": "command", "name": "switch", "args": "n/new"},
            {"do": "state"},
        ],
    )
    assert notes(answer) == [
        "find yes auth true",
        "switched true at 500",
        "find yes auth false",
        "switched false at 500",
        "find no auth -",
        "switched false at 500",
        "find yes auth true",
        "switched true at 500",
    ]
    settled = [(e["t"], e["model"], e["value"]) for e in answer["trace"] if e.get("answer") == "pi.setModel"]
    assert settled == [
        (500, "r/m", True),
        (500, "a/base", False),
        (500, "a/base", False),
        (500, "n/new", True),
    ]
    started = [e["t"] for e in answer["trace"] if e.get("call") == "pi.setModel"]
    assert started == [0, 500, 500, 500]
    assert answer["results"][-1]["state"]["model"] == "n/new"


def test_edit_file_sets_keys_and_fires_the_watcher(host: PiHost, extension: Path, tmp_path: Path) -> None:
    answer = run(
        host,
        extension,
        tmp_path,
        {"do": "write_file", "path": "pi-plan-mode.json", "content": {"a": 1, "b": 2}},
        {"do": "command", "name": "watch"},
        {"do": "edit_file", "path": "pi-plan-mode.json", "set": {"b": None, "c": 3}},
        {"do": "advance", "ms": 100},
    )
    assert notes(answer) == ["reloaded pi-plan-mode.json"]
    assert json.loads(answer["files"]["home/.pi/agent/pi-plan-mode.json"]) == {"a": 1, "c": 3}


LIFECYCLE_EXTENSION = """
export default function (pi) {
  pi.registerTool({ name: "complete", label: "c", description: "d",
    parameters: { type: "object", properties: { plan: { type: "string" } }, required: ["plan"] },
    async execute(_id, params) { return { content: [{ type: "text", text: "ok" }] }; } });
  pi.registerCommand("kick", { handler: async (args, ctx) => {
    try { pi.sendUserMessage(args || "Implement the plan."); ctx.ui.notify("sent"); }
    catch (e) { ctx.ui.notify(`not sent: ${e.message}`); }
  }});
  pi.registerCommand("fresh", { handler: async (_args, ctx) => {
    const r = await ctx.newSession({});
    ctx.ui.notify(`cancelled ${r.cancelled}`);
  }});
  pi.registerCommand("ask", { handler: async (_args, ctx) => {
    ctx.ui.notify(`chose ${await ctx.ui.select("Pick", ["A", "B"])}`);
  }});
  pi.registerCommand("write", { handler: async (args, ctx) => {
    const fs = await import("node:fs");
    fs.mkdirSync(ctx.cwd + "/out/deep", { recursive: true });
    fs.writeFileSync(ctx.cwd + "/out/deep/plan.md", args);
    ctx.ui.notify(`cwd ${ctx.cwd.endsWith("/elsewhere")}`);
  }});
  pi.on("session_start", (event, ctx) => ctx.ui.notify(`start ${event.reason}`));
  pi.on("session_shutdown", (event, ctx) => ctx.ui.notify(`shutdown ${event.reason}`));
  pi.on("session_compact", (_event, ctx) => ctx.ui.notify("compacted"));
  pi.on("before_agent_start", () => ({ message: { customType: "hint", content: "hidden hint", display: false } }));
  pi.on("agent_end", (_event, ctx) => ctx.ui.notify(`pending ${ctx.hasPendingMessages()}`));
  pi.on("agent_settled", (_event, ctx) => ctx.ui.notify("settled"));
  pi.on("context", (event) => ({ messages: [...event.messages, { role: "custom", customType: "x", content: "added", display: false }] }));
}
"""


@pytest.fixture
def lifecycle(tmp_path: Path) -> Path:
    path = tmp_path / "lifecycle.mjs"
    path.write_text(textwrap.dedent(LIFECYCLE_EXTENSION), encoding="utf-8")
    return path


def test_history_tool_calls_custom_messages_and_compaction(
    host: PiHost, lifecycle: Path, tmp_path: Path
) -> None:
    answer = run(
        host,
        lifecycle,
        tmp_path,
        {"do": "agent_start", "prompt": "plan it"},
        {"do": "tool_call", "tool": "complete", "input": {"plan": "# P"}, "execute": True},
        {"do": "context"},
        {"do": "agent_end"},
        {"do": "compact"},
        {"do": "agent_start", "prompt": "again"},
        {"do": "context"},
    )
    first, second = (r for r in answer["results"] if r["do"] == "context")
    roles = [m["role"] for m in first["history"]]
    assert roles == ["user", "custom", "assistant", "toolResult"]
    assert first["history"][2]["content"][0] == {
        "type": "toolCall",
        "id": first["history"][2]["content"][0]["id"],
        "name": "complete",
        "arguments": {"plan": "# P"},
    }
    assert first["context"]["messages"][-1]["content"] == "added"  # the hook's result is what the model sees
    assert [m["role"] for m in second["history"]] == ["compactionSummary", "user", "custom"]
    assert "compacted" in notes(answer) and first["session"] == 1


def test_kickoffs_start_runs_queue_follow_ups_and_fail_on_request(
    host: PiHost, lifecycle: Path, tmp_path: Path
) -> None:
    answer = run(
        host,
        lifecycle,
        tmp_path,
        {"do": "command", "name": "kick"},
        {"do": "context"},
        {"do": "queue", "prompt": "more"},
        {"do": "agent_end"},
        {"do": "agent_end"},
        {"do": "fail_next", "call": "sendUserMessage"},
        {"do": "command", "name": "kick"},
        {"do": "fail_next", "call": "newSession"},
        {"do": "command", "name": "fresh"},
        {"do": "command", "name": "fresh"},
        {"do": "state"},
    )
    said = notes(answer)
    assert said[:6] == [
        "start startup",
        "sent",
        "pending true",
        "pending false",
        "settled",
        "not sent: the agent could not accept the message (the host failed this call)",
    ]
    # After a replacement the old ctx is stale: its notify after newSession throws.
    assert said[6:] == ["cancelled true", "shutdown new", "start new"]
    kickoff = answer["results"][2]["history"]
    assert kickoff[0] == {**kickoff[0], "role": "user", "content": "Implement the plan."}
    assert answer["results"][-1]["state"]["sessions"] == 2


def test_restart_set_cwd_dismiss_and_traced_writes(host: PiHost, lifecycle: Path, tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path)
    answer = host.run(
        lifecycle,
        sandbox,
        [
            {"do": "start"},
            {"do": "command", "name": "ask"},
            {"do": "dismiss"},
            {"do": "restart"},
            {"do": "set_cwd", "path": str(sandbox.root / "tmp" / "elsewhere")},
            {"do": "command", "name": "write", "args": "# P\n"},
        ],
        {"holdPrompts": True, "traceWrites": True},
    )
    assert notes(answer) == ["start startup", "chose undefined", "shutdown quit", "start startup", "cwd true"]
    assert answer["results"][2]["dismissed"] == 1
    writes = [t for t in answer["trace"] if "write" in t]
    assert [w["path"] for w in writes] == ["tmp/elsewhere/out/deep/plan.md"]
    assert answer["files"] == {"tmp/elsewhere/out/deep/plan.md": "# P\n"}
    assert answer["createdDirs"] == ["tmp/elsewhere", "tmp/elsewhere/out", "tmp/elsewhere/out/deep"]


REGISTRY_EXTENSION = """
export default function (pi) {
  pi.registerCommand("probe", { handler: async (args, ctx) => {
    const began = Date.now();
    const at = () => Date.now() - began;
    const [provider, id] = args.split("/");
    const model = ctx.modelRegistry.find(provider, id);
    if (!model) { ctx.ui.notify(`${args} unresolved`); return; }
    const timer = new Promise((resolve) => setTimeout(() => resolve("timeout"), 2000));
    const auth = ctx.modelRegistry.getApiKeyAndHeaders(model).then((a) => `ok=${a.ok}`, (e) => `threw ${e.message}`);
    ctx.ui.notify(`${args} auth ${await Promise.race([auth, timer])} at ${at()}`);
    try { ctx.ui.notify(`${args} setModel ${await pi.setModel(model)} at ${at()}`); }
    catch (e) { ctx.ui.notify(`${args} setModel threw at ${at()}`); }
  }});
  pi.registerCommand("catalogue", { handler: async (_args, ctx) => {
    const names = (list) => list.map((m) => `${m.provider}/${m.id}`).join(",");
    ctx.ui.notify(`scoped=${names(ctx.scopedModels.map((s) => s.model))} available=${names(ctx.modelRegistry.getAvailable())} auth=${ctx.modelRegistry.hasConfiguredAuth(ctx.modelRegistry.find("p", "b"))}`);
  }});
  pi.registerCommand("persist", { handler: async (_args, ctx) => {
    try { pi.appendEntry("x", {}); ctx.ui.notify("appended"); } catch (e) { ctx.ui.notify(`append failed: ${e.message}`); }
  }});
  pi.registerCommand("fresh", { handler: async (_args, ctx) => {
    await ctx.newSession({
      setup: async (sm) => { sm.appendCustomEntry("seed", { n: 1 }); sm.appendModelChange("p", "a"); },
      withSession: async (next) => {
        const kinds = next.sessionManager.getBranch().map((e) => e.customType ?? e.type).join(",");
        next.ui.notify(`fresh branch ${kinds}`);
      },
    });
  }});
  pi.registerCommand("read", { handler: async (_args, ctx) => {
    const fs = await import("node:fs");
    try { fs.readFileSync(process.env.PI_CODING_AGENT_DIR + "/s.json", "utf8"); ctx.ui.notify("readable"); }
    catch (e) { ctx.ui.notify(`unreadable ${e.code}`); }
  }});
}
"""


def test_model_registry_answers_on_the_virtual_clock(host: PiHost, tmp_path: Path) -> None:
    ext = tmp_path / "registry.mjs"
    ext.write_text(textwrap.dedent(REGISTRY_EXTENSION), encoding="utf-8")
    behaviour = {
        "p/a": {"auth": "ok", "authDelay": 2000, "change": "accept", "changeDelay": 30},
        "p/b": {"auth": "fail", "authDelay": 1999, "credentials": False},
        "p/c": {"auth": "throw", "change": "throw"},
        "p/d": {"auth": "hang"},
        "p/e": {"resolves": False},
        "p/f": {"change": "hang"},
    }
    steps: list[dict[str, Any]] = [
        {
            "do": "models",
            "catalogue": [{"provider": "p", "id": n} for n in "abcdef"],
            "behaviour": behaviour,
            "available": ["p/a", "p/c"],
            "scoped": ["p/c"],
            "current": "p/c",
        },
        {"do": "start"},
        {"do": "command", "name": "catalogue"},
    ]
    for name in ("p/a", "p/b", "p/c", "p/d", "p/e", "p/f"):
        steps += [
            {"do": "command", "name": "probe", "args": name, "wait": False},
            {"do": "advance", "ms": 3000},
        ]
    steps += [{"do": "models", "merge": True, "behaviour": {"p/d": {"auth": "ok"}}, "scoped": []}]
    steps += [{"do": "command", "name": "probe", "args": "p/d"}, {"do": "command", "name": "catalogue"}]
    answer = host.run(ext, Sandbox.create(tmp_path), steps)
    assert notes(answer) == [
        "scoped=p/c available=p/a,p/c auth=false",
        # An answer due at the instant of the extension's own timer comes after it.
        "p/a auth timeout at 2000",
        "p/a setModel true at 2030",
        "p/b auth ok=false at 1999",
        "p/b setModel false at 1999",
        "p/c auth threw authentication for p/c failed at 0",
        "p/c setModel threw at 0",
        "p/d auth timeout at 2000",
        "p/d setModel true at 2000",
        "p/e unresolved",
        "p/f auth ok=true at 0",
        "p/d auth ok=true at 0",
        "p/d setModel true at 0",
        "scoped= available=p/a,p/c auth=false",
    ]
    answers = [
        (t["answer"], t["model"], t.get("outcome", t.get("value"))) for t in answer["trace"] if "answer" in t
    ]
    assert answers[:4] == [
        ("modelRegistry.getApiKeyAndHeaders", "p/a", "ok"),
        ("pi.setModel", "p/a", True),
        ("modelRegistry.getApiKeyAndHeaders", "p/b", "fail"),
        ("pi.setModel", "p/b", False),
    ]
    # The hanging model change never settles: its probe step stays pending.
    probe_f = [r for r in answer["results"] if r.get("do") == "command"][-3]
    assert probe_f["pending"] is True
    assert answer["state"]["model"] == "p/d"
    done = [r for r in answer["results"] if r.get("do") == "command" and not r["pending"]]
    assert all("doneAt" in r for r in done)


def test_fail_next_after_a_model_change_and_unreadable_file(host: PiHost, tmp_path: Path) -> None:
    ext = tmp_path / "registry.mjs"
    ext.write_text(textwrap.dedent(REGISTRY_EXTENSION), encoding="utf-8")
    answer = host.run(
        ext,
        Sandbox.create(tmp_path),
        [
            {"do": "models", "catalogue": [{"provider": "p", "id": "a"}], "behaviour": {"p/a": {}}},
            {"do": "write_file", "path": "s.json", "content": "{}"},
            {"do": "start"},
            {"do": "fail_next", "call": "appendEntry", "afterModelChange": True},
            {"do": "command", "name": "persist"},
            {"do": "command", "name": "probe", "args": "p/a"},
            {"do": "command", "name": "persist"},
            {"do": "command", "name": "persist"},
            {"do": "fail_next", "call": "appendEntry"},
            {"do": "fail_next", "clear": True},
            {"do": "command", "name": "persist"},
            {"do": "unreadable_file", "path": "s.json"},
            {"do": "command", "name": "read"},
            {"do": "write_file", "path": "s.json", "content": "{}"},
            {"do": "command", "name": "read"},
        ],
    )
    assert notes(answer) == [
        "appended",
        "p/a auth ok=true at 0",
        "p/a setModel true at 0",
        "append failed: the session could not be written (the host failed this call)",
        "appended",
        "appended",
        "unreadable EISDIR",
        "readable",
    ]


def test_new_session_setup_gets_a_writable_session_manager(host: PiHost, tmp_path: Path) -> None:
    ext = tmp_path / "registry.mjs"
    ext.write_text(textwrap.dedent(REGISTRY_EXTENSION), encoding="utf-8")
    answer = host.run(ext, Sandbox.create(tmp_path), [{"do": "start"}, {"do": "command", "name": "fresh"}])
    assert notes(answer) == ["fresh branch seed,model_change"]
