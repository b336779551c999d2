"""Handler of oplmodes.models.script."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_planmode.contract import oplmodes_models
from pytest_planmode.contract import oplmodes_models as models
from pytest_planmode.contract.oplmodes_models import (
    ModelChange,
    ModelsScriptInput,
    ModelsScriptOutput,
    PersistedEntry,
)
from pytest_planmode.reference.oplmodes import models_override as mo
from pytest_planmode.targets.reference.convert import output, value
from pytest_planmode.targets.reference.host import host_event, members
from pytest_planmode.targets.reference.ops import handler

#: Each script event's reference event, by its contract class: the host's
#: own, one class each.
_EVENTS: dict[type[Any], Callable[[Any], mo.Event]] = {cls: host_event for cls in members(models.ModelEvent)}


@handler(oplmodes_models.SCRIPT)
def script(inp: ModelsScriptInput) -> ModelsScriptOutput:
    result = mo.run_script(
        inp.modes,
        [(r.model, value(mo.RegistryEntry, r)) for r in inp.registry],
        inp.initial_model,
        [_EVENTS[type(e)](e) for e in inp.events],
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
