"""What every opl-modes translation shares: where the extension reads its
configuration and keeps its plans, how a case's tools become Pi's registry,
how a mode is entered through `/mode`, and how notifications and the shared
mode state are read back (opl-modes.md § Configuration, § Commands, flags,
and shortcuts, § Architecture).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pytest_planmode.contract import host_events as host
from pytest_planmode.hosts.pi import steps
from pytest_planmode.spec_values import PI_BUILTIN_TOOLS
from pytest_planmode.targets.pi.translation import Unsupported

#: Under the agent directory; the module reads it when it loads.
CONFIG_FILE = "configs/opl-modes.json"
KEYBINDINGS_FILE = "keybindings.json"
#: Under the project directory.
PLANS_DIR = ".pi/plans"
#: The shared state opl-input and opl-footer read (§ Architecture).
SHARED_STATE = "__agentMode"
#: The mode-switcher session entry (a compatibility contract).
ENTRY_TYPE = "mode-switcher"
#: A plan file's name (opl-modes.md § Commands, flags, and shortcuts).
PLAN_FILE = re.compile(r"^plan-.+\.md$")
#: The tools opl-modes itself registers.
PLAN_COMPLETE = "plan_complete"
LOAD_TOOLS = "load_tools"
#: What the host reports after every step for these translations.
OPTIONS: Mapping[str, Any] = {
    "observe": True,
    "globals": [SHARED_STATE],
    "dirs": [PLANS_DIR],
    "traceReads": True,
}


def require_builtins(registered: list[str]) -> None:
    """A case's registry as real Pi can hold it: Pi registers its built-in
    tools whatever a case lists (only a `--tools` list at start leaves one
    out, and that list also activates every listed tool at each refresh of
    the registry), so a registry without one of them is not a state of
    Pi."""
    missing = [name for name in PI_BUILTIN_TOOLS if name not in registered]
    if missing:
        raise Unsupported(
            f"real Pi registers its built-in tools {', '.join(PI_BUILTIN_TOOLS)} whatever the case "
            f"lists; the case's registry lacks {', '.join(missing)}"
        )


def host_tool(name: str, active: bool) -> steps.HostTool:
    """A tool of Pi's registry: a built-in carries Pi's schema, anything else
    is another extension's tool."""
    builtin = name in PI_BUILTIN_TOOLS
    return steps.HostTool(
        name=name,
        source="builtin" if builtin else "user-extension",
        active=active,
        properties={"command": "string"} if name in host.SHELL_TOOLS else {},
    )


def config_step(config: Any) -> steps.WriteFile:
    """Writing the configuration file as the case gives it (a string is the
    file's text, anything else its JSON)."""
    content = config if isinstance(config, str) else json.dumps(config, indent=2)
    return steps.WriteFile(root="agent", path=CONFIG_FILE, content=content)


def mode_command(name: str) -> steps.Command:
    """`/mode <name>`; `normal` (or `off`) leaves every mode."""
    if not name or any(c.isspace() for c in name):
        raise Unsupported(f"the mode name {name!r} is not one word that /mode <name> can select")
    return steps.Command(name="mode", args="normal" if name == "off" else name)


#: Built-in modes Pi can start in with a flag (`--chat`, `--plan`).
FLAG_MODES = ("chat", "plan")


def entry_command(name: str, plan: str) -> steps.Command:
    """The command a user types to enter a mode with no dialog: `/plan <name>`
    for plan mode (a new named plan: `/mode plan` and a bare `/plan` may ask
    for a name in a dialog), `/mode <name>` for any other."""
    if name == "plan":
        return steps.Command(name="plan", args=plan)
    return mode_command(name)


def reported_mode(record: Mapping[str, Any]) -> Any:
    """The mode the extension publishes in `globalThis.__agentMode` after a
    step (opl-modes.md: the shared mode state opl-input and opl-footer read);
    None when it publishes none."""
    return shared_state(record).get("mode")


def dialogs(trace: list[dict[str, Any]]) -> int:
    """How many `ctx.ui.custom` dialogs the extension opened: terminal
    components the host cannot draw or answer (each stays open)."""
    return sum(1 for entry in trace if entry.get("call") == "ui.custom")


def require_mode(record: Mapping[str, Any], wanted: str, how: str, trace: list[dict[str, Any]]) -> None:
    """Unsupported unless the extension reports `wanted` after the step that
    entered it: a case about one mode is never judged in another."""
    now = reported_mode(record)
    if now == wanted or (wanted == "off" and now == "normal"):
        return
    why = (
        "it opened a custom dialog (ctx.ui.custom), which the host cannot drive"
        if dialogs(trace)
        else "the extension reports " + (f"mode {now!r}" if now is not None else "no mode in __agentMode")
    )
    raise Unsupported(f"{how} did not reach {wanted} mode: {why}")


def notifications(trace: list[dict[str, Any]]) -> list[dict[str, str]]:
    """`ctx.ui.notify` calls as `{level, message}` (Pi's default level is info)."""
    out: list[dict[str, str]] = []
    for entry in trace:
        if entry.get("call") != "ui.notify":
            continue
        args = list(entry.get("args") or [])
        if args:
            level = args[1] if len(args) > 1 and args[1] else "info"
            out.append({"level": str(level), "message": str(args[0])})
    return out


def shared_state(record: Mapping[str, Any]) -> dict[str, Any]:
    """`globalThis.__agentMode` as the host saw it after a step ({} when unset)."""
    value = ((record.get("after") or {}).get("globals") or {}).get(SHARED_STATE)
    return value if isinstance(value, dict) else {}


def active_after(record: Mapping[str, Any]) -> list[str]:
    return [str(name) for name in (record.get("after") or {}).get("activeTools") or []]


def config_document(config: Any) -> dict[str, Any]:
    """The configuration as a JSON object, for the translation's own
    planning (which modes exist, which lists they give); {} when the case
    gives none or something that is not an object."""
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except ValueError:
            return {}
    return config if isinstance(config, dict) else {}


def mode_config(config: Any, name: str) -> dict[str, Any]:
    modes = config_document(config).get("modes")
    own = modes.get(name) if isinstance(modes, dict) else None
    return own if isinstance(own, dict) else {}
