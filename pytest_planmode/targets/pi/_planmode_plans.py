"""What a pi-plan-mode extension visibly does with plans, read from the
host's answer (pi-plan-mode-settings.md § Plan reinjection, § Export
destination): the Plan status, plans the model handed in, the text a
context carries, files written, notices, and the sandbox's virtual paths.

Shared by the `planmode.lifecycle.run` and `planmode.export.run`
translations.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from pytest_planmode.contract.planmode_lifecycle import COMPLETE_TOOL, PathEntry
from pytest_planmode.contract.virtual_paths import map_rooted, unmap
from pytest_planmode.hosts.pi import steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi.translation import HostRun, Unsupported, calls

SETTINGS_FILE = "pi-plan-mode.json"
#: The status key the extension shows Plan mode under (`ctx.ui.setStatus`).
STATUS_KEY = "plan-mode"
#: Notification levels that make a notice (a problem the user is told
#: about); `info` confirmations of what the user asked for are not notices.
NOTICE_LEVELS = ("warning", "error")
_ROOTED_IN_TEXT = re.compile(r"\$(?:CWD|HOME|AGENT|TMP)(?:/[^\s'\"`,;)]*)?")


def roots(sandbox: Sandbox) -> dict[str, str]:
    """Root token -> the sandbox directory the extension sees for it."""
    return {
        "$CWD": str(sandbox.cwd),
        "$HOME": str(sandbox.home),
        "$AGENT": str(sandbox.agent_dir),
        "$TMP": str(sandbox.root / "tmp"),
    }


def real_path(virtual: str, sandbox: Sandbox) -> str:
    return str(map_rooted(virtual, roots(sandbox)))


def virtual_path(text: str, sandbox: Sandbox) -> str:
    return str(unmap(text, {**roots(sandbox), "$ROOT": str(sandbox.root)}))


#: The session model Pi runs with (a case of these operations names none, but
#: Pi always has one: an agent run needs it, and Implement actions check it).
SESSION_MODEL = {"provider": "host", "id": "session-model"}


def session_model_step() -> steps.Models:
    key = f"{SESSION_MODEL['provider']}/{SESSION_MODEL['id']}"
    return steps.Models(catalogue=[dict(SESSION_MODEL)], auth={key: {"ok": True}}, current=key)


def map_value(value: Any, sandbox: Sandbox) -> Any:
    """A JSON value with every path under a root token in the sandbox."""
    return map_rooted(value, roots(sandbox))


def unmap_value(value: Any, sandbox: Sandbox) -> Any:
    return unmap(value, roots(sandbox))


def settings_document(settings: Mapping[str, Any], sandbox: Sandbox) -> str:
    """The settings file's text: the case's document, its rooted paths
    (an export destination under `$TMP`) in the sandbox."""
    return json.dumps(map_value(dict(settings), sandbox), indent=2)


def materialize(paths: Iterable[PathEntry], sandbox: Sandbox, *, cwd: str = "$CWD") -> None:
    """Creates the paths that exist before the script (with every ancestor
    as a directory), in the sandbox, before the host starts."""
    for entry in paths:
        target = real_path(entry.path, sandbox)
        if not os.path.realpath(target).startswith(str(sandbox.root)):
            raise Unsupported(f"the path {entry.path!r} lies outside the sandbox's roots")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if entry.kind == "directory":
            os.makedirs(target, exist_ok=True)
        elif entry.kind == "file":
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(entry.content)
        else:
            link = entry.target or ""
            os.symlink(real_path(link, sandbox) if link.startswith("$") else link, target)
    for token in ("$CWD", "$HOME", "$TMP", cwd):
        os.makedirs(real_path(token, sandbox), exist_ok=True)


def status_mode(text: Any) -> str:
    """Plan mode's state as its status shows it. The spec gives no status
    texts: a cleared status, or one naming a saved or implementing plan, is
    normal; one naming a ready plan is ready; any other Plan status is
    planning."""
    if not isinstance(text, str) or not text.strip():
        return "normal"
    words = text.lower()
    if "ready" in words:
        return "ready"
    if "saved" in words or "implement" in words:
        return "normal"
    return "planning"


def status_text(trace: list[dict[str, Any]]) -> Any:
    """The Plan status shown after these trace entries (None: cleared)."""
    shown: Any = None
    for args in calls(trace, "ui.setStatus"):
        if args and args[0] == STATUS_KEY:
            shown = args[1] if len(args) > 1 else None
    return shown


def accepted_plans(run: HostRun) -> list[tuple[int, str]]:
    """(step index, plan) of every `plan_mode_complete` call the extension
    let through and executed without error."""
    out: list[tuple[int, str]] = []
    for index, record in enumerate(run.results):
        if record.get("do") != "tool_call" or record.get("tool") != COMPLETE_TOOL:
            continue
        result = record.get("result")
        if not record.get("allowed") or (isinstance(result, dict) and result.get("isError")):
            continue
        plan = (record.get("input") or {}).get("plan")
        if isinstance(plan, str):
            out.append((index, plan))
    return out


def texts(value: Any) -> list[str]:
    """Every string inside a message (content, blocks, tool arguments)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for item in value for t in texts(item)]
    if isinstance(value, Mapping):
        return [
            t
            for key, item in value.items()
            if key not in ("role", "type", "id", "customType")
            for t in texts(item)
        ]
    return []


def copies(messages: list[Any], plan: str | None) -> int:
    """How many times the messages carry the plan: occurrences of its text
    that are not part of a longer word (a one-character plan such as `_` is
    in `plan_mode_complete`, yet that message does not carry it)."""
    if not plan:
        return 0
    whole = re.compile(rf"(?<!\w){re.escape(plan)}(?!\w)")
    return sum(len(whole.findall(text)) for message in messages for text in texts(message))


def notices(trace: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"text": str(args[0])}
        for args in calls(trace, "ui.notify")
        if args and len(args) > 1 and args[1] in NOTICE_LEVELS
    ]


def rooted_in(text: str) -> str | None:
    found = _ROOTED_IN_TEXT.findall(text)
    return found[0].rstrip(".:") if found else None


def written(run: HostRun, sandbox: Sandbox, *, skip: Iterable[str] = ()) -> dict[str, str]:
    """Files the run wrote, by virtual path (the host's own settings file
    and session files aside)."""
    skipped = set(skip)
    out: dict[str, str] = {}
    for relative, content in run.files.items():
        virtual = virtual_path(str(sandbox.root / relative), sandbox)
        if virtual in skipped or virtual.startswith("$AGENT/sessions/"):
            continue
        out[virtual] = content
    return out


def write_targets(trace: list[dict[str, Any]], sandbox: Sandbox) -> list[tuple[str, str]]:
    """(path written, where the bytes landed) of these trace entries, by
    virtual path, in order, once each (they differ under a symlinked parent)."""
    out: list[tuple[str, str]] = []
    for entry in trace:
        if "write" in entry:
            target = virtual_path(str(sandbox.root / str(entry["path"])), sandbox)
            landed = virtual_path(str(sandbox.root / str(entry.get("real") or entry["path"])), sandbox)
            if (target, landed) not in out:
                out.append((target, landed))
    return out


def export_outcome(
    trace: list[dict[str, Any]],
    sandbox: Sandbox,
    existing: dict[str, str],
    written: Mapping[str, str],
    cancelled: bool,
) -> dict[str, Any]:
    """One export attempt, from what these trace entries show: the file it
    wrote (a temporary file renamed into place counts once, under its final
    name), or the destination a warning or error names. Refused: the
    destination exists (no overwrite), a parent of it is not a directory,
    or nothing was there to write;
    failed: a destination that could not be written; cancelled: the user
    dismissed the export input."""
    writes = [(path, landed) for path, landed in write_targets(trace, sandbox) if landed in written]
    if writes:
        path, landed = writes[-1]
        existing[path] = "file"
        return {"outcome": "written", "destination": path, "content": written[landed]}
    if cancelled:
        # The export input previews the destination it would write.
        shown = [rooted_in(virtual_path(_text(args), sandbox)) for args in _prompts(trace)]
        return {"outcome": "cancelled", "destination": next((s for s in shown if s), None), "content": None}
    named = [rooted_in(virtual_path(n["text"], sandbox)) for n in notices(trace)]
    destination = next((n for n in named if n), None)
    parents = [p for p in _ancestors(destination or "") if existing.get(p) not in (None, "directory")]
    refused = destination is None or destination in existing or bool(parents)
    return {"outcome": "refused" if refused else "failed", "destination": destination, "content": None}


def _prompts(trace: list[dict[str, Any]]) -> list[list[Any]]:
    return [list(e.get("args") or []) for e in trace if str(e.get("call", "")).startswith("ui.")]


def _text(value: Any) -> str:
    return " ".join(texts(value))


def _ancestors(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def check_answerable(run: HostRun) -> None:
    """Unsupported when a case's answer found no prompt because the
    extension showed a custom TUI component instead (`ctx.ui.custom`): the
    host answers select, confirm and input prompts by label, not custom
    screens."""
    if int(run.state.get("unusedAnswers") or 0) and calls(run.trace, "ui.custom"):
        raise Unsupported(
            "the extension showed a custom TUI component (ctx.ui.custom) where the case answers a "
            "menu or input by label; the host answers select, confirm and input prompts only"
        )
