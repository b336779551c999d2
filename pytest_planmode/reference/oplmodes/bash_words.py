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
_HEX = re.compile(r"[0-9A-Fa-f]{1,2}")
_OCT = re.compile(r"[0-7]{1,3}")
_UNI = re.compile(r"[0-9A-Fa-f]{1,8}")

#: At most this many words come out of one word's brace expansion (the
#: rest is not needed to fail closed: a word with more alternatives blocks).
BRACE_LIMIT = 64


def _ansi_c(text: str, start: int) -> tuple[str, int]:
    """Decode a `$'…'` body starting at `start` (after the quote); the
    value and the index after the closing quote."""
    out: list[str] = []
    i = start
    while i < len(text):
        char = text[i]
        if char == "'":
            return "".join(out), i + 1
        if char == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt in _ANSI_SIMPLE:
                out.append(_ANSI_SIMPLE[nxt])
                i += 2
                continue
            match = (
                _HEX.match(text, i + 2)
                if nxt == "x"
                else _UNI.match(text, i + 2)
                if nxt in "uU"
                else _OCT.match(text, i + 1)
            )
            if match is not None:
                base = 8 if nxt not in "xuU" else 16
                code = int(match.group(), base)
                out.append(chr(code) if code < 0x110000 else "")
                i = match.end()
                continue
            if nxt == "c" and i + 2 < len(text):
                out.append(chr(ord(text[i + 2]) & 0x1F))
                i += 3
                continue
            out.append(char + nxt)
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out), i


def _pieces(word: str) -> list[tuple[str, bool]]:
    """(text, quoted) runs of one raw word: quotes removed, `$'…'` decoded,
    backslash escapes applied; unquoted runs keep their text for brace
    expansion."""
    runs: list[tuple[str, bool]] = []
    i = 0
    plain: list[str] = []

    def flush() -> None:
        if plain:
            runs.append(("".join(plain), False))
            plain.clear()

    while i < len(word):
        char = word[i]
        if char == "'" or (char == "$" and word.startswith("$'", i)):
            flush()
            if char == "$":
                value, i = _ansi_c(word, i + 2)
            else:
                end = word.find("'", i + 1)
                end = len(word) if end < 0 else end
                value, i = word[i + 1 : end], end + 1
            runs.append((value, True))
        elif char == '"':
            flush()
            out: list[str] = []
            i += 1
            while i < len(word) and word[i] != '"':
                if word[i] == "\\" and i + 1 < len(word) and word[i + 1] in '$`"\\':
                    i += 1
                out.append(word[i])
                i += 1
            runs.append(("".join(out), True))
            i += 1
        elif char == "\\" and i + 1 < len(word):
            flush()
            runs.append((word[i + 1], True))
            i += 2
        else:
            plain.append(char)
            i += 1
    flush()
    return runs


def _raw_words(text: str) -> list[str]:
    """Split a segment into raw words at unquoted blanks."""
    words: list[str] = []
    current: list[str] = []
    quote = ""
    i = 0
    while i < len(text):
        char = text[i]
        if quote:
            current.append(char)
            if char == "\\" and quote != "'" and i + 1 < len(text):
                current.append(text[i + 1])
                i += 1
            elif char == quote[-1]:
                quote = ""
        elif char in " \t":
            if current:
                words.append("".join(current))
                current = []
        else:
            current.append(char)
            if char == "\\" and i + 1 < len(text):
                current.append(text[i + 1])
                i += 1
            elif char == "'":
                # `$'` opens an ANSI-C quote whose `\'` does not close it.
                quote = "$'" if i > 0 and text[i - 1] == "$" else "'"
            elif char == '"':
                quote = '"'
        i += 1
    if current:
        words.append("".join(current))
    return words


def _expand_braces(runs: list[tuple[str, bool]]) -> list[str]:
    """Bash's brace expansion over unquoted runs (`a{b,c}d`, nested too);
    quoted runs are literal."""
    # Mark unquoted braces and commas with private characters so that
    # quoted ones stay literal.
    marked = "".join(
        text if quoted else text.replace("{", "\0").replace("}", "\1").replace(",", "\2")
        for text, quoted in runs
    )
    results = _brace(marked)
    return [r.replace("\0", "{").replace("\1", "}").replace("\2", ",") for r in results]


def _brace(text: str) -> list[str]:
    start = text.find("\0")
    while start >= 0:
        depth = 0
        commas: list[int] = []
        for j in range(start, len(text)):
            if text[j] == "\0":
                depth += 1
            elif text[j] == "\1":
                depth -= 1
                if depth == 0:
                    if commas:
                        head, tail = text[:start], text[j + 1 :]
                        bounds = [start, *commas, j]
                        out: list[str] = []
                        for a, b in itertools.pairwise(bounds):
                            for middle in _brace(text[a + 1 : b]):
                                out += [head + middle + rest for rest in _brace(tail)]
                                if len(out) > BRACE_LIMIT:
                                    return out[:BRACE_LIMIT]
                        return out
                    break
            elif text[j] == "\2" and depth == 1:
                commas.append(j)
        start = text.find("\0", start + 1)
    return [text]


def built(segment: str) -> str:
    """`segment` with every word as bash builds it: `$'…'` decoded, braces
    expanded (alternatives as separate words), quotes and escapes removed."""
    out: list[str] = []
    for word in _raw_words(segment):
        out += _expand_braces(_pieces(word))
    return " ".join(out)


# `${` followed by anything but a plain name and `}`: operators (`:-`, `#`,
# `/`), indirection (`!`), transformations (`@P`), subscripts.
_PARAMETER = re.compile(r"\$\{(?![A-Za-z_][A-Za-z0-9_]*\})")
# `$NAME`, `${NAME}`: the environment's value.
_VARIABLE = re.compile(r"\$(?:[A-Za-z_]|\{[A-Za-z_])")
_GLOB = re.compile(r"[*?\[]")


def unknowable(segment: str, moved: bool = False) -> str | None:
    """Why the blocklist cannot know `segment`'s words without running the
    shell (or reads the environment), or None. `moved`: the line changes
    directory first (`cd`), so a relative glob may list any place."""
    for word in _raw_words(segment):
        if "$" in word:
            unquoted = "".join(text for text, quoted in _raw_runs(word) if not quoted or quoted == '"')
            if _PARAMETER.search(unquoted):
                return f"{word!r} holds a parameter expansion whose text is known only when it runs"
            if _VARIABLE.search(unquoted):
                return f"{word!r} reads a variable of the environment (it may hold a secret)"
        plain = "".join(text for text, quoted in _raw_runs(word) if not quoted)
        if _GLOB.search(plain):
            literal = "".join(text for text, _ in _pieces(word))
            if moved or literal.startswith(("/", "~")) or ".." in literal.split("/"):
                return f"{word!r} is a glob over a path the blocklist reads (known only when it runs)"
    return None


def _raw_runs(word: str) -> list[tuple[str, str]]:
    """(raw text, quote) runs of a raw word: quote is "", "'", '"' or "$'"."""
    runs: list[tuple[str, str]] = []
    i = 0
    start = 0
    while i < len(word):
        char = word[i]
        if char == "\\":
            i += 2
            continue
        opener = "$'" if word.startswith("$'", i) else char if char in "'\"" else ""
        if not opener:
            i += 1
            continue
        if start < i:
            runs.append((word[start:i], ""))
        j = i + len(opener)
        while j < len(word) and word[j] != opener[-1]:
            j += 2 if word[j] == "\\" and opener != "'" else 1
        runs.append((word[i + len(opener) : j], opener))
        i = start = j + 1
    if start < len(word):
        runs.append((word[start:], ""))
    return runs


def leaves_tree(segment: str) -> str | None:
    """The target of a `cd` segment that may leave the working tree (an
    absolute path, `~`, `-`, a `..` component, no operand: HOME, or a word
    built at run time), or None. Relative names after such a `cd` name
    places the path rules cannot see (`cd /proc/self && grep -r = .`)."""
    words = _raw_words(segment)
    if not words or words[0] != "cd":
        return None
    operands = [w for w in words[1:] if not w.startswith("-") or w == "-"]
    if not operands:
        return "HOME"
    target = "".join(text for text, _ in _pieces(operands[0]))
    if (
        target.startswith(("/", "~", "-"))
        or ".." in target.split("/")
        or any(quote == "" and ("$" in text or _GLOB.search(text)) for text, quote in _raw_runs(operands[0]))
    ):
        return target
    return None
