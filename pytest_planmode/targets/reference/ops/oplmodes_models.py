"""Handler of oplmodes.models.script."""

from __future__ import annotations

from pytest_planmode.contract.oplmodes_models import (
    ModelChange,
    ModelObservation,
    ModelsScriptInput,
    ModelsScriptOutput,
    PersistedEntry,
)
from pytest_planmode.reference.oplmodes import model_override as mo
from pytest_planmode.targets.reference.ops import handler


@handler("oplmodes.models.script")
def script(inp: ModelsScriptInput) -> ModelsScriptOutput:
    events = [
        mo.Event(
            at=e.at,
            type=e.type,
            mode=getattr(e, "mode", None),
            model=getattr(e, "model", None),
            credentials=getattr(e, "credentials", True),
            change_latency_ms=getattr(e, "change_latency_ms", 0),
            configured=getattr(e, "configured", True),
        )
        for e in inp.events
    ]
    result = mo.run_script(
        inp.modes,
        [(r.model, mo.RegistryEntry(r.credentials, r.change_latency_ms)) for r in inp.registry],
        inp.initial_model,
        events,
    )
    persisted = result.persisted
    starts = [o for o in result.trace if o.type == "change.start"]
    ends = [o for o in result.trace if o.type == "change.end"]
    changes = [
        ModelChange(at=start.at, end=end.at, model=end.model or "", reason=end.reason or "", ok=bool(end.ok))
        for start, end in zip(starts, ends, strict=False)
    ]
    return ModelsScriptOutput(
        trace=[
            ModelObservation(
                at=o.at,
                type=o.type,
                mode=o.mode,
                model=o.model,
                reason=o.reason,
                ok=o.ok,
                restore_model=o.restore_model,
                restore_failures=o.restore_failures,
                message=o.message,
            )
            for o in result.trace
        ],
        changes=changes,
        model=result.model,
        mode=result.mode,
        restore_point=result.restore_point,
        persisted=(
            PersistedEntry(
                mode=persisted.mode,
                restore_model=persisted.restore.model if persisted.restore else None,
                restore_failures=persisted.restore.failures if persisted.restore else 0,
            )
            if persisted
            else None
        ),
        warnings=list(result.warnings),
    )
