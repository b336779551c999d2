"""The Pi 1.x tool surface through the real-Pi host: tool exposure declared
by the tool's owner, Pi's `tool_search` declaring a tool, a nested call
through an orchestrator (`ctx.executeTool`, `parentToolCallId`), Pi's own
`defaultTools` with `+name`/`-name`, and `agent_before_settle` with its
outcome. One test per host step on Pi 1.6.0; Pi 0.84.2 refuses each step,
naming itself. Then a sample of the cases these steps make expressible,
through the example extension, and a planted bug they catch.

These tests need the pinned Pi releases installed (`planmode pi install
0.84.2 1.6.0`); without them they fail and say so."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode.contract.host_events import PiSettings
from pytest_planmode.hosts.pi import install
from tests.pi_examples import PLAN_EXAMPLE, planted
from tests.pi_real_hosts import SharedHosts, SharedPi

NEW = "1.6.0"
OLD = "0.84.2"


def installed(version: str) -> install.Installation:
    try:
        return install.find(version)
    except install.InstallError as exc:
        pytest.fail(f"{exc} (the real-Pi tests need `{install.install_command([OLD, NEW])}`)")


@pytest.fixture
def pi16(real_pi: SharedHosts) -> SharedPi:
    return real_pi(NEW)


@pytest.fixture
def pi084(real_pi: SharedHosts) -> SharedPi:
    return real_pi(OLD)


def extension(tmp: Path, source: str) -> Path:
    path = tmp / "ext.mjs"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


#: An extension that lets every call through and shows, for each call its
#: tool_call handler sees, the tool and the call that made it.
WATCHER = """
export default (pi) => {
  pi.on("tool_call", (event, ctx) => {
    ctx.ui.notify(`${event.toolName} <- ${event.parentToolCallId ?? "model"}`, "info");
  });
};
"""


def notes(answer: dict[str, Any]) -> list[str]:
    return [str(e["args"][0]) for e in answer["trace"] if e.get("call") == "ui.notify"]


def tool(name: str, exposure: str | None = None, **more: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "source": "user-extension", **more}
    return entry if exposure is None else {**entry, "exposure": exposure}


EXPOSURES = ["direct", "model-only", "codemode", "deferred", "hidden"]


def state(results: list[dict[str, Any]]) -> dict[str, Any]:
    return next(r["state"] for r in reversed(results) if r.get("do") == "state")


def exposures(results: list[dict[str, Any]]) -> dict[str, str]:
    return {t["name"]: t.get("exposure") for t in state(results)["tools"]}


# ---------------------------------------------------------------- Pi 1.6.0, one test per step


def test_registered_exposures_are_pis_and_only_direct_and_model_only_activate(
    pi16: SharedPi, tmp_path: Path
) -> None:
    ext = extension(tmp_path, "export default () => {};")
    # Registered before Pi starts, activated (or not) by Pi itself.
    steps = [{"do": "register_tool", **tool(f"t_{e.replace('-', '_')}", e)} for e in EXPOSURES]
    results = pi16.results(ext, [*steps, {"do": "start"}, {"do": "state"}])
    assert [r.get("refused") for r in results] == [None] * len(results)
    shown = exposures(results)
    assert {shown[f"t_{e.replace('-', '_')}"] for e in EXPOSURES} == set(EXPOSURES)
    active = [name for name in state(results)["activeTools"] if name.startswith("t_")]
    assert active == ["t_direct", "t_model_only"]


def test_a_hidden_tool_is_not_found_and_a_model_only_one_reaches_tool_call(
    pi16: SharedPi, tmp_path: Path
) -> None:
    ext = extension(tmp_path, WATCHER)
    script = [
        {"do": "registry", "tools": [tool("secret", "hidden"), tool("summarize", "model-only")]},
        {"do": "start"},
        {"do": "agent_start", "prompt": "go"},
        {"do": "tool_call", "tool": "secret"},
        {"do": "tool_call", "tool": "summarize"},
    ]
    secret, summarize = pi16.results(ext, script)[-2:]
    assert secret["reached"] is False and secret["error"].startswith("Tool secret not found")
    assert summarize["reached"] is True and summarize["allowed"] is True


def test_register_tool_mid_session_is_the_owners_registration(pi16: SharedPi, tmp_path: Path) -> None:
    ext = extension(tmp_path, "export default () => {};")
    script = [
        {"do": "start"},
        {"do": "register_tool", "name": "late_direct", "source": "user-extension"},
        {
            "do": "register_tool",
            "name": "late_deferred",
            "source": "project-extension",
            "exposure": "deferred",
        },
        {"do": "state"},
    ]
    results = pi16.results(ext, script)
    assert [r.get("refused") for r in results] == [None] * 4
    shown = {t["name"]: t for t in state(results)["tools"]}
    assert shown["late_direct"]["source"] != "builtin"
    assert shown["late_deferred"]["exposure"] == "deferred"
    active = state(results)["activeTools"]
    assert "late_direct" in active and "late_deferred" not in active


def test_expose_is_the_owner_registering_the_tool_again(pi16: SharedPi, tmp_path: Path) -> None:
    ext = extension(tmp_path, WATCHER)
    script = [
        {"do": "registry", "tools": [tool("codemode"), tool("web", "deferred", active=False)]},
        {"do": "start"},
        {"do": "expose", "name": "web", "exposure": "hidden"},
        {"do": "agent_start", "prompt": "go"},
        {"do": "tool_call", "tool": "web", "via": "codemode"},
        {"do": "agent_end"},
        {"do": "expose", "name": "web", "exposure": "deferred"},
        {"do": "agent_start", "prompt": "go"},
        {"do": "tool_call", "tool": "web", "via": "codemode"},
    ]
    results = pi16.results(ext, script)
    assert results[2]["exposure"] == "hidden"
    assert results[4]["reached"] is False and results[4]["error"].startswith("Tool web not found")
    assert results[6]["exposure"] == "deferred"
    assert results[8]["reached"] is True and results[8]["allowed"] is True


def test_expose_of_a_built_in_is_refused(pi16: SharedPi, tmp_path: Path) -> None:
    ext = extension(tmp_path, "export default () => {};")
    results = pi16.results(ext, [{"do": "start"}, {"do": "expose", "name": "read", "exposure": "hidden"}])
    assert "built-in read" in results[-1]["refused"]


def test_declare_is_pis_tool_search_loading_the_tool_for_the_next_call(
    pi16: SharedPi, tmp_path: Path
) -> None:
    ext = extension(tmp_path, WATCHER)
    script = [
        {"do": "registry", "tools": [tool("web_fetch", "deferred", active=False)]},
        {"do": "start"},
        {"do": "agent_start", "prompt": "go"},
        {"do": "tool_call", "tool": "web_fetch"},
        {"do": "agent_end"},
        {"do": "declare", "name": "web_fetch"},
        {"do": "agent_start", "prompt": "go"},
        {"do": "tool_call", "tool": "web_fetch"},
    ]
    results = pi16.results(ext, script)
    assert results[3]["reached"] is False
    assert results[5]["loaded"] == ["web_fetch"] and results[5]["text"].startswith("Loaded 1 tool")
    assert "web_fetch" in results[5]["active"]
    assert results[7]["reached"] is True


def test_declare_of_a_direct_tool_is_refused(pi16: SharedPi, tmp_path: Path) -> None:
    ext = extension(tmp_path, "export default () => {};")
    results = pi16.results(ext, [{"do": "start"}, {"do": "declare", "name": "grep"}])
    assert "codemode or deferred tools only" in results[-1]["refused"]


def test_a_nested_call_reaches_tool_call_with_the_orchestrators_call_id(
    pi16: SharedPi, tmp_path: Path
) -> None:
    ext = extension(tmp_path, WATCHER)
    script = [
        {"do": "registry", "tools": [{"name": "bash", "source": "builtin"}, tool("codemode")]},
        {"do": "start"},
        {"do": "agent_start", "prompt": "go"},
        {"do": "tool_call", "tool": "bash", "input": {"command": "ls"}, "via": "codemode"},
    ]
    answer = pi16.run(ext, script)
    nested = answer["results"][-1]
    assert nested["orchestrator"]["allowed"] is True
    assert nested["reached"] is True and nested["allowed"] is True
    parent = nested["parentToolCallId"]
    assert notes(answer) == ["codemode <- model", f"bash <- {parent}"]


def test_a_nested_call_of_a_model_only_tool_is_pis_refusal(pi16: SharedPi, tmp_path: Path) -> None:
    ext = extension(tmp_path, WATCHER)
    script = [
        {"do": "registry", "tools": [tool("codemode"), tool("summarize", "model-only")]},
        {"do": "start"},
        {"do": "agent_start", "prompt": "go"},
        {"do": "tool_call", "tool": "summarize", "via": "codemode"},
    ]
    answer = pi16.run(ext, script)
    nested = answer["results"][-1]
    assert nested["reached"] is False and nested["error"].startswith("Tool summarize not found")
    assert notes(answer) == ["codemode <- model"]


def test_a_blocked_orchestrator_makes_no_nested_call(pi16: SharedPi, tmp_path: Path) -> None:
    ext = extension(
        tmp_path,
        'export default (pi) => { pi.on("tool_call", (e) => e.toolName === "codemode" ? { block: true, reason: "no" } : undefined); };',
    )
    script = [
        {"do": "registry", "tools": [{"name": "read", "source": "builtin"}, tool("codemode")]},
        {"do": "start"},
        {"do": "agent_start", "prompt": "go"},
        {"do": "tool_call", "tool": "read", "via": "codemode"},
    ]
    nested = pi16.results(ext, script)[-1]
    assert nested["nested"] is False and nested["reached"] is True and nested["allowed"] is False
    assert nested["reason"] == "no"


@pytest.mark.parametrize(
    ("default_tools", "active"),
    [
        (["+grep", "+find", "+ls"], ["read", "bash", "edit", "write", "grep", "find", "ls"]),
        (["+grep", "-write"], ["read", "bash", "edit", "grep"]),
        (["grep", "find"], ["grep", "find"]),
    ],
)
def test_pi_settings_default_tools_with_modifiers(
    pi16: SharedPi, tmp_path: Path, default_tools: list[str], active: list[str]
) -> None:
    ext = extension(tmp_path, "export default () => {};")
    script = [
        {"do": "pi_settings", "settings": {"defaultTools": default_tools}},
        {"do": "start"},
        {"do": "state"},
    ]
    assert state(pi16.results(ext, script))["activeTools"] == active
    # The contract's reading of the setting (the reference's) is Pi's.
    assert PiSettings(defaultTools=default_tools, piVersion=NEW).active_built_ins() == active


def test_pi_settings_after_start_is_refused(pi16: SharedPi, tmp_path: Path) -> None:
    ext = extension(tmp_path, "export default () => {};")
    results = pi16.results(ext, [{"do": "start"}, {"do": "pi_settings", "settings": {"defaultTools": []}}])
    assert "reads its settings when it starts" in results[-1]["refused"]


@pytest.mark.parametrize(
    ("end", "outcome"),
    [
        ({}, "completed"),
        ({"outcome": "error"}, "error"),
        ({"outcome": "aborted", "by": "model"}, "aborted"),
        # ESC: Pi 1.6.0 skips the boundary of a run the user aborted.
        ({"outcome": "aborted"}, None),
    ],
)
def test_agent_before_settle_carries_the_outcome(
    pi16: SharedPi, tmp_path: Path, end: dict[str, Any], outcome: str | None
) -> None:
    ext = extension(tmp_path, "export default () => {};")
    script = [{"do": "start"}, {"do": "agent_start", "prompt": "go"}, {"do": "agent_end", **end}]
    assert pi16.results(ext, script)[-1]["beforeSettle"] == outcome


#: Three runs: before /plan start, inside Plan mode, after /plan exit; the
#: model-visible tools of each run's first LLM call.
ACROSS_PLAN = [
    {"do": "start"},
    {"do": "agent_start", "prompt": "before"},
    {"do": "model_tools"},
    {"do": "agent_end"},
    {"do": "command", "name": "plan", "args": "start"},
    {"do": "agent_start", "prompt": "planning"},
    {"do": "model_tools"},
    {"do": "agent_end"},
    {"do": "command", "name": "plan", "args": "exit"},
    {"do": "agent_start", "prompt": "after"},
    {"do": "model_tools"},
]


def model_visible(results: list[dict[str, Any]]) -> list[tuple[list[str], dict[str, Any]]]:
    return [(r["tools"], r["schemas"]) for r in results if r.get("do") == "model_tools"]


def test_the_example_keeps_the_model_visible_tools_across_plan_start_and_exit(pi16: SharedPi) -> None:
    # "Plan mode does not call setActiveTools()"; "Neither setting changes
    # model-visible tool schemas" (pi-plan-mode-settings.md).
    seen = model_visible(pi16.results(PLAN_EXAMPLE, ACROSS_PLAN))
    assert len(seen) == 3 and seen[0][0], seen
    assert seen[1] == seen[0] and seen[2] == seen[0]


def test_an_extension_narrowing_the_tools_in_plan_mode_is_seen(pi16: SharedPi, tmp_path: Path) -> None:
    ext = extension(
        tmp_path,
        """
        export default (pi) => {
          pi.registerCommand("plan", { handler: async (args) => pi.setActiveTools(args === "start" ? ["read"] : ["read", "bash", "edit", "write"]) });
        };
        """,
    )
    tools = [names for names, _ in model_visible(pi16.results(ext, ACROSS_PLAN))]
    assert tools == [["read", "bash", "edit", "write"], ["read"], ["read", "bash", "edit", "write"]]


# ---------------------------------------------------------------- Pi 0.84.2 refuses, naming itself


@pytest.mark.parametrize(
    ("steps", "phrase"),
    [
        ([{"do": "start"}, {"do": "expose", "name": "x", "exposure": "hidden"}], "has no tool exposure"),
        # The other refusals are the same mechanism (the whole_suite run).
        pytest.param(
            *([{"do": "start"}, {"do": "declare", "name": "x"}], "has no tool_search"),
            marks=pytest.mark.whole_suite,
        ),
        pytest.param(
            *([{"do": "registry", "tools": [tool("web", "deferred")]}], "has no tool exposure"),
            marks=pytest.mark.whole_suite,
        ),
        pytest.param(
            *(
                [{"do": "registry", "tools": [{"name": "codemode", "source": "builtin"}]}],
                "has no built-in codemode",
            ),
            marks=pytest.mark.whole_suite,
        ),
        pytest.param(
            *(
                [{"do": "start"}, {"do": "tool_call", "tool": "read", "via": "codemode"}],
                "emits no tool_call for a call another tool makes",
            ),
            marks=pytest.mark.whole_suite,
        ),
        pytest.param(
            *(
                [{"do": "start"}, {"do": "agent_start"}, {"do": "agent_end", "beforeSettle": True}],
                "the case's Pi emits agent_before_settle; Pi 0.84.2 does not",
            ),
            marks=pytest.mark.whole_suite,
        ),
    ],
)
def test_pi_0842_refuses_the_1x_steps(
    pi084: SharedPi, tmp_path: Path, steps: list[dict[str, Any]], phrase: str
) -> None:
    ext = extension(tmp_path, "export default () => {};")
    refused = [r["refused"] for r in pi084.results(ext, steps) if r.get("refused")]
    assert refused and phrase in refused[0] and OLD in refused[0]


def test_pi_0842_reads_modifiers_as_names(pi084: SharedPi, tmp_path: Path) -> None:
    # The spec's warning: "Do not use modifiers on older releases".
    ext = extension(tmp_path, "export default () => {};")
    script = [
        {"do": "pi_settings", "settings": {"defaultTools": ["+grep", "-write"]}},
        {"do": "start"},
        {"do": "state"},
    ]
    assert state(pi084.results(ext, script))["activeTools"] == []
    selected = PiSettings(defaultTools=["+grep", "-write"], piVersion=OLD).active_built_ins()
    assert not set(selected) & {"read", "bash", "edit", "write", "grep", "find", "ls"}


def test_a_case_for_another_pis_modifiers_is_refused(pi16: SharedPi, tmp_path: Path) -> None:
    ext = extension(tmp_path, "export default () => {};")
    step = {"do": "pi_settings", "piVersion": OLD, "settings": {"defaultTools": ["+grep"]}}
    refused = pi16.results(ext, [step])[0]["refused"]
    assert "reads +name/-name in defaultTools as exact names" in refused


# ---------------------------------------------------------------- the cases they make expressible


#: Cases whose events need the Pi 1.x steps: they pass through the example
#: on Pi 1.6.0 (unsupported on 0.84.2).
EXPRESSIBLE = [
    "planmode.tools.authorize.host.nested.spec-example",
    "planmode.tools.authorize.host.nested.model-only",
    "planmode.tools.authorize.host.widen.tool-search-selected",
    "planmode.tools.authorize.host.widen.new-registration",
    "planmode.tools.freeze.exposure.deferred-without-activation",
    "planmode.tools.authorize.host.widen.hidden-later-extension-tool",
    "planmode.tools.authorize.host.widen.hidden-later-deferred-redeclared",
    "planmode.tools.authorize.host.pi-settings.additive-search-tools",
    "planmode.tools.authorize.host.pi-settings.default-selection-leaves-grep-inactive",
    "planmode.tools.authorize.host.pi-settings.policy-not-bypassed",
    "planmode.tools.authorize.host.pi-settings.edit-active-still-blocked",
]


@pytest.mark.parametrize("case_id", EXPRESSIBLE)
def test_a_1x_case_passes_through_the_example_on_pi_16(pi16: SharedPi, case_id: str) -> None:
    assert pi16.judge(PLAN_EXAMPLE, case_id) == []


def test_a_planted_bug_in_deferred_selection_fails_through_pi_16(pi16: SharedPi, tmp_path: Path) -> None:
    entry = planted(
        tmp_path,
        'const SELECTABLE_INACTIVE = new Set(["codemode", "deferred", "codemode-deferred"]);',
        'const SELECTABLE_INACTIVE = new Set(["codemode", "codemode-deferred"]);',
    )
    for case_id in (
        "planmode.tools.authorize.host.widen.tool-search-selected",
        "planmode.tools.authorize.host.widen.hidden-later-deferred-redeclared",
    ):
        assert pi16.judge(entry, case_id), f"{case_id}: the planted bug went unnoticed"


def test_a_planted_bug_taking_activation_for_permission_fails_through_pi_16(
    pi16: SharedPi, tmp_path: Path
) -> None:
    # "defaultPlanTools only grants Plan-mode execution permission and never
    # activates tools"; the setup "does not bypass blocked policy".
    entry = planted(
        tmp_path,
        "if (!state.allowlist.includes(name)) {",
        "if (!state.allowlist.includes(name) && !pi.getActiveTools().includes(name)) {",
    )
    assert pi16.judge(entry, "planmode.tools.authorize.host.pi-settings.policy-not-bypassed"), (
        "the planted bug went unnoticed"
    )
