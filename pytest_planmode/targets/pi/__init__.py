"""Translations for the `pi:` target: one module per operation.

Each translation turns a case input into a host script for the Pi host
and the host's answer (results, call trace, files) into the operation's
effect fields. They are written once here and shared by every extension under
test. An operation without a translation answers `unsupported` with the
reason listed in :data:`UNSUPPORTED`.
"""

from __future__ import annotations

from pytest_planmode.targets.pi import (
    oplmodes_bash_check,
    oplmodes_models_script,
    oplmodes_modes_script,
    oplmodes_plans_resolve,
    oplmodes_tools_active,
    oplmodes_tools_load,
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
        oplmodes_tools_active,
        oplmodes_tools_load,
        oplmodes_plans_resolve,
        oplmodes_models_script,
    )
}

#: Why each operation without a translation cannot be run through the host.
UNSUPPORTED: dict[str, str] = {
    "oplmodes.bash.segments": "a parser detail: how the Bash gate splits a command shows at the Pi "
    "boundary only as its verdict on the whole command (tested by oplmodes.bash.check)",
    "oplmodes.config.load": "the effective mode registry as one answer: the parts Pi shows are read "
    "back by other operations (modes offered and the cycle order by oplmodes.modes.script through "
    "the /mode picker and the cycle key; tools per mode by oplmodes.tools.active; appearance "
    "through __agentMode; Bash patterns as verdicts by oplmodes.bash.check), and the rest has no "
    "act at the boundary to read (compiled pattern lists, labels, the notify template, problems "
    "and warnings by field path)",
    "planmode.tools.picker": (
        "the rows /plan tools shows are the extension's own texts: the spec names the row labels "
        "(inactive in Pi, blocked by Plan policy, pending registration) but not how a row writes its "
        "tool name and label, nor how it shows that it is checked, so neither `label` nor `selected` "
        "can be read from ui.select items (RPC mode) or a ui.custom component (TUI, rendered through "
        "pi-tui, which the headless host does not emulate) without the extension's own format"
    ),
}

__all__ = ["TRANSLATIONS", "UNSUPPORTED", "HostRun", "Translation", "Unsupported"]
