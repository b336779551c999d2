"""The limited-PowerShell grammar: split a submission into segments and words.

pi-plan-mode-settings.md § Safe shell subcommands: "PowerShell supports `;`
and `|`, not `&&` or `||`". reference-choices.md § pi-plan-mode: limited
PowerShell lists what else makes the whole input unsupported.

Deciding is linear and does its character-level work in compiled regular
expressions, as for Bash: one expression decides whether the whole
submission is in the grammar, one splits it into segments and operators,
one splits a segment into words; Python code runs once per distinct
segment and once per quoted word. A rejected submission is walked word by
word by the scanner, from the start of the segment where the grammar
stopped (the segments before it are in the grammar, so the scanner would
find nothing there), to say what was found and where.
"""

from __future__ import annotations

import re

from pytest_planmode.reference.shell.segments import Parse, Segment, Unsupported

# Unsupported wherever they appear, quoted or not:
# - control characters and line breaks (multiline input), tab excepted;
# - the backtick (PowerShell's escape character);
# - `$` (variables, `$(…)`, `$env:`), which PowerShell expands even inside
#   double quotes; single quotes would protect it, but the reference blocks it
#   everywhere, as reference-choices.md says;
# - typographic quotes U+2018–U+201E, which PowerShell treats as quotes;
# - en dash, em dash and horizontal bar U+2013–U+2015, which PowerShell
#   accepts in place of `-` in front of a parameter name, so `–ComputerName`
#   would reach the cmdlet as `-ComputerName` (reference choice: closes a hole).
_ANYWHERE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f`$\u2013-\u2015\u2018-\u201e]")

_BLANKS = re.compile(r"[ \t]*")

# A whole word: ordinary characters and complete quoted strings ('' and ""
# are the doubled-quote escapes inside them).
# A run of ordinary characters inside a quoted string is one step
# (possessive): an unclosed quote a megabyte long fails in one pass.
_WORD = re.compile(r"""(?:[^ \t'";|&<>(){}\[\]]+|'(?:[^']++|'')*'|"(?:[^"]++|"")*")+""")

_PIECE = re.compile(r"""'((?:[^']|'')*)'|"((?:[^"]|"")*)"|([^'"]+)""")

# The grammar the scanner accepts, with possessive quantifiers (a failed
# match never backtracks, so deciding is linear): segments of words joined
# by `;` and `|`, no word opening with `@` or `#`, no `::` in unquoted text.
_UNQUOTED_SRC = r"""(?:[^ \t'";|&<>(){}\[\]:]++|:(?!:))++"""
_PIECE_SRC = rf"""(?:{_UNQUOTED_SRC}|'(?:[^']++|'')*+'|"(?:[^"]++|"")*+")"""
_WORD_SRC = rf"(?![@#]){_PIECE_SRC}++"
_SEGMENT_SRC = rf"[ \t]*+{_WORD_SRC}(?:[ \t]++{_WORD_SRC})*+[ \t]*+"
_GRAMMAR = re.compile(rf"{_SEGMENT_SRC}(?:[;|]{_SEGMENT_SRC})*+")
# How far the submission is made of complete segments, each followed by
# its operator: the scanner resumes there (`||` is one token to it).
_COMPLETE_SEGMENTS = re.compile(rf"(?:{_SEGMENT_SRC}(?:;|\|(?!\|)))*+")
# On text in the grammar: segment texts and operators, alternating.
_SPLIT = re.compile(r"""(?:[^'";|]++|'(?:[^']++|'')*+'|"(?:[^"]++|"")*+")++|[;|]""")
_WORDS = re.compile(rf"{_PIECE_SRC}++")


def _unsupported(rule: str, reason: str) -> Parse:
    return Parse(unsupported=Unsupported(rule, reason))


def _anywhere_reason(char: str, index: int) -> Unsupported:
    if char == "`":
        return Unsupported("syntax.backtick", f"a backtick escape at offset {index}")
    if char == "$":
        return Unsupported("syntax.variable", f"'$' at offset {index} (variable, subexpression or $env:)")
    if char in "\n\r":
        return Unsupported("syntax.newline", f"a line break at offset {index} (multiline input)")
    if "\u2018" <= char <= "\u201e":
        return Unsupported(
            "syntax.typographic-quote", f"typographic quote U+{ord(char):04X} at offset {index}"
        )
    if "\u2013" <= char <= "\u2015":
        return Unsupported(
            "syntax.typographic-dash",
            f"dash U+{ord(char):04X} at offset {index} (PowerShell reads it as '-')",
        )
    return Unsupported("syntax.control-character", f"control character U+{ord(char):04X} at offset {index}")


def _word(raw: str, offset: int) -> str | Unsupported:
    """The value of one word after quote removal, or why it is unsupported."""
    if raw[0] == "@":
        return Unsupported(
            "syntax.array-or-splat",
            f"an unquoted '@' starts a word at offset {offset} (array, hashtable, splat or here-string)",
        )
    if raw[0] == "#":
        return Unsupported("syntax.comment", f"an unquoted '#' starts a comment at offset {offset}")
    if "'" not in raw and '"' not in raw:
        if "::" in raw:
            return Unsupported(
                "syntax.static-member",
                f"an unquoted '::' at offset {offset} (static member access)",
            )
        return raw
    parts: list[str] = []
    for piece in _PIECE.finditer(raw):
        kind = piece.lastindex
        text = piece.group(kind or 0)
        if kind == 3:
            if "::" in text:
                return Unsupported(
                    "syntax.static-member",
                    f"an unquoted '::' at offset {offset} (static member access)",
                )
            parts.append(text)
        elif kind == 1:
            parts.append(text.replace("''", "'"))
        else:
            parts.append(text.replace('""', '"'))
    return "".join(parts)


_SINGLE_CHAR_RULES = {
    "&": (
        "syntax.ampersand",
        "an unquoted '&' at offset {pos} (call operator, background or '&&')",
    ),
    "<": ("syntax.redirect", "an unquoted '<' at offset {pos} (redirect)"),
    ">": ("syntax.redirect", "an unquoted '>' at offset {pos} (redirect)"),
    "(": (
        "syntax.parenthesis",
        "an unquoted '(' at offset {pos} (grouping, subexpression or method call)",
    ),
    ")": (
        "syntax.parenthesis",
        "an unquoted ')' at offset {pos} (grouping, subexpression or method call)",
    ),
    "{": ("syntax.script-block", "an unquoted '{' at offset {pos} (script block)"),
    "}": ("syntax.script-block", "an unquoted '}' at offset {pos} (script block)"),
    "[": ("syntax.type-literal", "an unquoted '[' at offset {pos} (type literal or index)"),
    "]": ("syntax.type-literal", "an unquoted ']' at offset {pos} (type literal or index)"),
    "'": ("syntax.unclosed-quote", "an unclosed single quote at offset {pos}"),
    '"': ("syntax.unclosed-quote", "an unclosed double quote at offset {pos}"),
}


def segment_powershell(command: str) -> Parse:
    """Split a limited-PowerShell submission into segments of words, or report
    it as empty or unsupported (reference-choices.md § pi-plan-mode: limited
    PowerShell)."""
    if not command or command.isspace():
        return Parse(empty=True)
    found = _ANYWHERE.search(command)
    if found:
        return Parse(unsupported=_anywhere_reason(found.group(), found.start()))
    if "--%" in command:
        index = command.index("--%")
        return _unsupported("syntax.stop-parsing", f"the stop-parsing token '--%' at offset {index}")
    if _GRAMMAR.fullmatch(command) is None:
        resume = _COMPLETE_SEGMENTS.match(command)
        found_there = _scan(command, resume.end() if resume is not None else 0)
        # The scanner finds the problem after the complete segments; should
        # it not, it decides the whole input itself (fail-safe, same answer).
        return found_there if found_there.unsupported is not None else _scan(command, 0)
    if ";" not in command and "|" not in command:
        # One segment: the whole submission.
        return _tuple_new(Parse, ((_segment(command.strip(" \t")),), None, False))
    texts = _SPLIT.findall(command)[::2]
    # A repeated segment is split once (see segment_bash).
    known: dict[str, Segment] = {}
    for text in texts:
        if text not in known:
            known[text] = _segment(text.strip(" \t"))
    return _tuple_new(Parse, (tuple([known[text] for text in texts]), None, False))


# Records built from a ready tuple skip the named tuples' Python-level
# `__new__` (the same values).
_tuple_new = tuple.__new__


def _segment(text: str) -> Segment:
    """One segment of a submission in the grammar: its words' values."""
    if "'" not in text and '"' not in text:
        # No quoting: the words are the runs between blanks.
        raws = tuple(filter(None, text.replace("\t", " ").split(" ")))
        return _tuple_new(Segment, (text, raws, raws, None))
    raws = tuple(_WORDS.findall(text))
    values = []
    for raw in raws:
        if "'" not in raw and '"' not in raw:
            values.append(raw)
        elif raw[0] == raw[-1] and raw[0] in "'\"" and raw.count(raw[0]) == 2:
            # One quoted string without a doubled quote.
            values.append(raw[1:-1])
        elif "''" not in raw and '""' not in raw:
            # No doubled quote: the value is the pieces' texts, removed of
            # their quotes in one pass.
            values.append("".join(map("".join, _PIECE.findall(raw))))
        else:
            word = _word(raw, 0)
            # In the grammar, no word is unsupported.
            assert isinstance(word, str), word
            values.append(word)
    return _tuple_new(Segment, (text, tuple(values), raws, None))


def _scan(command: str, pos: int) -> Parse:
    """The scanner, word by word, from `pos` (0 or the start of a segment)."""
    segments: list[Segment] = []
    words: list[str] = []
    raws: list[str] = []
    n = len(command)
    start = pos
    blanks_match = _BLANKS.match
    word_match = _WORD.match
    pos = blanks_match(command, pos).end()  # type: ignore[union-attr]
    while pos < n:
        m = word_match(command, pos)
        if m is not None:
            raw = m.group()
            word = _word(raw, pos)
            if isinstance(word, Unsupported):
                return Parse(unsupported=word)
            words.append(word)
            raws.append(raw)
            pos = blanks_match(command, m.end()).end()  # type: ignore[union-attr]
            continue
        char = command[pos]
        if command.startswith("||", pos):
            return _unsupported("syntax.or-operator", f"'||' at offset {pos} (not supported in PowerShell)")
        if char not in ";|":
            rule, reason = _SINGLE_CHAR_RULES[char]
            return _unsupported(rule, reason.replace("{pos}", str(pos)))
        if not words:
            return _unsupported("syntax.empty-segment", f"{char!r} at offset {pos} has no command before it")
        segments.append(Segment(command[start:pos].strip(" \t"), tuple(words), tuple(raws), None))
        words = []
        raws = []
        pos += 1
        start = pos
        pos = blanks_match(command, pos).end()  # type: ignore[union-attr]
    if not words:
        return _unsupported("syntax.empty-segment", "the input ends with an operator and no command after it")
    segments.append(Segment(command[start:].strip(" \t"), tuple(words), tuple(raws), None))
    return Parse(segments=tuple(segments))
