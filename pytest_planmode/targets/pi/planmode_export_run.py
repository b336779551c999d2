"""`planmode.export.run` through the host (pi-plan-mode-settings.md
§ Export destination).

The case's pre-existing paths are made in the sandbox (`$CWD`, `$HOME`,
`$TMP`), its settings document written under the agent directory, Pi's
working directory set. The plan to export is reached the way a user reaches
it: a ready plan by `/plan start` and a run in which the model calls
`plan_mode_complete{plan}`, settled (the ready menu that opens is left with
Escape); a saved plan by answering that menu **Save for later**; an active
implementation plan by **Implement here** under a guaranteed retention
policy. Then one `/plan export [path]`, or for a cancelled export the
`/plan` menu's **Export plan…** with its input dismissed.

Effects are read from files and what the extension shows: the file written
(its path, text and size), the directories created, a warning or error
naming the destination it refused, the Plan status afterwards, the settings
file afterwards.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_planmode.contract import planmode_lifecycle as contract
from pytest_planmode.hosts.pi import steps as host_steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi import _planmode_plans as plans
from pytest_planmode.targets.pi.translation import (
    OPL_COMMANDS,
    HostRun,
    Translation,
    Unsupported,
    parse_input,
    step_trace,
)

OPERATION = "planmode.export.run"
#: Retention policies under which an implemented plan stays active (§ Plan reinjection).
GUARANTEED = ("clear-after-first-run", "keep")


def parse(payload: Mapping[str, Any]) -> contract.ExportRunInput:
    return parse_input(OPERATION, contract.ExportRunInput, payload)


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[host_steps.Step]:
    case = parse(payload)
    if case.home != "$HOME":
        raise Unsupported("the host's home directory is the sandbox's $HOME; the case puts it elsewhere")
    source = case.state.source
    if source == "active" and case.settings.get("implementationPlanRetention") not in GUARANTEED:
        raise Unsupported(
            "an active implementation plan exists only under a guaranteed retention policy "
            "(clear-after-first-run or keep), and the case's settings name none"
        )
    if case.request.cancel and case.request.path is not None:
        raise Unsupported(
            "a typed path and a cancel together: the export input is either answered with a "
            "path or dismissed, and /plan export <path> opens no input"
        )
    plans.materialize(case.paths, sandbox, cwd=case.cwd)
    steps: list[host_steps.Step] = []
    if case.settings:
        content = plans.settings_document(case.settings, sandbox)
        steps.append(host_steps.WriteFile(root="agent", path=plans.SETTINGS_FILE, content=content))
    if case.cwd != "$CWD":
        steps.append(host_steps.SetCwd(path=plans.real_path(case.cwd, sandbox)))
    steps += [plans.session_model_step(), host_steps.Start()]
    if source is not None:
        steps += [
            host_steps.Command(name="plan", args="start"),
            host_steps.AgentStart(prompt="Plan the change."),
            host_steps.Context(),
            host_steps.ToolCall(
                tool=contract.COMPLETE_TOOL, input={"plan": case.state.plan}, execute=True, validate_=True
            ),
            host_steps.AgentEnd(),
        ]
        if source == "saved":
            steps.append(host_steps.Ui(answers=[{"select": "Save for later"}]))
        elif source == "active":
            steps.append(host_steps.Ui(answers=[{"select": "Implement here"}]))
        steps.append(host_steps.Dismiss())
    # Effects are read from this step on: the export itself.
    steps.append(host_steps.Settle())
    if case.request.cancel:
        steps += [
            host_steps.Command(name="plan", args="", wait=False),
            host_steps.Ui(answers=[{"select": "Export plan…"}]),
            host_steps.Ui(answers=[{"cancel": True}]),
        ]
    else:
        typed = case.request.path
        args = "export" if typed is None else f"export {plans.real_path(typed, sandbox)}"
        steps.append(host_steps.Command(name="plan", args=args))
    steps.append(host_steps.Dismiss())
    return steps


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    case = parse(payload)
    for index, record in enumerate(run.results):
        if record.get("threw") is not None:
            raise RuntimeError(f"step {index} ({record.get('do')}): the extension threw: {record['threw']}")
    root = run.state.get("root")
    if not isinstance(root, str):
        raise RuntimeError("the host's answer does not name its sandbox root")
    sandbox = Sandbox(Path(root))
    plans.check_answerable(run)
    mark = next((i for i, r in enumerate(run.results) if r.get("do") == "settle"), len(run.results))
    trace = step_trace(run, (mark, len(run.results)))
    settings_path = f"$AGENT/{plans.SETTINGS_FILE}"
    written = plans.written(run, sandbox, skip=[settings_path])
    existing: dict[str, str] = {entry.path: entry.kind for entry in case.paths}
    outcome = plans.export_outcome(trace, sandbox, existing, written, case.request.cancel)
    content = outcome["content"]
    settings_after: Any = dict(case.settings)
    for relative, text in run.files.items():
        if plans.virtual_path(str(sandbox.root / relative), sandbox) == settings_path:
            try:
                settings_after = plans.unmap_value(json.loads(text), sandbox)
            except ValueError:
                settings_after = text
    created = [plans.virtual_path(str(sandbox.root / d), sandbox) for d in run.created_dirs]
    status = plans.status_text(run.trace)
    return {
        "outcome": outcome["outcome"],
        "destination": outcome["destination"],
        "content": content,
        "size": len(content.encode("utf-8")) if content is not None else None,
        "createdDirectories": sorted(created),
        "stateAfter": {"planMode": plans.status_mode(status) in ("planning", "ready")},
        "settingsAfter": settings_after,
    }


TRANSLATION = Translation(
    script,
    effects,
    command="plan",
    spec="pi-plan-mode",
    unless=OPL_COMMANDS,
    options={"holdPrompts": True, "traceWrites": True},
)
