"""Properties of pi-plan-mode's limited shells that hold for any target
(pi-plan-mode-settings.md § Safe shell subcommands; reference-choices.md
§ pi-plan-mode: limited Bash and § limited PowerShell)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pytest_planmode.strategies import planmode_shell as s

#: The section a failure of these checks cites (a marker's `spec=` overrides it).
SPEC = "pi-plan-mode-settings.md § Safe shell subcommands"

BASH = "planmode.bash.check"
PS = "planmode.powershell.check"
CWD = "/srv/project"
KUBECTL_APPLY = {"kubectl": ["apply"]}


def _check(target: Any, op: str, command: str, safe: dict[str, list[str]] | None = None) -> dict[str, Any]:
    inp: dict[str, Any] = {"command": command, "cwd": CWD}
    if safe is not None:
        inp["safeSubcommands"] = safe
    out: dict[str, Any] = target.call(op, inp)
    return out


def _spoiled(target: Any, op: str, segment: str, spoiler: str) -> tuple[str, dict[str, Any]]:
    """An allowed segment with unsupported syntax appended, and the verdict on it."""
    assume(_check(target, op, segment)["allowed"])
    command = segment + spoiler
    out = _check(target, op, command)
    assert out["allowed"] is False, f"{command!r} was allowed"
    return command, out


def _respaced(
    target: Any, op: str, chain: tuple[list[str], list[str]], blanks: list[str]
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """One chain written with single spaces and with `blanks` around its
    operators, and the verdicts on both."""
    segments, operators = chain
    plain = s.join_chain(segments, operators, [" "] * 8)
    spaced = s.join_chain(segments, operators, blanks)
    first = _check(target, op, plain)
    second = _check(target, op, spaced)
    assert first["allowed"] == second["allowed"], f"{plain!r} vs {spaced!r}"
    return plain, first, second


def _chain_agrees_with_segments(
    target: Any,
    op: str,
    segments: list[str],
    operators: list[str],
    safe: dict[str, list[str]] | None = None,
    *,
    pin_text: bool = False,
) -> None:
    command = s.join_chain(segments, operators, [" "] * (2 * len(operators)))
    whole = _check(target, op, command, safe)
    alone = [_check(target, op, segment, safe) for segment in segments]
    first_blocked = next((seg for seg, out in zip(segments, alone, strict=True) if not out["allowed"]), None)
    if first_blocked is None:
        assert whole["allowed"] is True, (
            f"{command!r} blocked although every segment is allowed alone: {whole}"
        )
        if pin_text:
            assert whole["blocked"] is None
    else:
        assert whole["allowed"] is False, f"{command!r} allowed although {first_blocked!r} is blocked alone"
        if pin_text:
            assert whole["blocked"] == first_blocked, (
                f"{command!r}: reported {whole['blocked']!r}, the first blocked segment is {first_blocked!r}"
            )


@pytest.mark.planmode(operation=BASH, level="must", id="planmode.bash.property.chain-iff-segments")
@given(chain=s.chains(s.bash_segments, s.BASH_OPERATORS))
def test_bash_chain_allowed_iff_every_segment_allowed(
    planmode_target: Any, chain: tuple[list[str], list[str]]
) -> None:
    segments, operators = chain
    _chain_agrees_with_segments(planmode_target, BASH, segments, operators)


@pytest.mark.planmode(operation=PS, level="must", id="planmode.powershell.property.chain-iff-segments")
@given(chain=s.chains(s.powershell_segments, s.POWERSHELL_OPERATORS))
def test_powershell_chain_allowed_iff_every_segment_allowed(
    planmode_target: Any, chain: tuple[list[str], list[str]]
) -> None:
    segments, operators = chain
    _chain_agrees_with_segments(planmode_target, PS, segments, operators)


# Which segment a block names is a reference choice (reference-choices.md § pi-plan-mode:
# limited Bash: "The block message names the first blocked segment"); the spec only states
# which submissions are blocked.
@pytest.mark.planmode(
    operation=BASH,
    level="reference",
    id="planmode.bash.property.chain-names-first-blocked",
    explains=("blocked",),
)
@given(chain=s.chains(s.bash_segments, s.BASH_OPERATORS))
def test_bash_chain_names_the_first_blocked_segment(
    planmode_target: Any, chain: tuple[list[str], list[str]]
) -> None:
    segments, operators = chain
    _chain_agrees_with_segments(planmode_target, BASH, segments, operators, pin_text=True)


@pytest.mark.planmode(
    operation=PS,
    level="reference",
    id="planmode.powershell.property.chain-names-first-blocked",
    explains=("blocked",),
)
@given(chain=s.chains(s.powershell_segments, s.POWERSHELL_OPERATORS))
def test_powershell_chain_names_the_first_blocked_segment(
    planmode_target: Any, chain: tuple[list[str], list[str]]
) -> None:
    segments, operators = chain
    _chain_agrees_with_segments(planmode_target, PS, segments, operators, pin_text=True)


@pytest.mark.planmode(operation=BASH, level="must", id="planmode.bash.property.spoiler-blocks")
@given(segment=s.allowed_bash_segments, spoiler=s.bash_spoilers)
def test_bash_redirect_substitution_backtick_background_block(
    planmode_target: Any, segment: str, spoiler: str
) -> None:
    command, _ = _spoiled(planmode_target, BASH, segment, spoiler)
    trusted = _check(
        planmode_target, BASH, command, {segment.split()[0]: [" ".join(segment.split()[1:]) or "x"]}
    )
    assert trusted["allowed"] is False, f"{command!r} allowed once its prefix was trusted"


@pytest.mark.planmode(
    operation=BASH,
    level="reference",
    id="planmode.bash.property.spoiler-names-complete-input",
    explains=("blocked",),
)
@given(segment=s.allowed_bash_segments, spoiler=s.bash_spoilers)
def test_bash_unsupported_syntax_names_the_complete_input(
    planmode_target: Any, segment: str, spoiler: str
) -> None:
    command, out = _spoiled(planmode_target, BASH, segment, spoiler)
    assert out["blocked"] == command, (
        f"{command!r}: unsupported syntax reports the complete input, got {out['blocked']!r}"
    )


# The spec names redirects, unquoted substitutions, multiline input and the missing && / ||;
# a backtick escape (`n) is unsupported only by reference-choices.md § limited PowerShell.
_SPEC_POWERSHELL_SPOILERS = s.powershell_spoilers.filter(lambda spoiler: "`" not in spoiler)


@pytest.mark.planmode(operation=PS, level="must", id="planmode.powershell.property.spoiler-blocks")
@given(segment=s.allowed_powershell_segments, spoiler=_SPEC_POWERSHELL_SPOILERS)
def test_powershell_spoilers_block(planmode_target: Any, segment: str, spoiler: str) -> None:
    _spoiled(planmode_target, PS, segment, spoiler)


@pytest.mark.planmode(
    operation=PS,
    level="reference",
    id="planmode.powershell.property.spoiler-names-complete-input",
    explains=("blocked",),
)
@given(segment=s.allowed_powershell_segments, spoiler=s.powershell_spoilers)
def test_powershell_unsupported_syntax_names_the_complete_input(
    planmode_target: Any, segment: str, spoiler: str
) -> None:
    command, out = _spoiled(planmode_target, PS, segment, spoiler)
    assert out["blocked"] == command


def _per_shell(level: str, name: str, **kwargs: Any) -> pytest.MarkDecorator:
    """One check per limited shell, each with its own id, so a port of one
    shell meets its share (a Bash-only port meets every Bash property)."""
    return pytest.mark.parametrize(
        "op",
        [
            pytest.param(
                op,
                id=shell,
                marks=pytest.mark.planmode(
                    operation=op, level=level, id=f"planmode.{shell}.property.{name}", **kwargs
                ),
            )
            for shell, op in (("bash", BASH), ("powershell", PS))
        ],
    )


@_per_shell("must", "whitespace-around-operators")
@given(
    chain=s.chains(s.bash_segments, s.BASH_OPERATORS),
    blanks=st.lists(s.BLANKS, min_size=8, max_size=8),
)
def test_whitespace_around_operators_never_changes_the_verdict(
    planmode_target: Any, chain: tuple[list[str], list[str]], blanks: list[str], op: str
) -> None:
    _respaced(planmode_target, op, chain, blanks)


@_per_shell("reference", "whitespace-names-same-segment", explains=("blocked",))
@given(
    chain=s.chains(s.bash_segments, s.BASH_OPERATORS),
    blanks=st.lists(s.BLANKS, min_size=8, max_size=8),
)
def test_whitespace_around_operators_never_changes_the_named_segment(
    planmode_target: Any, chain: tuple[list[str], list[str]], blanks: list[str], op: str
) -> None:
    plain, first, second = _respaced(planmode_target, op, chain, blanks)
    if not first["allowed"] and first["blocked"] != plain:
        # A segment was named: the same one, whatever the blanks.
        assert first["blocked"] == second["blocked"], (
            f"{plain!r}: {first['blocked']!r} vs {second['blocked']!r}"
        )


@pytest.mark.planmode(operation=BASH, level="must", id="planmode.bash.property.trust-stays-local")
@given(
    before=st.lists(s.allowed_bash_segments, max_size=2),
    unsafe=s.unsafe_bash_segments,
    after=st.lists(s.allowed_bash_segments, max_size=2),
    operators=st.lists(s.BASH_OPERATORS, min_size=6, max_size=6),
    trusted_at=st.integers(min_value=0, max_value=5),
)
def test_trusting_a_prefix_never_admits_another_unsafe_segment(
    planmode_target: Any,
    before: list[str],
    unsafe: str,
    after: list[str],
    operators: list[str],
    trusted_at: int,
) -> None:
    _trust_stays_local(planmode_target, before, unsafe, after, operators, trusted_at, pin_text=False)


@pytest.mark.planmode(
    operation=BASH,
    level="reference",
    id="planmode.bash.property.trust-stays-local-named",
    explains=("blocked",),
)
@given(
    before=st.lists(s.allowed_bash_segments, max_size=2),
    unsafe=s.unsafe_bash_segments,
    after=st.lists(s.allowed_bash_segments, max_size=2),
    operators=st.lists(s.BASH_OPERATORS, min_size=6, max_size=6),
    trusted_at=st.integers(min_value=0, max_value=5),
)
def test_the_untrusted_unsafe_segment_is_the_one_named(
    planmode_target: Any,
    before: list[str],
    unsafe: str,
    after: list[str],
    operators: list[str],
    trusted_at: int,
) -> None:
    _trust_stays_local(planmode_target, before, unsafe, after, operators, trusted_at, pin_text=True)


def _trust_stays_local(
    planmode_target: Any,
    before: list[str],
    unsafe: str,
    after: list[str],
    operators: list[str],
    trusted_at: int,
    *,
    pin_text: bool,
) -> None:
    alone = _check(planmode_target, BASH, unsafe, KUBECTL_APPLY)
    assume(not alone["allowed"])
    segments = [*before, unsafe, *after]
    segments.insert(min(trusted_at, len(segments)), "kubectl apply -f deployment.yaml")
    command = s.join_chain(segments, operators[: len(segments) - 1], [" "] * 12)
    out = _check(planmode_target, BASH, command, KUBECTL_APPLY)
    assert out["allowed"] is False, f"{command!r} was allowed with only kubectl apply trusted"
    if pin_text:
        assert out["blocked"] == unsafe, f"{command!r}: reported {out['blocked']!r}, expected {unsafe!r}"


@_per_shell("must", "any-text-decided")
@given(text=s.shell_text)
def test_any_text_is_decided(planmode_target: Any, text: str, op: str) -> None:
    out = _check(planmode_target, op, text)
    assert isinstance(out["allowed"], bool), f"{text!r}: allowed is {out['allowed']!r}"


# Which text a block names is a reference choice (reference-choices.md § pi-plan-mode:
# limited Bash); the verdict itself is judged by `any-text-decided`.
@_per_shell("reference", "blocked-iff-denied", explains=("blocked",))
@given(text=s.shell_text)
def test_any_text_is_decided_and_blocked_is_null_exactly_when_allowed(
    planmode_target: Any, text: str, op: str
) -> None:
    out = _check(planmode_target, op, text)
    assert isinstance(out["allowed"], bool)
    if out["allowed"]:
        assert out["blocked"] is None, f"{text!r} allowed but blocked={out['blocked']!r}"
    else:
        assert isinstance(out["blocked"], str) and out["blocked"], f"{text!r} blocked without naming what"


blank_texts = st.lists(st.sampled_from(["", " ", "\t"]), max_size=6).map("".join)


# Reference level: the spec names no verdict for a blank submission; the reference blocks it
# (reference-choices.md § pi-plan-mode: limited Bash). The verdict alone, for any target.
@_per_shell("reference", "blank-blocked")
@given(text=blank_texts)
def test_a_blank_submission_is_blocked(planmode_target: Any, text: str, op: str) -> None:
    out = _check(planmode_target, op, text)
    assert out["allowed"] is False, f"the blank submission {text!r} was allowed"


# Which text the block names is an explanation (`blocked`); `blank-blocked` judges the verdict.
@_per_shell("reference", "blank-is-empty-command", explains=("blocked",))
@given(text=blank_texts)
def test_a_blank_submission_is_blocked_as_empty_command(planmode_target: Any, text: str, op: str) -> None:
    out = _check(planmode_target, op, text)
    assert out["allowed"] is False and out["blocked"] == "(empty command)", f"{text!r}: {out}"


_LARGE_INPUTS = [
    ("one-word", "echo " + "a" * (1 << 20), True),
    ("many-words", "echo " + "ab " * ((1 << 20) // 3), True),
    ("many-segments", "ls && " * ((1 << 20) // 6) + "ls", True),
    ("redirect-at-the-end", "echo " + "a" * (1 << 20) + " > out", False),
    ("unsafe-last-segment", "ls && " * ((1 << 20) // 6) + "rm -rf /", False),
    ("ten-thousand-nested-substitutions", "echo " + "$(" * 10_000 + "x" + ")" * 10_000, False),
    ("unclosed-quote", "echo '" + "a" * (1 << 20), False),
    ("nul-at-the-end", "echo " + "a" * (1 << 20) + "\x00", False),
]


def _large_inputs(prefix: str, **marker: Any) -> pytest.MarkDecorator:
    return pytest.mark.parametrize(
        "command, allowed",
        [
            pytest.param(
                command,
                allowed,
                id=name,
                marks=pytest.mark.planmode(
                    operation=BASH, level="reference", id=f"planmode.bash.property.{prefix}.{name}", **marker
                ),
            )
            for name, command, allowed in _LARGE_INPUTS
        ],
    )


# Reference level: which programs are reviewed and how deep substitutions may nest are reference
# choices (reference-choices.md § pi-plan-mode: limited Bash). The verdict alone, for any target.
@_large_inputs("large-input-decided")
def test_megabyte_inputs_get_their_verdict(planmode_target: Any, command: str, allowed: bool) -> None:
    out = _check(planmode_target, BASH, command)
    assert out["allowed"] is allowed, f"a {len(command):,}-character submission: allowed is {out['allowed']}"


# Which text the block names is an explanation (`blocked`); `large-input-decided` judges the verdict.
@_large_inputs("large-input", explains=("blocked",))
def test_megabyte_inputs_are_decided(planmode_target: Any, command: str, allowed: bool) -> None:
    out = _check(planmode_target, BASH, command)
    assert out["allowed"] is allowed
    if not allowed and "rm -rf /" not in command:
        assert out["blocked"] == command, "unsupported syntax reports the complete input"
    if "rm -rf /" in command:
        assert out["blocked"] == "rm -rf /"
