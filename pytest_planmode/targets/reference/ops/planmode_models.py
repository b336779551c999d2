"""Handlers of planmode.models.switch and planmode.models.fresh."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pytest_planmode.contract import host_events as host
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
from pytest_planmode.reference.planmode import models_fresh, models_switch
from pytest_planmode.reference.planmode.models_switch import Behaviour
from pytest_planmode.targets.reference.convert import output, value
from pytest_planmode.targets.reference.ops import handler


def _behaviour(b: ModelBehaviour) -> Behaviour:
    return value(Behaviour, b)


def _behaviours(models: Mapping[str, ModelBehaviour]) -> dict[str, Behaviour]:
    return {key: _behaviour(b) for key, b in models.items()}


_DEFAULT = ModelBehaviour()


class _Translation:
    """A session script's host events as the reference session's events.
    The extension's state (which menu is open, whether a plan is saved) is
    walked with the contract's :class:`~.planmode_models.PlanWalk`, so a
    command or a menu answer becomes the Plan boundary it is there; the
    settings file, the catalogue and each model's answers are tracked
    because a host event changes only the fields it gives."""

    def __init__(self, inp: ModelsSessionInput) -> None:
        self.walk = models.PlanWalk()
        self.document: dict[str, Any] = dict(inp.settings)
        self.known: dict[str, ModelBehaviour] = dict(inp.models)

    def __call__(self, e: Any) -> list[models_switch.SessionEvent]:
        self.walk.step(e)
        return _SESSION_EVENTS[type(e)](self, e)

    def transition(self, e: Any) -> list[models_switch.SessionEvent]:
        if self.walk.transition is None:
            return []
        trigger, how, fails = self.walk.transition
        return [models_switch.TransitionAsked(e.at, trigger, how, fails)]

    def settings(self, e: host.SettingsWrite | host.SettingsScreen) -> list[models_switch.SessionEvent]:
        for key, raw in e.settings.items():
            if raw is None:
                self.document.pop(key, None)
            else:
                self.document[key] = raw
        return [models_switch.SettingsSaved(e.at, dict(self.document))]

    def unreadable(self, e: host.SettingsUnreadable) -> list[models_switch.SessionEvent]:
        return [models_switch.SettingsSaved(e.at, dict(self.document), settings_read_failed=True)]

    def provider(self, e: host.ProviderChange) -> list[models_switch.SessionEvent]:
        given = {
            name: getattr(e, name) for name in ModelBehaviour.model_fields if getattr(e, name) is not None
        }
        behaviour = self.known.get(e.model, _DEFAULT).model_copy(update=given)
        self.known[e.model] = behaviour
        return [models_switch.ProviderChanged(e.at, e.model, _behaviour(behaviour))]


def _catalogue(_: _Translation, e: host.ModelsCatalogue) -> list[models_switch.SessionEvent]:
    return [
        models_switch.CatalogueChanged(
            e.at,
            None if e.scoped_models is None else tuple(e.scoped_models),
            None if e.available_models is None else tuple(e.available_models),
        )
    ]


def _nothing(_: _Translation, e: Any) -> list[models_switch.SessionEvent]:
    """Agent runs and the clock change nothing the switch reads: a run only
    makes a plan ready, which the walk tracks."""
    return []


#: Each session event's reference values, by the event's contract class.
_SESSION_EVENTS: dict[type[Any], Callable[[_Translation, Any], list[models_switch.SessionEvent]]] = {
    host.Command: _Translation.transition,
    host.UiAnswer: _Translation.transition,
    host.AgentStart: _nothing,
    host.ToolCall: _nothing,
    host.AgentSettle: _nothing,
    host.ClockAdvance: _nothing,
    models.TransitionFault: _nothing,
    host.SettingsWrite: _Translation.settings,
    host.SettingsScreen: _Translation.settings,
    host.SettingsUnreadable: _Translation.unreadable,
    host.ModelsCatalogue: _catalogue,
    host.ProviderChange: _Translation.provider,
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
    )


@handler(planmode_models.SESSION)
def session(inp: ModelsSessionInput) -> ModelsSessionOutput:
    translate = _Translation(inp)
    events = [step for e in inp.events for step in translate(e)]
    result = models_switch.run_session(
        settings=models_switch.read_settings(inp.settings, inp.settings_read_failed),
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
    return output(ModelsSessionOutput, result, transitions=transitions)
