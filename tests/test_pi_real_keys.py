"""Steps the real-Pi host once refused and now takes the way Pi does, on
both Pi versions: a key press dispatched as Pi's interactive mode does
(its own thinking cycle among Pi's actions), a follow-up with no run
streaming, a registry that grows mid-session; and the refusals that stay,
each naming what Pi lacks."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode.hosts.pi import install
from tests.pi_examples import extension
from tests.pi_real_hosts import SharedHosts, SharedPi

VERSIONS = install.VERSIONS

SHORTCUTS = """
export default (pi) => {
  pi.registerShortcut("shift+tab", { description: "cycle", handler: async (ctx) => ctx.ui.notify("shift+tab", "info") });
  pi.registerShortcut("ctrl+alt+m", { description: "mode", handler: async (ctx) => ctx.ui.notify("ctrl+alt+m", "info") });
  pi.registerCommand("late", { description: "late", handler: async () => {
    pi.registerShortcut("ctrl+alt+x", { description: "late", handler: async (ctx) => ctx.ui.notify("ctrl+alt+x", "info") });
  } });
  pi.registerCommand("send", { description: "send", handler: async () => { pi.sendUserMessage("go on"); } });
};
"""


@pytest.fixture(params=VERSIONS)
def real(request: pytest.FixtureRequest, real_pi: SharedHosts) -> SharedPi:
    return real_pi(request.param)


@pytest.fixture
def ext(tmp_path: Path) -> Path:
    path = extension(tmp_path, SHORTCUTS)
    return path


def notified(answer: dict[str, Any]) -> list[str]:
    return [e["args"][0] for e in answer["trace"] if e.get("call") == "ui.notify"]


def test_the_thinking_key_cycles_pis_level_and_skips_an_extension_shortcut_on_it(
    real: SharedPi, ext: Path
) -> None:
    # shift+tab is Pi's app.thinking.cycle: Pi skips the extension's
    # shortcut on it at load, so the press cycles the thinking level alone.
    answer = real.run(
        ext,
        [
            {"do": "start"},
            {"do": "shortcut", "key": "shift+tab"},
            {"do": "shortcut", "key": "Ctrl+Alt+M"},
            {"do": "state"},
        ],
    )
    pressed, other, state = answer["results"][1:]
    assert pressed["thinkingCycled"] is True
    assert "reserved app.thinking.cycle" in pressed["error"]
    assert other["thinkingCycled"] is False and "error" not in other
    assert notified(answer) == ["ctrl+alt+m"]
    assert state["state"]["thinkingLevel"] == "minimal"


def test_a_step_expecting_both_bindings_of_the_thinking_key_is_refused(real: SharedPi, ext: Path) -> None:
    answer = real.run(ext, [{"do": "start"}, {"do": "shortcut", "key": "shift+tab", "thinkingCycle": True}])
    assert "never both" in answer["results"][1]["refused"]
    assert notified(answer) == []


def test_a_rebound_thinking_cycle_frees_the_key_for_the_extension(real: SharedPi, ext: Path) -> None:
    # keybindings.json moves app.thinking.cycle to ctrl+t (also Pi's
    # app.thinking.toggle: the cycle is checked first).
    answer = real.run(
        ext,
        [
            {
                "do": "write_file",
                "root": "agent",
                "path": "keybindings.json",
                "content": {"app.thinking.cycle": "ctrl+t"},
            },
            {"do": "start"},
            {"do": "shortcut", "key": "shift+tab"},
            {"do": "shortcut", "key": "ctrl+t", "thinkingCycle": True},
            {"do": "state"},
        ],
    )
    shortcut, thinking, state = answer["results"][2:]
    assert shortcut == {**shortcut, "thinkingCycled": False} and "error" not in shortcut
    assert thinking["thinkingCycled"] is True
    assert notified(answer) == ["shift+tab"]
    assert state["state"]["thinkingLevel"] == "minimal"


def test_a_shortcut_registered_after_the_bind_is_not_pressed(real: SharedPi, ext: Path) -> None:
    # Pi's interactive mode takes its shortcut table when it binds the
    # extensions: a live registration is not in it.
    answer = real.run(
        ext, [{"do": "start"}, {"do": "command", "name": "late"}, {"do": "shortcut", "key": "ctrl+alt+x"}]
    )
    assert answer["results"][2]["error"] == "no shortcut ctrl+alt+x"
    assert notified(answer) == []


def test_a_follow_up_with_no_run_streaming_is_a_prompt(real: SharedPi, ext: Path) -> None:
    answer = real.run(
        ext, [{"do": "start"}, {"do": "queue", "prompt": "hello"}, {"do": "agent_end"}, {"do": "state"}]
    )
    queued, _end, state = answer["results"][1:]
    assert queued["queued"] is False and "refused" not in queued
    history = [m for m in state["state"]["history"] if m["role"] == "user"]
    assert [m["content"][0]["text"] if isinstance(m["content"], list) else m["content"] for m in history] == [
        "hello"
    ]


def test_a_follow_up_joins_a_run_an_extension_started(real: SharedPi, ext: Path) -> None:
    # The run sendUserMessage starts streams: the follow-up is queued for it
    # and Pi calls the model again in the same run.
    answer = real.run(
        ext,
        [
            {"do": "start"},
            {"do": "command", "name": "send"},
            {"do": "queue", "prompt": "more"},
            {"do": "agent_end"},
            {"do": "state"},
        ],
    )
    assert answer["results"][2]["queued"] is True
    assert answer["results"][-1]["state"]["llmCalls"] == 2


def test_a_registry_grows_through_another_extension_and_never_shrinks(real: SharedPi, ext: Path) -> None:
    def tool(name: str, source: str = "builtin") -> dict[str, Any]:
        return {"name": name, "source": source, "active": True}

    start = [tool("read"), tool("bash"), tool("subagent", "user-extension")]
    answer = real.run(
        ext,
        [
            {"do": "registry", "tools": start},
            {"do": "start"},
            {"do": "set_registry", "tools": [*start, tool("web_search", "user-extension")]},
            {"do": "set_registry", "tools": [tool("read"), tool("bash")]},
            {"do": "state"},
        ],
    )
    grown, shrunk, state = answer["results"][2:]
    assert grown["active"] == ["read", "bash", "subagent", "web_search"]
    assert "no API to unregister a tool: subagent" in shrunk["refused"]
    tools = {t["name"]: t["source"] for t in state["state"]["tools"]}
    assert tools["web_search"] not in ("builtin", None) and "subagent" in tools


@pytest.mark.parametrize(
    ("step", "why"),
    [
        ({"do": "set_cwd", "path": "sub"}, "only by switching to a session recorded in another directory"),
    ],
)
def test_what_pi_cannot_do_stays_refused_with_its_reason(
    real: SharedPi, ext: Path, step: dict[str, Any], why: str
) -> None:
    answer = real.run(ext, [{"do": "start"}, step])
    assert why in answer["results"][1]["refused"]


def test_a_kickoff_sent_into_a_fresh_session_is_recorded_in_it(real: SharedPi, tmp_path: Path) -> None:
    # A command starts a new session and sends the kickoff from it
    # (newSession's withSession): the message belongs to session 2.
    path = tmp_path / "fresh.mjs"
    path.write_text(
        textwrap.dedent(
            """
            export default (pi) => {
              pi.registerCommand("fresh", { description: "fresh", handler: async (_args, ctx) => {
                pi.sendUserMessage("here");
                await ctx.newSession({ withSession: async (next) => { await next.sendUserMessage("there"); } });
              } });
            };
            """
        ),
        encoding="utf-8",
    )
    answer = real.run(path, [{"do": "start"}, {"do": "command", "name": "fresh"}])
    sent = [(e["args"][0], e["session"]) for e in answer["trace"] if e.get("call") == "pi.sendUserMessage"]
    assert sent == [("here", 1), ("there", 2)]
