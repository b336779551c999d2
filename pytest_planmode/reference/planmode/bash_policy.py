"""The limited-Bash decision: segmentation, trusted prefixes, reviewed policy.

pi-plan-mode-settings.md § Default Plan policy tools: "`bash` or
`powershell` stays subject to its limited-shell policy"; § Safe shell
subcommands for the chain and exemption rules; reference-choices.md
§ pi-plan-mode: limited Bash for the reviewed policy itself.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pytest_planmode.reference.planmode.git_policy import check_git
from pytest_planmode.reference.planmode.program_rules import (
    GLOBAL_FORBIDDEN,
    PROGRAMS,
    OptionRule,
    ProgramRule,
    forbidden_option,
    forbidden_value,
    names_environment_file,
)
from pytest_planmode.reference.planmode.safe_subcommand_match import NO_TRUST, TrustedPrefixes
from pytest_planmode.reference.planmode.shell_verdict import SegmentBlock, Verdict, decide
from pytest_planmode.reference.shell.bash_segments import segment_bash
from pytest_planmode.reference.shell.segments import Segment

# `NAME=value` or `NAME+=value` in command position assigns the environment
# of the command (`GIT_PAGER=sh git log`).
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")

#: Inputs longer than this are decided without the cache, so the cache never
#: holds megabytes of text.
CACHE_MAX_CHARS = 4096

# The option tables, compiled as they are met: for each option rule, the
# answer of `forbidden_option` for every option word seen, so a word like
# `-n` or `--oneline` is examined once per rule, not once per decision.
# The rules are kept alive here, so their ids stay theirs.
_RULES: dict[int, OptionRule] = {}
_ANSWERS: dict[int, dict[str, str | None]] = {}
#: Words remembered per rule; past this the rule's table starts again.
_ANSWERS_MAX = 16384
_UNSEEN = object()


def first_forbidden(words: tuple[str, ...], rule: OptionRule) -> str | None:
    """`program_rules.first_forbidden`: the first word of `words` that is a
    forbidden option under `rule`, or None. Only a word starting with `-`
    can be one (`forbidden_option` answers None to any other)."""
    answers = _ANSWERS.get(id(rule))
    if answers is None:
        _RULES[id(rule)] = rule
        answers = _ANSWERS[id(rule)] = {}
    for word in words:
        if word[:1] != "-":
            continue
        hit = answers.get(word, _UNSEEN)
        if hit is _UNSEEN:
            if len(answers) >= _ANSWERS_MAX:
                answers.clear()
            hit = answers[word] = forbidden_option(word, rule)
        if hit is not None:
            return hit  # type: ignore[return-value]
    return None


def review_program(rule: ProgramRule, args: tuple[str, ...], options: bool = True) -> SegmentBlock | None:
    """Apply one row of the program table to a segment's arguments
    (reference-choices.md § pi-plan-mode: limited Bash). `options` False
    says that no argument starts with `-`, so no option rule can match."""
    program = rule.program
    if rule.exact_args is not None:
        if args not in rule.exact_args:
            shapes = " or ".join(" ".join((program, *shape)) for shape in rule.exact_args)
            return SegmentBlock("program.exact-args", f"{program} is reviewed only as `{shapes}`")
        return None
    if rule.subcommands:
        for sub in rule.subcommands:
            size = len(sub.words)
            if args[:size] == sub.words:
                rest = args[size:]
                for word in rest:
                    if word in sub.forbidden_words:
                        return SegmentBlock(
                            "program.forbidden-word",
                            f"{program} {' '.join(sub.words)} {word} is not reviewed",
                        )
                hit = first_forbidden(rest, sub.options) if options else None
                if hit is not None:
                    return SegmentBlock(
                        "program.forbidden-option",
                        f"{program} {' '.join(sub.words)} {hit} runs a program or writes a file",
                    )
                break
        else:
            return SegmentBlock(
                "program.subcommand",
                f"{program} {args[0] if args else '(nothing)'} is not a reviewed subcommand "
                "(options before the subcommand are not reviewed either)",
            )
    # A value is only given by an option word, so `options` False rules out both.
    hit = (first_forbidden(args, rule.options) or forbidden_value(args, rule.options)) if options else None
    if hit is not None:
        return SegmentBlock("program.forbidden-option", f"{program} {hit} is not reviewed")
    if rule.shape is not None:
        why = rule.shape(args)
        if why is not None:
            return SegmentBlock("program.shape", why)
    return None


def check_bash_segment(segment: Segment, cwd: str) -> SegmentBlock | None:
    """The built-in reviewed policy for one Bash segment, or None when it
    passes (pi-plan-mode-settings.md § Safe shell subcommands: "Segments
    that do not match still use the built-in fail-closed reviewed policy")."""
    _text, words, raw_words, expansion = segment
    if expansion is not None:
        return SegmentBlock("expansion", f"the shell would expand {expansion} (expansion is not reviewed)")
    program = words[0]
    raw_program = raw_words[0]
    if "=" in raw_program and _ASSIGNMENT.match(raw_program):
        return SegmentBlock(
            "environment-assignment", f"{raw_program!r} assigns the environment of the command"
        )
    if raw_program != program:
        return SegmentBlock("program.quoted", f"the program name {raw_program!r} uses quotes or escapes")
    args = words[1:]
    # One C-level look at the words, joined by NUL (which no word holds),
    # says whether any argument is an option at all (a NUL then `-`: the
    # program comes first, with no NUL before it) and whether any could name
    # an environment file; most have neither, and skip those walks.
    joined = "\0".join(words)
    options = "\0-" in joined
    if options:
        hit = first_forbidden(args, GLOBAL_FORBIDDEN)
        if hit is not None:
            return SegmentBlock("argument.forbidden", f"{hit} is forbidden for every program")
    if "environ" in joined:
        environ = names_environment_file(args)
        if environ is not None:
            return SegmentBlock("argument.environment-file", environ)
    if program == "git":
        verdict = check_git(args, cwd)
        if verdict.rule is not None:
            return SegmentBlock(verdict.rule, verdict.reason or verdict.rule)
        return None
    rule = PROGRAMS.get(program)
    if rule is None:
        return SegmentBlock("program.unknown", f"{program!r} is not a reviewed program")
    return review_program(rule, args, options)


def _decide(command: str, cwd: str, trust: TrustedPrefixes) -> Verdict:
    return decide(command, segment_bash(command), cwd, trust, check_bash_segment)


_decide_cached = lru_cache(maxsize=8192)(_decide)


def check_bash(command: str, cwd: str, trust: TrustedPrefixes = NO_TRUST) -> Verdict:
    """Decide one limited-Bash submission (pi-plan-mode-settings.md § Safe
    shell subcommands). Pure; repeated inputs are answered from a cache keyed
    on the complete input (command, cwd and trusted prefixes)."""
    if len(command) > CACHE_MAX_CHARS:
        return _decide(command, cwd, trust)
    return _decide_cached(command, cwd, trust)


def check_bash_uncached(command: str, cwd: str, trust: TrustedPrefixes = NO_TRUST) -> Verdict:
    """:func:`check_bash` without the cache (for measurements)."""
    return decide(command, segment_bash(command), cwd, trust, check_bash_segment)
