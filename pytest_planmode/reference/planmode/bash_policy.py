"""The limited-Bash decision: segmentation, trusted prefixes, reviewed policy.

pi-plan-mode-settings.md § Default Plan policy tools: "`bash` or
`powershell` stays subject to its limited-shell policy"; § Safe shell
subcommands for the chain and exemption rules; reference-choices.md
§ pi-plan-mode: limited Bash for the reviewed policy itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from pytest_planmode.reference.planmode.git_policy import check_git
from pytest_planmode.reference.planmode.program_rules import (
    GLOBAL_FORBIDDEN,
    PROGRAMS,
    OptionRule,
    ProgramRule,
    forbidden_value,
    forbids_nothing,
    names_environment_file,
    options_of,
    remembered_first_forbidden,
)
from pytest_planmode.reference.planmode.safe_subcommand_match import NO_TRUST, TrustedPrefixes
from pytest_planmode.reference.planmode.shell_verdict import SegmentBlock, Verdict, block, decide, verdict
from pytest_planmode.reference.shell.bash_segments import NOT_PLAIN, OPERATORS, RESERVED_WORDS, segment_bash
from pytest_planmode.reference.shell.segments import Segment

# `NAME=value` or `NAME+=value` in command position assigns the environment
# of the command (`GIT_PAGER=sh git log`).
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")

#: Inputs longer than this are decided without the cache, so the cache never
#: holds megabytes of text.
CACHE_MAX_CHARS = 4096


def first_forbidden(words: tuple[str, ...], rule: OptionRule) -> str | None:
    """`program_rules.first_forbidden`, answered from the rule's compiled
    option table (`program_rules.compile_options`)."""
    return remembered_first_forbidden(words, rule)


def review_program(rule: ProgramRule, args: tuple[str, ...], options: bool = True) -> SegmentBlock | None:
    """Apply one row of the program table to a segment's arguments
    (reference-choices.md § pi-plan-mode: limited Bash). `options` False
    says that no argument starts with `-`, so no option rule can match."""
    program = rule.program
    if rule.exact_args is not None:
        if args not in rule.exact_args:
            shapes = " or ".join(" ".join((program, *shape)) for shape in rule.exact_args)
            return block("program.exact-args", f"{program} is reviewed only as `{shapes}`")
        return None
    if rule.subcommands:
        for sub in rule.subcommands:
            size = len(sub.words)
            if args[:size] == sub.words:
                rest = args[size:]
                for word in rest:
                    if word in sub.forbidden_words:
                        return block(
                            "program.forbidden-word",
                            f"{program} {' '.join(sub.words)} {word} is not reviewed",
                        )
                hit = options_of(sub.options)(rest) if options else None
                if hit is not None:
                    return block(
                        "program.forbidden-option",
                        f"{program} {' '.join(sub.words)} {hit} runs a program or writes a file",
                    )
                break
        else:
            return block(
                "program.subcommand",
                f"{program} {args[0] if args else '(nothing)'} is not a reviewed subcommand "
                "(options before the subcommand are not reviewed either)",
            )
    # A value is only given by an option word, so `options` False rules out both.
    hit = (options_of(rule.options)(args) or forbidden_value(args, rule.options)) if options else None
    if hit is not None:
        return block("program.forbidden-option", f"{program} {hit} is not reviewed")
    if rule.shape is not None:
        why = rule.shape(args)
        if why is not None:
            return block("program.shape", why)
    return None


#: The review of a program's arguments, given the arguments, whether any of
#: them starts with `-`, and the working directory.
ProgramCheck = Callable[[tuple[str, ...], bool, str], "SegmentBlock | None"]


def _git(args: tuple[str, ...], options: bool, cwd: str) -> SegmentBlock | None:
    return check_git(args, cwd)


def _compile_program(rule: ProgramRule) -> ProgramCheck | None:
    """The review of one row of the program table (:func:`review_program`),
    compiled: its option tables are looked up once, and the steps the row
    cannot take are left out. None when the row admits any arguments (no
    subcommands, exact arguments, forbidden option or shape), so such a
    program costs a lookup."""
    if rule.exact_args is not None or rule.subcommands:
        return lambda args, options, cwd: review_program(rule, args, options)
    shape = rule.shape
    if forbids_nothing(rule.options):
        if shape is None:
            return None

        def shaped(args: tuple[str, ...], options: bool, cwd: str) -> SegmentBlock | None:
            why = shape(args)
            return None if why is None else block("program.shape", why)

        return shaped
    program = rule.program
    first = options_of(rule.options)
    values = rule.options if rule.options.values else None

    def reviewed(args: tuple[str, ...], options: bool, cwd: str) -> SegmentBlock | None:
        if options:
            hit = first(args)
            if hit is None and values is not None:
                hit = forbidden_value(args, values)
            if hit is not None:
                return block("program.forbidden-option", f"{program} {hit} is not reviewed")
        if shape is not None:
            why = shape(args)
            if why is not None:
                return block("program.shape", why)
        return None

    return reviewed


#: Every reviewed program's compiled review (`git` included); a program
#: absent from it is unknown.
_CHECKS: dict[str, ProgramCheck | None] = {
    "git": _git,
    **{program: _compile_program(rule) for program, rule in PROGRAMS.items()},
}


def _unknown(args: tuple[str, ...], options: bool, cwd: str) -> SegmentBlock | None:
    raise AssertionError("a marker, never called")  # pragma: no cover


_UNKNOWN: ProgramCheck = _unknown
_global_forbidden = options_of(GLOBAL_FORBIDDEN)


def review_words(words: tuple[str, ...], cwd: str) -> SegmentBlock | None:
    """The built-in reviewed policy for the words of a segment in which
    nothing expands and whose program name is written without quotes."""
    program = words[0]
    if "=" in program and _ASSIGNMENT.match(program):
        return block("environment-assignment", f"{program!r} assigns the environment of the command")
    # One C-level look at the words, joined by NUL (which no word holds),
    # says whether any argument is an option at all (a NUL then `-`: the
    # program comes first, with no NUL before it) and whether any could name
    # an environment file; most have neither, and skip those walks.
    joined = "\0".join(words)
    options = "\0-" in joined
    args = words[1:]
    if options:
        hit = _global_forbidden(args)
        if hit is not None:
            return block("argument.forbidden", f"{hit} is forbidden for every program")
    if "environ" in joined:
        environ = names_environment_file(args)
        if environ is not None:
            return block("argument.environment-file", environ)
    check = _CHECKS.get(program, _UNKNOWN)
    if check is None:
        return None
    if check is _UNKNOWN:
        return block("program.unknown", f"{program!r} is not a reviewed program")
    return check(args, options, cwd)


def check_bash_segment(segment: Segment, cwd: str) -> SegmentBlock | None:
    """The built-in reviewed policy for one Bash segment, or None when it
    passes (pi-plan-mode-settings.md § Safe shell subcommands: "Segments
    that do not match still use the built-in fail-closed reviewed policy")."""
    _text, words, raw_words, expansion = segment
    if expansion is not None:
        return block("expansion", f"the shell would expand {expansion} (expansion is not reviewed)")
    raw_program = raw_words[0]
    if raw_program != words[0]:
        if "=" in raw_program and _ASSIGNMENT.match(raw_program):
            return block("environment-assignment", f"{raw_program!r} assigns the environment of the command")
        return block("program.quoted", f"the program name {raw_program!r} uses quotes or escapes")
    return review_words(words, cwd)


_NOT_PLAIN_SEARCH = NOT_PLAIN.search
_SPLIT_OPERATORS = OPERATORS.split
_NO_REVIEW: tuple[None] = (None,)
_new = object.__new__


def _plain_chain(command: str, cwd: str) -> Verdict | None:
    """The verdict on a plain ASCII submission with chain operators, as
    :func:`shell_verdict.decide` gives it on the parse (None where the
    scanner must say more: an empty segment, a lone `&`, a reserved word
    in command position). Each distinct segment is split and reviewed once
    (a review is pure, so reviewing them all before looking for the first
    block answers the same); the first blocked one is found by C-level
    scans, so a megabyte of `ls && ls && ...` costs a few passes over it."""
    # With one kind of operator, a plain `str.split` cuts where the
    # operator expression does, three times faster (`||` is one operator,
    # so `|` alone is split that way only without it).
    if "|" not in command and ";" not in command:
        pieces = command.split("&&")
    elif "&" not in command and "|" not in command:
        pieces = command.split(";")
    elif "&" not in command and ";" not in command and "||" not in command:
        pieces = command.split("|")
    else:
        pieces = _SPLIT_OPERATORS(command)
    texts: dict[str, str] = {}
    split: list[tuple[str, tuple[str, ...]]] = []
    blocks: dict[str, SegmentBlock] = {}
    for piece in dict.fromkeys(pieces):
        if "&" in piece:
            return None
        words = tuple(piece.split())
        if not words or words[0] in RESERVED_WORDS:
            return None
        texts[piece] = piece.strip()
        split.append((piece, words))
    for piece, words in split:
        found = review_words(words, cwd)
        if found is not None:
            blocks[piece] = found
    every = tuple(map(texts.__getitem__, pieces))
    if not blocks:
        return verdict(True, None, every, None, None, _NO_REVIEW * len(pieces))
    index = min(map(pieces.index, blocks))
    found = blocks[pieces[index]]
    return verdict(False, every[index], every, found[0], found[1], _NO_REVIEW * (index + 1))


def _decide(command: str, cwd: str, trust: TrustedPrefixes) -> Verdict:
    # A plain submission with nothing trusted (most of them): nothing but
    # words, blanks and chain operators (see `bash_segments.segment_bash`),
    # decided in one pass without building its parse. In ASCII without
    # control characters, `split()` splits on spaces and tabs only, as the
    # grammar does. Anything else goes through the scanner.
    if not trust.prefixes and command.isascii() and _NOT_PLAIN_SEARCH(command) is None:
        if "|" in command or ";" in command or "&" in command:
            chained = _plain_chain(command, cwd)
            if chained is not None:
                return chained
        else:
            words = tuple(command.split())
            if words and words[0] not in RESERVED_WORDS:
                text = command.strip()
                found = review_words(words, cwd)
                # `shell_verdict.verdict`, inline.
                answer = _new(Verdict)
                fields = answer.__dict__
                if found is None:
                    fields["allowed"] = True
                    fields["blocked"] = None
                    fields["segments"] = (text,)
                    fields["rule"] = None
                    fields["reason"] = None
                else:
                    fields["allowed"] = False
                    fields["blocked"] = text
                    fields["segments"] = (text,)
                    fields["rule"] = found[0]
                    fields["reason"] = found[1]
                fields["trusted"] = _NO_REVIEW
                return answer
    return decide(command, segment_bash(command), cwd, trust, check_bash_segment)


_decide_cached = lru_cache(maxsize=8192)(_decide)

#: What :func:`check_bash` does, in parts, for a caller that applies its
#: rule itself (the reference adapter's hot path): inputs up to the length
#: limit are decided through the cache, longer ones without.
DECISION = (CACHE_MAX_CHARS, _decide_cached, _decide)


def check_bash(command: str, cwd: str, trust: TrustedPrefixes = NO_TRUST) -> Verdict:
    """Decide one limited-Bash submission (pi-plan-mode-settings.md § Safe
    shell subcommands). Pure; repeated inputs are answered from a cache keyed
    on the complete input (command, cwd and trusted prefixes)."""
    if len(command) > CACHE_MAX_CHARS:
        return _decide(command, cwd, trust)
    return _decide_cached(command, cwd, trust)


def check_bash_uncached(command: str, cwd: str, trust: TrustedPrefixes = NO_TRUST) -> Verdict:
    """:func:`check_bash` without the cache (for measurements)."""
    return _decide(command, cwd, trust)
