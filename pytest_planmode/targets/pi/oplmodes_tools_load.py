"""`oplmodes.tools.load` through the host (opl-modes.md § Lazy tool loading).

The mode is entered as for `oplmodes.tools.active`; then, in an agent run,
the model calls `load_tools` (`{tools: [...]}`, or no argument). Pi lets the
call through only while `load_tools` is in its active set: that is whether
it is offered at all (`available`); otherwise Pi answers the call itself.

Effects: `enabled` is what the call added to Pi's active set (in the order
requested; for the call with no argument, in the order of the active set);
`ignored` the names requested and not enabled, once each (why each was
ignored is the extension's explanation, not an effect); `message` and
`error` the tool's text result, as the model sees it. When the mode cannot
be entered the call is not the case's (it would run in another mode): the
answer is the entry's error, with nothing enabled.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_planmode.contract import oplmodes_tools as contract
from pytest_planmode.hosts.pi import steps as host_steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi._oplmodes import LOAD_TOOLS, OPTIONS, active_after
from pytest_planmode.targets.pi.oplmodes_tools_active import Plan, build, entry_outcome
from pytest_planmode.targets.pi.translation import HostRun, Translation, parse_input

OPERATION = "oplmodes.tools.load"


def _plan(case: contract.ToolsLoadInput) -> Plan:
    plan = build(case)
    steps = list(plan.steps)
    if not case.loaded:
        steps.append(host_steps.AgentStart(prompt=""))
    arguments = {} if case.request is None else {"tools": list(case.request)}
    steps.append(host_steps.ToolCall(tool=LOAD_TOOLS, input=arguments, execute=True))
    return Plan(steps, plan.entry, len(steps) - 1, plan.stone)


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[host_steps.Step]:
    return _plan(parse_input(OPERATION, contract.ToolsLoadInput, payload)).steps


def _text(result: Any) -> str | None:
    if not isinstance(result, dict):
        return None
    texts = [str(c.get("text")) for c in result.get("content") or [] if isinstance(c, dict) and c.get("text")]
    return "\n".join(texts) if texts else None


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    case = parse_input(OPERATION, contract.ToolsLoadInput, payload)
    plan = _plan(case)
    for index in range(len(plan.steps)):
        run.result(index)
    known, _mode, error = entry_outcome(case, run, plan)
    call = run.result(plan.settled)
    after = active_after(call)
    if not known:
        return {
            "available": False,
            "error": error,
            "enabled": [],
            "ignored": [],
            "activeTools": active_after(run.result(plan.entry)),
            "message": error or "",
        }
    before = active_after(run.result(plan.settled - 1))
    if not call.get("reached"):
        # Pi's own answer: the tool is not in the active set.
        return {
            "available": False,
            "error": None,
            "enabled": [],
            "ignored": [],
            "activeTools": after,
            "message": str(call.get("error") or call.get("reason") or ""),
        }
    added = [name for name in after if name not in before]
    requested = None if case.request is None else list(dict.fromkeys(case.request))
    enabled = added if requested is None else [n for n in requested if n in added]
    enabled += [n for n in added if n not in enabled]
    ignored = [{"tool": n} for n in requested or [] if n not in added]
    result = call.get("result")
    failed = not call.get("allowed") or (isinstance(result, dict) and bool(result.get("isError")))
    text = _text(result) or str(call.get("reason") or "")
    return {
        "available": True,
        "error": text if failed else None,
        "enabled": enabled,
        "ignored": ignored,
        "activeTools": after,
        "message": text,
    }


TRANSLATION = Translation(script, effects, command="mode", spec="opl-modes", options=OPTIONS)
