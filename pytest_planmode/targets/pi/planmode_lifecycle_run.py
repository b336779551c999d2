"""`planmode.lifecycle.run` through the host (pi-plan-mode-settings.md
§ Plan reinjection, § Thinking level, § Export destination, § Toggle
shortcut).

Before the extension loads: the settings document under the agent
directory (no file when the case gives no settings: the file is optional),
the case's pre-existing paths in the sandbox, Pi's working directory and
thinking level. Each host event becomes the Pi-level steps it names; a menu
still open when the user does something else is dismissed first (the user
left it).

Effects are read from what the extension visibly does: the contexts from
what its `context` handler leaves for the model (and what its
`before_agent_start` messages added to the history), kickoffs from
`pi.sendUserMessage`, thinking from every level change Pi applied, exports
from the files written and the notices shown, notices from warning and error
notifications, the mode from the Plan status (`ctx.ui.setStatus`), the
shortcut from `pi.registerShortcut`. The ready and saved plans are the last
plan the model handed in that the extension accepted, as the status shows it
held (ready, or saved).

Inputs a host cannot express are answered `unsupported`, per case: a plan
saved in an earlier session (its entry format is the extension's own), the
Settings screen (menus whose labels the case does not give), a home
directory elsewhere, a nested tool call through an orchestrator.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_planmode.contract import host_events as host
from pytest_planmode.contract import planmode_lifecycle as contract
from pytest_planmode.hosts.pi import steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi import _planmode_plans as plans
from pytest_planmode.targets.pi.events import EventTable, Place
from pytest_planmode.targets.pi.translation import (
    OPL_COMMANDS,
    HostRun,
    ScriptBuilder,
    Translation,
    Unsupported,
    calls,
    parse_input,
    screen,
    step_trace,
)

OPERATION = "planmode.lifecycle.run"
#: Virtual time given to the extension after the settings file changes (its
#: watcher's debounce runs on the virtual clock).
WATCH_SETTLE_MS = 500
#: Events that leave an open menu where it is (a host condition, time).
_KEEP_OPEN = (host.UiAnswer, host.ApiFail, host.ClockAdvance, host.AgentSettle)


def parse(payload: Mapping[str, Any]) -> contract.LifecycleRunInput:
    return parse_input(OPERATION, contract.LifecycleRunInput, payload)


def is_export(event: Any, menu: str | None) -> bool:
    if isinstance(event, host.Command):
        args = event.args.strip()
        return event.name == "plan" and (args == "export" or args.startswith("export "))
    return isinstance(event, host.UiAnswer) and menu == "export"


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[steps.Step]:
    case = parse(payload)
    check(case)
    plans.materialize(case.paths, sandbox, cwd=case.cwd)
    return build(case, sandbox).steps


def check(case: contract.LifecycleRunInput) -> None:
    if case.saved_plan is not None:
        raise Unsupported(
            "a plan saved in an earlier session is kept in the extension's own session entries, "
            "whose format the spec does not fix"
        )
    if case.home != "$HOME":
        raise Unsupported("the host's home directory is the sandbox's $HOME; the case puts it elsewhere")
    if any(isinstance(e, host.ApiFail) and e.call == "sendUserMessage" for e in case.events):
        raise Unsupported(
            "in Pi a failed sendUserMessage is never reported to its caller (the message is "
            "queued and the run's failure is Pi's own); the case has the call throw"
        )


def build(case: contract.LifecycleRunInput, sandbox: Sandbox) -> ScriptBuilder:
    builder = ScriptBuilder()
    if case.settings:
        builder.add(
            steps.WriteFile(
                root="agent",
                path=plans.SETTINGS_FILE,
                content=plans.settings_document(case.settings, sandbox),
            )
        )
    if case.cwd != "$CWD":
        builder.add(steps.SetCwd(path=plans.real_path(case.cwd, sandbox)))
    builder.add(plans.session_model_step())
    builder.add(steps.Start(thinking_level=case.thinking))
    events = list(case.events)
    menus = contract.open_menus(events)
    asked = False  # the open run has made an LLM call (Pi emitted context)
    for index, event in enumerate(events):
        builder.begin(event.at)
        if not isinstance(event, _KEEP_OPEN):
            builder.add(steps.Dismiss())
        if isinstance(event, host.AgentStart | host.AgentSettle):
            asked = False
        elif isinstance(event, host.Context):
            asked = True
        elif isinstance(event, host.ToolCall) and not asked:
            # The model's tool call answers an LLM call, and Pi emits
            # context before each one: the script's first call implies it.
            builder.add(steps.Context())
            asked = True
        builder.add(*event_steps(event, events[index + 1 :], menus[index], sandbox))
        builder.end()
        if isinstance(event, host.SettingsWrite):
            builder.elapse(WATCH_SETTLE_MS)
    return builder


def _command(table: EventTable, event: host.Command, place: Place) -> list[steps.Step]:
    """`/name args`, an export's typed destination in the sandbox."""
    args = event.args
    if is_export(event, None):
        assert place.sandbox is not None
        sandbox = place.sandbox
        args = plans.real_path(args, sandbox) if "$" in args else args
        args = " ".join(
            plans.real_path(word, sandbox) if word.startswith(("$", "@$")) else word
            for word in args.split(" ")
        )
    if place.answered:
        return [steps.Command(name=event.name, args=args, wait=False)]
    return [steps.Command(name=event.name, args=args)]


def _ui_answer(table: EventTable, event: host.UiAnswer, place: Place) -> list[steps.Step]:
    if event.label is None:
        return [steps.Ui(answers=[steps.UiReply(cancel=True)])]
    label = event.label
    if place.menu == "export":
        assert place.sandbox is not None
        label = plans.real_path(label, place.sandbox)
    # One answer fits a menu (the item chosen) and a text input (the text typed).
    return [steps.Ui(answers=[steps.UiReply(select=label, input=label)])]


def _settings_write(table: EventTable, event: host.SettingsWrite, place: Place) -> list[steps.Step]:
    assert place.sandbox is not None
    changed = plans.map_value(dict(event.settings), place.sandbox)
    return [steps.EditFile(root="agent", path=plans.SETTINGS_FILE, set=changed)]


#: The shared table: the model's plan hand-in and shell calls carry the
#: arguments Pi checks; answers and commands name paths under the sandbox.
EVENTS = EventTable(
    settings_file=plans.SETTINGS_FILE,
    validated=lambda tool: tool == contract.COMPLETE_TOOL or tool in host.SHELL_TOOLS,
    overrides={
        host.Command: _command,
        host.UiAnswer: _ui_answer,
        host.SettingsWrite: _settings_write,
    },
)


def event_steps(event: Any, following: list[Any], menu: str | None, sandbox: Sandbox) -> list[steps.Step]:
    return EVENTS.host_steps(event, Place(following, sandbox, menu))


# ------------------------------------------------------------------ effects


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    case = parse(payload)
    for index, record in enumerate(run.results):
        if record.get("threw") is not None:
            raise RuntimeError(f"step {index} ({record.get('do')}): the extension threw: {record['threw']}")
        if record.get("do") == "command" and record.get("error"):
            raise RuntimeError(f"step {index}: {record['error']}")
    sandbox = Sandbox(_root(run))
    plans.check_answerable(run)
    builder = build(case, sandbox)
    menus = contract.open_menus(list(case.events))
    accepted = plans.accepted_plans(run)
    settings_path = f"$AGENT/{plans.SETTINGS_FILE}"

    contexts: list[dict[str, Any]] = []
    kickoffs: list[dict[str, Any]] = []
    exports: list[dict[str, Any]] = []
    existing: dict[str, str] = {entry.path: entry.kind for entry in case.paths}
    written = plans.written(run, sandbox, skip=[settings_path])
    status: Any = plans.status_text(run.trace[: _first_trace(run, builder.spans)])
    current: str | None = None  # the last accepted plan so far
    for event, span, menu in zip(case.events, builder.spans, menus, strict=True):
        trace = step_trace(run, span)
        for index, plan in accepted:
            if span[0] <= index < span[1]:
                current = plan
        for entry in trace:
            if entry.get("call") != "pi.sendUserMessage":
                continue
            text = _text((entry.get("args") or [""])[0])
            kickoffs.append(
                {
                    "at": event.at,
                    "type": "kickoff",
                    "session": int(entry.get("session") or 1),
                    "text": text,
                    "holdsPlan": current is not None and current != "" and current in text,
                }
            )
        status = plans.status_text(trace) if calls(trace, "ui.setStatus") else status
        if isinstance(event, host.Context):
            found = [run.results[i] for i in range(*span) if run.results[i].get("do") == "context"]
            if not found:
                raise RuntimeError(f"the host ran no context step for the context event at {event.at}")
            contexts.append(_context(event, found[-1], current, plans.status_mode(status)))
        if is_export(event, menu):
            cancelled = isinstance(event, host.UiAnswer) and event.label is None
            outcome = plans.export_outcome(trace, sandbox, existing, written, cancelled)
            exports.append(
                {
                    "at": event.at,
                    "type": "export",
                    "outcome": outcome["outcome"],
                    "destination": outcome["destination"],
                }
            )
    final_mode = plans.status_mode(status)
    shown = str(status or "").lower()
    registrations = calls(run.trace, "pi.registerShortcut")
    last_runtime = max((int(e.get("runtime") or 0) for e in run.trace if "call" in e), default=0)
    loaded = [
        args[0]
        for e in run.trace
        if e.get("call") == "pi.registerShortcut" and int(e.get("runtime") or 0) == last_runtime
        for args in [e.get("args") or [None]]
    ]
    history = list(run.state.get("history") or [])
    return {
        "contexts": contexts,
        "kickoffs": kickoffs,
        "thinking": [
            {"at": _at(run, e, case, builder), "type": "thinking", "level": e["thinking"]}
            for e in run.trace[_first_trace(run, builder.spans) :]
            if "thinking" in e
        ],
        "exports": exports,
        "notices": plans.notices(run.trace),
        "final": {
            "mode": final_mode,
            "readyPlan": current if final_mode == "ready" else None,
            "savedPlan": current if "saved" in shown else None,
            "thinking": run.state.get("thinkingLevel"),
            "session": int(run.state.get("sessions") or 1),
            "planInHistory": plans.copies(history, current) > 0,
            "shortcut": {"loaded": loaded[-1] if loaded else None, "registrations": len(registrations)},
            "cwd": plans.virtual_path(str(run.state.get("cwd") or sandbox.cwd), sandbox),
            "written": [{"path": path, "content": content} for path, content in written.items()],
        },
        "screen": screen(run.trace, lambda text: plans.unmap_value(text, sandbox)),
    }


def _root(run: HostRun) -> Path:
    root = run.state.get("root")
    if not isinstance(root, str):
        raise RuntimeError("the host's answer does not name its sandbox root")
    return Path(root)


def _first_trace(run: HostRun, spans: list[tuple[int, int]]) -> int:
    """Where the events' part of the trace starts (after loading)."""
    if not spans:
        return len(run.trace)
    first = spans[0][0]
    if first >= len(run.results):
        return len(run.trace)
    return int(run.results[first].get("traceFrom", 0))


def _at(run: HostRun, entry: dict[str, Any], case: contract.LifecycleRunInput, builder: ScriptBuilder) -> int:
    position = run.trace.index(entry)
    for event, span in zip(case.events, builder.spans, strict=True):
        first, last = span
        if last > first and int(run.results[first].get("traceFrom", 0)) <= position < int(
            run.results[last - 1].get("traceTo", len(run.trace))
        ):
            return event.at
    return 0


def _text(content: Any) -> str:
    return "".join(plans.texts(content))


def _kind(message: Any) -> tuple[Any, ...]:
    if not isinstance(message, Mapping):
        return ("?",)
    role = message.get("role")
    if role in ("user", "custom"):
        # A prompt or custom message is itself: another text is another message.
        return (role, message.get("customType"), _text(message.get("content")))
    return (role, message.get("customType"), message.get("toolName"))


def _added(history: list[Any], messages: list[Any]) -> list[Any]:
    """The messages of `messages` that are not history messages (kept as
    they were, or rewritten in place, e.g. a tool call stripped): what
    remains once the longest common run of message kinds is matched."""
    old = [_kind(m) for m in history]
    new = [_kind(m) for m in messages]
    table = [[0] * (len(new) + 1) for _ in range(len(old) + 1)]
    for i in range(len(old) - 1, -1, -1):
        for j in range(len(new) - 1, -1, -1):
            table[i][j] = (
                table[i + 1][j + 1] + 1 if old[i] == new[j] else max(table[i + 1][j], table[i][j + 1])
            )
    matched: set[int] = set()
    i = j = 0
    while i < len(old) and j < len(new):
        if old[i] == new[j]:
            matched.add(j)
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return [m for index, m in enumerate(messages) if index not in matched]


def _context(event: Any, record: dict[str, Any], plan: str | None, mode: str) -> dict[str, Any]:
    history = list(record.get("history") or [])
    result = (record.get("context") or {}).get("messages")
    messages = list(result) if isinstance(result, list) else history
    added = _added(history, messages)
    # A message the hook added, or one the extension's before_agent_start
    # put in this run (hidden from the user): an injection.
    hidden = [
        m for m in history if isinstance(m, dict) and m.get("role") == "custom" and m.get("display") is False
    ]
    injected = added + [m for m in hidden if m in messages]
    injection: str | None = None
    if injected:
        text = "\n".join(_text(m) for m in injected)
        injection = plan if plan and plan in text else text
    return {
        "at": event.at,
        "type": "context",
        "session": int(record.get("session") or 1),
        "mode": mode,
        "planInHistory": plans.copies(history, plan) > 0,
        "injected": bool(injected),
        "injection": injection,
        "planCopies": plans.copies(messages, plan),
    }


TRANSLATION = Translation(
    script,
    effects,
    command="plan",
    spec="pi-plan-mode",
    unless=OPL_COMMANDS,
    options={"holdPrompts": True, "traceWrites": True},
)
