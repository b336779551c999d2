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
    SwitchInput,
    SwitchOutput,
    Warning,
)
from pytest_planmode.reference.ops import handler
from pytest_planmode.reference.planmode import model_fresh, model_switch
from pytest_planmode.reference.planmode.model_switch import Behaviour, Step


def _behaviours(models: Mapping[str, ModelBehaviour]) -> dict[str, Behaviour]:
    return {
        key: Behaviour(
            resolves=b.resolves,
            auth=b.auth,
            auth_latency_ms=b.auth_latency_ms,
            credentials=b.credentials,
            change=b.change,
            change_latency_ms=b.change_latency_ms,
        )
        for key, b in models.items()
    }


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
        candidates=[
            CandidateResult(model=c.model, result=c.result, auth=c.auth) for c in result.candidates
        ],
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
        notice=(
            Notice(kind=result.notice.kind, message=result.notice.message)
            if result.notice
            else None
        ),
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
