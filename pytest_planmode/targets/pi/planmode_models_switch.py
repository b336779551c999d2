"""`planmode.models.switch` through the host (pi-plan-mode-settings.md
§ Auto model switch; docs/areas/models.md § A host script from the input).

Pi's registry is the case's catalogue and answers (a `models` host step);
Pi starts on `currentModel` with the case's thinking level and an empty
settings document, so nothing switches while the host reaches the state the
trigger needs: `/plan start` for an exit; a Plan-mode run whose
`plan_mode_complete` call settles for the ready menu; its **Start fresh and
implement** for the fresh screen; **Save for later** for a saved plan. The
case's settings are then written (the watcher reads them; a read failure is
a settings path that cannot be read), `transitionFails` makes the
step after the next accepted model change fail (the handoff, or the session
write), and the trigger fires.
The clock then runs until every answer has come.

Effects are read from the trigger's window of the call trace (see
`_planmode_models`); `savedPlanKept` from the `/plan` menu afterwards (the
saved-plan menu still offers its plan).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_planmode.contract import host_events as host
from pytest_planmode.contract import planmode_models as contract
from pytest_planmode.hosts.pi import steps as host_steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi import _planmode_models as models
from pytest_planmode.targets.pi.translation import (
    OPL_COMMANDS,
    HostRun,
    ScriptBuilder,
    Translation,
    Unsupported,
    calls,
    parse_input,
)

OPERATION = "planmode.models.switch"


def parse(payload: Mapping[str, Any]) -> contract.ModelsSwitchInput:
    return parse_input(OPERATION, contract.ModelsSwitchInput, payload)


def build(case: contract.ModelsSwitchInput) -> tuple[ScriptBuilder, int, int | None]:
    """The host script, the index of the trigger step and of the probe."""
    trigger, how = contract.TRIGGERS[contract.trigger_key(case.trigger)]
    builder = ScriptBuilder()
    builder.add(
        *models.opening_steps(case),
    )
    if case.transition_fails:
        builder.add(*models.FIRST_REPLY)
    settings: list[host_steps.Step] = [
        host_steps.WriteFile(
            root="agent", path=models.SETTINGS_FILE, content=models.settings_content(case.settings)
        )
    ]
    if case.settings_read_failed:
        settings.append(host_steps.UnreadableFile(root="agent", path=models.SETTINGS_FILE))
    if trigger != "plan.start":
        builder.add(host_steps.Command(name="plan", args="start"))
    if trigger == "plan.save" or trigger == "implement":
        builder.add(*models.ready_steps())
    if how == "saved":
        builder.add(models.answer(models.SAVE_ITEM))
    if how == "fresh":
        # The screen's rows are seeded from the settings when it opens.
        builder.add(*settings)
        builder.elapse(models.WATCH_SETTLE_MS)
        builder.add(models.answer(models.FRESH_ITEM))
    else:
        builder.add(*settings)
        builder.elapse(models.WATCH_SETTLE_MS)
    if case.transition_fails:
        builder.add(models.fault_step(how))
    index = len(builder.steps)
    if isinstance(case.trigger, host.Command):
        builder.add(host_steps.Command(name=case.trigger.name, args=case.trigger.args, wait=False))
    else:
        builder.add(models.answer(case.trigger.label))
    candidates = len(case.models) + len(case.available_models) + len(case.scoped_models) + 4
    builder.elapse(models.budget_ms(case.models.values(), candidates))
    probe = None
    if how == "saved":
        probe = len(builder.steps)
        builder.add(host_steps.Command(name="plan", args="", wait=False), models.answer(None))
    return builder, index, probe


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[host_steps.Step]:
    case = parse(payload)
    trigger, _ = contract.TRIGGERS[contract.trigger_key(case.trigger)]
    why = models.beyond_pi(
        current=case.current_model if case.transition_fails else None,
        available=case.available_models,
        models=case.models,
        settings=[case.settings],
        chains=["planModel" if trigger == "plan.start" else "normalModel"],
    )
    if why:
        raise Unsupported(why)
    return build(case)[0].steps


def saved_plan_offered(run: HostRun, probe: int) -> bool:
    record = run.results[probe]
    trace = run.trace[int(record.get("traceFrom", 0)) :]
    return any(
        models.SAVED_PLAN_ITEM in (args[1] if len(args) > 1 else []) for args in calls(trace, "ui.select")
    )


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    case = parse(payload)
    _, how = contract.TRIGGERS[contract.trigger_key(case.trigger)]
    _, index, probe = build(case)
    start = run.results[index]
    stop = int(run.results[probe]["traceFrom"]) if probe is not None else len(run.trace)
    window = (int(start.get("traceFrom", 0)), stop)
    tr = models.read(
        run.trace[:stop],
        window,
        t0=int(start.get("t", 0)),
        before=case.current_model,
        preflight=how == "saved",
    )
    return {
        "applied": tr.applied,
        "model": str(run.state.get("model") or tr.model),
        "log": tr.log,
        "warnings": tr.warnings,
        "error": tr.error,
        "elapsedMs": tr.elapsed_ms,
        "authAttempts": tr.auth_attempts,
        "thinkingLevel": str(run.state.get("thinkingLevel")),
        "savedPlanKept": saved_plan_offered(run, probe) if probe is not None else None,
        "restored": tr.restored,
    }


TRANSLATION = Translation(
    script, effects, command="plan", spec="pi-plan-mode", unless=OPL_COMMANDS, options={"holdPrompts": True}
)
