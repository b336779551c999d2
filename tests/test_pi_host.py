"""The Pi host (pytest_planmode/hosts/pi/real_host.mjs) at host-script level,
the kit's own mechanisms around Pi: UI answers, the virtual clock and the
watcher, file steps, sandbox containment, bad scripts, restarts and traced
writes. Pi's own behaviour is pinned by tests/test_pi_real*.py."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode.hosts.pi.client import HostError, PiHost, Sandbox
from pytest_planmode.hosts.pi.steps import StepError
from pytest_planmode.targets.pi_target import DEFAULT_PI

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
def host(real_pi) -> PiHost:  # type: ignore[no-untyped-def]
    return real_pi(DEFAULT_PI).host


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
    assert prompts[0]["args"][:2] == ["Pick", ["Alpha", "Beta"]]


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
    assert answer["files"] == {"home/.pi/agent/pi-plan-mode.json": '{\n  "a": 1\n}\n'}


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
    with pytest.raises(HostError, match='unknown step "fly"; steps: start, '):
        host._request({**message, "script": [{"do": "start"}, {"do": "fly"}], "options": {}})
    sandbox = Sandbox.create(tmp_path)
    with pytest.raises(HostError, match="does not export a valid factory function"):
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
    ctx.ui.notify(`cwd ${ctx.cwd.endsWith("/project")}`);
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


def test_restart_dismiss_and_traced_writes(host: PiHost, lifecycle: Path, tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path)
    answer = host.run(
        lifecycle,
        sandbox,
        [
            {"do": "start"},
            {"do": "command", "name": "ask"},
            {"do": "dismiss"},
            {"do": "restart"},
            {"do": "command", "name": "write", "args": "# P\n"},
        ],
        {"holdPrompts": True, "traceWrites": True},
    )
    assert notes(answer) == ["start startup", "chose undefined", "shutdown quit", "start startup", "cwd true"]
    assert answer["results"][2]["dismissed"] == 1
    writes = [t for t in answer["trace"] if "write" in t]
    assert [w["path"] for w in writes] == ["project/out/deep/plan.md"]
    assert answer["files"] == {"project/out/deep/plan.md": "# P\n"}
    assert answer["createdDirs"] == ["project/out", "project/out/deep"]


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


def test_new_session_setup_gets_a_writable_session_manager(host: PiHost, tmp_path: Path) -> None:
    ext = tmp_path / "registry.mjs"
    ext.write_text(textwrap.dedent(REGISTRY_EXTENSION), encoding="utf-8")
    answer = host.run(ext, Sandbox.create(tmp_path), [{"do": "start"}, {"do": "command", "name": "fresh"}])
    # Pi's new session opens with its model and thinking level (fact D17),
    # then what the setup appended.
    assert notes(answer) == ["fresh branch model_change,thinking_level_change,seed,model_change"]
