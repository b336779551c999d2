"""Translations for the `pi:` target: one module per operation.

Each translation turns a case input into a host script for the mock Pi host
and the host's answer (results, call trace, files) into the operation's
effect fields. They are written once here and shared by every extension under
test. An operation without a translation answers `unsupported` with the
reason listed in :data:`UNSUPPORTED`.
"""

from __future__ import annotations

from pytest_planmode.targets.pi import (
    oplmodes_bash_check,
    oplmodes_modes_script,
    planmode_bash_check,
    planmode_export_run,
    planmode_lifecycle_run,
    planmode_models_fresh,
    planmode_models_session,
    planmode_models_switch,
    planmode_powershell_check,
    planmode_settings_load,
    planmode_settings_save,
    planmode_tools_authorize,
    planmode_tools_freeze,
)
from pytest_planmode.targets.pi.translation import HostRun, Translation, Unsupported

TRANSLATIONS: dict[str, Translation] = {
    t.OPERATION: t.TRANSLATION
    for t in (
        planmode_bash_check,
        planmode_powershell_check,
        planmode_settings_load,
        planmode_settings_save,
        planmode_tools_authorize,
        planmode_tools_freeze,
        planmode_lifecycle_run,
        planmode_export_run,
        planmode_models_switch,
        planmode_models_session,
        planmode_models_fresh,
        oplmodes_bash_check,
        oplmodes_modes_script,
    )
}

_MODELS = (
    "not translated yet: the host emulates Pi's model registry, authentication answers and "
    "pi.setModel on the virtual clock (as the planmode.models translations use them), but the "
    "opl-modes model overrides are not read back from the trace yet"
)
_INTERNAL = "its output is the reference's internal model; nothing at the Pi extension boundary shows it"

#: Why each operation without a translation cannot be run through the host.
UNSUPPORTED: dict[str, str] = {
    "oplmodes.bash.segments": "a parser detail (" + _INTERNAL + ")",
    "oplmodes.config.load": "the effective mode registry (" + _INTERNAL + ")",
    "oplmodes.models.script": _MODELS,
    "oplmodes.plans.resolve": "not translated yet: needs a plan to be created through /plan <name> and "
    "its file located under .pi/plans/ (virtual paths of contract 2)",
    "oplmodes.tools.active": "not translated yet: needs a registry of tools described by the case "
    "(contract 2's registry events)",
    "oplmodes.tools.load": "not translated yet: needs a model-side load_tools call mid-run "
    "(contract 2's agent-run events)",
    "planmode.tools.picker": (
        "the rows /plan tools shows are the extension's own texts: the spec names the row labels "
        "(inactive in Pi, blocked by Plan policy, pending registration) but not how a row writes its "
        "tool name and label, nor how it shows that it is checked, so neither `label` nor `selected` "
        "can be read from ui.select items (RPC mode) or a ui.custom component (TUI, rendered through "
        "pi-tui, which the headless host does not emulate) without the extension's own format"
    ),
}

__all__ = ["TRANSLATIONS", "UNSUPPORTED", "HostRun", "Translation", "Unsupported"]
