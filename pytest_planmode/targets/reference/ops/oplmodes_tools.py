from __future__ import annotations

from pytest_planmode.contract import oplmodes_tools
from pytest_planmode.contract.oplmodes_tools import (
    ToolsActiveInput,
    ToolsActiveOutput,
    ToolsLoadInput,
    ToolsLoadOutput,
)
from pytest_planmode.reference.oplmodes import config as cfg
from pytest_planmode.reference.oplmodes import messages as msg
from pytest_planmode.reference.oplmodes.lazy_tools import load_tools
from pytest_planmode.reference.oplmodes.registry import (
    NORMAL_ALIAS,
    OFF,
    ModeDef,
    plan_complete_allowed,
)
from pytest_planmode.reference.oplmodes.tools import active_set
from pytest_planmode.targets.reference.convert import output
from pytest_planmode.targets.reference.ops import handler
from pytest_planmode.targets.reference.ops.oplmodes_config import load_from_input


def _mode(config: cfg.OplConfig, name: str) -> tuple[ModeDef | None, str | None]:
    key = OFF if name == NORMAL_ALIAS else name
    mode = config.modes.get(key)
    if mode is None:
        return None, msg.unknown_mode_error(name)
    if not mode.enabled:
        return None, msg.mode_disabled_error(name, key)
    return mode, None


@handler(oplmodes_tools.ACTIVE)
def active(inp: ToolsActiveInput) -> ToolsActiveOutput:
    config = load_from_input(inp, "config")
    mode, error = _mode(config, inp.mode)
    if mode is None:
        # Fail closed: a mode that cannot be entered activates nothing.
        return ToolsActiveOutput(
            mode=inp.mode,
            known=False,
            error=error,
            active_tools=[],
            permitted_tools=[],
            withheld_lazy_tools=[],
            load_tools_registered=False,
            inherits_all_tools=False,
            plan_complete_allowed=False,
            unknown_tools=[],
            warnings=[],
        )
    snapshot = inp.snapshot if inp.snapshot is not None else inp.registered_tools
    result = active_set(mode, config, snapshot, inp.registered_tools, inp.loaded)
    warnings = [
        msg.unknown_tool(name, inp.mode, mode.name) for name in result.unknown if name not in inp.warned_tools
    ]
    return output(
        ToolsActiveOutput,
        result,
        mode=mode.name,
        known=True,
        error=None,
        active_tools=result.active,
        permitted_tools=result.permitted,
        withheld_lazy_tools=result.withheld_lazy,
        inherits_all_tools=result.inherits_all,
        plan_complete_allowed=plan_complete_allowed(mode),
        unknown_tools=result.unknown,
        warnings=warnings,
    )


@handler(oplmodes_tools.LOAD)
def load(inp: ToolsLoadInput) -> ToolsLoadOutput:
    config = load_from_input(inp, "config")
    mode, error = _mode(config, inp.mode)
    if mode is None:
        return ToolsLoadOutput(
            available=False,
            error=error,
            enabled=[],
            ignored=[],
            active_tools=[],
            withheld_lazy_tools=[],
            message=error or "",
        )
    snapshot = inp.snapshot if inp.snapshot is not None else inp.registered_tools
    result = load_tools(mode, config, snapshot, inp.registered_tools, inp.loaded, inp.request)
    return output(
        ToolsLoadOutput,
        result,
        error=None,
        active_tools=result.active,
        withheld_lazy_tools=result.withheld_lazy,
    )
