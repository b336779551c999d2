"""bashlex's reading of a submission, for comparison with the limited-Bash
scanner.

DESIGN.md names bashlex as the project's Bash parser. The reference decides
with its own linear scanner (`bash_segments`), which is both faster and
exact about the supported grammar; bashlex serves as an independent oracle
in the project's tests and as a baseline in the benchmark. bashlex raises
`NotImplementedError`, `RecursionError`, `AttributeError` and its own
`ParsingError` on inputs it does not handle: every exception means "no
reading", which a policy must treat as blocked, never as a crash
(reference-choices.md § pi-plan-mode: limited Bash: anything else makes the
submission unsupported).
"""

from __future__ import annotations

from typing import Any

import bashlex  # type: ignore[import-untyped]

#: Node kinds of a plain chain of simple commands.
_CHAIN_KINDS = frozenset(("list", "pipeline", "command", "operator", "pipe"))


def parse_chain(command: str) -> tuple[tuple[str, ...], ...] | None:
    """The word values of each simple command bashlex finds, in order, or
    None when bashlex fails on the input or finds anything but simple
    commands joined by `&&`, `||`, `;` and `|` (a compound command, a
    redirect, an assignment, `&`, `|&`)."""
    try:
        trees = bashlex.parse(command)
    except Exception:  # every failure of the oracle means "no reading"
        return None
    commands: list[tuple[str, ...]] = []
    for tree in trees:
        if not _collect(tree, commands):
            return None
    return tuple(commands)


def _collect(node: Any, commands: list[tuple[str, ...]]) -> bool:
    kind = getattr(node, "kind", None)
    if kind not in _CHAIN_KINDS:
        return False
    if kind == "operator":
        return bool(node.op in ("&&", "||", ";"))
    if kind == "pipe":
        return bool(node.pipe == "|")
    if kind == "command":
        words: list[str] = []
        for part in node.parts:
            if getattr(part, "kind", None) != "word":
                return False
            words.append(part.word)
        commands.append(tuple(words))
        return True
    return all(_collect(part, commands) for part in node.parts)
