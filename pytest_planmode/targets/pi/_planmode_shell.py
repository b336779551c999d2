"""Shared by the two pi-plan-mode limited-shell translations
(pi-plan-mode-settings.md § Safe shell subcommands): enter Plan mode with
`/plan start`, then, inside an agent run after its first context (where
Plan mode freezes its allowlist), one `tool_call` of the shell tool with
the command."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_planmode.hosts.pi import steps as host_steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi.translation import OPL_COMMANDS, HostRun, Translation, in_sandbox

SETTINGS_FILE = "pi-plan-mode.json"
SPEC = "pi-plan-mode"


def translation(tool: str, *, extra_tool: bool) -> Translation:
    def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[host_steps.Step]:
        steps: list[host_steps.Step] = []
        raw = payload.get("safeSubcommands", payload.get("safe_subcommands"))
        if raw is not None:
            steps.append(
                host_steps.WriteFile(root="agent", path=SETTINGS_FILE, content={"safeSubcommands": raw})
            )
        if extra_tool:
            # Pi 0.84.2 has no built-in powershell tool; the host provides one
            # with built-in metadata, active before the session starts.
            steps.append(
                host_steps.RegisterTool(name=tool, source="builtin", properties={"command": "string"})
            )
        command = in_sandbox(str(payload.get("command", "")), str(payload.get("cwd", "")), str(sandbox.cwd))
        steps += [
            host_steps.Start(),
            host_steps.Command(name="plan", args="start"),
            host_steps.AgentStart(prompt="inspect"),
            host_steps.Context(),
            host_steps.ToolCall(tool=tool, input={"command": command}),
        ]
        return steps

    def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
        started = run.result(len(run.results) - 4)
        if started.get("error"):
            raise RuntimeError(f"/plan start failed: {started['error']}")
        call = run.result(len(run.results) - 1)
        # A call Pi itself refuses (the tool is not active in Plan mode) is not
        # allowed either: the command never runs.
        return {"allowed": bool(call.get("allowed"))}

    return Translation(script, effects, command="plan", spec=SPEC, unless=OPL_COMMANDS)
