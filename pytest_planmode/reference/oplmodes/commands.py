"""Parsing of opl-modes' slash commands and start flags (opl-modes.md
§ Commands, flags, and shortcuts)."""

from __future__ import annotations

from dataclasses import dataclass

#: The commands opl-modes registers.
COMMANDS = ("mode", "chat", "plan", "execute")
#: Start flags and the read-only mode each starts in.
FLAGS = {"--chat": "chat", "--plan": "plan"}


@dataclass(frozen=True)
class ParsedCommand:
    name: str
    arg: str


def parse(text: str) -> ParsedCommand | None:
    """opl-modes.md § Commands, flags, and shortcuts.
    `/plan auth refactor` -> ("plan", "auth refactor"); None when the text
    is not one of opl-modes' commands. The argument is trimmed; an empty
    argument means the bare command."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    head, _, rest = stripped[1:].partition(" ")
    if head not in COMMANDS:
        return None
    return ParsedCommand(head, rest.strip())


def plan_display(filename: str) -> str:
    """`plan-auth.md` -> `auth`: how a plan is named in the picker's
    `Execute:` entries (opl-modes.md § Execute handoff)."""
    name = filename
    if name.startswith("plan-"):
        name = name[len("plan-") :]
    if name.endswith(".md"):
        name = name[: -len(".md")]
    return name
