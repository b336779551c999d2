"""The per-segment Bash gate of opl-modes: which policy a mode has, and
whether a command passes it (opl-modes.md § Mode behavior, § Configuration,
§ Tool inheritance warning; reference-choices.md § opl-modes: built-in safe
list).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pytest_planmode.reference.json_values import json_text
from pytest_planmode.reference.oplmodes import bash_patterns as bp
from pytest_planmode.reference.oplmodes.bash_scanner import (
    allowlist_segments,
    blocklist_segments,
    blocklist_segments_after,
    strip_quoting,
)
from pytest_planmode.reference.oplmodes.bash_words import EXPANDS, built, leaves_tree, unknowable
from pytest_planmode.reference.oplmodes.pattern_guard import (
    Budget,
    PatternTimeout,
    UserPattern,
    compile_patterns,
    is_regex_available,
    problems,
)

#: Where one component (safe or destructive) of a mode's policy comes from.
#: "none" is an explicit empty per-mode array: that component does not gate.
Source = Literal["built-in", "bashPatterns", "mode", "none"]

BUILTIN_MODES = ("off", "chat", "plan", "execute")
#: Built-in modes that are unrestricted unless given their own `tools` list.
UNRESTRICTED_BY_DEFAULT = frozenset({"off", "execute"})

EMPTY_COMMAND = "(empty command)"
#: The `pattern` of a segment blocked because its words are known only when
#: the shell runs (or read the environment).
UNKNOWABLE = "words known only when run"


@dataclass(frozen=True)
class BashPolicy:
    """The effective Bash policy of one mode.

    `safe_patterns`/`destructive_patterns` are the pattern strings in force
    (the built-in ones when the source is "built-in"; empty when the source is
    "none"). `problems` lists patterns that cannot be used, each naming the
    mode and the pattern (only when no user pattern can run with a bounded
    time); a policy with problems blocks every command.
    """

    mode: str
    unrestricted: bool
    safe_patterns: tuple[str, ...]
    destructive_patterns: tuple[str, ...]
    safe_source: Source
    destructive_source: Source
    #: Why the mode is (un)restricted, for people: "unrestrictedBash",
    #: "built-in off/execute without tools", "gated", "unknown mode".
    reason: str
    problems: tuple[str, ...] = ()
    known_mode: bool = True
    #: Configured arrays set aside because a pattern does not compile, each
    #: naming where it is and the pattern.
    ignored: tuple[str, ...] = ()

    @property
    def source(self) -> dict[str, str]:
        """Where each component comes from (built-in / bashPatterns / mode / none)."""
        return {"safe": self.safe_source, "destructive": self.destructive_source, "mode": self.reason}


@dataclass(frozen=True)
class Decision:
    """The gate's answer for one command."""

    allowed: bool
    reason: str | None
    segments: tuple[str, ...] = ()
    blocked_segment: str | None = None
    pattern: str | None = None

    def __init__(
        self,
        allowed: bool,
        reason: str | None,
        segments: tuple[str, ...] = (),
        blocked_segment: str | None = None,
        pattern: str | None = None,
    ) -> None:
        # The generated initializer of a frozen dataclass sets each field
        # through `object.__setattr__`; one update of the instance dictionary
        # sets the same fields at a fraction of the cost (a decision is made
        # per command).
        self.__dict__.update(
            allowed=allowed,
            reason=reason,
            segments=segments,
            blocked_segment=blocked_segment,
            pattern=pattern,
        )


# -- policy ------------------------------------------------------------------

_ABSENT = object()
_MALFORMED = object()


def _string_array(value: object) -> tuple[str, ...] | object:
    """A pattern array as configured: a tuple of strings, `_ABSENT` when the
    key is missing or not an array, `_MALFORMED` for an array holding
    anything but strings."""
    if not isinstance(value, list):
        return _ABSENT
    if all(isinstance(v, str) for v in value):
        return tuple(value)
    return _MALFORMED


def _usable_array(value: object, where: str, ignored: list[str]) -> tuple[str, ...] | object:
    """A pattern array that can replace a policy component: `_string_array`,
    and `_MALFORMED` too when one of its patterns does not compile (an array
    holding a broken regular expression is not a valid array, so it inherits
    like any other malformed one; opl-modes.md § Mode behavior), noted in
    `ignored`. Without the `regex` package no user pattern can run with a
    bounded time; the array stays and the policy reports the problem (it then
    blocks)."""
    patterns = _string_array(value)
    if isinstance(patterns, tuple) and is_regex_available():
        broken = [p for p in compile_patterns(patterns) if p.compiled is None]
        if broken:
            ignored.append(
                f"{where}: pattern {broken[0].source!r} is not a valid regular expression "
                f"({broken[0].error}); the array is ignored and the existing policy stays"
            )
            return _MALFORMED
    return patterns


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def resolve_bash_policy(config: Mapping[str, Any] | None, mode: str) -> BashPolicy:
    """The effective Bash policy of `mode` from the raw opl-modes.json
    document (opl-modes.md § Mode behavior, § Configuration, § Tool
    inheritance warning).

    - Valid, non-empty `bashPatterns.safePatterns`/`destructivePatterns`
      arrays of strings replace the built-in lists (they do not extend them).
      An empty or malformed shared array (an entry that is not a string, or
      a pattern that does not compile) is ignored and the built-in list
      stays (reference choice: fail closed; emptying a list for every mode at
      once is never the intent, a per-mode array or `unrestrictedBash` is).
    - A mode's own array overrides its component; an explicit empty array
      means that component does not gate; a malformed non-empty array (an
      entry that is not a string, or a pattern that does not compile) is
      ignored and inherits; a value that is not an array is ignored too.
    - `unrestrictedBash: true` exempts the mode, built-in or custom.
    - Built-in `off` and `execute` are unrestricted unless they have their own
      `tools` array (reference choice: or an explicit `unrestrictedBash:
      false`); `chat`, `plan` and every custom mode are gated.
    - A mode name that is neither built-in nor configured is gated by the
      shared base (reference choice: fail closed).
    """
    doc = _mapping(config)
    modes = _mapping(doc.get("modes"))
    mode_cfg = _mapping(modes.get(mode))
    known = mode in BUILTIN_MODES or mode in modes

    unrestricted_flag = mode_cfg.get("unrestrictedBash")
    if unrestricted_flag is True:
        return BashPolicy(mode, True, (), (), "none", "none", "unrestrictedBash", known_mode=known)
    if (
        mode in UNRESTRICTED_BY_DEFAULT
        and not isinstance(mode_cfg.get("tools"), list)
        and unrestricted_flag is not False
    ):
        return BashPolicy(
            mode, True, (), (), "none", "none", f"built-in {mode} without its own tools", known_mode=known
        )

    shared = _mapping(doc.get("bashPatterns"))
    ignored: list[str] = []
    components: list[tuple[tuple[str, ...], Source]] = []
    for key, builtin in (
        ("safePatterns", bp.builtin_safe_patterns()),
        ("destructivePatterns", bp.builtin_destructive_patterns()),
    ):
        patterns: tuple[str, ...] = builtin
        source: Source = "built-in"
        base = _usable_array(shared.get(key), f"bashPatterns.{key}", ignored)
        if isinstance(base, tuple) and base:
            patterns, source = base, "bashPatterns"
        own = _usable_array(mode_cfg.get(key), f"modes.{mode}.{key}", ignored)
        if isinstance(own, tuple):
            patterns, source = (own, "mode") if own else ((), "none")
        components.append((patterns, source))

    (safe, safe_src), (destructive, destructive_src) = components
    found: list[str] = []
    if safe_src in ("bashPatterns", "mode"):
        found += problems(compile_patterns(safe), mode, "safe")
    if destructive_src in ("bashPatterns", "mode"):
        found += problems(compile_patterns(destructive), mode, "destructive")
    return BashPolicy(
        mode,
        False,
        safe,
        destructive,
        safe_src,
        destructive_src,
        "gated" if known else "unknown mode, gated by the shared base",
        tuple(found),
        known,
        tuple(ignored),
    )


# -- the built-in destructive engine ----------------------------------------

_WORD = re.compile(r"\S+")
#: What :func:`strip_quoting` removes.
_QUOTE_CHARS = re.compile(r"['\"\\\\]")
WRAPPER_REACH = bp.WRAPPER_REACH


def _builtin_destructive(command: str, allowlist: tuple[str, ...] | None = None) -> tuple[str, str] | None:
    """(entry name, text) of the first built-in destructive entry that
    matches, or None. Command-position entries are tried on every
    blocklist segment and the whole command, each with and without quoting,
    and, when a segment starts with a wrapper (`xargs`, `nice`, `then`...), at
    each of the next :data:`WRAPPER_REACH` words; the others anywhere in the
    command. `allowlist`: the command's allowlist segments, when known."""
    lists = bp.compiled_builtins()
    segments = (
        blocklist_segments(command) if allowlist is None else blocklist_segments_after(command, allowlist)
    )
    whole = command.strip()
    if len(segments) != 1 or segments[0] != whole:
        segments.append(whole)
    # Raw, stripped, and as bash builds the words (`$'…'`, braces): the
    # built text differs only when the command holds `$'` or `{`, the
    # stripped one only when it holds a quote or a backslash. Each distinct
    # text once, in that order.
    builds = {seg: built(seg) for seg in segments} if "$'" in command or "{" in command else {}
    plain = not builds and _QUOTE_CHARS.search(command) is None
    texts: Iterable[str] = (
        dict.fromkeys(segments)
        if plain
        else dict.fromkeys(
            text for seg in segments for text in (seg, strip_quoting(seg), builds.get(seg, seg))
        )
    )
    match = lists.match_anchored
    for text in texts:
        m = match(text)
        if m is None:
            continue
        if m.lastgroup != "wrap":
            return lists.anchored_rules[int(m.lastgroup[1:])].name, text  # type: ignore[index]
        # Only the first wrapper of a segment opens positions, so the
        # work stays linear in the input (`xargs xargs xargs ...`).
        for count, word in enumerate(_WORD.finditer(text, m.end())):
            if count >= WRAPPER_REACH:
                break
            sub = match(text, word.start())
            if sub is not None and sub.lastgroup != "wrap":
                return (
                    lists.anchored_rules[int(sub.lastgroup[1:])].name,  # type: ignore[index]
                    text[word.start() :],
                )
    # Anywhere-entries only look behind at blanks and the very characters
    # the blocklist split cuts at, so matching the whole command (raw and
    # stripped) is the same as matching every segment.
    # (A plain command is its own stripped text.)
    anywhere = lists.anywhere.search
    for text in (
        (command,)
        if plain
        else dict.fromkeys(
            (command, strip_quoting(command), *((" ; ".join(builds.values()),) if builds else ()))
        )
    ):
        if anywhere(text) is not None:
            for rule, single in zip(lists.anywhere_rules, lists.anywhere_singles, strict=True):
                if single.search(text) is not None:
                    return rule.name, text
        if "jq" in text:
            jq = bp.JQ_WORD.search(text)
            if jq is not None and bp.JQ_ENV.search(text, jq.end()) is not None:
                return bp.JQ_RULE.name, text
    return None


def _user_destructive(
    command: str, patterns: tuple[UserPattern, ...], budget: Budget
) -> tuple[str, str] | None:
    """(pattern, text) of the first user destructive pattern that matches a
    blocklist segment or the whole command, raw or stripped, or None."""
    texts: dict[str, None] = {}
    for seg in [*blocklist_segments(command), command]:
        texts[seg] = None
        texts[strip_quoting(seg)] = None
        texts[built(seg)] = None
    for text in texts:
        for p in patterns:
            if budget.search(p, text):
                return p.source, text
    return None


# -- the check ---------------------------------------------------------------


#: The sources under which no user pattern runs.
_NO_USER = ("built-in", "none")


def check_command(command: object, policy: BashPolicy, budget: Budget | None = None) -> Decision:
    """Decide one command under `policy` (opl-modes.md § Mode behavior).

    A command that is not a string is blocked, never coerced. An unrestricted
    mode allows every string. Otherwise: a policy with unusable patterns
    blocks (fail closed); an empty or blank command is blocked as
    "(empty command)" (reference choice); the destructive patterns are tested
    against the command and each blocklist segment, with and without quotes
    and backslashes, and every allowlist segment must match a safe pattern
    (checked first; the order only changes which reason is given).
    """
    if not isinstance(command, str):
        return Decision(False, f"command is not a string ({type(command).__name__}); nothing was run")
    if policy.unrestricted:
        return Decision(True, None, tuple(allowlist_segments(command)))
    segments = tuple(allowlist_segments(command))
    if policy.problems:
        return Decision(False, policy.problems[0], segments)
    if not segments:
        return Decision(False, EMPTY_COMMAND, segments, blocked_segment=EMPTY_COMMAND)

    if budget is None and (policy.safe_source not in _NO_USER or policy.destructive_source not in _NO_USER):
        # Only user patterns spend a budget: the built-in lists are ours.
        budget = Budget.start()
    try:
        # The safe list first: it usually decides a blocked command sooner.
        if policy.safe_source == "built-in":
            safe = bp.compiled_builtins().safe
            for seg in segments:
                if safe.search(seg) is None:
                    return Decision(
                        False, f"segment {seg!r} is not in the safe list", segments, blocked_segment=seg
                    )
        elif policy.safe_source != "none":
            user = compile_patterns(policy.safe_patterns)
            for seg in segments:
                if not any(budget.search(p, seg) for p in user):  # type: ignore[union-attr]
                    return Decision(
                        False,
                        f"segment {seg!r} matches none of the safe patterns",
                        segments,
                        blocked_segment=seg,
                    )

        if policy.destructive_source != "none":
            # reference-choices.md § Both shell gates: what the blocklist
            # cannot read without running the shell is blocked.
            expands = EXPANDS.search(command) is not None
            # Only a segment with an expansion asks whether the line moved.
            moved = expands and "cd" in command and any(seg.split()[:1] == ["cd"] for seg in segments)
            away: str | None = None
            for seg in segments:
                if away is not None:
                    return Decision(
                        False,
                        f"segment {seg!r} runs after `cd {away}`, which may leave the working tree: "
                        "its relative names are places the blocklist cannot see",
                        segments,
                        blocked_segment=seg,
                        pattern=UNKNOWABLE,
                    )
                if seg.startswith("cd"):
                    away = leaves_tree(seg)
                if not expands:
                    continue
                why = unknowable(seg, moved)
                if why is not None:
                    return Decision(
                        False,
                        f"segment {seg!r}: {why}",
                        segments,
                        blocked_segment=seg,
                        pattern=UNKNOWABLE,
                    )

        hit: tuple[str, str] | None = None
        if policy.destructive_source == "built-in":
            hit = _builtin_destructive(command, segments)
        elif policy.destructive_source != "none":
            hit = _user_destructive(command, compile_patterns(policy.destructive_patterns), budget)  # type: ignore[arg-type]
        if hit is not None:
            pattern, text = hit
            return Decision(
                False,
                f"destructive pattern {pattern!r} matches {text!r}",
                segments,
                blocked_segment=text,
                pattern=pattern,
            )
    except PatternTimeout as out:
        return Decision(
            False,
            f"mode {policy.mode!r}: pattern {out.pattern!r} ran out of its time "
            "budget on this command, so it is blocked",
            segments,
            pattern=out.pattern,
        )
    return Decision(True, None, segments)


#: Policies already resolved, by mode and the JSON text of the document: a
#: run sends a handful of documents thousands of times, and resolving one
#: (built-in lists, pattern checks) costs more than deciding a command.
_POLICIES: dict[tuple[str, str | None], BashPolicy] = {}
_POLICIES_MAX = 256


def policy_of(config: Mapping[str, Any] | None, mode: str) -> BashPolicy:
    """:func:`resolve_bash_policy`, resolved once per mode and document (a
    document without an exact JSON text is resolved every time)."""
    text = None if config is None else json_text(config)
    if config is not None and text is None:
        return resolve_bash_policy(config, mode)
    key = (mode, text)
    policy = _POLICIES.get(key)
    if policy is None:
        if len(_POLICIES) >= _POLICIES_MAX:
            _POLICIES.clear()
        policy = _POLICIES[key] = resolve_bash_policy(config, mode)
    return policy


def check(command: object, mode: str, config: Mapping[str, Any] | None = None) -> Decision:
    """Decide `command` in `mode` under the raw opl-modes.json `config`."""
    return check_command(command, policy_of(config, mode))


def explain(command: str, mode: str, config: dict[str, Any] | None) -> dict[str, Any]:
    """The gate's answer for people and the `planmode check --extension
    oplmodes` command: {"allowed", "reason", "segments"} plus the policy's
    sources (opl-modes.md § Mode behavior)."""
    policy = resolve_bash_policy(config, mode)
    decision = check_command(command, policy)
    return {
        "allowed": decision.allowed,
        "reason": decision.reason,
        "segments": list(decision.segments),
        "blockedSegment": decision.blocked_segment,
        "pattern": decision.pattern,
        "policy": {"unrestricted": policy.unrestricted, **policy.source, "problems": list(policy.problems)},
    }
