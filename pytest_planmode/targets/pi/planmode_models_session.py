"""`planmode.models.session` through the host (pi-plan-mode-settings.md
§ Auto model switch; docs/areas/models.md § A host script from the input).

The events are the host script: `/plan` commands and menu answers as the
user gives them (a command that switches runs on the virtual clock while
later events arrive), the Plan-mode run whose `plan_mode_complete` call
makes a plan ready, settings edited on disk or made unreadable,
`models.catalogue` and `provider.change` as changes of Pi's registry, and
`transition.fault` as a failing step after the next transition's model
change (see `_planmode_models.fault_step`).

Each transition is read from the call trace between its trigger and the
next one's (see `_planmode_models`). After a settings change the
extension's watcher gets `WATCH_SETTLE_MS` of virtual time before the next
event; when the next event comes sooner, the host clock runs ahead by that
much and instants are mapped back (a transition in flight across such a
write sees its timers late by as much).

Unsupported per case: `settings.screen` (a chain of the extension's own
Settings menus whose labels the case does not give).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_planmode.contract import host_events as host
from pytest_planmode.contract import planmode_models as contract
from pytest_planmode.hosts.pi import steps as host_steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi import _planmode_models as models
from pytest_planmode.targets.pi.events import EventTable, Place
from pytest_planmode.targets.pi.translation import (
    OPL_COMMANDS,
    HostRun,
    ScriptBuilder,
    Translation,
    Unsupported,
    parse_input,
)

OPERATION = "planmode.models.session"


def parse(payload: Mapping[str, Any]) -> contract.ModelsSessionInput:
    return parse_input(OPERATION, contract.ModelsSessionInput, payload)


class Plan:
    """The host script and where each transition's steps begin."""

    def __init__(self) -> None:
        self.builder = ScriptBuilder()
        #: (event index, trigger, how, step index of the trigger)
        self.transitions: list[tuple[int, str, str | None, int]] = []
        #: Host clock shifts: (host start, host end, total shift after).
        self.shifts: list[tuple[int, int, int]] = []

    def to_case(self, t: int) -> int:
        off = 0
        for start, end, total in self.shifts:
            if t >= end:
                off = total
            elif t > start:
                return start - off
            else:
                break
        return t - off


def build(case: contract.ModelsSessionInput) -> Plan:
    plan = Plan()
    b = plan.builder
    writes = [e.settings for e in case.events if isinstance(e, host.SettingsWrite)]
    b.add(
        models.registry_step(
            current=case.current_model,
            scoped=case.scoped_models,
            available=case.available_models,
            models=case.models,
            settings=[case.settings, *writes],
        ),
        host_steps.WriteFile(
            root="agent", path=models.SETTINGS_FILE, content=models.settings_content(case.settings)
        ),
    )
    if case.settings_read_failed:
        b.add(host_steps.UnreadableFile(root="agent", path=models.SETTINGS_FILE))
    b.add(host_steps.Start(thinking_level=case.thinking_level))
    if any(isinstance(e, contract.TransitionFault) for e in case.events):
        b.add(*models.FIRST_REPLY)
    walk = contract.PlanWalk()
    events = list(case.events)
    for index, event in enumerate(events):
        problem = walk.step(event)
        if problem:
            raise Unsupported(f"events[{index}] ({event.type}): {problem}")
        b.begin(event.at)
        if walk.transition is not None:
            trigger, how, fails = walk.transition
            b.add(host_steps.FailNext(clear=True))
            if fails:
                b.add(models.fault_step(how))
            plan.transitions.append((index, trigger, how, len(b.steps)))
        b.add(*_steps(event))
        b.end()
        if isinstance(event, host.SettingsWrite | host.SettingsUnreadable):
            following = events[index + 1] if index + 1 < len(events) else None
            if following is not None and following.at - event.at < models.WATCH_SETTLE_MS:
                start = b.now
                b.elapse(models.WATCH_SETTLE_MS)
                plan.shifts.append((start, b.now, b.offset))
    behaviours = list(case.models.values())
    b.elapse(models.budget_ms(behaviours, len(case.models) + len(case.available_models) + 4))
    return plan


def _command(table: EventTable, event: host.Command, place: Place) -> list[host_steps.Step]:
    # A command that switches runs on the virtual clock while later events arrive.
    return [host_steps.Command(name=event.name, args=event.args, wait=False)]


def _agent_start(table: EventTable, event: host.AgentStart, place: Place) -> list[host_steps.Step]:
    return [host_steps.AgentStart(prompt=event.prompt or "Plan the change.")]


def _ui_answer(table: EventTable, event: host.UiAnswer, place: Place) -> list[host_steps.Step]:
    return [models.answer(event.label)]


#: The shared table; a transition fault arms at its transition (no step of its own).
EVENTS = EventTable(
    settings_file=models.SETTINGS_FILE,
    validated=lambda tool: True,
    overrides={
        host.Command: _command,
        host.AgentStart: _agent_start,
        host.UiAnswer: _ui_answer,
        contract.TransitionFault: lambda table, event, place: [],
    },
)


def _steps(event: Any) -> list[host_steps.Step]:
    return EVENTS.host_steps(event)


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[host_steps.Step]:
    case = parse(payload)
    why = models.beyond_pi(
        current=case.current_model
        if any(isinstance(e, contract.TransitionFault) for e in case.events)
        else None,
        available=case.available_models,
        models=case.models,
        settings=[case.settings, *(e.settings for e in case.events if isinstance(e, host.SettingsWrite))],
    )
    if why:
        raise Unsupported(why)
    return build(case).builder.steps


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    case = parse(payload)
    plan = build(case)
    events = list(case.events)
    out: list[dict[str, Any]] = []
    log: list[dict[str, Any]] = []
    model = case.current_model
    for n, (index, trigger, how, step) in enumerate(plan.transitions):
        record = run.results[step]
        start = int(record.get("traceFrom", 0))
        stop = (
            int(run.results[plan.transitions[n + 1][3]].get("traceFrom", 0))
            if n + 1 < len(plan.transitions)
            else len(run.trace)
        )
        tr = models.read(
            run.trace,
            (start, stop),
            t0=int(record.get("t", 0)),
            before=model,
            preflight=how == "saved",
            to_case=plan.to_case,
        )
        asked = events[index].at
        model = tr.model
        log += tr.log
        out.append(
            {
                "at": asked,
                "trigger": trigger,
                "startedAt": tr.started_at if tr.started_at is not None else asked,
                "endedAt": tr.ended_at,
                "applied": tr.applied,
                "model": model,
                "warnings": tr.warnings,
                "authAttempts": tr.auth_attempts,
                "restored": tr.restored,
            }
        )
    log.sort(key=lambda row: row["at"])
    return {"transitions": out, "log": log, "model": str(run.state.get("model") or model)}


TRANSLATION = Translation(
    script, effects, command="plan", spec="pi-plan-mode", unless=OPL_COMMANDS, options={"holdPrompts": True}
)
