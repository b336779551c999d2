"""`oplmodes.tools.active` through the host (opl-modes.md § Mode behavior,
§ Tool inheritance warning, § Execute handoff, § Lazy tool loading).

Before the extension loads: Pi's registry (the case's registered tools)
with the snapshot as its active set (the tools active at rest), and the
configuration file. Then the user enters the mode with no dialog:
`/plan <name>` for plan mode (a new named plan), `/mode <name>` for the
others; `/execute <plan>` for execute mode (a plan file is put under
`.pi/plans/` for it, as `/mode execute` is excluded); for `off` (or
`normal`) another mode first and then `/mode normal`, since entering off is
leaving a mode. An entry that opens a custom dialog (which Pi answers with
nothing in RPC mode), or a stepping-stone mode the extension does not then
report, makes the case unsupported rather than judged in another mode.
Lazy tools already loaded in the mode are a `load_tools` call the model
makes in an agent run.

Effects, from what Pi and the other extensions see: the mode from the
shared state (`globalThis.__agentMode`), the error and warnings from the
notifications of the entry, the active set from Pi. `load_tools` and
`plan_complete` count as offered when they are in Pi's active set: Pi has
no way to unregister a tool, so a tool registered once stays registered,
and what the spec's "registers and activates" shows the model is the
active set.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_planmode.contract import oplmodes_tools as contract
from pytest_planmode.hosts.pi import steps as host_steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.spec_values import PI_BUILTIN_TOOLS
from pytest_planmode.targets.pi._oplmodes import (
    LOAD_TOOLS,
    OPTIONS,
    PLAN_COMPLETE,
    PLANS_DIR,
    active_after,
    config_document,
    config_step,
    dialogs,
    entry_command,
    host_tool,
    mode_command,
    mode_config,
    notifications,
    require_builtins,
    require_mode,
    shared_state,
)
from pytest_planmode.targets.pi.translation import (
    HostRun,
    Translation,
    Unsupported,
    parse_input,
    step_trace,
)

OPERATION = "oplmodes.tools.active"
#: The plan `/execute` runs to enter execute mode.
EXECUTE_PLAN = "task"
#: The new plans `/plan <name>` creates to enter plan mode (an earlier entry
#: gets its own name: a second `/plan` of an existing plan loads it instead).
DRAFT_PLANS = ("draft", "draft-earlier")
#: The built-in read-only modes whose default tool lists the spec does not name.
READ_ONLY = ("chat", "plan")
OWN_TOOLS = (PLAN_COMPLETE, LOAD_TOOLS)


def canonical(mode: str) -> str:
    return "off" if mode == "normal" else mode


def _listed(config: Any, mode: str) -> list[str] | None:
    """The mode's own tool list as the configuration gives it (None: it
    inherits, or it is a built-in list the spec does not name)."""
    tools = mode_config(config, mode).get("tools")
    if tools is None and mode in READ_ONLY:
        tools = config_document(config).get(f"{mode}AllowedTools")
    if isinstance(tools, list) and all(isinstance(t, str) for t in tools):
        return list(tools)
    return None


def _enabled(config: Any, mode: str) -> bool:
    return mode_config(config, mode).get("enabled") is not False


def _stepping_stone(case: contract.ToolsActiveInput, off_unknown: set[str]) -> str:
    """A mode to enter before going back to off: the first enabled one that
    cannot warn about a name the off list also holds (a name is warned about
    once per session); a built-in list the spec does not name may hold any
    built-in tool."""
    modes = config_document(case.config).get("modes")
    custom = [n for n in modes if n not in ("off", "execute", *READ_ONLY)] if isinstance(modes, dict) else []
    candidates = [n for n in (*READ_ONLY, *custom) if _enabled(case.config, n) and n.strip() == n and n]
    if not candidates:
        raise Unsupported("off is entered by leaving another mode, and the configuration leaves none")
    for name in candidates:
        listed = _listed(case.config, name)
        may_list = set(PI_BUILTIN_TOOLS) if listed is None and name in READ_ONLY else set(listed or [])
        if not off_unknown & may_list and not any(c.isspace() for c in name):
            return str(name)
    raise Unsupported(
        f"off is entered by leaving another mode, and every mode to leave may list "
        f"{', '.join(sorted(off_unknown))} too: a name is warned about once per session"
    )


@dataclass(frozen=True)
class Plan:
    steps: list[host_steps.Step]
    #: The step that enters the mode (its trace holds the entry's messages).
    entry: int
    #: The step after which the mode's tools are read.
    settled: int
    #: The stepping-stone mode entered before off, and its step.
    stone: tuple[str, int] | None = None


def _unknown(names: list[str] | None, registered: set[str]) -> set[str]:
    return {n for n in names or [] if n not in registered and n not in OWN_TOOLS}


def build(case: contract.ToolsActiveInput) -> Plan:
    target = canonical(case.mode)
    registered = list(dict.fromkeys(case.registered_tools))
    require_builtins(registered)
    snapshot = registered if case.snapshot is None else list(dict.fromkeys(case.snapshot))
    if target != "off":
        # The snapshot is taken on entering this mode, when only tools Pi
        # has can be active: a name Pi does not have is in none.
        snapshot = [n for n in snapshot if n in registered]
    gone = [n for n in snapshot if n not in registered]
    steps: list[host_steps.Step] = [
        host_steps.Registry(tools=[host_tool(n, n in snapshot) for n in [*registered, *gone]])
    ]
    if case.config is not None:
        steps.append(config_step(case.config))
    if target == "execute":
        steps.append(
            host_steps.WriteFile(
                root="cwd", path=f"{PLANS_DIR}/plan-{EXECUTE_PLAN}.md", content=f"# {EXECUTE_PLAN}\n"
            )
        )
    steps.append(host_steps.Start())

    known = set(registered)
    stone: str | None = None
    earlier: list[host_steps.Step] = []
    if target == "off":
        stone = _stepping_stone(case, _unknown(_listed(case.config, "off"), known))
        entry: list[host_steps.Step] = [entry_command(stone, DRAFT_PLANS[0])]
        if gone:
            # Tools that were active at rest and are gone by the time off returns.
            entry.append(host_steps.SetRegistry(tools=[host_tool(n, True) for n in registered]))
        entry.append(mode_command("off"))
        back: list[host_steps.Step] = []
    else:
        if target == "execute":
            if mode_config(case.config, "off").get("allowExecute") is False:
                raise Unsupported(
                    "execute mode is entered with /execute from normal mode, which the "
                    "configuration forbids (modes.off.allowExecute is false)"
                )
            entry = [host_steps.Command(name="execute", args=EXECUTE_PLAN)]
            earlier = entry
        else:
            entry = [entry_command(target, DRAFT_PLANS[0])]
            earlier = [entry_command(target, DRAFT_PLANS[1])]
        back = [mode_command("off")]

    warned = {n for n in case.warned_tools if n not in known and n not in OWN_TOOLS}
    if warned:
        listed = _listed(case.config, target)
        if listed is None and target in READ_ONLY:
            raise Unsupported(
                f"names already warned about ({', '.join(sorted(warned))}) and the built-in {target} list, "
                "which the spec does not name: which of them it holds is unknown"
            )
        unknown = _unknown(listed, known)
        if unknown & warned and not unknown <= warned:
            raise Unsupported(
                "only some of the mode's unknown names were warned about already "
                f"({', '.join(sorted(unknown & warned))} of {', '.join(sorted(unknown))}): the host warns "
                "a name by entering a mode that lists it, which warns all of them"
            )
        if unknown & warned:
            steps += earlier + back  # an earlier entry of the same mode in this session
    stone_at = len(steps) if stone is not None else None
    steps += entry
    entry_index = len(steps) - 1
    if case.loaded:
        steps += [
            host_steps.AgentStart(prompt=""),
            host_steps.ToolCall(tool=LOAD_TOOLS, input={"tools": list(case.loaded)}, execute=True),
        ]
    at_stone = (stone, stone_at) if stone is not None and stone_at is not None else None
    return Plan(steps, entry_index, len(steps) - 1, at_stone)


def entry_outcome(case: contract.ToolsActiveInput, run: HostRun, plan: Plan) -> tuple[bool, str, str | None]:
    """Whether the mode was entered, the mode the shared state shows, and
    the error shown when it was not."""
    if plan.stone is not None:
        name, at = plan.stone
        how = "/plan <name>" if name == "plan" else f"/mode {name}"
        require_mode(
            run.result(at), name, f"entering off by leaving {name} mode: {how}", step_trace(run, (at, at + 1))
        )
    record = run.result(plan.entry)
    now = shared_state(record).get("mode")
    target = canonical(case.mode)
    if now == target:
        return True, str(now), None
    entered = step_trace(run, (plan.entry, plan.entry + 1))
    if dialogs(entered):
        raise Unsupported(
            f"entering {target} mode opened a custom dialog (ctx.ui.custom), which the host cannot drive"
        )
    notes = notifications(entered)
    errors = [n["message"] for n in notes if n["level"] == "error"]
    return False, str(case.mode), errors[0] if errors else None


def entry_warnings(run: HostRun, plan: Plan) -> list[str]:
    notes = notifications(step_trace(run, (plan.entry, plan.entry + 1)))
    return [n["message"] for n in notes if n["level"] == "warning"]


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[host_steps.Step]:
    return build(parse_input(OPERATION, contract.ToolsActiveInput, payload)).steps


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    case = parse_input(OPERATION, contract.ToolsActiveInput, payload)
    plan = build(case)
    for index in range(len(plan.steps)):
        run.result(index)
    known, mode, error = entry_outcome(case, run, plan)
    active = active_after(run.result(plan.settled))
    return {
        "mode": mode,
        "known": known,
        "error": error,
        "activeTools": active,
        "loadToolsRegistered": LOAD_TOOLS in active,
        "planCompleteAllowed": PLAN_COMPLETE in active,
        "warnings": entry_warnings(run, plan),
    }


TRANSLATION = Translation(script, effects, command="mode", spec="opl-modes", options=OPTIONS)
