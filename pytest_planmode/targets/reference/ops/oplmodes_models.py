"""Handler of oplmodes.models.script."""

from __future__ import annotations

from typing import Any

from pytest_planmode.contract import oplmodes_models
from pytest_planmode.contract import oplmodes_models as models
from pytest_planmode.contract.oplmodes_models import (
    ModelChange,
    ModelsScriptInput,
    ModelsScriptOutput,
    PersistedEntry,
)
from pytest_planmode.reference.oplmodes import model_override as mo
from pytest_planmode.targets.reference.convert import output, value
from pytest_planmode.targets.reference.ops import handler

#: Each script event's reference class, by its contract class.
_EVENTS: dict[type[Any], type[mo.Event]] = {
    models.ModeEnter: mo.ModeEntered,
    models.ModeExit: mo.ModeLeft,
    models.Reload: mo.StateReloaded,
    models.Resume: mo.StateReloaded,
    models.SessionNew: mo.SessionStarted,
    models.RegistryRemove: mo.ModelRemoved,
    models.RegistryAdd: mo.ModelAdded,
    models.Credentials: mo.CredentialsChanged,
    models.ModelSelect: mo.ModelSelected,
}


@handler(oplmodes_models.SCRIPT)
def script(inp: ModelsScriptInput) -> ModelsScriptOutput:
    result = mo.run_script(
        inp.modes,
        [(r.model, value(mo.RegistryEntry, r)) for r in inp.registry],
        inp.initial_model,
        [value(_EVENTS[type(e)], e) for e in inp.events],
    )
    starts = [o for o in result.trace if o.type == "change.start"]
    ends = [o for o in result.trace if o.type == "change.end"]
    changes = [
        ModelChange(at=start.at, end=end.at, model=end.model or "", reason=end.reason or "", ok=bool(end.ok))
        for start, end in zip(starts, ends, strict=False)
    ]
    persisted = result.persisted
    restore = persisted.restore if persisted else None
    return output(
        ModelsScriptOutput,
        result,
        changes=changes,
        persisted=None
        if persisted is None
        else output(
            PersistedEntry,
            persisted,
            restore_model=restore.model if restore else None,
            restore_failures=restore.failures if restore else 0,
        ),
    )
