"""Handlers of planmode.models.switch and planmode.models.fresh."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pytest_planmode.contract import planmode_models
from pytest_planmode.contract import planmode_models as models
from pytest_planmode.contract.planmode_models import (
    ModelBehaviour,
    ModelsFreshInput,
    ModelsFreshOutput,
    ModelsSessionInput,
    ModelsSessionOutput,
    ModelsSwitchInput,
    ModelsSwitchOutput,
    TransitionResult,
)
from pytest_planmode.contract.screen import ScreenEntry, entry
from pytest_planmode.reference.planmode import models_fresh, models_switch
from pytest_planmode.reference.planmode.models_switch import Behaviour
from pytest_planmode.targets.reference.convert import output, value
from pytest_planmode.targets.reference.host import HOST_EVENTS, host_event, members
from pytest_planmode.targets.reference.ops import handler


def _behaviour(b: ModelBehaviour) -> Behaviour:
    return value(Behaviour, b)


def _behaviours(models: Mapping[str, ModelBehaviour]) -> dict[str, Behaviour]:
    return {key: _behaviour(b) for key, b in models.items()}


#: Each session event's reference event, by its contract class: the host's
#: (one class each) and the transition fault the host sets up.
_SESSION_EVENTS: dict[type[Any], Callable[[Any], models_switch.SessionEvent]] = {
    **{cls: host_event for cls in members(models.SessionEvent) if cls in HOST_EVENTS},
    models.TransitionFault: lambda e: models_switch.TransitionFault(e.at),
}


@handler(planmode_models.SWITCH)
def switch(inp: ModelsSwitchInput) -> ModelsSwitchOutput:
    settings = models_switch.read_settings(inp.settings, inp.settings_read_failed)
    trigger, how = models.TRIGGERS[models.trigger_key(inp.trigger)]
    result = models_switch.switch(
        models_switch.Transition(
            trigger=trigger,
            how=how,
            current=inp.current_model,
            thinking_level=inp.thinking_level,
            available=models_switch.catalogue(inp.scoped_models, inp.available_models),
            behaviours=_behaviours(inp.models),
            transition_fails=inp.transition_fails,
        ),
        settings,
    )
    return output(ModelsSwitchOutput, result)


#: The fresh screen's title (reference wording).
FRESH_TITLE = "Start fresh and implement"


def fresh_screen(action: str, result: models_fresh.FreshResult) -> list[ScreenEntry]:
    """§ Implementation model and thinking: the ready-plan fresh screen's
    rows, reporting each configured candidate outside the catalogue as
    unavailable ("Settings and the ready-plan fresh screen report that they
    are unavailable"); then what Start reported, and the warnings (reference
    wording). The saved-plan direct action shows no screen."""
    shown: list[ScreenEntry] = []
    if action == "screen":
        rows = [f"Model: {result.initial_model}", f"Thinking: {result.initial_thinking}"]
        rows += [f"{name}: unavailable, skipped" for name in result.unavailable]
        shown.append(entry("select", FRESH_TITLE, [*rows, "Start"]))
    if result.notice is not None:
        shown.append(entry("notify", None, [result.notice.message]))
    shown += [entry("notify", None, [warning.message]) for warning in result.warnings]
    return shown


@handler(planmode_models.FRESH)
def fresh(inp: ModelsFreshInput) -> ModelsFreshOutput:
    settings = models_switch.read_settings(inp.settings, inp.settings_read_failed)
    opened = models_switch.catalogue(inp.scoped_models, inp.available_models)
    if inp.action == "screen":
        scoped = inp.start_scoped_models
        available = inp.start_available_models
        started = models_switch.catalogue(
            inp.scoped_models if scoped is None else scoped,
            inp.available_models if available is None else available,
        )
    else:
        # The direct action has no screen left open: it resolves once.
        started = opened
    result = models_fresh.fresh(
        models_fresh.FreshScreen(
            action=inp.action,
            planning_model=inp.current_model,
            planning_thinking=inp.thinking_level,
            open_catalogue=opened,
            start_catalogue=started,
            behaviours=_behaviours(inp.models),
            pick=inp.pick,
            pick_thinking=inp.pick_thinking,
        ),
        settings,
    )
    walked = result.walked
    return output(
        ModelsFreshOutput,
        result,
        outcome=walked.outcome,
        applied=walked.applied,
        elapsed_ms=walked.end_at,
        planning_model=inp.current_model,
        planning_thinking=inp.thinking_level,
        settings_written=False,
        screen=fresh_screen(inp.action, result),
    )


@handler(planmode_models.SESSION)
def session(inp: ModelsSessionInput) -> ModelsSessionOutput:
    result = models_switch.run_session(
        settings=inp.settings,
        settings_read_failed=inp.settings_read_failed,
        current=inp.current_model,
        thinking_level=inp.thinking_level,
        scoped=inp.scoped_models,
        available=inp.available_models,
        behaviours=_behaviours(inp.models),
        events=[_SESSION_EVENTS[type(e)](e) for e in inp.events],
    )
    transitions = []
    model = inp.current_model
    for record in result.transitions:
        done = record.result
        if done is None:
            # An earlier model change hung: this transition never started.
            transitions.append(
                output(
                    TransitionResult,
                    record,
                    started_at=None,
                    ended_at=None,
                    outcome="blocked",
                    applied=None,
                    model=model,
                    warnings=[],
                    auth_attempts=0,
                    restored=False,
                )
            )
            continue
        model = done.model
        transitions.append(
            output(
                TransitionResult,
                done,
                at=record.at,
                trigger=record.trigger,
                started_at=record.started_at,
                ended_at=done.elapsed_ms,
            )
        )
    return output(ModelsSessionOutput, result, transitions=transitions)
