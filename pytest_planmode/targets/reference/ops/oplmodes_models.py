"""Handler of oplmodes.models.script."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_planmode.contract import host_events as host
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
from pytest_planmode.targets.reference.ops import handler


class _Translation:
    """Host events as the reference's model-override events. The registry is
    tracked because a `provider.change` gives only the fields that change:
    a model that stops resolving is removed, one that starts is added, a
    credentials or latency change of a known model updates it."""

    def __init__(self, inp: ModelsScriptInput) -> None:
        self.registry: dict[str, tuple[bool, bool, int]] = {
            r.model: (True, r.credentials, r.change_latency_ms) for r in inp.registry
        }

    def __call__(self, e: Any) -> list[mo.Event]:
        return _EVENTS[type(e)](self, e)

    def provider(self, e: host.ProviderChange) -> list[mo.Event]:
        was = self.registry.get(e.model, (False, True, 0))
        now = (
            was[0] if e.resolves is None else e.resolves,
            was[1] if e.credentials is None else e.credentials,
            was[2] if e.change_latency_ms is None else e.change_latency_ms,
        )
        self.registry[e.model] = now
        resolves, credentials, latency = now
        if not resolves:
            return [mo.ModelRemoved(e.at, e.model)] if was[0] else []
        if not was[0] or latency != was[2]:
            return [mo.ModelAdded(e.at, e.model, credentials, latency)]
        return [mo.CredentialsChanged(e.at, e.model, credentials)] if credentials != was[1] else []


def _mode(_: _Translation, e: host.Command) -> list[mo.Event]:
    arg = e.args.strip()
    return [mo.ModeLeft(e.at)] if arg == models.NORMAL else [mo.ModeEntered(e.at, arg)]


#: Each script event's reference events, by its contract class.
_EVENTS: dict[type[Any], Callable[[_Translation, Any], list[mo.Event]]] = {
    host.Command: _mode,
    host.SessionReload: lambda _, e: [mo.StateReloaded(e.at)],
    host.SessionResume: lambda _, e: [mo.StateReloaded(e.at)],
    host.SessionNew: lambda _, e: [mo.SessionStarted(e.at)],
    host.ProviderChange: _Translation.provider,
    host.ModelSelect: lambda _, e: [mo.ModelSelected(e.at, e.model)],
}


@handler(oplmodes_models.SCRIPT)
def script(inp: ModelsScriptInput) -> ModelsScriptOutput:
    translate = _Translation(inp)
    result = mo.run_script(
        inp.modes,
        [(r.model, value(mo.RegistryEntry, r)) for r in inp.registry],
        inp.initial_model,
        [step for e in inp.events for step in translate(e)],
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
