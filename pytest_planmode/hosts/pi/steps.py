"""Host steps: the script vocabulary the Pi host runs, one model per step.

A host script is a list of steps, each a JSON object whose `do` names it
(`{"do": "command", "name": "plan", "args": "start"}`). The host
(`real_host.mjs`) accepts these `do` values; a step the Pi release cannot
take is answered `{refused: why}` by it.
The `pi:` translations build their scripts from these models, and the
client checks every step against them before the host sees it: a step with
a field the host does not read, or a value of the wrong kind, is the kit's
own fault and never reaches the extension.

On the wire a step is its fields as given (camelCase, as the host reads
them), nothing filled in: a field left out is absent, as the host defaults
it itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel

#: Where a file step's `path` is relative to (the sandbox's agent
#: directory, project directory or home).
Root = Literal["agent", "cwd", "home"]
JsonObject = dict[str, Any]


class StepError(Exception):
    """A host step that is not one of the vocabulary's (the kit built it)."""


class _Shape(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)


class Step(_Shape):
    """One host step; `do` names it."""

    do: str

    def wire(self) -> dict[str, Any]:
        """The step as the host reads it: `do` and the fields given."""
        return {"do": self.do, **self.model_dump(by_alias=True, exclude_unset=True, exclude={"do"})}


class UiReply(_Shape):
    """An answer to a prompt the extension opens: a select item by its text
    (`select`, `label`), position (`index`) or a pattern over the item texts
    (`pattern`); the text typed into an input (`input`, `value`); a confirm
    (`confirm`); `cancel` leaves the prompt (Escape)."""

    select: str | None = None
    label: str | None = None
    index: int | None = Field(default=None, ge=0)
    pattern: str | None = None
    input: str | None = None
    value: str | None = None
    confirm: bool | None = None
    cancel: bool | None = None


class HostTool(_Shape):
    """A tool of Pi's registry the host provides: a built-in (`builtin`,
    `built-in`, `sdk`) or another extension's (`user-extension`,
    `project-extension`), active or not, with the argument types of its
    schema (`properties`: name -> JSON type) and its exposure (Pi 1.x)."""

    name: str = Field(min_length=1)
    source: str | None = None
    active: bool | None = None
    properties: dict[str, str] | None = None
    exposure: str | None = None
    annotations: JsonObject | None = None
    description: str | None = None
    parameters: JsonObject | None = None


# ------------------------------------------------------------------ session


class Start(Step):
    """Pi starts: the extension loads (CLI `flags` applied), then
    `session_start{startup}` on the stored `entries`."""

    do: Literal["start"] = "start"
    thinking_level: str | None = None
    flags: dict[str, bool] | None = None
    entries: list[JsonObject] | None = None


class Reload(Step):
    """`/reload`."""

    do: Literal["reload"] = "reload"


class Restart(Step):
    """Pi quits and starts again on the same session."""

    do: Literal["restart"] = "restart"


class Resume(Step):
    """`/resume`: this session, another session `file`, or a stored session
    with these `entries`."""

    do: Literal["resume"] = "resume"
    entries: list[JsonObject] | None = None
    file: str | None = None


class NewSession(Step):
    """`/new`."""

    do: Literal["new_session"] = "new_session"
    entries: list[JsonObject] | None = None


class Label(Step):
    """The user labels the current leaf entry in `/tree`."""

    do: Literal["label"] = "label"
    label: str


class NavigateTree(Step):
    """`/tree` navigation: to the entry labelled `label`, to a branch of
    `entries`, to entry `target`, or `back` entries up the branch."""

    do: Literal["navigate_tree"] = "navigate_tree"
    label: str | None = None
    entries: list[JsonObject] | None = None
    target: str | None = None
    back: int | None = Field(default=None, ge=0)


class Compact(Step):
    """`/compact`: Pi's compaction with this `summary` unless an extension
    supplies its own."""

    do: Literal["compact"] = "compact"
    summary: str | None = None


class SetCwd(Step):
    """Pi's working directory from now on (a sandbox path)."""

    do: Literal["set_cwd"] = "set_cwd"
    path: str


# ------------------------------------------------------------------ the user


class Command(Step):
    """`/name args`; `wait: false` returns while the handler still waits
    (on a prompt a later `ui` step answers)."""

    do: Literal["command"] = "command"
    name: str = Field(min_length=1)
    args: str | None = None
    wait: bool | None = None


class Shortcut(Step):
    """A key press; `thinkingCycle`: the key is also Pi's thinking cycle."""

    do: Literal["shortcut"] = "shortcut"
    key: str = Field(min_length=1)
    thinking_cycle: bool | None = None
    wait: bool | None = None


class Ui(Step):
    """Answers to the prompts open now, oldest first; the rest wait for the
    next prompts."""

    do: Literal["ui"] = "ui"
    answers: list[UiReply]


class Dismiss(Step):
    """The user leaves every open prompt (Escape)."""

    do: Literal["dismiss"] = "dismiss"


class Thinking(Step):
    """The user sets Pi's thinking level."""

    do: Literal["thinking"] = "thinking"
    level: str


class SetModel(Step):
    """The user picks a model (`provider/id`): `/model` (`set`) or cycling."""

    do: Literal["set_model"] = "set_model"
    model: str = Field(min_length=1)
    source: Literal["set", "cycle"] | None = None


# ------------------------------------------------------------------ agent runs


class AgentStart(Step):
    """A prompt opens an agent run."""

    do: Literal["agent_start"] = "agent_start"
    prompt: str | None = None
    source: str | None = None


class Context(Step):
    """Pi emits `context` before the run's next LLM call."""

    do: Literal["context"] = "context"


class ToolCall(Step):
    """The model calls `tool` with `input`. `execute`: an allowed extension
    tool runs; `validate: false`: the arguments are taken as passing Pi's
    schema check (the host supplies what the script leaves out)."""

    do: Literal["tool_call"] = "tool_call"
    tool: str = Field(min_length=1)
    input: JsonObject | None = None
    execute: bool | None = None
    validate_: bool | None = Field(default=None, alias="validate")
    tool_call_id: str | None = None
    #: A nested call: the model calls this orchestrator, whose code calls
    #: `tool` through Pi's `ctx.executeTool` (Pi 1.x).
    via: str | None = None


class AgentEnd(Step):
    """The open run ends with `outcome` (the model's `reply`);
    `beforeSettle: false`: no `agent_before_settle` (Pi before 0.87.0)."""

    do: Literal["agent_end"] = "agent_end"
    outcome: Literal["completed", "aborted", "error"] | None = None
    reply: str | None = None
    before_settle: bool | None = None
    #: `model`: an `aborted` run ends by the model's turn stopping aborted,
    #: not by the user's abort (ESC).
    by: Literal["model"] | None = None


class Queue(Step):
    """A prompt submitted while the run streams (a follow-up)."""

    do: Literal["queue"] = "queue"
    prompt: str | None = None


# ------------------------------------------------------------------ Pi's tools and models


class Registry(Step):
    """Pi's registry before the extension loads (built-ins included)."""

    do: Literal["registry"] = "registry"
    tools: list[HostTool]


class SetRegistry(Step):
    """Pi's registry from now on (the extension's own tools stay)."""

    do: Literal["set_registry"] = "set_registry"
    tools: list[HostTool]


class RegisterTool(HostTool, Step):
    """One more tool in Pi's registry."""

    do: Literal["register_tool"] = "register_tool"


class SetActive(Step):
    """Another extension sets the active tools."""

    do: Literal["set_active"] = "set_active"
    tools: list[str]


class Activate(Step):
    """Another extension activates these tools."""

    do: Literal["activate"] = "activate"
    names: list[str]


class Deactivate(Step):
    """Another extension deactivates these tools."""

    do: Literal["deactivate"] = "deactivate"
    names: list[str]


class Expose(Step):
    """A tool's exposure changes (null: direct)."""

    do: Literal["expose"] = "expose"
    name: str = Field(min_length=1)
    exposure: str | None = None


class Declare(Step):
    """Pi's `tool_search` declares a codemode or deferred tool for the next
    model call (Pi 1.x)."""

    do: Literal["declare"] = "declare"
    name: str = Field(min_length=1)


class PiSettings(Step):
    """Pi's own settings before it starts (`defaultTools`); `piVersion`: the
    Pi release the settings are written for."""

    do: Literal["pi_settings"] = "pi_settings"
    settings: JsonObject
    pi_version: str | None = None


class ModelTools(Step):
    """The tools Pi declares to the model with the waiting LLM call (real
    Pi host only)."""

    do: Literal["model_tools"] = "model_tools"


class Models(Step):
    """Pi's model registry: the `catalogue` (`{provider, id, ...}`),
    authentication per model (`auth`), how each model answers
    (`behaviour`), `available` and `scoped` models and the `current` one;
    `merge` changes only what the step names."""

    do: Literal["models"] = "models"
    merge: bool | None = None
    catalogue: list[JsonObject] | None = None
    auth: dict[str, JsonObject] | None = None
    behaviour: dict[str, JsonObject] | None = None
    #: The models the case gives answers for (a real Pi authenticates per
    #: provider; the others take the defaults).
    given: list[str] | None = None
    available: list[str] | None = None
    scoped: list[str] | None = None
    current: str | None = None


# ------------------------------------------------------------------ files, time, faults


class WriteFile(Step):
    """A file written under a root: text, or any other value as JSON."""

    do: Literal["write_file"] = "write_file"
    root: Root | None = None
    path: str
    content: Any


class EditFile(Step):
    """A JSON document edited on disk: top-level fields `set` (null removes)."""

    do: Literal["edit_file"] = "edit_file"
    root: Root | None = None
    path: str
    set: JsonObject


class DeleteFile(Step):
    """A file removed."""

    do: Literal["delete_file"] = "delete_file"
    root: Root | None = None
    path: str


class UnreadableFile(Step):
    """A file can no longer be read, until a step writes it."""

    do: Literal["unreadable_file"] = "unreadable_file"
    root: Root | None = None
    path: str


class Advance(Step):
    """Virtual time passes: timers due by then fire."""

    do: Literal["advance"] = "advance"
    ms: int = Field(ge=0)


class Settle(Step):
    """Let what is in flight settle."""

    do: Literal["settle"] = "settle"


class State(Step):
    """The host's state now, in the step's result."""

    do: Literal["state"] = "state"


class FailNext(Step):
    """The extension's next call of a Pi API fails (`afterModelChange`:
    only after the next accepted model change); `clear` ends pending ones."""

    do: Literal["fail_next"] = "fail_next"
    call: Literal["sendUserMessage", "newSession", "appendEntry"] | None = None
    after_model_change: bool | None = None
    clear: bool | None = None


class StaleCall(Step):
    """A method called on the `pi` of a runtime Pi has replaced."""

    do: Literal["stale_call"] = "stale_call"
    method: str | None = None


#: Every step, by its `do`.
STEP_TYPES: tuple[type[Step], ...] = (
    Start,
    Declare,
    PiSettings,
    ModelTools,
    Command,
    Ui,
    ToolCall,
    Registry,
    SetRegistry,
    RegisterTool,
    SetActive,
    Activate,
    Deactivate,
    Expose,
    Models,
    SetModel,
    Thinking,
    Advance,
    WriteFile,
    EditFile,
    DeleteFile,
    Shortcut,
    AgentStart,
    Context,
    AgentEnd,
    Reload,
    Resume,
    NewSession,
    Label,
    NavigateTree,
    Settle,
    State,
    StaleCall,
    Dismiss,
    Queue,
    Compact,
    Restart,
    SetCwd,
    FailNext,
    UnreadableFile,
)

#: The `do` values, in the hosts' order.
STEP_NAMES: tuple[str, ...] = tuple(t.model_fields["do"].default for t in STEP_TYPES)

AnyStep = Annotated[
    Start
    | Command
    | Ui
    | ToolCall
    | Registry
    | SetRegistry
    | RegisterTool
    | SetActive
    | Activate
    | Deactivate
    | Expose
    | Declare
    | PiSettings
    | ModelTools
    | Models
    | SetModel
    | Thinking
    | Advance
    | WriteFile
    | EditFile
    | DeleteFile
    | Shortcut
    | AgentStart
    | Context
    | AgentEnd
    | Reload
    | Resume
    | NewSession
    | Label
    | NavigateTree
    | Settle
    | State
    | StaleCall
    | Dismiss
    | Queue
    | Compact
    | Restart
    | SetCwd
    | FailNext
    | UnreadableFile,
    Field(discriminator="do"),
]

_ADAPTER: TypeAdapter[Step] = TypeAdapter(AnyStep)


class HostScript(_Shape):
    """A host script: the steps of one run, in order."""

    script: list[AnyStep]


def check(step: Step | Mapping[str, Any], index: int = 0) -> Step:
    """The step as its model; StepError naming the step and the first
    problem when it is not one of the vocabulary's."""
    if isinstance(step, Step):
        data: Any = step.wire()
    elif isinstance(step, Mapping):
        data = dict(step)
    else:
        raise StepError(f"step {index} is a {type(step).__name__}, not a host step")
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"][1:]) or "the step"
        raise StepError(
            f"step {index} ({data.get('do')!r}) is not a host step: {where}: {first['msg']}"
        ) from None


def wire_script(steps: Iterable[Step | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The script as the host reads it, every step checked first."""
    return [check(step, index).wire() for index, step in enumerate(steps)]


SCHEMAS = {"host/pi-steps.schema.json": HostScript}

__all__ = [
    "SCHEMAS",
    "STEP_NAMES",
    "STEP_TYPES",
    "AnyStep",
    "HostScript",
    "HostTool",
    "Step",
    "StepError",
    "UiReply",
    "check",
    "wire_script",
]
