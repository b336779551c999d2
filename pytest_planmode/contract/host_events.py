"""Host events: the script vocabulary a Pi host can replay.

Every event here is something Pi does, or something a user does in Pi, so
a host that loads a real extension can turn each one into host steps (the
Pi hooks named in each docstring) and a reimplementation can read it as
data. Operations combine these classes with their own (registry changes,
for instance) into their script unions; an event keeps its name and shape
in every operation that uses it.

Agent runs are explicit: ``agent.start`` opens one (a user prompt),
``agent.settle`` ends it with its outcome; ``context`` and ``tool.call``
happen inside a run. Session moves (reload, resume, new session, tree
navigation) happen between runs; where an operation lets a reload, resume
or restart come while a run is open, Pi aborts that run first (no
`agent_settled`).

Time is virtual. ``at`` is optional (see :mod:`.events`); a script that
times something says so with explicit instants or ``clock.advance``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pytest_planmode.contract.base import ContractInput
from pytest_planmode.contract.events import ScriptEvent
from pytest_planmode.contract.virtual_paths import ROOTED_PATTERN

#: Pi's built-in shell tools: a call to one of them carries its command,
#: as Pi validates a tool call's arguments against its schema before any
#: extension sees it.
SHELL_TOOLS = ("bash", "powershell")


class SessionEntry(BaseModel):
    """A session entry as Pi stores it. Entries of other extensions, or with
    any other shape, are allowed: an extension restoring its state must skip
    what is not its own."""

    model_config = ConfigDict(populate_by_name=True, extra="allow", frozen=True)

    type: str = Field(default="custom", description="Pi's entry kind; extensions write `custom`.")
    custom_type: str | None = Field(
        default=None,
        alias="customType",
        description="The extension's entry type (e.g. `mode-switcher`); anything else is foreign.",
    )
    data: Any = None


class SessionStart(ScriptEvent):
    """Pi starts on a session: the extension loads (the factory runs with the
    CLI `flags` applied after it), then `session_start{startup}` on the
    session's stored `entries`."""

    type: Literal["session.start"]
    flags: list[str] = Field(default_factory=list, description="CLI flags, e.g. `--chat`, `--plan`.")
    entries: list[SessionEntry] = Field(
        default_factory=list, description="Entries of the session being opened."
    )


class AgentStart(ScriptEvent):
    """A user prompt opens an agent run: Pi fires `input`, every
    extension's `before_agent_start` (chained), then `agent_start`."""

    type: Literal["agent.start"]
    prompt: str = Field(default="", description="The prompt text the user submits.")


class AgentSettle(ScriptEvent):
    """The open agent run ends: Pi fires `agent_end` (from Pi 0.87.0 also
    `agent_before_settle` with the outcome), then `agent_settled`."""

    type: Literal["agent.settle"]
    outcome: Literal["completed", "aborted", "error"] = "completed"


class Context(ScriptEvent):
    """Pi's `context` hook, emitted before each LLM call of the open run."""

    type: Literal["context"]


class ToolCall(ScriptEvent):
    """The model calls a tool in the open run. Pi emits `tool_call` only for
    a registered, active tool whose arguments passed its schema; any other
    call is answered by Pi itself ("Tool NAME not found") and never reaches
    an extension. `via` names the orchestrator tool (e.g. `codemode`) of a
    nested call."""

    type: Literal["tool.call"]
    tool: str = Field(min_length=1)
    input: dict[str, Any] = Field(
        default_factory=dict, description="The call's arguments; a `bash` call carries `command`."
    )
    via: str | None = Field(default=None, description="The orchestrator of a nested call.")

    @model_validator(mode="after")
    def _shell_has_command(self) -> ToolCall:
        if self.tool in SHELL_TOOLS and not isinstance(self.input.get("command"), str):
            raise ValueError(
                f'a {self.tool} tool.call carries its command: input = {{ command = "..." }} '
                "(Pi checks the arguments against the tool's schema before any extension sees the call)"
            )
        return self


class Command(ScriptEvent):
    """The user types `/name args`: Pi calls the command's handler with the
    raw argument string."""

    type: Literal["command"]
    name: str = Field(min_length=1, pattern=r"^[^/\s]+$", description="The command name, without `/`.")
    args: str = Field(default="", description="The raw remainder after the name.")


#: The ways a `ui.answer` names the item it picks.
ANSWER_WAYS = ("label", "index", "role")


class UiAnswer(ScriptEvent):
    """The user answers the open menu or dialog (Pi's `ctx.ui.select`
    returns the picked item's label). Exactly one of: `label`, the item's
    text (null dismisses the menu: Escape); `index`, the item's position in
    the open menu (0 is the first); `role`, what the item does, in the
    operation's own vocabulary (for example `execute` with `plan`), for an
    item whose text the spec leaves open. An operation whose menus have no
    roles takes labels and positions only."""

    type: Literal["ui.answer"]
    label: str | None = Field(default=None, description="The item's text; null dismisses the menu.")
    index: int | None = Field(
        default=None, ge=0, description="The item's position in the open menu, 0 for the first."
    )
    role: str | None = Field(
        default=None, min_length=1, description="What the item does, in the operation's vocabulary."
    )
    plan: str | None = Field(
        default=None,
        min_length=1,
        description='With `role = "execute"`: the plan the entry executes (its name, e.g. `auth`).',
    )

    @model_validator(mode="after")
    def _one_way(self) -> UiAnswer:
        given = [way for way in ANSWER_WAYS if way in self.model_fields_set]
        if len(given) != 1:
            shown = ", ".join(given) if given else "none of them"
            raise ValueError(
                "a ui.answer names the item it picks in exactly one way: label (null dismisses), "
                f"index (its position, 0 first) or role (what it does); this one gives {shown}"
            )
        if self.plan is not None and self.role is None:
            raise ValueError('a ui.answer gives `plan` only with a role (role = "execute")')
        return self

    @property
    def by_label(self) -> bool:
        """True when the answer names its item by text (or dismisses)."""
        return "label" in self.model_fields_set


class KeyPress(ScriptEvent):
    """The user presses a key: every handler bound to it fires (extension
    shortcuts and Pi's own bindings alike)."""

    type: Literal["key.press"]
    key: str = Field(description="A key id, e.g. `shift+tab`.")


class UiShow(ScriptEvent):
    """The host reads the screen that is open now, choosing nothing."""

    type: Literal["ui.show"]


class ClockAdvance(ScriptEvent):
    """Virtual time passes: pending timers due by then fire."""

    type: Literal["clock.advance"]
    ms: int = Field(ge=0)


class SessionReload(ScriptEvent):
    """`/reload`: `session_shutdown{reload}`, a new extension runtime,
    `session_start{reload}`; the same session and branch."""

    type: Literal["session.reload"]


class SessionResume(ScriptEvent):
    """`/resume`: `session_before_switch{resume}`, `session_shutdown{resume}`,
    a new runtime, `session_start{resume}` on the resumed session's stored
    entries: `entries` when given, else this session's own."""

    type: Literal["session.resume"]
    entries: list[SessionEntry] | None = Field(
        default=None, description="The resumed session's entries; omitted: this session's."
    )


class SessionNew(ScriptEvent):
    """`/new`: `session_before_switch{new}`, `session_shutdown{new}`, a new
    runtime, `session_start{new}` on an empty session."""

    type: Literal["session.new"]


class SessionLabel(ScriptEvent):
    """The user labels the current leaf entry in `/tree` (Pi's entry labels)."""

    type: Literal["session.label"]
    label: str = Field(min_length=1)


class SessionTree(ScriptEvent):
    """`/tree` navigation: `session_before_tree`, the leaf moves,
    `session_tree`. The target is the entry labelled `to`, or a branch
    whose entries are `entries` (one of the two)."""

    type: Literal["session.tree"]
    to: str | None = Field(default=None, min_length=1, description="A label given by `session.label`.")
    entries: list[SessionEntry] | None = Field(default=None, description="Entries on the new branch.")

    @model_validator(mode="after")
    def _one_target(self) -> SessionTree:
        if (self.to is None) == (self.entries is None):
            raise ValueError("session.tree names its target: either `to` (a label) or `entries`")
        return self


class SettingsWrite(ScriptEvent):
    """The settings file is edited as JSON on disk (an editor, not the
    extension): the fields given are changed, `null` removes a field, any
    value is written as is, valid or not."""

    type: Literal["settings.write"]
    settings: dict[str, Any] = Field(description="The fields changed, as raw JSON values.")


class SettingsScreen(ScriptEvent):
    """The user saves through the extension's Settings screen: the fields
    given are changed; `null` resets a field (e.g. **Use automatic safe
    built-ins**)."""

    type: Literal["settings.screen"]
    settings: dict[str, Any] = Field(description="The fields changed, as raw JSON values.")


class HandlerHold(ScriptEvent):
    """Another extension is loaded whose `before_agent_start` handler, at the
    next `agent.start`, settles only at the matching `extension.settle`
    (the host runs it concurrently and resolves it then)."""

    type: Literal["extension.hold"]
    handler: str = Field(min_length=1, description="A name for that extension's handler.")


class HandlerSettle(ScriptEvent):
    """The held `before_agent_start` handler of `extension.hold` settles."""

    type: Literal["extension.settle"]
    handler: str = Field(min_length=1)


# --------------------------------------------------------------------------
# Agent runs, thinking, compaction, restarts and host failures (first used by
# `planmode.lifecycle.run`)


class AgentQueue(ScriptEvent):
    """The user submits `prompt` while the open run streams: Pi fires
    `input` (`streamingBehavior: "followUp"`) and queues it. At the next
    `agent.settle` Pi fires `agent_end` but not `agent_settled`
    (`ctx.hasPendingMessages()` is true): the queued prompt continues the
    same run, which settles fully only at a later `agent.settle`."""

    type: Literal["agent.queue"]
    prompt: str = Field(default="", description="The queued prompt's text.")


class ThinkingSelect(ScriptEvent):
    """The user changes Pi's thinking level (the thinking selector or its
    cycle key): Pi applies it (`setThinkingLevel`: a `thinking_level_change`
    entry) and, if the level changed, emits `thinking_level_select{level,
    previousLevel}` to extensions."""

    type: Literal["thinking.select"]
    level: Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]


class SessionCompact(ScriptEvent):
    """Compaction (`/compact` between runs, or Pi's automatic compaction
    before the next LLM call of the open run): `session_before_compact`,
    `session_compact`; from then on the `context` messages are the summary
    plus the kept messages, so earlier conversation text is gone from them.
    Custom entries stay in the branch."""

    type: Literal["session.compact"]


class SessionRestart(ScriptEvent):
    """Pi quits and is started again on the same session:
    `session_shutdown{quit}`, a new process (the extension loads afresh),
    `session_start{startup}` on the session's stored entries."""

    type: Literal["session.restart"]


class CwdChange(ScriptEvent):
    """Pi's working directory is `cwd` from now on (`ctx.cwd`,
    `sessionManager.getCwd()`); files the extension reads or writes by a
    relative path resolve against it."""

    type: Literal["cwd.change"]
    cwd: str = Field(pattern=ROOTED_PATTERN, description="A path under a root (`$CWD/…`, `$TMP/…`).")


class ApiFail(ScriptEvent):
    """The host makes the extension's next call of a Pi API fail:
    `sendUserMessage` is not delivered (Pi reports a runner error, no run
    starts), `newSession` resolves `{cancelled: true}` (no new session).
    Calls after that one behave normally."""

    type: Literal["api.fail"]
    call: Literal["sendUserMessage", "newSession"]


# --- models: the catalogue, providers and the user's model picks -----------


class ModelsCatalogue(ScriptEvent):
    """Pi's model catalogue changes: `ctx.scopedModels` (the `--models`
    scope, edited in Pi's scoped-models screen) and what
    `ctx.modelRegistry.getAvailable()` lists (a provider registered or
    removed with `pi.registerProvider` / `unregisterProvider`, `models.json`
    refreshed, `/login` or `/logout`). A list not given stays as it was."""

    type: Literal["models.catalogue"]
    scoped_models: list[str] | None = Field(default=None, description="The session scope from now on.")
    available_models: list[str] | None = Field(
        default=None, description="`modelRegistry.getAvailable()` from now on (`provider/modelId`)."
    )


class ProviderChange(ScriptEvent):
    """How Pi answers for one model from now on: a provider recovers or
    breaks, `/login` or `/logout` changes its credentials, it is registered
    or removed. The fields given change, the others stay as they were (a
    model not seen before starts from the defaults: it resolves, authenticates
    `ok` at once, has credentials, and its model change is accepted at once).
    The Pi APIs: `ctx.modelRegistry.find(provider, id)` (`resolves`),
    `modelRegistry.getApiKeyAndHeaders(model)` (`auth`, `authLatencyMs`),
    `modelRegistry.hasConfiguredAuth(model)` and `pi.setModel(model)`, which
    answers false without configured auth (`credentials`, `change`,
    `changeLatencyMs`)."""

    type: Literal["provider.change"]
    model: str = Field(min_length=1, description="`provider/modelId`.")
    resolves: bool | None = Field(default=None, description="`modelRegistry.find` knows the model.")
    auth: Literal["ok", "fail", "throw", "hang"] | None = Field(
        default=None,
        description="`getApiKeyAndHeaders`: `ok`, `fail` (`ok: false`), `throw`, or `hang` (never answers).",
    )
    auth_latency_ms: int | None = Field(default=None, ge=0, description="Virtual ms until it answers.")
    credentials: bool | None = Field(
        default=None, description="Configured auth; without it `pi.setModel` answers false."
    )
    change: Literal["accept", "refuse", "throw", "hang"] | None = Field(
        default=None, description="What `pi.setModel` does: switch, answer false, throw, never settle."
    )
    change_latency_ms: int | None = Field(
        default=None, ge=0, description="Virtual ms `pi.setModel` takes (not for `hang`)."
    )


class ModelSelect(ScriptEvent):
    """The user picks a model in Pi: `/model` (the model selector) switches
    the session model and emits `model_select{source: "set"}`; Ctrl+P
    cycling through the scope emits `model_select{source: "cycle"}`. Pi emits
    the event only when the model differs."""

    type: Literal["model.select"]
    model: str = Field(min_length=1, description="`provider/modelId` picked.")
    source: Literal["set", "cycle"] = "set"


class SettingsUnreadable(ScriptEvent):
    """The settings file can no longer be read (the host makes reading it
    fail, e.g. by its permissions) until the next `settings.write` or
    `settings.screen` writes it again."""

    type: Literal["settings.unreadable"]


# --- Pi's own settings (first used by `planmode.tools.authorize`) -------------


#: Pi's default tool selection: the built-ins active when no settings layer
#: sets `defaultTools`.
PI_DEFAULT_TOOLS = ("read", "bash", "edit", "write")
#: The first Pi release that reads `+name`/`-name` in `defaultTools`.
TOOL_MODIFIERS_SINCE = (0, 99, 0)


class PiSettings(ContractInput):
    """Pi's own settings when it starts (the settings source of the session:
    `$PI_CODING_AGENT_DIR/settings.json` for the CLI, whatever an SDK host
    gives), not the extension's. `defaultTools` selects which of Pi's
    built-in tools are active: plain names replace Pi's defaults (`read`,
    `bash`, `edit`, `write`); from Pi 0.99 `+name` adds and `-name` removes a
    tool of the inherited selection, in order (a list of modifiers only keeps
    the defaults); an older Pi reads every entry as an exact name."""

    default_tools: list[str] | None = Field(
        default=None, alias="defaultTools", description="Pi's `defaultTools`; omitted: Pi's defaults."
    )
    pi_version: str = Field(
        default="1.6.0",
        pattern=r"^\d+\.\d+\.\d+$",
        description="The Pi release reading them (modifiers need 0.99 or newer).",
    )

    def active_built_ins(self) -> list[str]:
        """The built-in tool names Pi activates at start, in Pi's order."""
        entries = self.default_tools
        if entries is None:
            return list(PI_DEFAULT_TOOLS)
        modifiers = tuple(int(part) for part in self.pi_version.split(".")) >= TOOL_MODIFIERS_SINCE

        def is_modifier(entry: str) -> bool:
            return modifiers and entry[:1] in ("+", "-")

        plain = [entry for entry in entries if not is_modifier(entry)]
        tools = list(plain if plain or not entries else PI_DEFAULT_TOOLS)
        for entry in entries:
            if not is_modifier(entry):
                continue
            name = entry[1:]
            if entry.startswith("+") and name and name not in tools:
                tools.append(name)
            elif entry.startswith("-") and name in tools:
                tools.remove(name)
        return tools


#: Where an event stands against the agent runs, in words (one text for
#: every script operation's replayability check).
NEEDS_RUN = "happens inside an agent run: open one with agent.start first"
NEEDS_NO_RUN = "happens between runs: end the open run with agent.settle first"


def misplaced(*, needs_run: bool, needs_no_run: bool, in_run: bool | None) -> str | None:
    """Why an event cannot stand where it is, or None. `in_run`: whether a
    run is open (None: it may or may not be, as after a kickoff)."""
    if needs_run and in_run is False:
        return NEEDS_RUN
    if needs_no_run and in_run is True:
        return NEEDS_NO_RUN
    return None


HostEvent = Annotated[
    SessionStart
    | AgentStart
    | AgentSettle
    | Context
    | ToolCall
    | Command
    | UiAnswer
    | UiShow
    | ClockAdvance
    | SessionReload
    | SessionResume
    | SessionNew
    | SessionLabel
    | SessionTree
    | KeyPress
    | SettingsWrite
    | SettingsScreen
    | HandlerHold
    | HandlerSettle
    | AgentQueue
    | ThinkingSelect
    | SessionCompact
    | SessionRestart
    | CwdChange
    | ApiFail
    | ModelsCatalogue
    | ProviderChange
    | ModelSelect
    | SettingsUnreadable,
    Field(discriminator="type"),
]


class HostVocabulary(ContractInput):
    """The host vocabulary: every event shared by the script operations."""

    events: list[HostEvent]


SCHEMAS = {"events/host.schema.json": HostVocabulary}

__all__ = [
    "NEEDS_NO_RUN",
    "NEEDS_RUN",
    "PI_DEFAULT_TOOLS",
    "SHELL_TOOLS",
    "AgentQueue",
    "AgentSettle",
    "AgentStart",
    "ApiFail",
    "ClockAdvance",
    "Command",
    "Context",
    "CwdChange",
    "HandlerHold",
    "HandlerSettle",
    "HostEvent",
    "HostVocabulary",
    "KeyPress",
    "ModelSelect",
    "ModelsCatalogue",
    "PiSettings",
    "ProviderChange",
    "SessionCompact",
    "SessionEntry",
    "SessionLabel",
    "SessionNew",
    "SessionReload",
    "SessionRestart",
    "SessionResume",
    "SessionStart",
    "SessionTree",
    "SettingsScreen",
    "SettingsUnreadable",
    "SettingsWrite",
    "ThinkingSelect",
    "ToolCall",
    "UiAnswer",
    "UiShow",
    "misplaced",
]
