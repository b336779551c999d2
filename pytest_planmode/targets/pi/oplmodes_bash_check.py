"""`oplmodes.bash.check` through the host (opl-modes.md § Mode behavior,
§ Configuration): the config file in place before the module loads, the mode
entered with `/mode <name>`, then one `bash` tool call with the command.

A command that is not a string never reaches the extension: Pi's schema
validation refuses it, so it is not allowed either."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi.translation import HostRun, Translation, Unsupported

OPERATION = "oplmodes.bash.check"
CONFIG_FILE = "configs/opl-modes.json"


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[dict[str, Any]]:
    mode = str(payload.get("mode", "off"))
    if mode == "execute":
        raise Unsupported(
            "execute mode is entered only through /execute with a saved plan, "
            "which a decision case does not describe"
        )
    steps: list[dict[str, Any]] = []
    if payload.get("config") is not None:
        steps.append({"do": "write_file", "root": "agent", "path": CONFIG_FILE, "content": payload["config"]})
    steps.append({"do": "start"})
    if mode != "off":
        steps.append({"do": "command", "name": "mode", "args": mode})
    steps.append({"do": "tool_call", "tool": "bash", "input": {"command": payload.get("command")}})
    return steps


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    if len(run.results) >= 2 and run.results[-2].get("do") == "command":
        entered = run.result(len(run.results) - 2)
        if entered.get("error"):
            raise RuntimeError(f"/mode {payload.get('mode')} failed: {entered['error']}")
    call = run.result(len(run.results) - 1)
    if call.get("allowed"):
        return {"allowed": True, "reason": None}
    # The text returned to the model: the hook's block reason, what it threw,
    # or Pi's own refusal.
    text = call.get("reason") or call.get("thrown") or call.get("error")
    return {"allowed": False, "reason": text if isinstance(text, str) else None}


TRANSLATION = Translation(script, effects, command="mode", spec="opl-modes")
