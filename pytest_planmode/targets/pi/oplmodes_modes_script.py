"""`oplmodes.modes.script` through the host (opl-modes.md § Commands, flags,
and shortcuts; § Extension features; § Execute handoff; § Architecture).

Before the extension loads: Pi's registry and active set from the case, the
config file under the agent directory (the module reads it when it loads),
the plan files under `.pi/plans/`, Pi's keybindings. Each event becomes the
Pi-level steps it names; the host reports after every step what it left
behind (active tools, `globalThis.__agentMode`, the plan files), and the
call trace of the step.

Effects are read from what Pi and the other extensions see, never from the
extension's internals: the mode from the shared state it publishes
(`__agentMode`, the spec's contract with opl-input/opl-footer), read as the
spec describes it: the mode and the appearance fields it names (`prefix`,
`prefixColor`, `borderColor`, `modeColor`, at the top or under an
`appearance` object), nothing else of its shape; the plan file as the one
the session visibly created, loaded or read under `.pi/plans/` since it
left normal mode (none in normal mode),
notifications and menus from `ctx.ui`, the entry from `pi.appendEntry`, the
widget from `ctx.ui.setWidget` (its colour from the theme token it was
painted with), plan files from the directory and the reads of it,
configuration problems from the warnings shown while the module loads.
An event that opens a custom dialog (`ctx.ui.custom`: a terminal component
the host cannot draw, which stays open as it does in Pi's interactive mode
with no key pressed) makes the case unsupported: the script does not say
what the user would enter there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pytest_planmode.contract import host_events as host
from pytest_planmode.contract import oplmodes_modes as contract
from pytest_planmode.hosts.pi import steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.spec_values import PI_BUILTIN_TOOLS, PI_DEFAULT_TOOLS
from pytest_planmode.targets.pi._oplmodes import (
    CONFIG_FILE,
    KEYBINDINGS_FILE,
    LOAD_TOOLS,
    OPTIONS,
    PLAN_FILE,
    PLANS_DIR,
    SHARED_STATE,
    config_step,
    dialogs,
    host_tool,
    notifications,
    require_builtins,
)
from pytest_planmode.targets.pi.events import EventTable, Place, entries
from pytest_planmode.targets.pi.translation import (
    HostRun,
    ScriptBuilder,
    Translation,
    Unsupported,
    calls,
    parse_input,
    require_unconverted,
    step_trace,
)

OPERATION = "oplmodes.modes.script"
#: Pi's own default binding of app.thinking.cycle.
THINKING_CYCLE_KEY = "shift+tab"
#: The first Pi release that emits agent_before_settle.
BEFORE_SETTLE_SINCE = (0, 87, 0, 1)
#: The menu roles (contract.MENU_ROLES) as patterns over opl-modes' item
#: texts: the picker's and /execute's `Execute:` entries, the action menu's
#: Execute, Refine (with or without its count), Save & Exit, Discard & Exit.
MENU_ROLE_PATTERNS = {
    "execute": r"^Execute\b.*{plan}",
    "refine": r"^Refine\b",
    "save-exit": r"^Save\b",
    "discard-exit": r"^Discard\b",
}
_MARKER = re.compile(r"\x1b\[38;pi:([^m]*)m(.*?)\x1b\[39m", re.DOTALL)


def parse(payload: Mapping[str, Any]) -> contract.ModesScriptInput:
    return parse_input(OPERATION, contract.ModesScriptInput, payload)


def _version(text: str) -> tuple[int, ...]:
    """Comparable version: a pre-release (`0.87.0-rc.1`) sorts before its release."""
    match = re.match(r"\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(-)?", text)
    if not match:
        return (0,)
    major, minor, patch, pre = match.groups()
    return (int(major), int(minor or 0), int(patch or 0), 0 if pre else 1)


def _flags(flags: list[str]) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for flag in flags:
        name = flag.lstrip("-")
        if not name or "=" in name:
            raise Unsupported(f"the CLI flag {flag!r} is not a boolean flag the host can set")
        out[name] = True
    return out


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[steps.Step]:
    return build(parse(payload)).steps


def _tree(table: EventTable, event: host.SessionTree, place: Place) -> list[steps.Step]:
    # The branch a navigation reaches is given by its entries.
    return [steps.NavigateTree(entries=entries(event.entries))]


def _registered(table: EventTable, event: contract.ToolsRegistered, place: Place) -> list[steps.Step]:
    return [steps.SetRegistry(tools=[host_tool(name, True) for name in event.tools])]


def _active(table: EventTable, event: contract.ActiveToolsChanged, place: Place) -> list[steps.Step]:
    return [steps.SetActive(tools=list(event.tools))]


def _config(table: EventTable, event: contract.ConfigWrite, place: Place) -> list[steps.Step]:
    if event.config is None:
        return [steps.DeleteFile(root="agent", path=CONFIG_FILE)]
    return [config_step(event.config)]


#: The shared table, with this operation's own events: menu answers by
#: role, opl-modes' configuration file, Pi's registry and active set.
EVENTS = EventTable(
    roles=MENU_ROLE_PATTERNS,
    overrides={
        host.SessionTree: _tree,
        contract.ToolsRegistered: _registered,
        contract.ActiveToolsChanged: _active,
        contract.ConfigWrite: _config,
    },
)


def build(case: contract.ModesScriptInput) -> ScriptBuilder:
    """The host script, with the span of host steps of each event."""
    builder = ScriptBuilder()
    require_builtins(list(case.registered_tools))
    active = case.registered_tools if case.active_tools is None else case.active_tools
    registry = [host_tool(name, name in active) for name in dict.fromkeys(case.registered_tools)]
    builder.add(steps.Registry(tools=registry))
    resting = [name for name in PI_BUILTIN_TOOLS if name in active]
    if resting != list(PI_DEFAULT_TOOLS):
        # The built-ins a session opens with are, in real Pi, its
        # `defaultTools` setting: a new or resumed session resets the active
        # set to them (fact D15), so the case's are Pi's setting.
        builder.add(steps.PiSettings(settings={"defaultTools": resting}))
    if case.config is not None:
        builder.add(config_step(case.config))
    if case.keybindings:
        builder.add(steps.WriteFile(root="agent", path=KEYBINDINGS_FILE, content=case.keybindings))
    for name in case.plans:
        if "/" in name or "\\" in name or name in ("", ".", ".."):
            raise Unsupported(f"the plan filename {name!r} is not a file name in {PLANS_DIR}/")
        builder.add(steps.WriteFile(root="cwd", path=f"{PLANS_DIR}/{name}", content=f"# {name}\n"))
    events = list(case.events)
    table = EVENTS.with_overrides(
        thinking_key=case.keybindings.get("app.thinking.cycle", THINKING_CYCLE_KEY),
        before_settle=_version(case.pi_version) >= BEFORE_SETTLE_SINCE,
    )
    opened = bool(events) and isinstance(events[0], host.SessionStart)
    if not opened:
        # Pi was started on an empty session before the first event.
        builder.add(steps.Start())
    for index, event in enumerate(events):
        builder.begin(event.at)
        if index == 0 and isinstance(event, host.SessionStart):
            builder.add(steps.Start(flags=_flags(event.flags), entries=entries(event.entries)))
        else:
            builder.add(*table.host_steps(event, Place(events[index + 1 :])))
        builder.end()
    return builder


# ------------------------------------------------------------------ effects


def _painted(text: str) -> tuple[str, str | None]:
    """Text without the host's theme markers, and the one colour token it
    was painted with as a whole (None when plain or mixed)."""
    whole = _MARKER.fullmatch(text)
    plain = _MARKER.sub(lambda m: m.group(2), text)
    return plain, (whole.group(1) if whole else None)


def _widget(content: Any) -> dict[str, Any] | None:
    if content is None:
        return None
    if isinstance(content, list) and all(isinstance(line, str) for line in content):
        text, color = _painted("\n".join(content))
        return {"text": text, "color": color}
    if isinstance(content, str):
        text, color = _painted(content)
        return {"text": text, "color": color}
    return {"text": str(content), "color": None}


#: The appearance fields the spec names (opl-modes.md § Mode appearance).
APPEARANCE = ("prefix", "prefixColor", "borderColor", "modeColor")


def _published(value: Any) -> dict[str, Any] | None:
    """`__agentMode` as the spec describes it: the mode and the appearance
    fields it names, wherever the extension nests them."""
    if not isinstance(value, dict):
        return None
    nested = value.get("appearance")
    look = nested if isinstance(nested, dict) else {}
    out: dict[str, Any] = {"mode": value.get("mode")}
    for key in APPEARANCE:
        if key in value:
            out[key] = value[key]
        elif key in look:
            out[key] = look[key]
    return out


def _plan_path(virtual: str) -> str | None:
    prefix = f"<cwd>/{PLANS_DIR}/"
    return virtual[len("<cwd>/") :] if virtual.startswith(prefix) else None


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    case = parse(payload)
    first_span = 0
    for index, record in enumerate(run.results):
        if record.get("do") == "start":
            first_span = index
            break
    steps: list[dict[str, Any]] = []
    widgets: dict[str, Any] = {}
    widget: dict[str, Any] | None = None
    entries: list[dict[str, Any]] = []
    problems: list[str] = []
    before_files = (
        dict((run.results[first_span - 1].get("after") or {}).get("files") or {}) if first_span else {}
    )
    spans = build(case).spans
    after: dict[str, Any] = {}
    shared: dict[str, Any] = {}
    current_plan: str | None = None
    for event, span in zip(case.events, spans, strict=True):
        trace = step_trace(run, span)
        records = [run.results[i] for i in range(*span)]
        for record in records:
            if record.get("threw") is not None:
                raise RuntimeError(f"{event.type}: the extension threw: {record['threw']}")
        if dialogs(trace):
            raise Unsupported(
                f"event {len(steps) + 1} ({event.type}) opened a custom dialog (ctx.ui.custom): a terminal "
                "component the host cannot draw or press keys in, so it stays open, and what the user would "
                "enter there is not in the script"
            )
        if not after and span[0] > 0:
            after = run.results[span[0] - 1].get("after") or {}
        active_before = list(after.get("activeTools") or [])
        if records:
            after = records[-1].get("after") or after
        value = (after.get("globals") or {}).get(SHARED_STATE)
        published = {SHARED_STATE: _published(value)}
        shared = value if isinstance(value, dict) else {}
        shown_notes = notifications(trace)
        if any(r.get("do") in ("start", "reload") for r in records):
            problems += [n["message"] for n in shown_notes if n["level"] in ("warning", "error")]
        selects = calls(trace, "ui.select")
        menu = (
            {"entries": [str(item) for item in selects[-1][1]]} if selects and len(selects[-1]) > 1 else None
        )
        appended = calls(trace, "pi.appendEntry")
        for args in appended:
            entries.append(
                {"type": "custom", "customType": args[0], "data": args[1] if len(args) > 1 else None}
            )
        persisted = entries[-1] if appended else None
        for args in calls(trace, "ui.setWidget"):
            if args:
                widgets.pop(str(args[0]), None)
                widgets[str(args[0])] = args[1] if len(args) > 1 else None
        shown = [(key, content) for key, content in widgets.items() if content is not None]
        widget = _widget(shown[-1][1]) if shown else None
        files = dict(after.get("files") or {})
        changes = _plan_changes(before_files, files, trace)
        before_files = files
        for change in changes:
            if change["action"] == "deleted":
                current_plan = None if change["path"] == current_plan else current_plan
            else:
                current_plan = change["path"]
        if shared.get("mode") in (None, "off", "normal"):
            current_plan = None
        step: dict[str, Any] = {
            "event": event.type,
            "mode": shared.get("mode"),
            "planFile": current_plan,
            "activeTools": list(after.get("activeTools") or []),
            "notifications": shown_notes,
            "menu": menu,
            "result": _loaded(event, _result(event, records), active_before, after),
            "persisted": persisted,
            "planFiles": changes,
            "thinkingCycled": any(r.get("thinkingCycled") for r in records),
            "published": published,
            "widget": widget,
        }
        steps.append(step)
    last = steps[-1] if steps else None
    final = {
        "mode": shared.get("mode"),
        "planFile": current_plan,
        "activeTools": last["activeTools"] if last else list(run.state.get("activeTools") or []),
        "plans": sorted(
            name for name in (p.rsplit("/", 1)[-1] for p in before_files) if PLAN_FILE.match(name)
        ),
        # The extension's entries on the final branch: what it appended
        # this run, and what the resumed session already held of its kinds.
        "entries": _own_entries(run, {e["customType"] for e in entries}),
        "published": {SHARED_STATE: _published(shared or None)},
        "widget": widget,
    }
    return {"steps": steps, "final": final, "configProblems": problems}


def _own_entries(run: HostRun, kinds: set[Any]) -> list[dict[str, Any]]:
    branch = run.state.get("branch") or []
    return [
        {"type": "custom", "customType": e.get("customType"), "data": e.get("data")}
        for e in branch
        if isinstance(e, dict) and e.get("type") == "custom" and e.get("customType") in kinds
    ]


def _plan_changes(
    before: dict[str, str], after: dict[str, str], trace: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    changes: list[dict[str, Any]] = []
    before = {p: v for p, v in before.items() if PLAN_FILE.match(p.rsplit("/", 1)[-1])}
    after = {p: v for p, v in after.items() if PLAN_FILE.match(p.rsplit("/", 1)[-1])}
    for path in after:
        if path not in before:
            changes.append({"action": "created", "path": path})
        elif after[path] != before[path]:
            changes.append({"action": "saved", "path": path})
    for path in before:
        if path not in after:
            changes.append({"action": "deleted", "path": path})
    touched = {c["path"] for c in changes}
    for entry in trace:
        if str(entry.get("call", "")).startswith("fs.read"):
            read = _plan_path(str((entry.get("args") or [""])[0]))
            if read and read not in touched and PLAN_FILE.match(read.rsplit("/", 1)[-1]):
                changes.append({"action": "loaded", "path": read})
                touched.add(read)
    return changes


def _loaded(
    event: Any, result: dict[str, Any] | None, before: list[str], after: dict[str, Any]
) -> dict[str, Any] | None:
    """A `load_tools` call the extension answered without saying what it
    enabled: what the call added to Pi's active set, the requested names
    first (as `oplmodes.tools.load` reads it)."""
    if result is None or event.tool != LOAD_TOOLS or not result["allowed"] or "enabled" in result:
        return result
    added = [name for name in after.get("activeTools") or [] if name not in before]
    requested = event.input.get("tools")
    enabled = [n for n in dict.fromkeys(requested) if n in added] if isinstance(requested, list) else []
    return {**result, "enabled": enabled + [n for n in added if n not in enabled]}


def _result(event: Any, records: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not isinstance(event, host.ToolCall):
        return None
    call = next((r for r in records if r.get("do") == "tool_call"), None)
    if call is None:
        return None
    require_unconverted(event.tool, event.input, call)
    out: dict[str, Any] = {"tool": event.tool, "decidedBy": "extension" if call.get("reached") else "pi"}
    allowed = bool(call.get("allowed"))
    message: str | None = call.get("error") or call.get("reason") or call.get("thrown")
    result = call.get("result")
    if isinstance(result, dict):
        if result.get("isError"):
            allowed = False
        texts = [c.get("text") for c in result.get("content") or [] if isinstance(c, dict) and c.get("text")]
        if texts and message is None:
            message = "\n".join(str(t) for t in texts)
        details = result.get("details")
        if isinstance(details, dict):
            out.update(
                {k: v for k, v in details.items() if k not in ("tool", "allowed", "decidedBy", "message")}
            )
    out["allowed"] = allowed
    out["message"] = message
    return out


TRANSLATION = Translation(
    script,
    effects,
    command="mode",
    spec="opl-modes",
    options={**OPTIONS, "holdPrompts": True},
)
