"""What a `pi:` translation is: case input -> host script, host answer -> effects."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from pytest_planmode.hosts.pi import steps as host_steps
from pytest_planmode.hosts.pi.client import Sandbox

#: A command only opl-modes registers (opl-modes.md § Commands, flags, and
#: shortcuts): an extension with it is not a pi-plan-mode implementation.
OPL_COMMANDS = frozenset({"mode"})


class Unsupported(Exception):
    """This case (or operation) cannot be expressed as a host script; the
    message says why."""


M = TypeVar("M", bound=BaseModel)


def parse_input(operation: str, model: type[M], payload: Mapping[str, Any]) -> M:
    """The case input as the operation's input model; Unsupported (naming
    the first problem) when it is not one."""
    try:
        return model.model_validate(dict(payload))
    except ValidationError as exc:
        raise Unsupported(f"the case input is not a {operation} input: {exc.errors()[0]['msg']}") from None


def ui_answer(event: Any, roles: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A `ui.answer` as the host's answer to an open select: by label
    (null cancels), by position, or by role through `roles` (role -> a
    pattern over this extension's item texts; `{plan}` in it stands for the
    answer's escaped plan name, absent when the answer names none)."""
    if event.by_label:
        return {"cancel": True} if event.label is None else {"select": event.label}
    if event.index is not None:
        return {"index": event.index}
    pattern = (roles or {}).get(event.role)
    if pattern is None:
        raise Unsupported(f"a ui.answer by role {event.role!r}: this translation spells no item for it")
    plan = r"\b" + re.escape(event.plan) + r"\b" if event.plan else ""
    return {"pattern": pattern.replace("{plan}", plan)}


class ExtensionError(Exception):
    """The extension did something that makes the case unanswerable (a step
    threw, a handler failed); the message names the step and the error."""


@dataclass(frozen=True)
class HostRun:
    """The host's answer to one script."""

    results: list[dict[str, Any]]
    trace: list[dict[str, Any]]
    errors: list[dict[str, Any]]
    state: dict[str, Any]
    files: dict[str, str]
    #: Directories the run created, relative to the sandbox root.
    created_dirs: list[str] = field(default_factory=list)

    @classmethod
    def from_answer(cls, answer: Mapping[str, Any]) -> HostRun:
        return cls(
            results=list(answer.get("results") or []),
            trace=list(answer.get("trace") or []),
            errors=list(answer.get("errors") or []),
            state=dict(answer.get("state") or {}),
            files=dict(answer.get("files") or {}),
            created_dirs=[str(d) for d in answer.get("createdDirs") or []],
        )

    def result(self, index: int) -> dict[str, Any]:
        """A step's result; ExtensionError when the step threw or never finished."""
        record = self.results[index]
        if record.get("threw") is not None:
            raise ExtensionError(f"step {index} ({record.get('do')}) threw: {record['threw']}")
        if record.get("pending"):
            raise ExtensionError(
                f"step {index} ({record.get('do')}) never finished (it waits on something "
                "the script does not provide)"
            )
        return record


def require_unconverted(tool: str, scripted: Any, call: Mapping[str, Any]) -> None:
    """A scripted tool call's arguments reached the extension as written:
    real Pi validates a call against the tool's schema, converting what it
    can (TypeBox: `true` to "true", 1 to "1"), before any extension sees it,
    so a case about arguments Pi converts cannot be judged there."""
    seen = call.get("input")
    if seen is not None and seen != scripted:
        raise Unsupported(
            f"Pi converted the {tool} call's arguments to the tool's schema before the "
            f"extension saw them ({json.dumps(scripted)} became {json.dumps(seen)})"
        )


@dataclass(frozen=True)
class Translation:
    """One operation's translation. `script` builds the host script (raise
    Unsupported for an input it cannot express); `effects` reads the
    operation's output from the host's answer."""

    script: Callable[[Mapping[str, Any], Sandbox], list[host_steps.Step]]
    effects: Callable[[Mapping[str, Any], HostRun], dict[str, Any]]
    #: The command an extension implementing the operation's spec registers,
    #: and that spec: without the command every case is unsupported.
    command: str
    spec: str
    #: Commands that mark an extension of another spec: both specs have a
    #: `/plan`, only opl-modes a `/mode`.
    unless: frozenset[str] = frozenset()
    #: Run options for the host (what it observes after each step, whether
    #: prompts wait for a later answer); see real_host.mjs.
    options: Mapping[str, Any] = field(default_factory=dict)


def in_sandbox(text: str, virtual: str, real: str) -> str:
    """`text` with the case's virtual directory replaced by its sandbox
    directory where it starts a path (the extension sees the sandbox one)."""
    if not virtual or virtual == "/":
        return text
    out: list[str] = []
    i = 0
    while True:
        j = text.find(virtual, i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        end = j + len(virtual)
        boundary = end == len(text) or text[end] in "/ \t\n'\";|&)"
        out.append(text[i:j])
        out.append(real if boundary else virtual)
        i = end


class ScriptBuilder:
    """Builds a host script from an event script: host steps per event,
    with the virtual clock moved to each event's instant (`at`) first, and
    the span of host steps each event became, for reading effects back."""

    def __init__(self) -> None:
        self.steps: list[host_steps.Step] = []
        self.spans: list[tuple[int, int]] = []
        self.now = 0
        #: Virtual time the host spent on its own (e.g. a watcher's debounce
        #: after a file write): later instants move by it.
        self.offset = 0
        self._open: int | None = None

    def add(self, *steps: host_steps.Step) -> None:
        self.steps.extend(steps)

    def begin(self, at: int) -> None:
        target = at + self.offset
        if target > self.now:
            self.steps.append(host_steps.Advance(ms=target - self.now))
            self.now = target
        self._open = len(self.steps)

    def end(self) -> None:
        assert self._open is not None
        self.spans.append((self._open, len(self.steps)))
        self._open = None

    def elapse(self, ms: int) -> None:
        """Let the host's own timers run for `ms` of virtual time."""
        self.steps.append(host_steps.Advance(ms=ms))
        self.now += ms
        self.offset += ms


def step_trace(run: HostRun, span: tuple[int, int]) -> list[dict[str, Any]]:
    """The call-trace entries recorded while the host ran these steps."""
    first, last = span
    if last <= first:
        return []
    start = int(run.results[first].get("traceFrom", 0))
    stop = int(run.results[last - 1].get("traceTo", len(run.trace)))
    return run.trace[start:stop]


def calls(trace: list[dict[str, Any]], name: str) -> list[list[Any]]:
    """The arguments of every call named `name` (e.g. `ui.notify`)."""
    return [list(entry.get("args") or []) for entry in trace if entry.get("call") == name]


def answer_index(
    trace: list[dict[str, Any]], after: int, api: str, model: str, taken: set[int]
) -> int | None:
    """Where Pi's answer to a call of `api` for `model` made at trace index
    `after` is: the first `answer` entry for them after it not yet in
    `taken` (answers come in the order they settled). Marks it taken."""
    for j in range(after + 1, len(trace)):
        if j not in taken and trace[j].get("answer") == api and trace[j].get("model") == model:
            taken.add(j)
            return j
    return None


#: A terminal style sequence (the hosts' theme colours): not shown as text.
_STYLE = re.compile(r"\x1b\[[^m]*m")
#: `ctx.ui` calls that show text, and where it is: `(title, items)` from the
#: call's arguments (the screen field, contract/screen.py).
_SHOWN: dict[str, Callable[[list[Any]], tuple[Any, Any]]] = {
    "ui.select": lambda a: (a[0] if a else None, a[1] if len(a) > 1 else []),
    "ui.input": lambda a: (a[0] if a else None, a[1:2]),
    "ui.editor": lambda a: (a[0] if a else None, a[1:2]),
    "ui.confirm": lambda a: (a[0] if a else None, a[1:2]),
    "ui.notify": lambda a: (None, a[:1]),
    "ui.setStatus": lambda a: (a[0] if a else None, a[1:2]),
    "ui.setWidget": lambda a: (a[0] if a else None, a[1] if len(a) > 1 else []),
    "ui.setEditorText": lambda a: (None, a[:1]),
    "ui.pasteToEditor": lambda a: (None, a[:1]),
    "ui.setTitle": lambda a: (a[0] if a else None, []),
}


def _shown_text(value: Any) -> str:
    return _STYLE.sub("", value)


def screen(trace: list[dict[str, Any]], unmap: Callable[[str], str] = str) -> list[dict[str, Any]]:
    """What the extension showed the user, in order, from the `ui.*` calls
    the host recorded: one screen entry per call that shows text (a select's
    entries, an input's prefill, a notification, a status or widget text,
    the editor's text). Texts that are not strings (a widget factory, a
    status cleared with undefined) show nothing; `unmap` turns the sandbox's
    paths back into the case's."""
    entries: list[dict[str, Any]] = []
    for record in trace:
        read = _SHOWN.get(str(record.get("call")))
        if read is None:
            continue
        title, items = read(list(record.get("args") or []))
        if isinstance(items, str):
            items = items.split("\n")
        texts = (
            [unmap(_shown_text(item)) for item in items if isinstance(item, str)]
            if isinstance(items, list)
            else []
        )
        heading = unmap(_shown_text(title)) if isinstance(title, str) else None
        kind = str(record["call"]).removeprefix("ui.")
        lines = ([heading] if heading else []) + texts
        entries.append({"ui": kind, "title": heading, "items": texts, "text": "\n".join(lines)})
    return entries
