"""The two ways opl-modes cuts a Bash command into segments
(opl-modes.md § Mode behavior).

* :func:`allowlist_segments` is the quote-aware scanner: every segment it
  returns must match a safe pattern.
* :func:`blocklist_segments` is the deliberately quote-blind split the
  destructive patterns are tested against, and :func:`strip_quoting` removes
  quotes and backslashes so ``r"m"`` or ``-del"ete"`` cannot dodge a pattern.

Both are scanners, not parsers: they never reject input, they only cut it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Characters the quote-aware scanner must look at; everything else is copied
# through, so a long run of plain text costs one regular-expression jump.
_SPECIAL = re.compile(r"[\\'\"`$&|;\n\r()<>]")
#: Inside double quotes only these characters mean anything.
_SPECIAL_DQ = re.compile(r"[\\\"`$]")

# Without quotes, escapes, `$`, backticks and parentheses the scanner only
# cuts at these, exactly as its loop does: `||`, `|&` and `|` once, `&&`, a
# lone `&` that is not part of a redirect (`&>`, `2>&1`, `>&2`), `;`, newline
# and carriage return; `<` and `>` are plain text.
_CUTS_ONLY = re.compile(r"[\\'\"`$()]")
_PLAIN_CUT = re.compile(r"\|[|&]?|&&|[;\n\r]|(?<![<>])&(?!>)")

# The blocklist split ignores quotes on purpose: an operator inside a quoted
# string still cuts, so quoting can never hide a segment from the blocklist.
# A lone `&` cuts, but not the `&` of descriptor duplication (`2>&1`, `>&2`,
# `>&-`, `<&0`) nor of `&>` (redirect stdout and stderr).
_BLIND_SPLIT = re.compile(r"&&|\|\||\$\(|<\(|>\(|[;|\n\r`()]|(?<![<>])&(?!>)")

# A segment made only of quote characters and blanks is what is left of a
# quoted word around a substitution (`echo "$(ls)"` leaves `"`): no command.
_NOTHING = re.compile(r"[\s'\"]*")


def strip_quoting(text: str) -> str:
    """`text` without single quotes, double quotes and backslashes
    (§ Mode behavior: patterns are tested "with and without quotes/backslashes
    stripped")."""
    if "'" in text:
        text = text.replace("'", "")
    if '"' in text:
        text = text.replace('"', "")
    if "\\" in text:
        text = text.replace("\\", "")
    return text


#: A command holding none of these is cut alike by both splits (the blind
#: split cuts `|&` as `|` then `&`, which differs before `>` or `&`).
_SPLITS_DIFFER = re.compile(r"[\\'\"`$()]|\|&")


def blocklist_segments_after(command: str, allowlist: list[str] | tuple[str, ...]) -> list[str]:
    """:func:`blocklist_segments` of `command`, given its
    :func:`allowlist_segments`: a copy of those when the two splits provably
    agree (no quote, escape, `$`, backtick, parenthesis or `|&`: both then
    cut at `&&`, `||`, `|`, `;`, newline, carriage return and a lone `&`
    outside a redirect, strip the pieces and drop the empty ones)."""
    if _SPLITS_DIFFER.search(command) is None:
        return list(allowlist)
    return blocklist_segments(command)


def blocklist_segments(command: str) -> list[str]:
    """The quote-blind split the destructive patterns are tested against
    (§ Mode behavior: "That blocklist split deliberately ignores quotes").
    Segments are stripped of surrounding blanks; empty ones are dropped."""
    return [piece for part in _BLIND_SPLIT.split(command) if (piece := part.strip())]


@dataclass
class _Frame:
    """One nesting level: the command line itself, or the payload of a
    `$(...)`, `<(...)`, `>(...)` or backtick substitution."""

    kind: str  # "top", "paren" (closed by `)`) or "tick" (closed by a backtick)
    start: int  # where the current segment of this level begins
    in_double: bool = False
    depth: int = 0  # plain parentheses opened inside a "paren" payload


def allowlist_segments(command: str) -> list[str]:
    """The quote-aware segment scanner (§ Mode behavior).

    `&&`, `||`, a lone `&`, `|`, `;`, newlines (and, failing closed, carriage
    returns), `$(...)`, backticks, `<(` and `>(` each begin a segment. Quotes
    are respected for splitting, so `grep "a|b"` is one segment, but a
    `$(...)` or backtick payload inside double quotes still runs and is
    split out. Text that follows the closing `)` or backtick of a
    substitution starts a new segment (reference-choices.md § opl-modes:
    built-in safe list). Segments are the raw text, stripped of surrounding
    blanks, in the order they start; empty segments are dropped.
    """
    if _SPECIAL.search(command) is None:
        text = command.strip()
        return [text] if text else []
    if _CUTS_ONLY.search(command) is None:
        return [piece for part in _PLAIN_CUT.split(command) if (piece := part.strip())]
    return scan_segments(command)


def scan_segments(command: str) -> list[str]:
    """:func:`allowlist_segments` by the scanner loop alone (no fast path)."""
    segments: list[str] = []
    stack = [_Frame("top", 0)]
    n = len(command)
    pos = 0

    def flush(frame: _Frame, end: int) -> None:
        piece = command[frame.start : end].strip()
        if piece and (piece[0] not in "'\"" or not _NOTHING.fullmatch(piece)):
            segments.append(piece)

    search, search_dq = _SPECIAL.search, _SPECIAL_DQ.search
    while True:
        m = (search_dq if stack[-1].in_double else search)(command, pos)
        if m is None:
            break
        i = m.start()
        ch = command[i]
        frame = stack[-1]
        nxt = command[i + 1] if i + 1 < n else ""

        if ch == "\\":
            pos = i + 2  # an escape protects exactly one character
            continue

        if frame.in_double:
            if ch == '"':
                frame.in_double = False
                pos = i + 1
            elif ch == "$" and nxt == "(":
                flush(frame, i)
                stack.append(_Frame("paren", i + 2))
                pos = i + 2
            elif ch == "`":
                flush(frame, i)
                stack.append(_Frame("tick", i + 1))
                pos = i + 1
            else:
                pos = i + 1  # every other character is literal in double quotes
            continue

        if ch == "'":
            close = command.find("'", i + 1)
            pos = n if close < 0 else close + 1  # an unclosed quote runs to the end
            continue
        if ch == '"':
            frame.in_double = True
            pos = i + 1
            continue

        if ch == "`":
            if frame.kind == "tick":
                flush(frame, i)
                stack.pop()
                stack[-1].start = i + 1
            else:
                flush(frame, i)
                stack.append(_Frame("tick", i + 1))
            pos = i + 1
            continue

        if ch in "$<>" and nxt == "(":
            flush(frame, i)
            stack.append(_Frame("paren", i + 2))
            pos = i + 2
            continue

        if ch == "(":
            if frame.kind == "paren":
                frame.depth += 1
            pos = i + 1
            continue

        if ch == ")":
            if frame.kind == "paren":
                if frame.depth:
                    frame.depth -= 1
                else:
                    flush(frame, i)
                    stack.pop()
                    stack[-1].start = i + 1
            pos = i + 1
            continue

        if ch in ";\n\r":
            flush(frame, i)
            frame.start = pos = i + 1
            continue

        if ch == "|":
            width = 2 if nxt in "|&" else 1  # `||`, `|&` and `|` all cut once
            flush(frame, i)
            frame.start = pos = i + width
            continue

        if ch == "&":
            if nxt == "&":
                flush(frame, i)
                frame.start = pos = i + 2
            elif nxt == ">" or (i > 0 and command[i - 1] in "<>"):
                pos = i + 1  # `&>`, `2>&1`, `>&2`, `>&-`: a redirect, not a separator
            else:
                flush(frame, i)
                frame.start = pos = i + 1
            continue

        pos = i + 1  # a `<` or `>` that opens no substitution is plain text here

    # An unclosed substitution runs to the end of the input. Every outer level
    # was already flushed up to where its payload began, so only the
    # innermost level still holds text.
    flush(stack[-1], n)
    return segments
