"""The limited-Bash grammar: split a submission into segments and words.

reference-choices.md § pi-plan-mode: limited Bash, "Grammar": simple
commands joined by `&&`, `||`, `;`, `|`; words built from unquoted text,
single quotes, double quotes and backslash escapes, separated by spaces and
tabs. Anything else makes the whole submission unsupported.

The scanner is linear and does its character-level work in compiled regular
expressions: one expression decides whether the whole submission is in the
grammar, one splits it into segments and operators, one splits a segment
into words. Python code runs once per segment and once per quoted word,
never once per character. Only a rejected submission is walked token by
token, from the point where the grammar stopped, to say what was found.
A plain submission (nothing but words, blanks and chain operators: most
of them) skips all of that: one search tells it is plain, and its segments
and words are plain splits, in one pass.
bashlex is not on this path; the project's tests use it as an oracle.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pytest_planmode.reference.shell.segments import Parse, Segment, Unsupported

# Newline, carriage return, NUL and every other C0/C1 control character or
# DEL; the tab is a word separator and stays allowed. Backticks are checked
# in the same pass because they are unsupported anywhere, even inside single
# quotes (reference-choices.md).
_ANYWHERE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f`]")

#: Reserved words that open or close a compound command. In command
#: position they leave the simple-command grammar, so the whole submission
#: is unsupported (reference choice, fail-closed).
RESERVED_WORDS = frozenset(
    [
        "!", "[[", "]]", "{", "}", "case", "coproc", "do", "done", "elif", "else", "esac", "fi",
        "for", "function", "if", "in", "select", "then", "time", "until", "while",
    ]
)  # fmt: skip

# One character of a word: ordinary text, a complete quoted string or an
# escape. The alternatives start with disjoint characters, so matching never
# backtracks.
# Possessive quantifiers: a failed match never backtracks into a word, so
# deciding is linear even for a megabyte of input.
_WORD_PIECE = r"""(?:[^ \t'"\\;&|<>()]++|'[^']*+'|"(?:[^"\\]++|\\.)*+"|\\.)"""
_WORD_SRC = rf"(?!#){_WORD_PIECE}++"
_RESERVED_SRC = "|".join(re.escape(word) for word in sorted(RESERVED_WORDS, key=len, reverse=True))
_SEGMENT_SRC = rf"[ \t]*+(?!(?:{_RESERVED_SRC})(?![^ \t;&|]))(?:{_WORD_SRC})(?:[ \t]++{_WORD_SRC})*+[ \t]*+"
_OPERATOR_SRC = r"(?:&&|\|\||;|\|)"

# The whole supported grammar, for `fullmatch`; `match` tells how far a
# rejected submission stays inside it.
_GRAMMAR = re.compile(rf"{_SEGMENT_SRC}(?:{_OPERATOR_SRC}{_SEGMENT_SRC})*", re.S)
# On text already in the grammar: segment texts and operators, alternating.
_SPLIT = re.compile(r"""(?:[^'"\\;&|]++|'[^']*+'|"(?:[^"\\]++|\\.)*+"|\\.)++|&&|\|\||[;|]""", re.S)
_WORDS = re.compile(rf"{_WORD_PIECE}++", re.S)
_QUOTING = re.compile(r"""['"\\]""")

# The pieces of a word that uses quotes or escapes.
_PIECE = re.compile(r"""'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)|([^'"\\]+)""", re.S)
# A word without any of these (and without a backslash) expands nothing,
# quoted or not.
_EXPANSION_CHARS = re.compile(r"[$*?\[{~]")
# Inside double quotes Bash removes the backslash only before these.
_DQ_ESCAPE = re.compile(r"\\([$`\"\\])")

# Unquoted characters that make Bash expand a word: parameters and
# substitutions (`$`), globs (`*`, `?`, `[`) and braces (`{`); a tilde at the
# start of a word or, in Bash's default mode, after an unquoted `=` or `:` of
# an assignment-like argument (`--dir=~/x`).
_EXPANDING = re.compile(r"[$*?\[{]|(?:^|(?<=[ \t=:]))~")
_EXPANDING_CHAR = re.compile(r"[$*?\[{]")
# Within an unquoted piece of a quoted word: the piece's own start is not the
# word's start, so only `=~` and `:~` count there.
_EXPANDING_IN_PIECE = re.compile(r"[$*?\[{]|(?<=[=:])~")


def _expansion_reason(match: re.Match[str]) -> str:
    char = match.group()
    if char == "~":
        return "an unquoted '~' (tilde expansion)"
    return f"an unquoted {char!r}"


def _quoted_word(raw: str) -> tuple[str, str | None]:
    """Quote removal and expansion detection for a word that uses quotes or
    escapes (reference-choices.md § pi-plan-mode: limited Bash, "No
    expansion": single quotes protect everything, a backslash protects one
    character, any `$` inside double quotes blocks)."""
    parts: list[str] = []
    expansion = None
    for piece in _PIECE.finditer(raw):
        kind = piece.lastindex
        text = piece.group(kind or 0)
        if kind == 4:
            if expansion is None:
                match = _EXPANDING_IN_PIECE.search(text)
                if match is not None:
                    expansion = _expansion_reason(match)
                elif text[0] == "~" and (not parts or parts[-1][-1:] in ("=", ":")):
                    # A tilde opening the word, or following a quoted `=`/`:`
                    # (fail-closed: Bash would not expand the latter).
                    expansion = "an unquoted '~' (tilde expansion)"
            parts.append(text)
        elif kind == 2:
            if "$" in text and expansion is None:
                expansion = "a '$' inside double quotes"
            parts.append(_DQ_ESCAPE.sub(r"\1", text))
        else:
            # A single-quoted string (kind 1) or one escaped character (kind 3).
            parts.append(text)
    return "".join(parts), expansion


def _unquoted(raw: str) -> str:
    """The value of a word in which nothing expands."""
    if _QUOTING.search(raw) is None:
        return raw
    if "\\" not in raw:
        # Quotes only: the pieces' texts, removed of their quotes in one pass.
        return "".join(map("".join, _PIECE.findall(raw)))
    return _quoted_word(raw)[0]


def _segment(text: str) -> Segment:
    if _QUOTING.search(text) is None:
        # Fast path: no quoting anywhere, so the words are the runs between
        # blanks, values are the raw words and one search over the segment
        # finds any expansion.
        raws = tuple(filter(None, text.replace("\t", " ").split(" ")))
        match = _EXPANDING_CHAR.search(text)
        if match is None and "~" in text:
            match = _EXPANDING.search(text)
        expansion = None if match is None else f"{_expansion_reason(match)} at offset {match.start()}"
        return Segment(text, raws, raws, expansion)
    raws = tuple(_WORDS.findall(text))
    if _EXPANSION_CHARS.search(text) is None:
        # Nothing in the segment could expand, quoted or not: only quote
        # removal is left, word by word.
        return _tuple_new(Segment, (text, tuple([_unquoted(raw) for raw in raws]), raws, None))
    values: list[str] = []
    expansion = None
    for raw in raws:
        if _QUOTING.search(raw) is None:
            values.append(raw)
            if expansion is None and (match := _EXPANDING.search(raw)):
                expansion = f"{_expansion_reason(match)} in {raw!r}"
            continue
        if "\\" not in raw and _EXPANSION_CHARS.search(raw) is None:
            # Quotes only and nothing that could expand: the value is the
            # pieces' texts, removed of their quotes in one pass.
            values.append("".join(map("".join, _PIECE.findall(raw))))
            continue
        value, why = _quoted_word(raw)
        values.append(value)
        if expansion is None and why is not None:
            expansion = f"{why} in {raw!r}"
    return Segment(text, tuple(values), raws, expansion)


def _trim(text: str) -> str:
    """Remove the blanks around a segment, but never an escaped one
    (`ls a\\ ` ends with the word `a ` followed by nothing)."""
    trimmed = text.strip(" \t")
    if trimmed.endswith("\\") and (len(trimmed) - len(trimmed.rstrip("\\"))) % 2:
        return text.lstrip(" \t")[: len(trimmed) + 1]
    return trimmed


# Plain submissions: every character other than the chain operators is
# taken literally (no quoting, escape, expansion, comment, redirect,
# grouping or control character), so one search tells them apart and the
# segments and words are plain splits. Most submissions are plain.
_NOT_PLAIN = re.compile(r"""[\x00-\x08\x0a-\x1f\x7f-\x9f`'"\\$*?\[{~#<>()]""")
NOT_PLAIN = _NOT_PLAIN
_OPERATORS = re.compile(r"&&|\|\||[;|]")
OPERATORS = _OPERATORS


# Records built from a ready tuple skip the named tuples' Python-level
# `__new__` (the same values, a third of the cost).
_tuple_new = tuple.__new__


def _plain(command: str) -> Parse | None:
    """The parse of a plain submission, in one pass: segments between
    operators, words between blanks. None when the general scanner must
    say more (an empty segment, a lone `&`, a reserved word in command
    position): the plain path only ever answers what the general one does."""
    if "|" not in command and ";" not in command and "&" not in command:
        # One segment: the whole submission.
        trimmed = command.strip(" \t")
        words = tuple(filter(None, trimmed.replace("\t", " ").split(" ")))
        if not words or words[0] in RESERVED_WORDS:
            return None
        return _tuple_new(Parse, ((_tuple_new(Segment, (trimmed, words, words, None)),), None, False))
    known: dict[str, Segment] = {}
    segments: list[Segment] = []
    for text in _OPERATORS.split(command):
        segment = known.get(text)
        if segment is None:
            if "&" in text:
                return None
            trimmed = text.strip(" \t")
            words = tuple(
                filter(None, (trimmed.replace("\t", " ") if "\t" in trimmed else trimmed).split(" "))
            )
            if not words or words[0] in RESERVED_WORDS:
                return None
            segment = known[text] = _tuple_new(Segment, (trimmed, words, words, None))
        segments.append(segment)
    return _tuple_new(Parse, (tuple(segments), None, False))


def segment_bash(command: str) -> Parse:
    """Split a limited-Bash submission into segments of words, or report it
    as empty or unsupported (reference-choices.md § pi-plan-mode: limited
    Bash, "Grammar")."""
    if not command or command.isspace():
        return Parse(empty=True)
    if _NOT_PLAIN.search(command) is None:
        plain = _plain(command)
        if plain is not None:
            return plain
    found = _ANYWHERE.search(command)
    if found:
        return Parse(unsupported=_anywhere_reason(found.group(), found.start()))
    if _GRAMMAR.fullmatch(command) is None:
        return Parse(unsupported=_classify(command))
    # In the grammar, segment texts and operators alternate, starting and
    # ending with a segment text. A repeated segment (a long chain of one
    # command) is split once: benchmarks/planmode_bash.py shows the cost.
    texts = _SPLIT.findall(command)[::2]
    known: dict[str, Segment] = {}
    for text in texts:
        if text not in known:
            known[text] = _segment(_trim(text))
    return Parse(segments=tuple(known[text] for text in texts))


def _anywhere_reason(char: str, index: int) -> Unsupported:
    if char == "`":
        return Unsupported("syntax.backtick", f"a backtick at offset {index}")
    if char in "\n\r":
        return Unsupported("syntax.newline", f"a line break at offset {index} (multiline input)")
    return Unsupported("syntax.control-character", f"control character U+{ord(char):04X} at offset {index}")


_BLANKS = re.compile(r"[ \t]*")
_ANY_WORD = re.compile(rf"{_WORD_PIECE}++", re.S)


def _classify(command: str) -> Unsupported:
    """Say why a submission is outside the grammar. Starts where the grammar
    stopped matching, so a problem at the end of a megabyte is found without
    walking the megabyte again."""
    prefix = _GRAMMAR.match(command)
    pos = prefix.end() if prefix is not None else 0
    have_words = pos > 0
    n = len(command)
    pos = _BLANKS.match(command, pos).end()  # type: ignore[union-attr]
    while pos < n:
        m = _ANY_WORD.match(command, pos)
        if m is not None:
            raw = m.group()
            if raw[0] == "#":
                return Unsupported("syntax.comment", f"an unquoted '#' starts a comment at offset {pos}")
            if not have_words and raw in RESERVED_WORDS:
                return Unsupported(
                    "syntax.reserved-word",
                    f"the reserved word {raw!r} opens a compound command at offset {pos}",
                )
            have_words = True
            pos = _BLANKS.match(command, m.end()).end()  # type: ignore[union-attr]
            continue
        char = command[pos]
        pair = command[pos : pos + 2]
        if pair in (";;", ";&"):
            return Unsupported("syntax.case-terminator", f"{pair!r} at offset {pos} (a case terminator)")
        if pair == "|&":
            return Unsupported("syntax.pipe-stderr", f"'|&' at offset {pos} (pipes standard error too)")
        if pair in ("&&", "||") or char in ";|":
            op = pair if pair in ("&&", "||") else char
            if not have_words:
                return Unsupported("syntax.empty-segment", f"{op!r} at offset {pos} has no command before it")
            have_words = False
            pos = _BLANKS.match(command, pos + len(op)).end()  # type: ignore[union-attr]
            continue
        return _CHAR_REASONS.get(char, _TRAILING_BACKSLASH)(pos)
    if not have_words:
        return Unsupported("syntax.empty-segment", "the input ends with an operator and no command after it")
    # The grammar and this walk disagree: fail closed all the same.
    return Unsupported("syntax.unsupported", "the input is outside the supported grammar")


def _reason(rule: str, text: str) -> Callable[[int], Unsupported]:
    return lambda pos: Unsupported(rule, text.replace("{pos}", str(pos)))


_CHAR_REASONS = {
    "&": _reason("syntax.background", "a lone '&' at offset {pos} (background job)"),
    "<": _reason("syntax.redirect", "an unquoted '<' at offset {pos} (redirect)"),
    ">": _reason("syntax.redirect", "an unquoted '>' at offset {pos} (redirect)"),
    "(": _reason("syntax.parenthesis", "an unquoted '(' at offset {pos} (subshell or substitution)"),
    ")": _reason("syntax.parenthesis", "an unquoted ')' at offset {pos} (subshell or substitution)"),
    "'": _reason("syntax.unclosed-quote", "an unclosed single quote at offset {pos}"),
    '"': _reason("syntax.unclosed-quote", "an unclosed double quote at offset {pos}"),
}
_TRAILING_BACKSLASH = _reason("syntax.trailing-backslash", "a lone backslash ends the input at offset {pos}")
