"""`planmode.settings.load` through the host: every case `unsupported`,
each with what it would need and what of it Pi could show
(pi-plan-mode-settings.md § Settings, § Thinking level).

An extension applies its settings (a thinking level at `/plan start`, an
allowlist at the first context, a shortcut registration at load); it shows
the effective document through no Pi API call. Every answer of this
operation carries all of `settings`, so no case can be answered from what
the extension visibly does. What a load does show, the warnings at session
start (`ui.notify`), is named in each case's reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from pytest_planmode.contract import planmode_settings as contract
from pytest_planmode.hosts.pi import steps as host_steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi.translation import OPL_COMMANDS, HostRun, Translation, Unsupported

OPERATION = "planmode.settings.load"
#: The settings files of § Settings (canonical, then legacy).
SETTINGS_FILES = ("pi-plan-mode.json", "plan-mode.json")

NOT_SHOWN = (
    "the effective settings are not visible at the Pi boundary: the extension applies them "
    "(thinking level at /plan start, allowlist at the first context, shortcut at load) but "
    "shows them through no Pi API call, and every answer carries all of them"
)

_KINDS = {
    "file": "a file",
    "directory": "a directory",
    "fifo": "a FIFO",
    "symlink": "a symbolic link",
    "unreadable": "an unreadable entry",
}


def directory(files: Mapping[str, contract.FileEntry]) -> str:
    """The settings entries of an agent directory, in words."""
    present = [f"{_KINDS[files[name].kind]} {name}" for name in SETTINGS_FILES if name in files]
    return " and ".join(present) if present else "no settings file"


def reason(payload: Mapping[str, Any]) -> str:
    try:
        case = contract.SettingsLoadInput.model_validate(dict(payload))
    except ValidationError as exc:
        return f"the case input is not a {OPERATION} input: {exc.errors()[0]['msg']}"
    when = "at session start"
    if case.previous_files is not None:
        when = f"after a watched reload from {directory(case.previous_files)}"
    return (
        f"{NOT_SHOWN}; of this case ({directory(case.files)}) only the warnings shown {when} (ui.notify) are"
    )


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[host_steps.Step]:
    raise Unsupported(reason(payload))


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    raise Unsupported(reason(payload))


TRANSLATION = Translation(script, effects, command="plan", spec="pi-plan-mode", unless=OPL_COMMANDS)
