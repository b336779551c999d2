"""`planmode.models.fresh` through the host (pi-plan-mode-settings.md
§ Implementation model and thinking; docs/areas/models.md § A host script
from the input).

The host reaches a ready plan with an empty settings document (a Plan-mode
run whose `plan_mode_complete` call settles), writes the case's settings,
and then: `screen` answers the ready menu's **Start fresh and implement**,
which opens the fresh screen; `startScopedModels` / `startAvailableModels`
change Pi's catalogue while it is open; **Start** is pressed last.
`saved-direct` saves the plan (**Save for later**), opens `/plan` and
answers the saved-plan menu's **Start fresh and implement**, which applies
the initial values at once.

Effects: the screen's starting rows from what it shows (the first model of
the case, and the first thinking level after the word "thinking", in its
title and items; for the direct action, the first model the handoff tries
and the level it keeps); the handoff as for the switch (see
`_planmode_models`); the notice is the `info` notification at Start that
names one of the case's models; the planning session's model and level as
the host had them just before Start; `settingsWritten` when the settings
file differs from what the host wrote.

Unsupported per case: `pick` and `pickThinking`, which go through the
screen's rows and pickers, whose labels the case does not give.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pytest_planmode.contract import planmode_models as contract
from pytest_planmode.hosts.pi import steps as host_steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi import _planmode_models as models
from pytest_planmode.targets.pi.translation import (
    OPL_COMMANDS,
    ExtensionError,
    HostRun,
    ScriptBuilder,
    Translation,
    Unsupported,
    calls,
    parse_input,
)

OPERATION = "planmode.models.fresh"
_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
_THINKING = re.compile(r"thinking\W+(" + "|".join(reversed(_LEVELS)) + r")\b", re.IGNORECASE)


def parse(payload: Mapping[str, Any]) -> contract.ModelsFreshInput:
    case = parse_input(OPERATION, contract.ModelsFreshInput, payload)
    if case.pick is not None or case.pick_thinking is not None:
        raise Unsupported(
            "pick / pickThinking choose in the fresh screen's model and thinking rows, whose row "
            "and picker labels are the extension's own (the case gives the values, not the labels)"
        )
    return case


def build(case: contract.ModelsFreshInput) -> tuple[ScriptBuilder, int, int, int]:
    """The script; the indices of the step opening the screen (or menu),
    of the state step just before Start, and of Start."""
    b = ScriptBuilder()
    b.add(
        *models.opening_steps(case),
        host_steps.Command(name="plan", args="start"),
        *models.ready_steps(),
    )
    if case.action == "saved-direct":
        b.add(models.answer(models.SAVE_ITEM))
    b.add(host_steps.WriteFile(root="agent", path=models.SETTINGS_FILE, content=_content(case)))
    if case.settings_read_failed:
        b.add(host_steps.UnreadableFile(root="agent", path=models.SETTINGS_FILE))
    b.elapse(models.WATCH_SETTLE_MS)
    opened = len(b.steps)
    if case.action == "screen":
        b.add(models.answer(models.FRESH_ITEM))
        change: dict[str, Any] = {}
        if case.start_scoped_models is not None:
            change["scoped"] = list(case.start_scoped_models)
        if case.start_available_models is not None:
            change["available"] = list(case.start_available_models)
        if change:
            b.add(host_steps.Models(merge=True, **change))
        state = len(b.steps)
        b.add(host_steps.State())
        start = len(b.steps)
        b.add(models.answer(models.START_ITEM))
    else:
        b.add(host_steps.Command(name="plan", args="", wait=False))
        state = len(b.steps)
        b.add(host_steps.State())
        start = len(b.steps)
        b.add(models.answer(models.FRESH_ITEM))
    b.elapse(models.budget_ms(case.models.values(), len(case.models) + len(case.available_models) + 4))
    return b, opened, state, start


def _content(case: contract.ModelsFreshInput) -> str:
    return models.settings_content(case.settings)


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[host_steps.Step]:
    return build(parse(payload))[0].steps


def _names(case: contract.ModelsFreshInput) -> list[str]:
    step = models.registry_step(
        current=case.current_model,
        scoped=case.scoped_models,
        available=case.available_models,
        models=case.models,
        settings=[case.settings],
    )
    return [models.key(m["provider"], m["id"]) for m in step.catalogue or []]


def _first_model(text: str, names: list[str]) -> str | None:
    found = [(text.find(name), -len(name), name) for name in names if name in text]
    return min(found)[2] if found else None


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    case = parse(payload)
    _, opened, state_index, start_index = build(case)
    names = _names(case)
    planning = dict(run.results[state_index].get("state") or {})
    start = run.results[start_index]
    lo = int(start.get("traceFrom", 0))
    # The direct action of a saved plan preflights the planning model first.
    tr = models.read(
        run.trace,
        (lo, len(run.trace)),
        t0=int(start.get("t", 0)),
        before=case.current_model,
        preflight=case.action == "saved-direct",
    )
    if case.action == "screen":
        shown = calls(run.trace[int(run.results[opened].get("traceFrom", 0)) : lo], "ui.select")
        screen = shown[0] if shown else []
        text = "\n".join([str(screen[0]) if screen else "", *map(str, screen[1] if len(screen) > 1 else [])])
        initial_model = _first_model(text, names)
        if initial_model is None:
            raise ExtensionError(
                "no fresh-session screen naming a model was shown after 'Start fresh and implement' "
                f"(a ui.select naming one of {', '.join(names)})"
            )
        level = _THINKING.search(text)
        initial_thinking = level.group(1).lower() if level else None
    else:
        tried = [e["model"] for e in tr.log if e["type"] in ("auth.start", "change.start")]
        initial_model = tried[0] if tried else case.current_model
        initial_thinking = str(planning.get("thinkingLevel"))
    notices = [
        str(args[0])
        for args in calls(run.trace[lo:], "ui.notify")
        if args and (len(args) < 2 or args[1] in (None, "info")) and _first_model(str(args[0]), names)
    ]
    written = next((v for k, v in run.files.items() if k.endswith("/" + models.SETTINGS_FILE)), None)
    return {
        "initialModel": initial_model,
        "initialThinking": initial_thinking,
        "notice": {"message": notices[0]} if notices else None,
        "applied": tr.applied,
        "model": str(run.state.get("model") or tr.model),
        "thinkingLevel": str(run.state.get("thinkingLevel")),
        "log": tr.log,
        "warnings": tr.warnings,
        "elapsedMs": tr.elapsed_ms,
        "planningModel": str(planning.get("model")),
        "planningThinking": str(planning.get("thinkingLevel")),
        "settingsWritten": written is not None and not _same_json(written, _content(case)),
    }


def _same_json(a: str, b: str) -> bool:
    try:
        return bool(json.loads(a) == json.loads(b))
    except ValueError:
        return a == b


TRANSLATION = Translation(
    script, effects, command="plan", spec="pi-plan-mode", unless=OPL_COMMANDS, options={"holdPrompts": True}
)
