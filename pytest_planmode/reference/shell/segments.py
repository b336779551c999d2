"""What a shell segmenter hands to a policy: segments made of words.

Both limited shells (Bash and PowerShell) produce the same shapes, so the
per-segment policy and the `safeSubcommands` matcher do not care which
grammar split the submission (pi-plan-mode-settings.md § Safe shell
subcommands: "individual parsed segments of limited `bash` and `powershell`
commands").

The shapes are named tuples rather than dataclasses: a megabyte of input
can hold a hundred thousand segments, and tuples are the cheapest immutable
records Python builds.
"""

from __future__ import annotations

from typing import NamedTuple


class Segment(NamedTuple):
    """A simple command between chain operators.

    `text` is its trimmed source (what a block message names), `words` the
    word values after quote removal (what the program receives), `raw_words`
    the same words as written. A word used quotes or escapes exactly when
    its raw form differs from its value. `expansion` says which expansion
    the shell would perform in this segment (None when every word is taken
    literally).
    """

    text: str
    words: tuple[str, ...]
    raw_words: tuple[str, ...]
    expansion: str | None


class Unsupported(NamedTuple):
    """The submission uses syntax outside the supported grammar: `rule` is a
    stable id (`syntax.redirect`), `reason` says what was found and where."""

    rule: str
    reason: str


class Parse(NamedTuple):
    """The outcome of segmenting one submission.

    Exactly one of three shapes: `empty` (blank submission), `unsupported`
    set (the whole input is blocked), or `segments` (at least one).
    """

    segments: tuple[Segment, ...] = ()
    unsupported: Unsupported | None = None
    empty: bool = False
