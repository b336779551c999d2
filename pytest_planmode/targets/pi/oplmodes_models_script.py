"""`oplmodes.models.script` through the host (opl-modes.md § Tool inheritance
warning, on model overrides; § Mode appearance, on serialized changes).

Before the extension loads: Pi's model registry (each model resolves, has
credentials unless the case says not, and `pi.setModel` to it takes its
`changeLatencyMs` of virtual time), the session model (`--model`), and the
configuration file with the case's `modes`. The session starts at 0 ms;
each event becomes the Pi-level step it names at its instant: `/mode
<name>`, `/reload`, `/resume`, `/new`, a provider change (the `provider`
host step: what `modelRegistry.find`, `hasConfiguredAuth` and `pi.setModel`
answer for that model from then on), the user's own pick (`/model`: Pi
switches and emits `model_select`). No step waits for a model change: the
virtual clock moves on to the next event, and after the last one long
enough for every change to settle.

Effects: `changes` are the extension's `pi.setModel` calls, each with the
instant it was made, the instant it settled and what Pi answered; `model`
is Pi's session model at the end; `mode` the shared state
(`globalThis.__agentMode`); `warnings` the warning notifications;
`persisted` the last `mode-switcher` entry on the final branch, its data
read as `{mode, restoreModel, restoreFailures}` (the suite's names for the
restore point the spec says is persisted with the mode; a model may be
written `provider/id` or `{provider, id}`; an entry without a failure count
records none).

Inside a real Pi, a script with `/resume` (which resumes the session's own
entries) starts with one exchange with the model at 0 ms, before its first
event: Pi writes a session file only once it holds an assistant reply, and
`/resume` opens a stored session (as a session a user resumes in Pi has one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_planmode.contract import host_events as host
from pytest_planmode.contract import oplmodes_models as contract
from pytest_planmode.hosts.pi import steps as host_steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi._oplmodes import (
    ENTRY_TYPE,
    OPTIONS,
    config_step,
    notifications,
    shared_state,
)
from pytest_planmode.targets.pi.events import EventTable, Place
from pytest_planmode.targets.pi.translation import (
    HostRun,
    ScriptBuilder,
    Translation,
    Unsupported,
    answer_index,
    parse_input,
)

OPERATION = "oplmodes.models.script"


def _split(model: str) -> tuple[str, str]:
    provider, _, model_id = model.partition("/")
    return provider, model_id


#: Real Pi writes a session file only once it holds an assistant reply, and
#: `/resume` opens a stored session: before a script that resumes, the user
#: and the model exchange one message at start (nothing switches a model in
#: it), so the session is there to resume.
FIRST_REPLY: tuple[host_steps.Step, ...] = (
    host_steps.AgentStart(prompt="Hello."),
    host_steps.AgentEnd(outcome="completed"),
)


def build(case: contract.ModelsScriptInput) -> ScriptBuilder:
    known = {m.model for m in case.registry}
    if case.initial_model not in known:
        raise Unsupported(f"the session model {case.initial_model} is not in Pi's registry at start")
    catalogue = []
    behaviour: dict[str, dict[str, Any]] = {}
    for entry in case.registry:
        provider, model_id = _split(entry.model)
        catalogue.append({"provider": provider, "id": model_id})
        behaviour[entry.model] = {"credentials": entry.credentials, "changeDelay": entry.change_latency_ms}
    builder = ScriptBuilder()
    builder.add(host_steps.Models(catalogue=catalogue, behaviour=behaviour, current=case.initial_model))
    if case.modes:
        builder.add(config_step({"modes": case.modes}))
    builder.add(host_steps.Start())
    if any(isinstance(event, host.SessionResume) for event in case.events):
        builder.add(*FIRST_REPLY)
    latencies = [m.change_latency_ms for m in case.registry]
    for event in case.events:
        builder.begin(event.at)
        builder.add(*EVENTS.host_steps(event))
        builder.end()
        if isinstance(event, host.ProviderChange) and event.change_latency_ms:
            latencies.append(event.change_latency_ms)
    # Long enough for every queued change to run one after another.
    builder.add(host_steps.Advance(ms=(sum(latencies) + 1) * (len(case.events) + 2)))
    return builder


def _command(table: EventTable, event: host.Command, place: Place) -> list[host_steps.Step]:
    # No step waits for a model change.
    return [host_steps.Command(name=event.name, args=event.args, wait=False)]


#: The shared table: commands do not wait; every other event this
#: operation takes (reload, resume, new session, provider changes, the
#: user's model pick) is the shared one.
EVENTS = EventTable(overrides={host.Command: _command})


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[host_steps.Step]:
    return build(parse_input(OPERATION, contract.ModelsScriptInput, payload)).steps


def _model(value: Any) -> str | None:
    if isinstance(value, str) and value:
        return value
    if isinstance(value, dict) and value.get("provider") and value.get("id"):
        return f"{value['provider']}/{value['id']}"
    return None


def _changes(run: HostRun) -> list[dict[str, Any]]:
    """Each `pi.setModel` call with the instant Pi's answer to it came
    (`answer` entries, one per settled call, in the order they settled;
    a call's answer is the first one for its model after it not taken yet)."""
    taken: set[int] = set()
    changes = []
    for i, call in enumerate(run.trace):
        if call.get("call") != "pi.setModel":
            continue
        target = _model((call.get("args") or [None])[0])
        j = answer_index(run.trace, i, "pi.setModel", target or "", taken)
        if j is None:
            raise RuntimeError(f"pi.setModel({target}) at {call.get('t')} ms never settled")
        done = run.trace[j]
        changes.append(
            {
                "at": int(call.get("t", 0)),
                "end": int(done.get("t", 0)),
                "model": target or "",
                "ok": done.get("value") is True,
            }
        )
    return changes


def _persisted(run: HostRun) -> dict[str, Any] | None:
    branch = run.state.get("branch") or []
    mine = [e for e in branch if isinstance(e, dict) and e.get("customType") == ENTRY_TYPE]
    if not mine:
        return None
    data = mine[-1].get("data")
    data = data if isinstance(data, dict) else {}
    failures = data.get("restoreFailures")
    return {
        "mode": data.get("mode"),
        "restoreModel": _model(data.get("restoreModel")),
        "restoreFailures": failures if isinstance(failures, int) else 0,
    }


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    parse_input(OPERATION, contract.ModelsScriptInput, payload)
    for index in range(len(run.results)):
        run.result(index)
    warnings = [n["message"] for n in notifications(run.trace) if n["level"] == "warning"]
    return {
        "changes": _changes(run),
        "model": run.state.get("model"),
        "mode": shared_state(run.results[-1]).get("mode"),
        "persisted": _persisted(run),
        "warnings": warnings,
    }


TRANSLATION = Translation(script, effects, command="mode", spec="opl-modes", options=OPTIONS)
