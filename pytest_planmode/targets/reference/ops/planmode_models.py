"""Handlers of planmode.models.switch and planmode.models.fresh."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pytest_planmode.contract import planmode_models
from pytest_planmode.contract import planmode_models as models
from pytest_planmode.contract.planmode_models import (
    FreshInput,
    FreshOutput,
    ModelBehaviour,
    SessionScriptInput,
    SessionScriptOutput,
    SwitchInput,
    SwitchOutput,
    TransitionResult,
)
from pytest_planmode.reference.planmode import model_fresh, model_switch
from pytest_planmode.reference.planmode.model_switch import Behaviour
from pytest_planmode.targets.reference.convert import output, value
from pytest_planmode.targets.reference.ops import handler


def _behaviour(b: ModelBehaviour) -> Behaviour:
    return value(Behaviour, b)


def _behaviours(models: Mapping[str, ModelBehaviour]) -> dict[str, Behaviour]:
    return {key: _behaviour(b) for key, b in models.items()}


#: Each session event's reference value, by the event's contract class.
_SESSION_EVENTS: dict[type[Any], Callable[[Any], model_switch.SessionEvent]] = {
    models.TransitionEvent: lambda e: value(model_switch.TransitionAsked, e, trigger=e.type),
    models.SettingsSave: lambda e: value(model_switch.SettingsSaved, e),
    models.CatalogueChange: lambda e: model_switch.CatalogueChanged(
        e.at,
        None if e.scoped_models is None else tuple(e.scoped_models),
        None if e.available_models is None else tuple(e.available_models),
    ),
    models.ProviderChange: lambda e: model_switch.ProviderChanged(e.at, e.model, _behaviour(e.behaviour)),
}


@handler(planmode_models.SWITCH)
def switch(inp: SwitchInput) -> SwitchOutput:
    settings = model_switch.read_settings(inp.settings, inp.settings_read_failed)
    result = model_switch.switch(
        model_switch.Transition(
            trigger=inp.trigger,
            how=(inp.how or "here") if inp.trigger == "implement" else None,
            current=inp.current_model,
            thinking_level=inp.thinking_level,
            available=model_switch.catalogue(inp.scoped_models, inp.available_models),
            behaviours=_behaviours(inp.models),
            transition_fails=inp.transition_fails,
        ),
        settings,
    )
    return output(SwitchOutput, result)


@handler(planmode_models.FRESH)
def fresh(inp: FreshInput) -> FreshOutput:
    settings = model_switch.read_settings(inp.settings, inp.settings_read_failed)
    opened = model_switch.catalogue(inp.scoped_models, inp.available_models)
    if inp.action == "screen":
        scoped = inp.start_scoped_models
        available = inp.start_available_models
        started = model_switch.catalogue(
            inp.scoped_models if scoped is None else scoped,
            inp.available_models if available is None else available,
        )
    else:
        # The direct action has no screen left open: it resolves once.
        started = opened
    result = model_fresh.fresh(
        model_fresh.FreshScreen(
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
        FreshOutput,
        result,
        outcome=walked.outcome,
        applied=walked.applied,
        elapsed_ms=walked.end_at,
        planning_model=inp.current_model,
        planning_thinking=inp.thinking_level,
        settings_written=False,
    )


@handler(planmode_models.SESSION)
def session(inp: SessionScriptInput) -> SessionScriptOutput:
    events = [_SESSION_EVENTS[type(e)](e) for e in inp.events]
    result = model_switch.run_session(
        settings=model_switch.read_settings(inp.settings, inp.settings_read_failed),
        current=inp.current_model,
        thinking_level=inp.thinking_level,
        scoped=inp.scoped_models,
        available=inp.available_models,
        behaviours=_behaviours(inp.models),
        events=events,
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
    return output(SessionScriptOutput, result, transitions=transitions)
