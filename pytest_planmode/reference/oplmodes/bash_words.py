"""Words as bash builds them, for the opl-modes blocklist.

reference-choices.md § Both shell gates: "the blocklist sees words as bash
builds them where that can be known without running anything (ANSI-C
`$'…'` decoded, brace expansion expanded, quotes removed), and a segment
holding an expansion whose text cannot be known that way (parameter
expansion with operators, indirection, transformations, globs next to a
pattern the blocklist reads) is blocked: fail closed. Reading the
environment to the output (`$NAME` of a variable not set by the line
itself) is a secret leak, as `env` is."

`built` gives the text the blocklist patterns are tried on in addition to
the raw and quote-stripped text; `unknowable` says why a segment must be
blocked, or None. Both are linear in the text (brace expansion is capped).
"""

from __future__ import annotations

import itertools
import re
from typing import NamedTuple

_ANSI_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}

#: At most this many words come out of one word's brace expansion.
BRACE_LIMIT = 64
#: A segment with more `$'` and `{` than this is not built (the gate's work
#: stays linear in the text) and blocks instead (`unknowable`).
BUILT_WORDS = 256
#: A word with more unquoted `{` than this is not expanded (the work would
#: grow with their product) and blocks instead (`unknowable`).
BRACE_GROUPS = 16


#: One escape of an ANSI-C body: `\xHH`, `\uHHHH`, `\UHHHHHHHH`, octal,
#: `\cX`, or one character.
_ANSI_ESCAPE = re.compile(
    r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.DOTALL
)


def _ansi_escape(match: re.Match[str]) -> str:
    body = match.group(1)
    head = body[0]
    if len(body) > 1 and head in "xuU":
        code = int(body[1:], 16)
        return chr(code) if code < 0x110000 else ""
    if head in "01234567":
        return chr(int(body, 8))
    if head == "c" and len(body) == 2:
        return chr(ord(body[1]) & 0x1F)
    return _ANSI_SIMPLE.get(head, "\\" + body)


def _ansi_c(raw: str) -> str:
    """The value of an ANSI-C quoted run `$'…'` (maybe unclosed)."""
    body = raw[2:-1] if raw.endswith("'") and len(raw) > 2 and raw[-2] != "\\" else raw[2:]
    if raw.endswith("\\''"):
        body = raw[2:-1]
    return _ANSI_ESCAPE.sub(_ansi_escape, body) if "\\" in body else body


#: One run of a segment: ANSI-C, single- or double-quoted text (maybe
#: unclosed), a backslash escape, unquoted text, a lone `$`, or blanks.
_TOKEN = re.compile(
    r"""\$'(?:[^'\\]|\\.)*'?|'[^']*'?|"(?:[^"\\]|\\.)*"?|\\.?|[^\s'"\\$]+|\$|\s+""",
    re.DOTALL,
)
_DQ_ESCAPE = re.compile(r'\\([$`"\\])')


class _Run(NamedTuple):
    value: str  # the text bash takes from it
    quote: str  # "", "'", '"', "$'" or "\\"
    raw: str  # as written


def _words(segment: str) -> list[list[_Run]]:
    """The segment's words, each as its runs (linear: one regular
    expression pass)."""
    words: list[list[_Run]] = []
    current: list[_Run] = []
    for match in _TOKEN.finditer(segment):
        raw = match.group()
        first = raw[0]
        if first.isspace():
            if current:
                words.append(current)
                current = []
        elif first == "$" and raw.startswith("$'"):
            current.append(_Run(_ansi_c(raw), "$'", raw))
        elif first == "'":
            current.append(_Run(raw[1:-1] if raw.endswith("'") and len(raw) > 1 else raw[1:], "'", raw))
        elif first == '"':
            body = raw[1:-1] if raw.endswith('"') and len(raw) > 1 else raw[1:]
            current.append(_Run(_DQ_ESCAPE.sub(r"\1", body), '"', raw))
        elif first == "\\":
            current.append(_Run(raw[1:], "\\", raw))
        else:
            current.append(_Run(raw, "", raw))
    if current:
        words.append(current)
    return words


def _expand_braces(runs: list[_Run]) -> list[str]:
    """Bash's brace expansion over unquoted runs (`a{b,c}d`, nested too);
    quoted runs are literal."""
    # Mark unquoted braces and commas with private characters so that
    # quoted ones stay literal.
    marked = "".join(
        run.value.replace("{", "\0").replace("}", "\1").replace(",", "\2") if run.quote == "" else run.value
        for run in runs
    )
    if "\0" not in marked:
        return [marked.replace("\1", "}").replace("\2", ",")]
    if marked.count("\0") > BRACE_GROUPS:
        # Too many to expand in bounded time: left as written, and
        # `unknowable` blocks the word.
        return ["".join(run.value for run in runs)]
    results = _brace(marked)
    return [r.replace("\0", "{").replace("\1", "}").replace("\2", ",") for r in results]


_MARK = re.compile("[\0\1\2]")


def _brace(text: str) -> list[str]:
    """Expand the first group of `text` that has a comma at its own depth
    (bash leaves `{a}` as it is), then the rest; only the marker positions
    are visited."""
    marks = [(m.start(), m.group()) for m in _MARK.finditer(text)]
    for index, (start, char) in enumerate(marks):
        if char != "\0":
            continue
        depth = 0
        commas: list[int] = []
        for position, mark in marks[index:]:
            if mark == "\0":
                depth += 1
            elif mark == "\1":
                depth -= 1
                if depth == 0:
                    if commas:
                        head, tails = text[:start], _brace(text[position + 1 :])
                        out: list[str] = []
                        for a, b in itertools.pairwise([start, *commas, position]):
                            for middle in _brace(text[a + 1 : b]):
                                out += [head + middle + rest for rest in tails]
                                if len(out) > BRACE_LIMIT:
                                    return out[:BRACE_LIMIT]
                        return out
                    break
            elif depth == 1:
                commas.append(position)
    return [text]


#: Characters whose presence makes bash build a word differently from its
#: quote-stripped text.
_BUILDS = re.compile(r"\$'|\{")


#: One word of a segment, quote-aware (blanks inside quotes stay in it).
_WORD = re.compile(
    r"""(?:\$'(?:[^'\\]|\\.)*'?|'[^']*'?|"(?:[^"\\]|\\.)*"?|\\.?|[^\s'"\\$]+|\$)+""", re.DOTALL
)


_QUOTING = re.compile(r"['\"\\\\$]")


def _runs_of(word: str) -> list[_Run]:
    if _QUOTING.search(word) is None:
        return [_Run(word, "", word)]
    found = _words(word)
    return found[0] if found else []


def _build_word(match: re.Match[str]) -> str:
    word = match.group()
    if "{" not in word and "$'" not in word:
        return word
    return " ".join(_expand_braces(_runs_of(word)))


def built(segment: str) -> str:
    """`segment` with every word that bash builds differently from its
    quote-stripped text (`$'…'` decoded, braces expanded into separate
    words) as bash builds it, quotes and escapes removed from those words;
    other words stay as written (the raw and the quote-stripped texts are
    tried too). Linear: one regular-expression pass, and words are parsed
    only when they hold `$'` or `{`."""
    if _BUILDS.search(segment) is None or _builds(segment) > BUILT_WORDS:
        return segment
    return _WORD.sub(_build_word, segment)


def _builds(segment: str) -> int:
    """How many `$'` and `{` the segment holds (an upper bound on the words
    `built` parses)."""
    return segment.count("$'") + segment.count("{")


# `${` followed by anything but a plain name and `}`: operators (`:-`, `#`,
# `/`), indirection (`!`), transformations (`@P`), subscripts.
_PARAMETER = re.compile(r"\$\{(?![A-Za-z_][A-Za-z0-9_]*\})")
# `$NAME`, `${NAME}`: the environment's value.
_VARIABLE = re.compile(r"\$(?:[A-Za-z_]|\{[A-Za-z_])")
_GLOB = re.compile(r"[*?\[]")


#: Characters that may start an expansion whose text matters.
EXPANDS = re.compile(r"[$*?\[{]")
_LITERAL_RUN = re.compile(r"""("(?:[^"\\]|\\.)*"?)|\$'(?:[^'\\]|\\.)*'?|'[^']*'?|\\.""", re.DOTALL)


def _keep_double(match: re.Match[str]) -> str:
    return match.group(1) or " "


def _unexpanded(segment: str) -> str:
    """`segment` without its single-quoted and ANSI-C runs and escapes
    (where bash expands nothing); double-quoted runs stay."""
    return _LITERAL_RUN.sub(_keep_double, segment)


def unknowable(segment: str, moved: bool = False) -> str | None:
    """Why the blocklist cannot know `segment`'s words without running the
    shell (or reads the environment), or None. `moved`: the line changes
    directory first (`cd`), so a relative glob may list any place. Words
    are parsed only when their raw text holds a candidate."""
    if EXPANDS.search(segment) is None:
        return None
    if _builds(segment) > BUILT_WORDS:
        return f"it holds more than {BUILT_WORDS} quoted or brace-expanded words for the blocklist to build"
    # One pass drops single-quoted and ANSI-C runs and escapes: a variable
    # can only be in what is left.
    unexpanded = _unexpanded(segment) if "$" in segment else ""
    variables = bool(unexpanded) and bool(_PARAMETER.search(unexpanded) or _VARIABLE.search(unexpanded))
    globs = _GLOB.search(segment) is not None
    if globs and len(_GLOB.findall(segment)) > BUILT_WORDS:
        return f"it holds more than {BUILT_WORDS} glob characters for the blocklist to read"
    if not (variables or globs or segment.count("{") > BRACE_GROUPS):
        return None
    for match in _WORD.finditer(segment):
        word = match.group()
        variable = variables and "$" in word and (_PARAMETER.search(word) or _VARIABLE.search(word))
        braces = word.count("{") > BRACE_GROUPS
        glob = _GLOB.search(word)
        if not (variable or braces or glob):
            continue
        runs = _runs_of(word)
        expandable = "".join(run.raw for run in runs if run.quote in ("", '"'))
        if variable:
            if _PARAMETER.search(expandable):
                return f"{word[:80]!r} holds a parameter expansion whose text is known only when it runs"
            if _VARIABLE.search(expandable):
                return f"{word[:80]!r} reads a variable of the environment (it may hold a secret)"
        plain = "".join(run.raw for run in runs if run.quote == "")
        if plain.count("{") > BRACE_GROUPS:
            return f"{word[:40]!r}... holds more brace expansions than the blocklist expands"
        if _GLOB.search(plain):
            literal = "".join(run.value for run in runs)
            if moved or literal.startswith(("/", "~")) or ".." in literal.split("/"):
                return f"{word[:80]!r} is a glob over a path the blocklist reads (known only when it runs)"
    return None


def leaves_tree(segment: str) -> str | None:
    """The target of a `cd` segment that may leave the working tree (an
    absolute path, `~`, `-`, a `..` component, no operand: HOME, or a word
    built at run time), or None. Relative names after such a `cd` name
    places the path rules cannot see (`cd /proc/self && grep -r = .`)."""
    if not segment.startswith("cd") or segment[2:3] not in ("", " ", "\t"):
        return None
    if _QUOTING.search(segment) is None:
        # No quotes, escapes or `$`: every word is one plain run, split at
        # whitespace as `_words` would.
        plain = [w for w in segment.split()[1:] if not w.startswith("-") or w == "-"]
        if not plain:
            return "HOME"
        target = plain[0]
        if target.startswith(("/", "~", "-")) or ".." in target.split("/") or EXPANDS.search(target):
            return target
        return None
    words = _words(segment)[1:]
    operands = [
        w for w in words if not "".join(r.raw for r in w).startswith("-") or (len(w) == 1 and w[0].raw == "-")
    ]
    if not operands:
        return "HOME"
    runs = operands[0]
    target = "".join(run.value for run in runs)
    built_at_run_time = any(run.quote in ("", '"') and EXPANDS.search(run.raw) for run in runs)
    if target.startswith(("/", "~", "-")) or ".." in target.split("/") or built_at_run_time:
        return target
    return None
