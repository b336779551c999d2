"""The limited-Bash grammar: split a submission into segments and words.

reference-choices.md § pi-plan-mode: limited Bash, "Grammar": simple
commands joined by `&&`, `||`, `;`, `|`; words built from unquoted text,
single quotes, double quotes and backslash escapes, separated by spaces and
tabs. Anything else makes the whole submission unsupported.

The scanner is hand-written and linear: every step consumes a whole word or
operator with one compiled regular expression, so a megabyte of input is a
few thousand C-level matches, never a Python loop per character. bashlex is
not on this path; the project's tests use it as an independent oracle.
"""

from __future__ import annotations

import re

from pytest_planmode.reference.shell.segments import Parse, Segment, Unsupported, Word

# Newline, carriage return, NUL and every other C0/C1 control character or
# DEL; the tab is a word separator and stays allowed. Backticks are checked
# in the same pass because they are unsupported anywhere, even inside single
# quotes (reference choice: no context can make them harmless to a reader).
_ANYWHERE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f`]")

_BLANKS = re.compile(r"[ \t]*")

# A whole word: runs of ordinary characters, complete single-quoted and
# double-quoted strings, and backslash escapes, with nothing between them.
_WORD = re.compile(r"""(?:[^ \t'"\\;&|<>()]+|'[^']*'|"(?:[^"\\]|\\.)*"|\\.)+""", re.S)

# The pieces of a word that uses quotes or escapes.
_PIECE = re.compile(r"""'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)|([^'"\\]+)""", re.S)

# Inside double quotes Bash removes the backslash only before these.
_DQ_ESCAPE = re.compile(r"\\([$`\"\\])")

# Unquoted characters that make Bash expand a word: parameters and
# substitutions (`$`), globs (`*`, `?`, `[`) and braces (`{`).
_EXPANDING = re.compile(r"[$*?\[{]")

# Tilde expansion: at the start of a word and, in Bash's default mode, after
# an unquoted `=` or `:` of an assignment-like argument (`--dir=~/x`).
_TILDE_AFTER = re.compile(r"[=:]~")

#: Reserved words that open or close a compound command. In command
#: position they leave the simple-command grammar, so the whole submission
#: is unsupported (reference choice, fail-closed).
RESERVED_WORDS = frozenset(
    [
        "!",
        "[[",
        "]]",
        "{",
        "}",
        "case",
        "coproc",
        "do",
        "done",
        "elif",
        "else",
        "esac",
        "fi",
        "for",
        "function",
        "if",
        "in",
        "select",
        "then",
        "time",
        "until",
        "while",
    ]
)


def _unsupported(rule: str, reason: str) -> Parse:
    return Parse(unsupported=Unsupported(rule, reason))


def _anywhere_reason(char: str, index: int) -> Unsupported:
    if char == "`":
        return Unsupported("syntax.backtick", f"a backtick at offset {index}")
    if char in "\n\r":
        return Unsupported("syntax.newline", f"a line break at offset {index} (multiline input)")
    return Unsupported(
        "syntax.control-character", f"control character U+{ord(char):04X} at offset {index}"
    )


def _word(raw: str) -> Word | Unsupported:
    """Quote removal and expansion detection for one word (reference-choices.md
    § pi-plan-mode: limited Bash, "No expansion")."""
    if "'" not in raw and '"' not in raw and "\\" not in raw:
        # Fast path: most words are plain text.
        if raw[0] == "#":
            return Unsupported("syntax.comment", f"an unquoted '#' starts a comment: {raw[:40]!r}")
        match = _EXPANDING.search(raw)
        expansion = None
        if match:
            expansion = f"unquoted {match.group()!r}"
        elif raw[0] == "~" or _TILDE_AFTER.search(raw):
            expansion = "unquoted '~' (tilde expansion)"
        return Word(raw, raw, False, expansion)
    parts: list[str] = []
    expansion = None
    at_start = True
    for piece in _PIECE.finditer(raw):
        kind = piece.lastindex
        text = piece.group(kind or 0)
        if kind == 4:
            if at_start and text[0] == "#":
                return Unsupported(
                    "syntax.comment", f"an unquoted '#' starts a comment: {raw[:40]!r}"
                )
            if expansion is None:
                match = _EXPANDING.search(text)
                if match:
                    expansion = f"unquoted {match.group()!r}"
                elif (
                    text[0] == "~" and (at_start or (parts and parts[-1][-1:] in ("=", ":")))
                ) or _TILDE_AFTER.search(text):
                    expansion = "unquoted '~' (tilde expansion)"
            parts.append(text)
        elif kind == 2:
            if "$" in text and expansion is None:
                expansion = "'$' inside double quotes"
            parts.append(_DQ_ESCAPE.sub(r"\1", text))
        else:
            # A single-quoted string (kind 1) or one escaped character (kind 3).
            parts.append(text)
        at_start = False
    return Word(raw, "".join(parts), True, expansion)


def segment_bash(command: str) -> Parse:
    """Split a limited-Bash submission into segments of words, or report it
    as empty or unsupported (reference-choices.md § pi-plan-mode: limited
    Bash, "Grammar")."""
    if not command or command.isspace():
        return Parse(empty=True)
    found = _ANYWHERE.search(command)
    if found:
        return Parse(unsupported=_anywhere_reason(found.group(), found.start()))
    segments: list[Segment] = []
    words: list[Word] = []
    n = len(command)
    start = 0
    pos = _BLANKS.match(command, 0).end()  # type: ignore[union-attr]
    word_match = _WORD.match
    blanks_match = _BLANKS.match
    while pos < n:
        m = word_match(command, pos)
        if m is not None:
            raw = m.group()
            word = _word(raw)
            if isinstance(word, Unsupported):
                return Parse(unsupported=word)
            if not words and not word.quoted and raw in RESERVED_WORDS:
                return _unsupported(
                    "syntax.reserved-word",
                    f"the reserved word {raw!r} opens a compound command at offset {pos}",
                )
            words.append(word)
            pos = blanks_match(command, m.end()).end()  # type: ignore[union-attr]
            continue
        char = command[pos]
        pair = command[pos : pos + 2]
        if pair in ("&&", "||"):
            op = pair
        elif char in ";|":
            op = char
            if pair in (";;", ";&"):
                return _unsupported(
                    "syntax.case-terminator", f"{pair!r} at offset {pos} (a case terminator)"
                )
            if pair == "|&":
                return _unsupported(
                    "syntax.pipe-stderr", f"'|&' at offset {pos} (pipes standard error too)"
                )
        elif char == "&":
            return _unsupported("syntax.background", f"a lone '&' at offset {pos} (background job)")
        elif char in "<>":
            return _unsupported(
                "syntax.redirect", f"an unquoted {char!r} at offset {pos} (redirect)"
            )
        elif char in "()":
            return _unsupported(
                "syntax.parenthesis",
                f"an unquoted {char!r} at offset {pos} (subshell, substitution or grouping)",
            )
        elif char == "'":
            return _unsupported(
                "syntax.unclosed-quote", f"an unclosed single quote at offset {pos}"
            )
        elif char == '"':
            return _unsupported(
                "syntax.unclosed-quote", f"an unclosed double quote at offset {pos}"
            )
        else:
            # The only character left that no rule consumed is a backslash
            # with nothing after it.
            return _unsupported(
                "syntax.trailing-backslash", f"a lone backslash ends the input at offset {pos}"
            )
        if not words:
            return _unsupported(
                "syntax.empty-segment", f"{op!r} at offset {pos} has no command before it"
            )
        segments.append(Segment(command[start:pos].strip(" \t"), tuple(words)))
        words = []
        pos += len(op)
        start = pos
        pos = blanks_match(command, pos).end()  # type: ignore[union-attr]
    if not words:
        return _unsupported(
            "syntax.empty-segment", "the input ends with an operator and no command after it"
        )
    segments.append(Segment(command[start:].strip(" \t"), tuple(words)))
    return Parse(segments=tuple(segments))
