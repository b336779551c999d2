"""`oplmodes.plans.resolve` through the host (opl-modes.md § Commands, flags,
and shortcuts; § Tool inheritance warning, on resume).

`command`: the user types `/plan <value>`, which creates or loads the named
plan. `resume`: Pi starts on a session whose last `mode-switcher` entry is
plan mode with `value` as its plan file (the entry's `{mode, planFile}`,
as the suite writes it elsewhere); a plain filename is also put under
`.pi/plans/`, so the case is about the name, not about a missing file.

Effects: accepted when the extension's shared state (`__agentMode`, read by
opl-input and opl-footer) names a plan file afterwards, and that path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_planmode.contract import oplmodes_plans as contract
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi._oplmodes import ENTRY_TYPE, OPTIONS, PLANS_DIR, shared_state
from pytest_planmode.targets.pi.translation import HostRun, Translation, Unsupported, parse_input

OPERATION = "oplmodes.plans.resolve"


def _creatable(name: str) -> bool:
    """A name the host can create as one file in the plans directory."""
    return bool(name) and name not in (".", "..") and not any(c in name for c in "/\\\0")


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[dict[str, Any]]:
    case = parse_input(OPERATION, contract.PlanResolveInput, payload)
    if case.source == "command":
        if case.value.strip() == "off":
            raise Unsupported("/plan off leaves plan mode: the value is not a plan name there")
        if "\n" in case.value or "\r" in case.value:
            raise Unsupported("a command line holds no line break, so no typed name can contain one")
        return [{"do": "start"}, {"do": "command", "name": "plan", "args": case.value}]
    steps: list[dict[str, Any]] = []
    if _creatable(case.value):
        steps.append(
            {
                "do": "write_file",
                "root": "cwd",
                "path": f"{PLANS_DIR}/{case.value}",
                "content": "# Plan\n",
            }
        )
    entry = {"type": "custom", "customType": ENTRY_TYPE, "data": {"mode": "plan", "planFile": case.value}}
    steps.append({"do": "start", "entries": [entry]})
    return steps


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    for index in range(len(run.results)):
        run.result(index)
    plan = shared_state(run.results[-1]).get("planFile")
    if isinstance(plan, str) and plan:
        return {"accepted": True, "path": plan}
    return {"accepted": False, "path": None}


TRANSLATION = Translation(script, effects, command="mode", spec="opl-modes", options=OPTIONS)
