"""The opl-modes session as an event script (opl-modes.md § Commands, flags,
and shortcuts; § Extension features; § Execute handoff; § Tool inheritance
warning; § Lazy tool loading; § Architecture).

A :class:`Session` consumes host events
(:mod:`pytest_planmode.reference.host_events`) and this operation's own
(:mod:`.events`) in order and records, per event, what a person or the model
observes: the mode, the active tools, notifications,
menus, tool results, the persisted entry and the published shared state.
Time is virtual; nothing here waits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_planmode.reference import host_events as host
from pytest_planmode.reference.oplmodes import appearance as ap
from pytest_planmode.reference.oplmodes import bash_gate, commands, plans, state
from pytest_planmode.reference.oplmodes import events as ev
from pytest_planmode.reference.oplmodes import messages as msg
from pytest_planmode.reference.oplmodes.config import (
    THINKING_CYCLE_ACTION,
    THINKING_CYCLE_DEFAULT_KEY,
    OplConfig,
    normalize_key,
)
from pytest_planmode.reference.oplmodes.config import load as config_load
from pytest_planmode.reference.oplmodes.lazy_tools import load_tools
from pytest_planmode.reference.oplmodes.registry import (
    CHAT,
    EXECUTE,
    LOAD_TOOLS,
    NORMAL_ALIAS,
    OFF,
    PLAN,
    PLAN_COMPLETE,
    cycle_modes,
    display_name,
    picker_modes,
    plan_complete_allowed,
)
from pytest_planmode.reference.oplmodes.tools import active_set
from pytest_planmode.spec_values import PI_BUILTIN_TOOLS

BASH_TOOL = "bash"

#: Pi's built-in tools, registered in every session (default of a script).
#: The first Pi release that emits `agent_before_settle`.
SETTLE_MIN_VERSION = (0, 87, 0)
PLAN_COMPLETE_RESULT = "Plan implemented. Plan mode OFF."
#: Reference choice: a plan started with a bare `/plan` is saved under this
#: name when the action menu executes or saves it.
UNTITLED_PLAN = "untitled"
MENU_EXECUTE = "Execute"
MENU_SAVE = "Save & Exit"
MENU_DISCARD = "Discard & Exit"
EXECUTE_PREFIX = "Execute: "
#: Pi's Bash tool, the one the mode's Bash gate applies to.
BASH = "bash"


def parse_version(text: str) -> tuple[int, int, int] | None:
    """Pi's version for the `agent_before_settle` check (opl-modes.md
    § Commands, flags, and shortcuts: added in Pi 0.87.0).
    `0.87.0` -> (0, 87, 0). A pre-release (`0.87.0-beta.1`) sorts before
    its release, so it counts as the previous version; anything unparsable
    is None (treated as older, reference choice)."""
    core, sep, _pre = text.strip().lstrip("v").partition("-")
    parts = core.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    major, minor, patch = (int(p) for p in parts)
    if sep:
        if patch > 0:
            return (major, minor, patch - 1)
        if minor > 0:
            return (major, minor - 1, 10**9)
        return (major - 1, 10**9, 10**9) if major > 0 else (0, 0, 0)
    return (major, minor, patch)


def refine_label(cycles: int) -> str:
    """The Refine entry counts cycles as information only (§ Execute
    handoff): `Refine (3 cycles so far)`; nothing caps it."""
    if cycles <= 0:
        return "Refine"
    return f"Refine ({cycles} cycle{'s' if cycles != 1 else ''} so far)"


@dataclass
class _Step:
    event: str
    notifications: list[dict[str, str]] = field(default_factory=list)
    menu: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    persisted: dict[str, Any] | None = None
    plan_files: list[dict[str, str]] = field(default_factory=list)
    thinking_cycled: bool = False
    ignored: str | None = None

    def then(self, later: _Step) -> _Step:
        """This step and a later one of the same event, as one: everything
        either showed, the later's menu, result and entry where it has one,
        and `ignored` only when both ignored the event."""
        both = [r for r in (self.ignored, later.ignored) if r]
        return _Step(
            self.event,
            [*self.notifications, *later.notifications],
            later.menu if later.menu is not None else self.menu,
            later.result if later.result is not None else self.result,
            later.persisted if later.persisted is not None else self.persisted,
            [*self.plan_files, *later.plan_files],
            self.thinking_cycled or later.thinking_cycled,
            "; ".join(both) if self.ignored and later.ignored else None,
        )


class Session:
    """One Pi session with opl-modes loaded."""

    def __init__(
        self,
        config: OplConfig,
        *,
        registered: Sequence[str] = PI_BUILTIN_TOOLS,
        active: Sequence[str] | None = None,
        pi_version: str = "0.87.0",
        existing_plans: Sequence[str] = (),
        keybindings: Mapping[str, str] | None = None,
        disk: tuple[Any, bool] = (None, False),
    ) -> None:
        self.config = config
        #: opl-modes.json as it is on disk (the document, whether the file
        #: exists): what the module reads when it loads again.
        self.disk = disk
        version = parse_version(pi_version)
        #: Pi emits `agent_before_settle` after `agent_end` from 0.87.0.
        self.emits_settle = version is not None and version >= SETTLE_MIN_VERSION
        self.registered = list(dict.fromkeys(registered))
        self.resting = list(dict.fromkeys(active if active is not None else registered))
        self.pi_version = pi_version
        # § Commands, flags, and shortcuts: plans are the files with the plan-
        # prefix and the .md suffix; other files in .pi/plans/ are not offered.
        self.plans = [p for p in dict.fromkeys(existing_plans) if plans.is_plan_file(p)]
        thinking = (keybindings or {}).get(THINKING_CYCLE_ACTION, THINKING_CYCLE_DEFAULT_KEY)
        self.thinking_key = normalize_key(thinking)
        self.mode = OFF
        self.plan_file: str | None = None
        self.refine_cycles = 0
        self.loaded: tuple[str, ...] = ()
        self.warned: set[str] = set()
        self.entries: list[dict[str, Any]] = []
        self.menu: dict[str, Any] | None = None
        self.menu_targets: dict[str, str] = {}
        self.active: tuple[str, ...] = ()
        self.trace: list[dict[str, Any]] = []
        self.steps: list[dict[str, Any]] = []
        self._at = 0
        self._step = _Step("init")
        self._apply_tools()

    # -- observation helpers ------------------------------------------------

    def _observe(self, observation: str, /, **fields: Any) -> None:
        self.trace.append({"at": self._at, "type": observation, **fields})

    def _notify(self, level: str, message: str, *, mode_change: bool = False) -> None:
        if mode_change and self.config.hide_notify:
            return
        note = {"level": level, "message": message}
        self._step.notifications.append(note)
        self._observe("notify", **note)

    def _error(self, message: str) -> None:
        self._notify("error", message)

    def _widget(self) -> dict[str, Any] | None:
        """The mode widget (reference shape): none in normal mode or with
        `ui.hideWidget`; its text is `labels.widget` or the capitalised
        mode name, its colour `labels.widgetColor` (a theme token)."""
        if self.config.hide_widget or self.mode == OFF:
            return None
        labels = self.config.modes[self.mode].labels
        return {
            "text": labels.get("widget", ap.capitalize(display_name(self.mode))),
            "color": labels.get("widgetColor"),
        }

    def _published(self) -> dict[str, Any]:
        return state.published_state(self.mode, self.plan_file, self.config)

    # -- tools --------------------------------------------------------------

    def _apply_tools(self) -> None:
        mode = self.config.modes[self.mode]
        result = active_set(mode, self.config, self.resting, self.registered, self.loaded)
        for name in result.unknown:
            if name not in self.warned:
                self.warned.add(name)
                self._notify(
                    "warning",
                    msg.unknown_tool(name, display_name(self.mode), self.mode),
                )
        self.active = result.active

    # -- mode changes -------------------------------------------------------

    def _enter(
        self,
        target: str,
        plan_file: str | None = None,
        *,
        announce: bool = True,
        persist: bool = True,
    ) -> None:
        previous = self.mode
        self.mode = target
        self.plan_file = plan_file if target != OFF else None
        if target != PLAN or previous != PLAN:
            # Refine cycles count one planning session.
            self.refine_cycles = 0
        self.loaded = ()
        self.menu = None
        self._apply_tools()
        self._observe("mode", mode=self.mode, activeTools=list(self.active), planFile=self._plan_path())
        if announce:
            self._notify("info", self._announcement(previous, target), mode_change=True)
        if persist:
            entry = state.mode_entry(self.mode, self.plan_file, self.refine_cycles)
            self.entries.append(entry)
            self._step.persisted = entry
            self._observe("persisted", entry=entry)
        self._observe("published", state=self._published())

    def _announcement(self, previous: str, target: str) -> str:
        if target == OFF:
            return msg.mode_off(display_name(previous))
        if target == EXECUTE or (target == PLAN and self.plan_file):
            return msg.mode_on_with_plan(target, self._plan_path())
        if target in (CHAT, PLAN):
            return msg.mode_on(target)
        return ap.render_template(self.config.notify_template, target)

    def _plan_path(self) -> str | None:
        return plans.plan_path(self.plan_file) if self.plan_file else None

    def _select(self, target: str, plan_file: str | None = None) -> None:
        """Switch to a mode by name, refusing disabled modes."""
        mode = self.config.modes.get(target)
        if mode is None:
            self._error(msg.unknown_mode(target))
            return
        if not mode.enabled:
            self._error(msg.mode_disabled(display_name(target), target))
            return
        if plan_file is None and target != OFF:
            # The active plan follows mode switches until normal mode, so a
            # custom mode with allowPlanComplete can finish it.
            plan_file = self.plan_file
        if target == self.mode and plan_file == self.plan_file:
            self._notify("info", f"Already in {display_name(target)} mode")
            return
        self._enter(target, plan_file)

    # -- events -------------------------------------------------------------

    def run(self, events: Sequence[ev.SessionEvent]) -> None:
        for event in events:
            self._at = event.at
            self._step = _Step(type(event).__name__)
            _EVENTS[type(event)](self, event)
            self.steps.append(self._snapshot_step())

    def _snapshot_step(self) -> dict[str, Any]:
        step = self._step
        return {
            "event": step.event,
            "mode": self.mode,
            "planFile": self._plan_path(),
            "activeTools": list(self.active),
            "notifications": list(step.notifications),
            "menu": step.menu,
            "result": step.result,
            "persisted": step.persisted,
            "planFiles": list(step.plan_files),
            "thinkingCycled": step.thinking_cycled,
            "ignored": step.ignored,
            "refineCycles": self.refine_cycles,
            "published": self._published(),
            "widget": self._widget(),
        }

    def final(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "planFile": self._plan_path(),
            "activeTools": list(self.active),
            "refineCycles": self.refine_cycles,
            "plans": list(self.plans),
            "entries": list(self.entries),
            "published": self._published(),
            "widget": self._widget(),
            "warnedTools": sorted(self.warned),
        }

    def _restore(self, entries: Sequence[Mapping[str, Any]]) -> None:
        restored = state.restore(entries, self.config, self.plans)
        self.entries = [dict(e) for e in entries if isinstance(e, Mapping)]
        for warning in restored.warnings:
            self._notify("warning", warning)
        self.refine_cycles = restored.refine_cycles
        self._enter(restored.mode, restored.plan_file, announce=False, persist=False)
        self.refine_cycles = restored.refine_cycles

    def _on_session_start(self, event: host.SessionStart) -> None:
        self.warned = set()
        self._restore(event.entries)
        flags = [f for f in event.flags if f in commands.FLAGS]
        for flag in event.flags:
            if flag not in commands.FLAGS:
                self._notify("warning", f"Unknown flag {flag}; opl-modes knows --chat and --plan")
        if len(flags) > 1:
            self._notify("warning", f"Both {flags[0]} and {flags[-1]} given; starting with {flags[-1]}")
        if flags:
            self._select(commands.FLAGS[flags[-1]])

    def _on_resume(self, event: host.SessionResume) -> None:
        # A resumed session is a session of its own: unknown-tool warnings
        # are given again. (Entries not given read as none.)
        self.warned = set()
        self._restore(event.entries or ())

    def _on_branch_change(self, event: host.SessionTree) -> None:
        # The new branch's entries (a labelled target carries none here).
        self._restore(event.entries or ())

    def _on_reload(self, event: host.SessionReload) -> None:
        # The file is read when the module loads (§ Configuration): a changed
        # document takes effect here, and the mode comes back from the
        # session's own entries, as on resume, in the same session.
        document, present = self.disk
        self.config = config_load(document, present=present)
        self._restore(self.entries)

    def _on_config_written(self, event: ev.ConfigWrite) -> None:
        self.disk = (event.config, event.present)
        self._step.ignored = "the configuration is read when the module loads: /reload applies it"

    def _on_clock(self, event: host.ClockAdvance) -> None:
        self._step.ignored = "nothing here is timed"

    def _on_agent_start(self, event: host.AgentStart) -> None:
        # The mode's prompt and tools are already in place when a run starts.
        pass

    def _on_tools_registered(self, event: ev.ToolsRegistered) -> None:
        self.registered = list(dict.fromkeys(event.tools))
        self._step.ignored = "the registry changed; the active set is re-applied on the next mode change"

    def _on_active_tools_changed(self, event: ev.ActiveToolsChanged) -> None:
        tools = list(dict.fromkeys(event.tools))
        if self.mode == OFF:
            # What is active at rest is the snapshot the next mode restores.
            self.resting = [t for t in tools if t != LOAD_TOOLS]
            self.active = tuple(tools)
        else:
            self._step.ignored = (
                "outside normal mode the mode's tool policy is re-applied on the next mode change"
            )

    # commands

    def _on_command(self, event: host.Command) -> None:
        self.menu = None
        # The command line as typed.
        parsed = commands.parse(f"/{event.name} {event.args}" if event.args else f"/{event.name}")
        if parsed is None:
            self._step.ignored = "not an opl-modes command"
            return
        handler = {
            "mode": self._cmd_mode,
            "chat": self._cmd_chat,
            "plan": self._cmd_plan,
            "execute": self._cmd_execute,
        }[parsed.name]
        handler(parsed.arg)

    def _cmd_mode(self, arg: str) -> None:
        if not arg:
            self._open_picker()
            return
        if arg == EXECUTE:
            self._error("/mode execute is not available: execute mode needs an active plan; use /execute")
            return
        target = OFF if arg in (NORMAL_ALIAS, OFF) else arg
        if target not in self.config.modes:
            known = ", ".join(display_name(m) for m in self.config.modes if m != EXECUTE)
            self._error(f"Unknown mode {arg!r}; available: {known}")
            return
        self._select(target)

    def _cmd_chat(self, arg: str) -> None:
        if arg == "off":
            if self.mode == CHAT:
                self._enter(OFF)
            else:
                self._notify("info", "Chat mode is not active")
            return
        if arg:
            self._error(f"Usage: /chat or /chat off (got {arg!r})")
            return
        if self.mode == CHAT:
            self._enter(OFF)
        else:
            self._select(CHAT)

    def _cmd_plan(self, arg: str) -> None:
        if arg == "off":
            if self.mode == PLAN:
                self._enter(OFF)
            else:
                self._notify("info", "Plan mode is not active")
            return
        if not arg:
            if self.mode == PLAN:
                self._enter(OFF)
            else:
                self._select(PLAN)
            return
        resolved = plans.resolve_name(arg)
        if not resolved.accepted or resolved.path is None:
            self._error(f"/plan {arg}: {resolved.reason}")
            return
        filename = resolved.path.rsplit("/", 1)[-1]
        if not self.config.modes[PLAN].enabled:
            self._error(msg.mode_disabled(PLAN, PLAN))
            return
        if filename in self.plans:
            self._plan_file_event("loaded", filename)
        else:
            self.plans.append(filename)
            self._plan_file_event("created", filename)
        self._select(PLAN, filename)

    def _plan_file_event(self, action: str, filename: str) -> None:
        item = {"action": action, "path": plans.plan_path(filename)}
        self._step.plan_files.append(item)
        self._observe("plan_file", **item)

    def _can_execute(self) -> bool:
        return self.config.modes[self.mode].allow_execute

    def _cmd_execute(self, arg: str) -> None:
        if not self._can_execute():
            self._error(
                f"Execution is unavailable from {display_name(self.mode)} mode "
                f"(modes.{self.mode}.allowExecute is false)"
            )
            return
        if arg:
            resolved = plans.resolve_name(arg)
            if not resolved.accepted or resolved.path is None:
                self._error(f"/execute {arg}: {resolved.reason}")
                return
            filename = resolved.path.rsplit("/", 1)[-1]
            if filename not in self.plans:
                self._error(f"No plan {resolved.path}; create it with /plan {arg}")
                return
            self._start_execute(filename)
            return
        if self.plan_file and self.plan_file in self.plans and self.mode != EXECUTE:
            self._start_execute(self.plan_file)
            return
        self.menu_targets = {}
        if not self.plans:
            self._error("No plan to execute in .pi/plans/; create one with /plan <name>")
            return
        self._show_menu("execute", self._execute_entries())

    def _start_execute(self, filename: str) -> None:
        if self.mode == EXECUTE and self.plan_file == filename:
            self._notify("info", f"Already executing {plans.plan_path(filename)}")
            return
        self._enter(EXECUTE, filename)

    # menus

    def _show_menu(self, kind: str, entries: list[str]) -> None:
        self.menu = {"kind": kind, "entries": entries}
        self._step.menu = self.menu
        self._observe("menu", kind=kind, entries=entries)

    def _execute_entries(self) -> list[str]:
        entries = []
        for filename in self.plans:
            label = EXECUTE_PREFIX + commands.plan_display(filename)
            self.menu_targets[label] = filename
            entries.append(label)
        return entries

    def _open_picker(self) -> None:
        self.menu_targets = {}
        entries = [display_name(m) for m in picker_modes(self.config.modes)]
        if self._can_execute():
            # allowExecute: false hides the Execute: entries (§ Execute handoff).
            entries += self._execute_entries()
        self._show_menu("mode", entries)

    def _picked(self, menu: dict[str, Any], event: host.UiAnswer) -> str | None:
        """The label of the item an answer names by position or role; None
        (after an error notice) when the open menu has no such item."""
        entries: list[str] = menu["entries"]
        if event.index is not None:
            if event.index < len(entries):
                return entries[event.index]
            self._error(f"The open menu has {len(entries)} entries; none at position {event.index}")
            return None
        found: list[str] = []
        if menu["kind"] == "plan-action":
            wanted = {"execute": MENU_EXECUTE, "save-exit": MENU_SAVE, "discard-exit": MENU_DISCARD}
            found = [
                e
                for e in entries
                if (event.role == "refine" and e.startswith("Refine")) or wanted.get(str(event.role)) == e
            ]
        elif event.role == "execute":
            found = [
                label
                for label, filename in self.menu_targets.items()
                if label in entries and (event.plan is None or commands.plan_display(filename) == event.plan)
            ]
        if len(found) == 1:
            return found[0]
        plan = f" for plan {event.plan}" if event.plan else ""
        if found:
            self._error(f"The open menu has several {event.role} entries{plan}; name the plan")
        else:
            self._error(f"The open menu has no {event.role} entry{plan}")
        return None

    def _on_pick(self, event: host.UiAnswer) -> None:
        menu, self.menu = self.menu, None
        choice = event.label
        if menu is None:
            self._error("No menu is open")
            return
        if event.index is not None or event.role is not None:
            choice = self._picked(menu, event)
            if choice is None:
                return
        if choice is None:
            self._step.ignored = "menu dismissed"
            return
        if choice not in menu["entries"]:
            self._error(f"{choice!r} is not an entry of the open menu")
            return
        if menu["kind"] == "plan-action":
            self._plan_action(str(choice))
        elif str(choice) in self.menu_targets:
            self._start_execute(self.menu_targets[str(choice)])
        else:
            self._select(OFF if choice == NORMAL_ALIAS else str(choice))

    def _on_agent_end(self) -> None:
        if self.mode != PLAN:
            self._step.ignored = "the action menu follows a turn in plan mode only"
            return
        # Always offered in plan mode, whatever allowExecute says.
        self._show_menu(
            "plan-action", [MENU_EXECUTE, refine_label(self.refine_cycles), MENU_SAVE, MENU_DISCARD]
        )

    def _save_plan(self) -> str:
        filename = self.plan_file or f"plan-{UNTITLED_PLAN}.md"
        if filename not in self.plans:
            self.plans.append(filename)
            self._plan_file_event("created", filename)
        self._plan_file_event("saved", filename)
        return filename

    def _plan_action(self, choice: str) -> None:
        if choice == MENU_EXECUTE:
            self._enter(EXECUTE, self._save_plan())
        elif choice.startswith("Refine"):
            self.refine_cycles += 1
            entry = state.mode_entry(self.mode, self.plan_file, self.refine_cycles)
            self.entries.append(entry)
            self._step.persisted = entry
        elif choice == MENU_SAVE:
            self._save_plan()
            self._enter(OFF)
        elif choice == MENU_DISCARD:
            if self.plan_file and self.plan_file in self.plans:
                self._delete_plan(self.plan_file)
            self._enter(OFF)

    def _delete_plan(self, filename: str) -> None:
        self.plans = [p for p in self.plans if p != filename]
        self._plan_file_event("deleted", filename)

    # keys

    def _on_key(self, event: host.KeyPress) -> None:
        key = normalize_key(event.key)
        fired = False
        if key == self.config.cycle_key:
            fired = True
            self._cycle()
        if key == self.thinking_key:
            # Pi's own binding fires on the same press (§ Commands, flags,
            # and shortcuts): reported, not prevented.
            fired = True
            self._step.thinking_cycled = True
            self._observe("thinking_cycle")
        if not fired:
            self._step.ignored = "no binding"

    def _cycle(self) -> None:
        order = cycle_modes(self.config.modes)
        if not order:
            return
        if self.mode in order:
            target = order[(order.index(self.mode) + 1) % len(order)]
        else:
            target = order[0]
        if target != self.mode:
            self._enter(target)

    # tools

    def _on_tool_call(self, event: host.ToolCall) -> None:
        tool = event.tool
        args = event.input
        if tool not in self.active:
            # Pi emits tool_call only for an active tool; it answers any
            # other call itself, so opl-modes never sees it.
            self._step.result = {
                "tool": tool,
                "allowed": False,
                "decidedBy": "pi",
                "message": f"Tool {tool} not found",
            }
            return
        if tool == PLAN_COMPLETE:
            self._plan_complete()
        elif tool == LOAD_TOOLS:
            self._load_tools(args)
        elif tool == BASH_TOOL:
            # § Mode behavior: the mode's Bash gate decides the command.
            decision = bash_gate.check(args.get("command"), self.mode, self.config.document)
            self._step.result = {
                "tool": tool,
                "allowed": decision.allowed,
                "message": None if decision.allowed else decision.reason,
            }
        else:
            self._step.result = {"tool": tool, "allowed": True, "message": None}
        if self._step.result is not None:
            self._step.result = {**self._step.result, "decidedBy": "extension"}

    def _plan_complete(self) -> None:
        mode = self.config.modes[self.mode]
        if not plan_complete_allowed(mode):
            self._step.result = {
                "tool": PLAN_COMPLETE,
                "allowed": False,
                "message": f"plan_complete is not available in {display_name(self.mode)} mode",
            }
            return
        if self.config.cleanup_on_complete and self.plan_file and self.plan_file in self.plans:
            self._delete_plan(self.plan_file)
        self._step.result = {
            "tool": PLAN_COMPLETE,
            "allowed": True,
            "message": PLAN_COMPLETE_RESULT,
        }
        self._enter(OFF, announce=False)

    def _load_tools(self, args: Mapping[str, Any]) -> None:
        raw = args.get("tools") if isinstance(args, Mapping) else None
        if raw is not None and not (isinstance(raw, list) and all(isinstance(t, str) for t in raw)):
            # A malformed argument is refused rather than read as "no
            # argument", which would enable every allowed lazy tool.
            self._step.result = {
                "tool": LOAD_TOOLS,
                "allowed": False,
                "message": "load_tools: `tools` must be an array of tool names",
            }
            return
        request = list(raw) if isinstance(raw, list) else None
        mode = self.config.modes[self.mode]
        result = load_tools(mode, self.config, self.resting, self.registered, self.loaded, request)
        self.loaded = result.loaded
        self.active = result.active
        self._step.result = {
            "tool": LOAD_TOOLS,
            "allowed": True,
            "message": result.message,
            "enabled": list(result.enabled),
            "ignored": [{"tool": i.tool, "reason": i.reason} for i in result.ignored],
        }

    def _on_settle(self, event: host.AgentSettle) -> None:
        """The run ends: `agent_end`, then, from Pi 0.87.0,
        `agent_before_settle` with the outcome; one step for both."""
        self._on_agent_end()
        if not self.emits_settle:
            return
        ended, self._step = self._step, _Step(self._step.event)
        self._before_settle(event.outcome)
        self._step = ended.then(self._step)

    def _before_settle(self, outcome: str) -> None:
        if self.mode != EXECUTE:
            self._step.ignored = "not in execute mode"
            return
        if outcome != "completed":
            self._step.ignored = (
                f"the run settled {outcome}: execute mode stays active so the plan can be resumed"
            )
            return
        self._enter(OFF)


#: Each event's handler, by the event's class.
_EVENTS: Mapping[type[Any], Callable[[Session, Any], None]] = {
    host.SessionStart: Session._on_session_start,
    host.SessionResume: Session._on_resume,
    host.SessionTree: Session._on_branch_change,
    host.Command: Session._on_command,
    host.KeyPress: Session._on_key,
    host.UiAnswer: Session._on_pick,
    host.ToolCall: Session._on_tool_call,
    host.AgentSettle: Session._on_settle,
    ev.ToolsRegistered: Session._on_tools_registered,
    ev.ActiveToolsChanged: Session._on_active_tools_changed,
    host.SessionReload: Session._on_reload,
    host.AgentStart: Session._on_agent_start,
    ev.ConfigWrite: Session._on_config_written,
    host.ClockAdvance: Session._on_clock,
}


def run_script(
    config: OplConfig,
    events: Sequence[ev.SessionEvent],
    *,
    registered: Sequence[str] = PI_BUILTIN_TOOLS,
    active: Sequence[str] | None = None,
    pi_version: str = "0.87.0",
    existing_plans: Sequence[str] = (),
    keybindings: Mapping[str, str] | None = None,
    disk: tuple[Any, bool] = (None, False),
) -> Session:
    """Run an event script over a fresh session (opl-modes.md § Commands,
    flags, and shortcuts; § Execute handoff; § Tool inheritance warning)
    and return it (its `steps`, one per event, `trace` and `final()` are
    the observations). `disk` is opl-modes.json on disk at the start (the
    document, whether the file exists), read again on `/reload`."""
    session = Session(
        config,
        registered=registered,
        active=active,
        pi_version=pi_version,
        existing_plans=existing_plans,
        keybindings=keybindings,
        disk=disk,
    )
    session.run(events)
    return session
