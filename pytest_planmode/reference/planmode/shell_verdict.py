"""The verdict of a limited shell on one submission, shared by Bash and
PowerShell.

pi-plan-mode-settings.md § Safe shell subcommands: "Plan mode parses the
complete submission before considering any configured exemption", and
"Every segment must either match its own configured prefix or pass the
built-in reviewed policy, regardless of its position in the chain." The
block message names the first blocked segment, or the complete input for
unsupported syntax (reference-choices.md § pi-plan-mode: limited Bash).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from pytest_planmode.reference.planmode.safe_subcommand_match import TrustedPrefixes
from pytest_planmode.reference.shell.segments import Parse, Segment

EMPTY_COMMAND = "(empty command)"


class SegmentBlock(NamedTuple):
    """Why the reviewed policy blocks a segment: a stable rule id and a
    reason. A named tuple: a blocked decision builds one, and a tuple is
    the cheapest immutable record Python builds."""

    rule: str
    reason: str


_tuple_new = tuple.__new__


def block(rule: str, reason: str) -> SegmentBlock:
    """`SegmentBlock(rule, reason)` without the named tuple's Python-level
    `__new__` (the same value)."""
    return _tuple_new(SegmentBlock, (rule, reason))


@dataclass(frozen=True)
class Verdict:
    """`blocked` is None when allowed. `segments` lists every parsed segment
    (empty for blank or unsupported input); `trusted` the configured prefix
    that admitted each segment (None where the reviewed policy decided)."""

    allowed: bool
    blocked: str | None
    segments: tuple[str, ...]
    rule: str | None = None
    reason: str | None = None
    trusted: tuple[str | None, ...] = ()


SegmentCheck = Callable[[Segment, str], "SegmentBlock | None"]

_new = object.__new__


def verdict(
    allowed: bool,
    blocked: str | None,
    segments: tuple[str, ...],
    rule: str | None,
    reason: str | None,
    trusted: tuple[str | None, ...],
) -> Verdict:
    """`Verdict(...)` without the frozen dataclass's field-by-field
    `object.__setattr__` (a decision builds one; that was a fifth of its
    cost). The same object: a frozen dataclass keeps its fields in its
    `__dict__`."""
    verdict = _new(Verdict)
    fields = verdict.__dict__
    fields["allowed"] = allowed
    fields["blocked"] = blocked
    fields["segments"] = segments
    fields["rule"] = rule
    fields["reason"] = reason
    fields["trusted"] = trusted
    return verdict


def decide(command: str, parse: Parse, cwd: str, trust: TrustedPrefixes, check: SegmentCheck) -> Verdict:
    """Walk a parsed submission: unsupported or empty input blocks as a
    whole; otherwise every segment is trusted by its own prefix or reviewed,
    and the first one that is neither is reported."""
    segments, unsupported, empty = parse
    if empty:
        return verdict(False, EMPTY_COMMAND, (), "syntax.empty", "the command is empty or blank", ())
    if unsupported is not None:
        return verdict(False, command, (), unsupported.rule, unsupported.reason, ())
    if not trust.prefixes:
        # Nothing trusted: every segment is reviewed (the common case).
        if len(segments) == 1:
            only = segments[0]
            texts: tuple[str, ...] = (only[0],)
            block = check(only, cwd)
            if block is not None:
                return verdict(False, texts[0], texts, block.rule, block.reason, (None,))
            return verdict(True, None, texts, None, None, (None,))
        texts = tuple([segment[0] for segment in segments])
        reviewed: dict[str, SegmentBlock | None] = {}
        for index, segment in enumerate(segments):
            text = segment[0]
            if text in reviewed:
                block = reviewed[text]
            else:
                block = reviewed[text] = check(segment, cwd)
            if block is not None:
                return verdict(False, text, texts, block.rule, block.reason, (None,) * (index + 1))
        return verdict(True, None, texts, None, None, (None,) * len(segments))
    texts = tuple([segment[0] for segment in segments])
    trusted: list[str | None] = []
    # Within one submission a repeated segment gets the same answer; a
    # megabyte of `ls && ls && …` is then decided once per distinct segment.
    seen: dict[str, SegmentBlock | None] = {}
    for segment in parse.segments:
        prefix = trust.match(segment.text) if trust.prefixes else None
        trusted.append(prefix)
        if prefix is not None:
            continue
        if segment.text in seen:
            block = seen[segment.text]
        else:
            block = seen[segment.text] = check(segment, cwd)
        if block is not None:
            return verdict(False, segment.text, texts, block.rule, block.reason, tuple(trusted))
    return verdict(True, None, texts, None, None, tuple(trusted))
