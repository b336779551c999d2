"""Strategies for the opl-modes per-segment Bash gate (opl-modes.md § Mode
behavior): safe commands, separators, blocked segments and quoted or escaped
destructive program names."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

#: A mode whose own safe list is explicit, so the properties do not depend on
#: the reference's built-in safe list: every segment below matches it.
SAFE_CONFIG = {"modes": {"probe": {"safePatterns": [r"^(?:ls|cat|grep|wc|head|git (?:log|status))(?:\s|$)"]}}}
SAFE_MODE = "probe"

#: A mode with an explicit empty safe list (no allowlist): only the
#: built-in destructive base decides.
WIDE_CONFIG: dict[str, Any] = {"modes": {"wide": {"safePatterns": []}}}
WIDE_MODE = "wide"

#: Segments that match SAFE_CONFIG and no destructive pattern.
safe_segments = st.sampled_from(
    [
        "ls",
        "ls -la",
        "cat README.md",
        "grep -rn TODO src",
        "wc -l notes.txt",
        "head -n 5 log.txt",
        "git log --oneline",
        "git status",
        "cat src/main.py",
        "grep -c x a.txt",
    ]
)

#: The separators the spec names between two commands.
spec_separators = st.sampled_from(["&&", "||", "|", ";", "&", "\n"])
#: Those and `|&`, which the reference also cuts (it fails closed either way).
binary_separators = st.sampled_from(["&&", "||", "|", ";", "&", "\n", "|&"])

#: Blanks around an operator (spaces and tabs, possibly none).
blanks = st.text(alphabet=" \t", max_size=4)

#: Segments no safe pattern of SAFE_CONFIG admits.
blocked_segments = st.sampled_from(
    [
        "node -e 1",
        "python -c 'print(1)'",
        "rm -rf /",
        "sh",
        "curl https://example.com",
        "awk 1 f",
        "perl -e 1",
        "env",
        "make",
        "npx cowsay",
    ]
)

#: The file mutation primitives of the destructive base.
primitives = st.sampled_from(
    ["rm", "rmdir", "mv", "cp", "mkdir", "touch", "chmod", "chown", "tee", "dd", "shred", "truncate"]
)


_SAFE_LISTS = st.lists(safe_segments, min_size=1, max_size=4)


@st.composite
def safe_commands(draw: st.DrawFn) -> list[str]:
    """A list of safe segments, to be joined by separators."""
    return draw(_SAFE_LISTS)


@st.composite
def joined(draw: st.DrawFn, segments: list[str]) -> str:
    """`segments` joined by the spec's separators with arbitrary blanks around."""
    out = draw(blanks) + segments[0]
    for seg in segments[1:]:
        out += draw(blanks) + draw(spec_separators) + draw(blanks) + seg
    return out + draw(blanks)


_PIECE_SIZES = {rest: st.integers(min_value=1, max_value=rest) for rest in range(1, 9)}
_PIECE_STYLES = st.sampled_from(["plain", "single", "double", "backslash", "empty-quotes"])


@st.composite
def obfuscated(draw: st.DrawFn, name: str) -> str:
    """`name` with its letters cut into pieces, each optionally quoted or
    backslash-escaped (`r"m"`, `'rm'`, `\\rm`, `r''m`)."""
    pieces: list[str] = []
    i = 0
    while i < len(name):
        rest = len(name) - i
        sizes = _PIECE_SIZES.get(rest)
        size = draw(st.integers(min_value=1, max_value=rest) if sizes is None else sizes)
        piece = name[i : i + size]
        i += size
        style = draw(_PIECE_STYLES)
        if style == "single":
            piece = f"'{piece}'"
        elif style == "double":
            piece = f'"{piece}"'
        elif style == "backslash":
            piece = "\\" + piece
        elif style == "empty-quotes":
            piece = piece + "''"
        pieces.append(piece)
    return "".join(pieces)


#: JSON values that are not strings.
non_strings = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)

#: Arbitrary command text, including operators and quotes.
any_text = st.text(alphabet=st.sampled_from(list("ab rm;&|<>()$`'\"\\\n\t-/")), max_size=40)
