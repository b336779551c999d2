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
    oplmodes_models_script,
    oplmodes_modes_script,
    oplmodes_plans_resolve,
    oplmodes_tools_active,
    oplmodes_tools_load,
    planmode_bash_check,
    planmode_export_run,
    planmode_lifecycle_run,
    planmode_powershell_check,
    planmode_tools_authorize,
)
from pytest_planmode.targets.pi.translation import HostRun, Translation, Unsupported

TRANSLATIONS: dict[str, Translation] = {
    t.OPERATION: t.TRANSLATION
    for t in (
        planmode_bash_check,
        planmode_powershell_check,
        planmode_tools_authorize,
        planmode_lifecycle_run,
        planmode_export_run,
        oplmodes_bash_check,
        oplmodes_modes_script,
        oplmodes_tools_active,
        oplmodes_tools_load,
        oplmodes_plans_resolve,
        oplmodes_models_script,
    )
}

_MODELS = (
    "not translated yet: its events are host events, but the host does not emulate a model registry, "
    "authentication answers and pi.setModel on a virtual clock"
)
_INTERNAL = "its output is the reference's internal model; nothing at the Pi extension boundary shows it"

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
    "planmode.models.fresh": _MODELS,
    "planmode.models.session": _MODELS,
    "planmode.models.switch": _MODELS,
    "planmode.settings.load": "the effective settings and status (" + _INTERNAL + ")",
    "planmode.settings.save": "its saves go through the extension's Settings screen, a chain of menus "
    "whose labels the case does not give",
    "planmode.tools.freeze": "the resolved policy names (" + _INTERNAL + ")",
    "planmode.tools.picker": "rows of a TUI picker (" + _INTERNAL + ")",
}

__all__ = ["TRANSLATIONS", "UNSUPPORTED", "HostRun", "Translation", "Unsupported"]
