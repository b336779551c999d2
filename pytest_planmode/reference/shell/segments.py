"""What a shell segmenter hands to a policy: segments made of words.

Both limited shells (Bash and PowerShell) produce the same shapes, so the
per-segment policy and the `safeSubcommands` matcher do not care which
grammar split the submission (pi-plan-mode-settings.md § Safe shell
subcommands: "individual parsed segments of limited `bash` and `powershell`
commands").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a segment.

    `raw` is the source text, `value` the text after quote removal (what the
    program receives). `quoted` is true when any quote or escape was used,
    so a policy can refuse a program name that only looks literal.
    `expansion` names the first expansion the shell would perform on the
    word (`None` when the word is taken literally).
    """

    raw: str
    value: str
    quoted: bool
    expansion: str | None


@dataclass(frozen=True, slots=True)
class Segment:
    """A simple command between chain operators: its trimmed source text
    (what a block message names) and its words."""

    text: str
    words: tuple[Word, ...]


@dataclass(frozen=True, slots=True)
class Unsupported:
    """The submission uses syntax outside the supported grammar: `rule` is a
    stable id (`syntax.redirect`), `reason` says what was found and where."""

    rule: str
    reason: str


@dataclass(frozen=True, slots=True)
class Parse:
    """The outcome of segmenting one submission.

    Exactly one of three shapes: `empty` (blank submission), `unsupported`
    set (the whole input is blocked), or `segments` (at least one).
    """

    segments: tuple[Segment, ...] = ()
    unsupported: Unsupported | None = None
    empty: bool = False
