"""Handlers of planmode.models.switch and planmode.models.fresh."""

from __future__ import annotations

from collections.abc import Mapping

from pytest_planmode.contract.planmode_models import (
    CandidateResult,
    FreshInput,
    FreshOutput,
    LogEntry,
    ModelBehaviour,
    Notice,
    SessionScriptInput,
    SessionScriptOutput,
    SwitchInput,
    SwitchOutput,
    TransitionResult,
    Warning,
)
from pytest_planmode.reference.planmode import model_fresh, model_switch
from pytest_planmode.reference.planmode.model_switch import Behaviour, Step
from pytest_planmode.targets.reference.ops import handler


def _behaviour(b: ModelBehaviour) -> Behaviour:
    return Behaviour(
        resolves=b.resolves,
        auth=b.auth,
        auth_latency_ms=b.auth_latency_ms,
        credentials=b.credentials,
        change=b.change,
        change_latency_ms=b.change_latency_ms,
    )


def _behaviours(models: Mapping[str, ModelBehaviour]) -> dict[str, Behaviour]:
    return {key: _behaviour(b) for key, b in models.items()}


def _log(steps: tuple[Step, ...]) -> list[LogEntry]:
    return [LogEntry(at=s.at, type=s.type, model=s.model, outcome=s.outcome) for s in steps]


def _warnings(items: tuple[model_switch.Warning, ...]) -> list[Warning]:
    return [Warning(kind=w.kind, message=w.message) for w in items]


@handler("planmode.models.switch")
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
    return SwitchOutput(
        outcome=result.outcome,
        disabled_reason=result.disabled_reason,
        settings_error=result.settings_error,
        direction=result.direction,
        candidates=[CandidateResult(model=c.model, result=c.result, auth=c.auth) for c in result.candidates],
        applied=result.applied,
        model=result.model,
        log=_log(result.log),
        warnings=_warnings(result.warnings),
        error=result.error,
        elapsed_ms=result.elapsed_ms,
        auth_attempts=result.auth_attempts,
        thinking_level=result.thinking_level,
        saved_plan_kept=result.saved_plan_kept,
        restored=result.restored,
    )


@handler("planmode.models.fresh")
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
    return FreshOutput(
        initial_model=result.initial_model,
        fallbacks=list(result.fallbacks),
        unavailable=list(result.unavailable),
        initial_thinking=result.initial_thinking,
        chain=list(result.chain),
        notice=(Notice(kind=result.notice.kind, message=result.notice.message) if result.notice else None),
        outcome=result.walked.outcome,
        applied=result.walked.applied,
        model=result.model,
        thinking_level=result.thinking_level,
        log=_log(result.log),
        warnings=_warnings(result.warnings),
        elapsed_ms=result.walked.end_at,
        planning_model=inp.current_model,
        planning_thinking=inp.thinking_level,
        settings_written=False,
    )


@handler("planmode.models.session")
def session(inp: SessionScriptInput) -> SessionScriptOutput:
    events = []
    for e in inp.events:
        if e.type == "settings.save":
            events.append(
                model_switch.SessionEvent(
                    e.at, e.type, settings=e.settings, settings_read_failed=e.settings_read_failed
                )
            )
        elif e.type == "catalogue":
            events.append(
                model_switch.SessionEvent(
                    e.at,
                    e.type,
                    scoped=None if e.scoped_models is None else tuple(e.scoped_models),
                    available=None if e.available_models is None else tuple(e.available_models),
                )
            )
        elif e.type == "provider":
            events.append(
                model_switch.SessionEvent(e.at, e.type, model=e.model, behaviour=_behaviour(e.behaviour))
            )
        else:
            events.append(model_switch.SessionEvent(e.at, e.type, how=e.how, fails=e.fails))
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
        r = record.result
        if r is None:
            transitions.append(
                TransitionResult(
                    at=record.at,
                    trigger=record.trigger,
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
        model = r.model
        transitions.append(
            TransitionResult(
                at=record.at,
                trigger=record.trigger,
                started_at=record.started_at,
                ended_at=r.elapsed_ms,
                outcome=r.outcome,
                applied=r.applied,
                model=r.model,
                warnings=_warnings(r.warnings),
                auth_attempts=r.auth_attempts,
                restored=r.restored,
            )
        )
    return SessionScriptOutput(transitions=transitions, log=_log(result.log), model=result.model)
