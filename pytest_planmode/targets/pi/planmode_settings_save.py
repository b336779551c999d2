"""`planmode.settings.save` through the host: every case `unsupported`,
each with what it would need and what of it Pi could show
(pi-plan-mode-settings.md § Settings, § Thinking level).

A Settings save is visible at the boundary by the files it writes under
the agent directory and the notifications it shows; but each answer also
carries the effective settings after the saves, which no Pi API call shows
(see `planmode_settings_load`), and a save goes through the extension's
Settings screen, whose rows the spec names (**Plan thinking**, **Plan
policy tools**, **Export destination**, …) but whose sub-screens, value
inputs and confirmations it does not: a host cannot type an edit into it
without the extension's own labels. Each case's reason says which fields it
saves and what else it needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from pytest_planmode.contract import planmode_settings as contract
from pytest_planmode.hosts.pi import steps as host_steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi.planmode_settings_load import NOT_SHOWN, directory
from pytest_planmode.targets.pi.translation import OPL_COMMANDS, HostRun, Translation, Unsupported

OPERATION = "planmode.settings.save"
#: The Settings screen's rows, by the field each edits (§ Settings).
ROWS = {
    "thinkingLevel": "Plan thinking",
    "defaultPlanTools": "Plan policy tools",
    "implementationPlanRetention": "Plan reinjection",
    "defaultPlanExportPath": "Export destination",
    "toggleShortcut": "Plan mode shortcut",
    "autoSwitchModel": "Auto switch model",
    "planModel": "Plan enter model",
    "normalModel": "Plan exit model",
}


def reason(payload: Mapping[str, Any]) -> str:
    try:
        case = contract.SettingsSaveInput.model_validate(dict(payload))
    except ValidationError as exc:
        return f"the case input is not a {OPERATION} script: {exc.errors()[0]['msg']}"
    fields = list(dict.fromkeys(e.field for e in case.edits if isinstance(e, contract.SaveEdit)))
    rows = [f"{ROWS[f]} ({f})" for f in fields if f in ROWS]
    needs = []
    if rows:
        needs.append(
            f"saves through {'the rows' if len(rows) > 1 else 'the row'} {', '.join(rows)} of the "
            "extension's Settings screen, whose "
            "sub-screens and value inputs the spec does not label"
        )
    others = [f for f in fields if f not in ROWS]
    if others:
        needs.append(f"a save of {', '.join(others)}, which the Settings screen has no row for")
    if any(isinstance(e, contract.ManualEdit) for e in case.edits):
        needs.append("manual edits between saves (host file writes, which it can do)")
    if case.inject is not None:
        what = "a crash of Pi" if case.inject.mode == "crash" else "an I/O error"
        needs.append(f"{what} at the save's {case.inject.step} step, inside the extension's own file calls")
    return (
        f"{NOT_SHOWN}; this case ({directory(case.files)}) needs {'; '.join(needs)}. "
        "Only the files written and the notifications shown would be visible"
    )


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[host_steps.Step]:
    raise Unsupported(reason(payload))


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    raise Unsupported(reason(payload))


TRANSLATION = Translation(script, effects, command="plan", spec="pi-plan-mode", unless=OPL_COMMANDS)
