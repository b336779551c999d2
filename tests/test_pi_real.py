"""The real-Pi host (`--planmode-pi=VERSION`): the installer, the host's
protocol, Pi's own behaviour where the kit's former model of Pi differed
from it (the differences D1-D18 of docs/porting.md), and a sample of each
pi-plan-mode translation on the example extension.

These tests need the pinned Pi releases installed (`planmode pi install
0.84.2 1.6.0`); without them they fail and say so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode.hosts.pi import install
from pytest_planmode.matching import mismatches
from pytest_planmode.targets.base import TargetError
from pytest_planmode.targets.pi.translation import Unsupported
from pytest_planmode.targets.pi_target import PiTarget
from tests.pi_examples import OPL_EXAMPLE, PLAN_EXAMPLE, case, extension, planted
from tests.pi_real_hosts import SharedHosts, SharedPi, installed

VERSIONS = install.VERSIONS


# ---------------------------------------------------------------- the installer


def test_the_manifest_pins_the_whole_pi_family_to_the_version() -> None:
    manifest = install.manifest("1.6.0")
    deps = manifest["dependencies"]
    assert isinstance(deps, dict) and deps[install.PACKAGE] == "1.6.0"
    overrides = manifest["overrides"]
    assert isinstance(overrides, dict)
    assert {"@earendil-works/pi-ai", "@earendil-works/pi-agent-core", "@earendil-works/pi-tui"} <= set(
        overrides
    )
    assert set(overrides.values()) == {"1.6.0"}


def test_a_missing_version_names_the_install_command(tmp_path: Path) -> None:
    with pytest.raises(install.InstallError, match=r"run `planmode pi install 1\.6\.0`"):
        install.find("1.6.0", tmp_path)


def test_a_target_installs_a_missing_version_and_says_why_it_could_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    # First use installs the release; with the npm registry out of reach the
    # target says so, and the cache holds no half-installed Pi.
    monkeypatch.setenv(install.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm"))
    with pytest.raises(
        TargetError,
        match=r"--planmode-pi=0\.84\.2: npm could not install @earendil-works/pi-coding-agent@0\.84\.2.*registry",
    ):
        PiTarget(str(PLAN_EXAMPLE), pi="0.84.2")
    assert "installing Pi 0.84.2 into" in capfd.readouterr().err
    assert not (tmp_path / "cache" / "pi-0.84.2").exists()
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [".install.lock"]


@pytest.mark.parametrize("bad", ["latest", "1.6", "1.6.0; rm -rf /", ""])
def test_a_malformed_version_is_refused(bad: str) -> None:
    with pytest.raises(install.InstallError, match="is not a Pi version"):
        install.check_version(bad)


def test_only_1x_needs_node_22() -> None:
    assert not install.needs_node22("0.84.2")
    assert install.needs_node22("1.6.0")
    assert install.needs_node22("0.87.1")


def test_an_unreachable_registry_is_reported_and_leaves_nothing(tmp_path: Path) -> None:
    env = {
        **os.environ,
        install.CACHE_ENV: str(tmp_path / "cache"),
        "npm_config_registry": "http://127.0.0.1:9/",
        "npm_config_fetch_retries": "0",
        "npm_config_cache": str(tmp_path / "npm"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "pytest_planmode.cli", "pi", "install", "0.84.2"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1
    assert "npm could not install @earendil-works/pi-coding-agent@0.84.2" in done.stderr
    assert "registry can be reached" in done.stderr
    assert not (tmp_path / "cache" / "pi-0.84.2").exists()
    assert [p.name for p in (tmp_path / "cache").iterdir()] == []


def test_a_host_name_reads_the_pi_release_and_the_mock_is_gone() -> None:
    with pytest.raises(
        TargetError, match=r"--planmode-pi=mock: .*retired.*choose a Pi release, 0\.84\.2 or 1\.6\.0"
    ):
        PiTarget(str(PLAN_EXAMPLE), pi="mock")
    installed("1.6.0")
    real = PiTarget(str(PLAN_EXAMPLE), pi="1.6.0")
    assert real.host_name == "Pi 1.6.0"
    real.close()


# ---------------------------------------------------------------- the host itself


@pytest.fixture(params=VERSIONS)
def real(request: pytest.FixtureRequest, real_pi: SharedHosts) -> SharedPi:
    return real_pi(request.param)


PLAN_AND_RUN = [
    {"do": "start"},
    {"do": "agent_start", "prompt": "go"},
    {"do": "context"},
]


def test_the_handshake_names_the_pi_version(real: SharedPi) -> None:
    hello = real.host.start()
    assert hello["real"] is True
    assert hello["pi"] in VERSIONS
    assert hello["pi"] == real.host.script_args[0].rsplit("pi-", 1)[1]


def test_d1_a_truthy_block_blocks(real: SharedPi, tmp_path: Path) -> None:
    ext = extension(tmp_path, 'export default (pi) => { pi.on("tool_call", () => ({ block: "yes" })); };')
    answer = real.run(ext, [*PLAN_AND_RUN, {"do": "tool_call", "tool": "bash", "input": {"command": "ls"}}])
    call = answer["results"][-1]
    assert call["reached"] is True and call["allowed"] is False


def test_d2_a_block_without_reason_reads_tool_execution_was_blocked(real: SharedPi, tmp_path: Path) -> None:
    ext = extension(tmp_path, 'export default (pi) => { pi.on("tool_call", () => ({ block: true })); };')
    answer = real.run(ext, [*PLAN_AND_RUN, {"do": "tool_call", "tool": "bash", "input": {"command": "ls"}}])
    assert answer["results"][-1]["reason"] == "Tool execution was blocked"


def test_d3_context_handlers_share_one_copy(real: SharedPi, tmp_path: Path) -> None:
    ext = extension(
        tmp_path,
        """
        export default (pi) => {
          pi.on("context", (event) => { event.messages.push({ role: "user", content: "added in place", timestamp: 0 }); });
          pi.on("context", (event) => { event.messages.push({ role: "user", content: "and again", timestamp: 0 }); });
        };
        """,
    )
    answer = real.run(ext, PLAN_AND_RUN)
    seen = [m["content"] for m in answer["results"][-1]["context"]["messages"]]
    assert seen[-2:] == ["added in place", "and again"]


COUNTER = """
let evaluations = 0;
evaluations += 1;
let factories = 0;
export default (pi) => {
  factories += 1;
  const seen = () => `${evaluations}/${factories}/${globalThis.__left ?? "none"}`;
  pi.registerCommand("count", { handler: async (_args, ctx) => ctx.ui.notify(seen(), "info") });
  pi.registerCommand("leave", { handler: async () => { globalThis.__left = "left"; } });
};
"""


#: What the counter shows before and after a /reload, with a global left between.
COUNT_LEAVE_RELOAD = [
    {"do": "start"},
    {"do": "command", "name": "count"},
    {"do": "command", "name": "leave"},
    {"do": "reload"},
    {"do": "command", "name": "count"},
]


def test_d7_an_mjs_extension_is_evaluated_once_per_pi_start(real: SharedPi, tmp_path: Path) -> None:
    """Within a run (one start of Pi) a `/reload` calls the factory again
    without evaluating the module again; every run is a new start of Pi:
    the module is evaluated afresh and what an earlier run left on
    globalThis is gone, whatever ran before in the host's process."""
    ext = extension(tmp_path, COUNTER)
    for _ in range(2):
        answer = real.run(ext, COUNT_LEAVE_RELOAD)
        notes = [e["args"][0] for e in answer["trace"] if e.get("call") == "ui.notify"]
        assert notes == ["1/1/none", "1/2/left"]


def test_d7_a_ts_extension_is_evaluated_again_by_each_runtime_and_reload(
    real: SharedPi, tmp_path: Path
) -> None:
    ext = extension(
        tmp_path, COUNTER.replace("let evaluations = 0;", "let evaluations: number = 0;"), "ext.ts"
    )
    answer = real.run(ext, COUNT_LEAVE_RELOAD)
    notes = [e["args"][0] for e in answer["trace"] if e.get("call") == "ui.notify"]
    # Evaluated again by /reload (its factory's count starts again); the
    # process's globals are the same Pi start's.
    assert notes == ["1/1/none", "1/1/left"]


def test_d12_the_edit_tool_takes_pis_own_shape(real: SharedPi, tmp_path: Path) -> None:
    ext = extension(tmp_path, "export default () => {};")
    edits = {"path": "a.txt", "edits": [{"oldText": "a", "newText": "b"}]}
    answer = real.run(ext, [*PLAN_AND_RUN, {"do": "tool_call", "tool": "edit", "input": edits}])
    call = answer["results"][-1]
    assert call["reached"] is True and call["allowed"] is True


def test_d15_a_new_session_resets_the_active_tools(real: SharedPi, tmp_path: Path) -> None:
    ext = extension(
        tmp_path,
        """
        export default (pi) => {
          pi.registerCommand("narrow", { handler: async () => pi.setActiveTools(["read"]) });
        };
        """,
    )
    script = [
        {"do": "start"},
        {"do": "command", "name": "narrow"},
        {"do": "state"},
        {"do": "new_session"},
        {"do": "state"},
    ]
    answer = real.run(ext, script)
    assert answer["results"][2]["state"]["activeTools"] == ["read"]
    assert answer["results"][4]["state"]["activeTools"] == ["read", "bash", "edit", "write"]


def test_the_registry_is_applied_before_session_start_so_the_extensions_tools_stand(
    real: SharedPi, tmp_path: Path
) -> None:
    ext = extension(
        tmp_path,
        """
        export default (pi) => {
          pi.on("session_start", () => { pi.setActiveTools(["read", "grep"]); });
        };
        """,
    )
    registry = [
        {"name": "read", "source": "builtin"},
        {"name": "bash", "source": "builtin"},
        {"name": "grep", "source": "builtin", "active": False},
    ]
    script = [{"do": "registry", "tools": registry}, {"do": "start"}, {"do": "state"}]
    answer = real.run(ext, script)
    assert answer["results"][-1]["state"]["activeTools"] == ["read", "grep"]


def test_an_inactive_tool_never_reaches_tool_call(real: SharedPi, tmp_path: Path) -> None:
    ext = extension(tmp_path, "export default () => {};")
    answer = real.run(ext, [*PLAN_AND_RUN, {"do": "tool_call", "tool": "grep", "input": {"pattern": "x"}}])
    call = answer["results"][-1]
    assert call["reached"] is False and call["allowed"] is False
    assert call["error"].startswith("Tool grep not found")


def test_a_tool_call_outside_a_run_opens_one(real: SharedPi, tmp_path: Path) -> None:
    ext = extension(tmp_path, "export default () => {};")
    answer = real.run(ext, [{"do": "start"}, {"do": "tool_call", "tool": "bash", "input": {"command": "ls"}}])
    assert answer["results"][-1]["openedRun"] is True


def test_virtual_time_runs_an_extension_timer_without_waiting(real: SharedPi, tmp_path: Path) -> None:
    ext = extension(
        tmp_path,
        """
        export default (pi) => {
          pi.registerCommand("later", { handler: async (_a, ctx) => {
            setTimeout(() => ctx.ui.notify("fired at " + (Date.now() - Date.UTC(2026, 0, 1)), "info"), 5000);
          } });
        };
        """,
    )
    answer = real.run(
        ext, [{"do": "start"}, {"do": "command", "name": "later"}, {"do": "advance", "ms": 6000}]
    )
    notes = [e["args"][0] for e in answer["trace"] if e.get("call") == "ui.notify"]
    assert notes == ["fired at 5000"]


# ---------------------------------------------------------------- the example through each translation


@pytest.fixture(params=VERSIONS)
def example(request: pytest.FixtureRequest, real_pi: SharedHosts) -> PiTarget:
    return real_pi(request.param).target


def test_the_report_names_the_real_pi(example: PiTarget) -> None:
    host = example.hello_answer["implementation"]["host"]
    assert host.startswith(f"Pi {example.pi_version} (real")


#: A sample of each pi-plan-mode translation on the example: the cases
#: that pass through real Pi, and those it answers unsupported (with a
#: phrase of the reason), per version. The whole run is the whole_suite test.
PASS = "pass"
SAMPLE: dict[str, dict[str, str]] = {
    "planmode.bash.default.tool.rm-rf": {"0.84.2": PASS, "1.6.0": PASS},
    "planmode.bash.grammar.operators.ls-pwd": {"0.84.2": PASS, "1.6.0": PASS},
    "planmode.powershell.separators.get-childitem-get-location": {
        "0.84.2": "has no built-in powershell tool",
        "1.6.0": PASS,
    },
    "planmode.export.default-plan-md": {"0.84.2": PASS, "1.6.0": PASS},
    "planmode.lifecycle.host.reinjection.default-here-kickoff": {"0.84.2": PASS, "1.6.0": PASS},
    "planmode.lifecycle.host.thinking.value-xhigh": {"0.84.2": PASS, "1.6.0": PASS},
    "planmode.lifecycle.host.shortcut.registered-at-startup": {"0.84.2": PASS, "1.6.0": PASS},
    "planmode.tools.authorize.host.freeze.at-first-context": {"0.84.2": PASS, "1.6.0": PASS},
    "planmode.tools.authorize.host.shell.bash-override": {"0.84.2": PASS, "1.6.0": PASS},
    "planmode.tools.freeze.auto.never-activates": {"0.84.2": PASS, "1.6.0": PASS},
    "planmode.tools.freeze.auto.user-extension-named-read": {"0.84.2": PASS, "1.6.0": PASS},
    "planmode.models.host.switch.off-by-default": {"0.84.2": PASS, "1.6.0": PASS},
    "planmode.models.fresh.direct.no-warning-without-configuration": {"0.84.2": PASS, "1.6.0": PASS},
}


@pytest.mark.parametrize("case_id", sorted(SAMPLE))
def test_a_sample_of_cases_through_real_pi(example: PiTarget, case_id: str) -> None:
    c = case(case_id)
    outcome = example.request(c.operation, c.input)
    expected = SAMPLE[case_id][str(example.pi_version)]
    if expected == PASS:
        assert outcome.kind == "output", outcome.message
        assert mismatches(c.expect, outcome.output) == []
    else:
        assert outcome.kind == "unsupported"
        assert expected in str(outcome.message)


#: opl-modes example cases, run one after another in the same host process:
#: each needs what real Pi gives a fresh start (the case's configuration read
#: by an `.mjs` module, not the previous case's), other extensions' tools
#: registered before any session_start, a start on stored entries, the
#: session's branch, a tool result's details, a /reload that calls the
#: factory again.
OPL_SAMPLE = [
    "oplmodes.tools.plan.alias-list",
    "oplmodes.tools.chat.no-write-edit",
    "oplmodes.modes.host.lazy.off-offers-load-tools",
    "oplmodes.modes.host.lazy.load-all",
    "oplmodes.modes.host.resume.start-chat",
    "oplmodes.modes.host.state.entries-in-order",
    "oplmodes.modes.host.reload.chat-tools-changed",
]


def test_a_sample_of_opl_cases_through_real_pi(real_pi: SharedHosts) -> None:
    real = real_pi(VERSIONS[0])
    failing = {case_id: problems for case_id in OPL_SAMPLE if (problems := real.judge(OPL_EXAMPLE, case_id))}
    assert failing == {}


def test_arguments_pi_converts_make_an_opl_case_unsupported(real_pi: SharedHosts) -> None:
    # Pi converts [1, 2] to ["1", "2"] against load_tools' schema before any
    # extension sees the call: the malformed argument cannot reach it.
    with pytest.raises(Unsupported, match="converted the load_tools call's arguments"):
        real_pi(VERSIONS[0]).judge(OPL_EXAMPLE, "oplmodes.modes.host.lazy.argument-numbers")


# One version proves the mechanism in the default run; the other is its twin.
@pytest.mark.parametrize(
    "version", [v if v == VERSIONS[-1] else pytest.param(v, marks=pytest.mark.whole_suite) for v in VERSIONS]
)
def test_a_planted_bug_fails_through_real_pi(real_pi: SharedHosts, tmp_path: Path, version: str) -> None:
    entry = planted(tmp_path, 'const BASH_SAFE = new Set(["ls",', 'const BASH_SAFE = new Set(["rm", "ls",')
    problems = real_pi(version).judge(entry, "planmode.bash.default.tool.rm-rf")
    assert problems, f"Pi {version}: the planted bug went unnoticed"


def test_expectations_file_is_json() -> None:
    # One expectations file serves both Pi releases.
    data = json.loads((PLAN_EXAMPLE.parent / "planmode-expectations.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)


def notes(answer: dict[str, Any]) -> list[str]:
    return [str(e["args"][0]) for e in answer["trace"] if e.get("call") == "ui.notify"]


def test_d6_a_stale_ctx_throws_on_ui_but_a_captured_ui_still_works(real: SharedPi, tmp_path: Path) -> None:
    ext = extension(
        tmp_path,
        """
        let kept;
        export default (pi) => {
          pi.registerCommand("keep", { handler: async (_a, ctx) => { kept = { ctx, ui: ctx.ui }; } });
          pi.registerCommand("probe", { handler: async (_a, ctx) => {
            let stale = "no throw";
            try { void kept.ctx.hasUI; } catch (error) { stale = "threw"; }
            kept.ui.notify("captured ui works", "info");
            ctx.ui.notify(stale, "info");
          } });
        };
        """,
    )
    script = [
        {"do": "start"},
        {"do": "command", "name": "keep"},
        {"do": "new_session"},
        {"do": "command", "name": "probe"},
    ]
    assert notes(real.run(ext, script)) == ["captured ui works", "threw"]


def test_d8_send_user_message_while_streaming_is_an_extension_error(real: SharedPi, tmp_path: Path) -> None:
    ext = extension(
        tmp_path,
        """
        export default (pi) => {
          pi.on("context", () => { pi.sendUserMessage("again"); });
        };
        """,
    )
    answer = real.run(ext, PLAN_AND_RUN)
    assert any("already processing" in e["message"] for e in answer["errors"]), answer["errors"]


def test_d10_send_user_message_from_an_idle_command_leaves_pi_idle_until_it_returns(
    real: SharedPi, tmp_path: Path
) -> None:
    ext = extension(
        tmp_path,
        """
        export default (pi) => {
          pi.registerCommand("go", { handler: async (_a, ctx) => {
            pi.sendUserMessage("start");
            ctx.ui.notify(String(ctx.isIdle()), "info");
          } });
        };
        """,
    )
    answer = real.run(ext, [{"do": "start"}, {"do": "command", "name": "go"}])
    assert notes(answer) == ["true"]
    assert answer["state"]["llmCalls"] == 1


def test_d13_a_catalogue_model_without_credentials_answers_ok(real: SharedPi, tmp_path: Path) -> None:
    ext = extension(
        tmp_path,
        """
        export default (pi) => {
          pi.registerCommand("auth", { handler: async (_a, ctx) => {
            const answer = await ctx.modelRegistry.getApiKeyAndHeaders(ctx.model);
            ctx.ui.notify(String(answer.ok), "info");
          } });
        };
        """,
    )
    assert notes(real.run(ext, [{"do": "start"}, {"do": "command", "name": "auth"}])) == ["true"]


def test_d14_thinking_levels_are_clamped_by_pi(real: SharedPi, tmp_path: Path) -> None:
    ext = extension(
        tmp_path,
        """
        export default (pi) => {
          pi.registerCommand("think", { handler: async (args, ctx) => {
            pi.setThinkingLevel(args);
            ctx.ui.notify(pi.getThinkingLevel(), "info");
          } });
        };
        """,
    )
    script = [
        {"do": "start"},
        {"do": "command", "name": "think", "args": "xhigh"},
        {"do": "command", "name": "think", "args": "bogus"},
    ]
    assert notes(real.run(ext, script)) == ["high", "off"]


def test_d17_a_new_sessions_branch_already_holds_the_model_and_thinking_level(
    real: SharedPi, tmp_path: Path
) -> None:
    ext = extension(
        tmp_path,
        """
        export default (pi) => {
          pi.registerCommand("branch", { handler: async (_a, ctx) => {
            ctx.ui.notify(ctx.sessionManager.getBranch().map((e) => e.type).join(","), "info");
          } });
        };
        """,
    )
    answer = real.run(ext, [{"do": "start"}, {"do": "new_session"}, {"do": "command", "name": "branch"}])
    types = notes(answer)[0].split(",")
    assert "model_change" in types and "thinking_level_change" in types


def test_d18_set_active_tools_with_duplicates(real: SharedPi, tmp_path: Path) -> None:
    ext = extension(
        tmp_path,
        """
        export default (pi) => {
          pi.registerCommand("dup", { handler: async () => pi.setActiveTools(["bash", "read", "bash"]) });
        };
        """,
    )
    answer = real.run(ext, [{"do": "start"}, {"do": "command", "name": "dup"}, {"do": "state"}])
    active = answer["results"][-1]["state"]["activeTools"]
    if answer["state"]["pi"] == "0.84.2":
        assert active == ["bash", "read", "bash"]
    else:
        assert active == ["read", "bash"]


def test_d4_one_turn_and_one_context_per_llm_call_and_all_new_messages_at_agent_end(
    real: SharedPi, tmp_path: Path
) -> None:
    ext = extension(
        tmp_path,
        """
        export default (pi) => {
          const seen = { context: 0, turn_start: 0, message_end: 0, tool_execution_start: 0 };
          for (const name of Object.keys(seen)) pi.on(name, () => { seen[name] += 1; });
          pi.on("agent_end", (event, ctx) => {
            ctx.ui.notify(JSON.stringify({ ...seen, agentEndMessages: event.messages.length }), "info");
          });
        };
        """,
    )
    script = [
        *PLAN_AND_RUN,
        {"do": "tool_call", "tool": "bash", "input": {"command": "ls"}},
        {"do": "agent_end"},
    ]
    answer = real.run(ext, script)
    counts = json.loads(notes(answer)[0])
    # user, assistant (tool call), tool result, assistant (reply); Pi 1.x
    # adds a system message to each run.
    messages = 4 if answer["state"]["pi"] == "0.84.2" else 5
    assert counts == {
        "context": 2,
        "turn_start": 2,
        "message_end": messages,
        "tool_execution_start": 1,
        "agentEndMessages": messages,
    }


def test_d9_a_follow_up_while_streaming_is_delivered_in_the_same_run(real: SharedPi, tmp_path: Path) -> None:
    ext = extension(
        tmp_path,
        """
        let sent = false;
        export default (pi) => {
          pi.on("context", () => { if (!sent) { sent = true; pi.sendUserMessage("more", { deliverAs: "followUp" }); } });
          pi.on("agent_end", (_e, ctx) => ctx.ui.notify("agent_end", "info"));
        };
        """,
    )
    script = [*PLAN_AND_RUN, {"do": "agent_end"}, {"do": "state"}]
    answer = real.run(ext, script)
    # The reply ends the first turn; the follow-up makes Pi call the model again.
    assert answer["results"][-1]["state"]["llmCalls"] == 2
    history = answer["results"][-1]["state"]["history"]
    assert [m["role"] for m in history if m["role"] != "system"][:3] == ["user", "assistant", "user"]


@pytest.mark.whole_suite
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("spec", "example"), [("planmode", PLAN_EXAMPLE), ("oplmodes", OPL_EXAMPLE)])
def test_each_example_through_real_pi_on_its_whole_fixture_suite(
    version: str, spec: str, example: Path
) -> None:
    """The documented example command, through real Pi: every fixture case of
    the example's spec passes, is a listed expected failure, or is answered
    unsupported."""
    installed(version)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--planmode-target=pi:{example}",
            f"--planmode-pi={version}",
            f"--planmode-expectations={example.parent / 'planmode-expectations.json'}",
            str(Path(install.__file__).resolve().parents[2] / "fixtures" / spec),
        ],
        capture_output=True,
        text=True,
        timeout=3000,
        check=False,
    )
    lines = done.stdout.splitlines()
    tail = "\n".join(lines[-15:])
    assert done.returncode == 0, tail
    assert " passed" in lines[-1] and " failed" not in lines[-1], tail
