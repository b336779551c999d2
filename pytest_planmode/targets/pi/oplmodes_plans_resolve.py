"""`oplmodes.plans.resolve` through the host (opl-modes.md § Commands, flags,
and shortcuts: "`/plan` ... creates or loads a named plan"; "Plans are
Markdown files under `.pi/plans/` with the `plan-` filename prefix"; "A
plan name must contain at least one letter or digit").

`command`: the user types `/plan <value>` in normal mode. The name is
accepted when the extension then reports plan mode in
`globalThis.__agentMode`, and rejected when it stays in normal mode. The
path is the plan file the command visibly created or read under
`.pi/plans/`; an accepted name whose file nothing shows yet (an extension
may write it only once a plan is produced, behind its own dialogs) is
unsupported, as is a mode the extension reports that is neither.

`resume`: unsupported. The value would have to reach the extension inside
a `mode-switcher` session entry, and the spec names that entry type but not
its fields; an entry in a shape the kit chose would judge the kit's format,
not the extension (the resume rule's visible part is in `oplmodes.modes.script`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_planmode.contract import oplmodes_plans as contract
from pytest_planmode.hosts.pi import steps as host_steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi._oplmodes import OPTIONS, PLANS_DIR, dialogs, reported_mode
from pytest_planmode.targets.pi.translation import HostRun, Translation, Unsupported, parse_input, step_trace

OPERATION = "oplmodes.plans.resolve"


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[host_steps.Step]:
    case = parse_input(OPERATION, contract.PlansResolveInput, payload)
    if case.source == "resume":
        raise Unsupported(
            "a plan filename read back on resume reaches the extension only inside its own "
            "mode-switcher entry, whose fields the spec does not name"
        )
    if case.value.strip() == "off":
        raise Unsupported("/plan off leaves plan mode: the value is not a plan name there")
    if "\n" in case.value or "\r" in case.value:
        raise Unsupported("a command line holds no line break, so no typed name can contain one")
    return [host_steps.Start(), host_steps.Command(name="plan", args=case.value)]


def _plan_file(path: str) -> str | None:
    """`path` (relative to the project, or as the host names it) when it is a
    file directly under `.pi/plans/` (whatever its name: a badly named plan
    file is an answer too)."""
    rel = path[len("<cwd>/") :] if path.startswith("<cwd>/") else path
    head, _, name = rel.rpartition("/")
    return rel if head == PLANS_DIR and name else None


def _shown_plan(run: HostRun, before: Mapping[str, Any], after: Mapping[str, Any]) -> str | None:
    """The plan file the command created, changed or read."""
    old = dict(before.get("files") or {})
    for path, content in dict(after.get("files") or {}).items():
        if old.get(path) != content and _plan_file(str(path)):
            return _plan_file(str(path))
    for entry in step_trace(run, (1, 2)):
        if str(entry.get("call", "")).startswith("fs.read"):
            found = _plan_file(str((entry.get("args") or [""])[0]))
            if found:
                return found
    return None


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    started = run.result(0)
    typed = run.result(1)
    now = reported_mode(typed)
    if now in ("off", "normal"):
        return {"accepted": False, "path": None}
    if now != "plan":
        why = "it opened a custom dialog the host cannot drive" if dialogs(step_trace(run, (1, 2))) else ""
        raise Unsupported(
            f"after /plan <name> the extension reports mode {now!r}, neither plan nor normal"
            + (f": {why}" if why else "")
        )
    path = _shown_plan(run, started.get("after") or {}, typed.get("after") or {})
    if path is None:
        raise Unsupported(
            "the name entered plan mode, but no plan file under .pi/plans/ was created or read "
            "yet: which file it names is not visible"
        )
    return {"accepted": True, "path": path}


TRANSLATION = Translation(script, effects, command="mode", spec="opl-modes", options=OPTIONS)
