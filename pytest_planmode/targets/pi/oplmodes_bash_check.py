"""`oplmodes.bash.check` through the host (opl-modes.md § Mode behavior,
§ Configuration): the config file in place before the module loads, the mode
entered the way a user does with no dialog, then one `bash` tool call with
the command.

Chat and plan mode: Pi starts with `--chat` or `--plan` ("start Pi in the
corresponding read-only mode"); a custom mode: `/mode <name>`. The verdict
is judged only when the extension then reports that mode in
`globalThis.__agentMode`; otherwise the case is unsupported with the reason
(a verdict in another mode says nothing about this one).

A command that is not a string never reaches the extension: Pi's schema
validation refuses it, so it is not allowed either."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_planmode.hosts.pi import steps as host_steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi._oplmodes import (
    CONFIG_FILE,
    FLAG_MODES,
    SHARED_STATE,
    active_after,
    mode_command,
    require_mode,
)
from pytest_planmode.targets.pi.translation import (
    HostRun,
    Translation,
    Unsupported,
    require_unconverted,
    step_trace,
)

OPERATION = "oplmodes.bash.check"


def _mode(payload: Mapping[str, Any]) -> str:
    mode = str(payload.get("mode", "off"))
    return "off" if mode == "normal" else mode


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[host_steps.Step]:
    mode = _mode(payload)
    if mode == "execute":
        raise Unsupported(
            "execute mode is entered only through /execute with a saved plan, "
            "which a decision case does not describe"
        )
    steps: list[host_steps.Step] = []
    if payload.get("config") is not None:
        steps.append(host_steps.WriteFile(root="agent", path=CONFIG_FILE, content=payload["config"]))
    if mode in FLAG_MODES:
        steps.append(host_steps.Start(flags={mode: True}))
    else:
        steps.append(host_steps.Start())
        if mode != "off":
            steps.append(mode_command(mode))
    steps.append(host_steps.ToolCall(tool="bash", input={"command": payload.get("command")}))
    return steps


def _how(mode: str) -> str:
    if mode in FLAG_MODES:
        return f"starting Pi with --{mode}"
    return "starting Pi" if mode == "off" else f"/mode {mode}"


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    mode = _mode(payload)
    entered_at = len(run.results) - 2
    entered = run.result(entered_at)
    if entered.get("error"):
        raise RuntimeError(f"{_how(mode)} failed: {entered['error']}")
    require_mode(entered, mode, _how(mode), step_trace(run, (0, entered_at + 1)))
    if "bash" not in active_after(entered):
        raise Unsupported(
            f"bash is not among {mode} mode's active tools: Pi refuses the call before the "
            "extension's gate, so the gate's verdict is not visible"
        )
    call = run.result(len(run.results) - 1)
    require_unconverted("bash", {"command": payload.get("command")}, call)
    if call.get("allowed"):
        return {"allowed": True, "reason": None}
    # The text returned to the model: the hook's block reason, what it threw,
    # or Pi's own refusal.
    text = call.get("reason") or call.get("thrown") or call.get("error")
    return {"allowed": False, "reason": text if isinstance(text, str) else None}


TRANSLATION = Translation(
    script, effects, command="mode", spec="opl-modes", options={"observe": True, "globals": [SHARED_STATE]}
)
