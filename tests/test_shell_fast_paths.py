"""The limited-shell segmenters' fast paths answer exactly as their slow
paths: PowerShell's grammar expression and resumed scan as the plain
word-by-word scan from the start, Bash's blank split of an unquoted
segment as its word expression."""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pytest_planmode.reference.shell import bash_segments, powershell_segments
from pytest_planmode.reference.shell.segments import Parse

PIECES = [
    " ", "\t", ";", "|", "||", "&", "(", "'", '"', "''", '""', "@", "#", "::", ":", "a", "ls", "Get-Item",
    "x.txt", "-Path", "'a b'", '"a b"', "'it''s'", '"say ""hi"""', "$", "`", "\u00a0", "\u2013", "[", "{",
    "--%", "\\", "=", "~", "*",
]  # fmt: skip

commands = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


def scanned(command: str) -> Parse:
    """What the scanner alone answers (the path before the fast one)."""
    fast = powershell_segments.segment_powershell
    if not command or command.isspace() or powershell_segments._ANYWHERE.search(command) or "--%" in command:
        return fast(command)
    return powershell_segments._scan(command, 0)


@given(commands)
@example("Get-ChildItem || Get-Location")
@example("ls ; ls | a::b")
@example("ls | ls ; @x")
@example("echo 'a''b' | ls '")
@example("ls\t;\tls")
@example("ls ;| ls")
def test_powershell_fast_path_answers_as_the_scanner(command: str) -> None:
    assert powershell_segments.segment_powershell(command) == scanned(command)


@pytest.mark.parametrize("seed", range(3))
def test_powershell_long_inputs_answer_as_the_scanner(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(50):
        head = " ; ".join(
            rng.choice(["ls", "Get-Item 'a b'", 'echo "x""y"', "ls -Path ."]) for _ in range(200)
        )
        tail = "".join(rng.choice(PIECES) for _ in range(8))
        command = f"{head} {rng.choice([';', '|', ''])} {tail}"
        assert powershell_segments.segment_powershell(command) == scanned(command), command


@given(st.lists(st.sampled_from(["a", "ls", "-l", "x=1", "~", "*", " ", "\t", "\u00a0", "f:~"]), max_size=20))
def test_bash_blank_split_of_an_unquoted_segment_matches_the_word_expression(parts: list[str]) -> None:
    text = "".join(parts).strip(" \t")
    if not text:
        return
    segment = bash_segments._segment(text)
    assert segment.raw_words == tuple(bash_segments._WORDS.findall(text))


BASH_PIECES = [
    "a",
    "'a b'",
    '"x y"',
    "'$x'",
    '"$x"',
    "\\ ",
    "~",
    "x=~",
    "'='~",
    "*",
    " ",
    '""',
    "''",
    "'a'\"b\"",
    '"it\'s"',
    "'say \"hi\"'",
    "'\\'",
    '"a\\"b"',
]


@given(st.lists(st.sampled_from(BASH_PIECES), max_size=12))
@example(["'a'\"b\"'c'"])
@example(['"a"', "~"])
def test_bash_quoted_words_have_the_values_of_the_piece_walk(parts: list[str]) -> None:
    text = bash_segments._trim("".join(parts))
    if not text or bash_segments._GRAMMAR.fullmatch(text) is None:
        return
    segment = bash_segments._segment(text)
    walked = [
        bash_segments._quoted_word(raw) if bash_segments._QUOTING.search(raw) else (raw, None)
        for raw in bash_segments._WORDS.findall(text)
    ]
    assert list(segment.words) == [value for value, _ in walked]
    if any(why is not None for _, why in walked):
        assert segment.expansion is not None


@given(
    st.lists(
        st.sampled_from(["a", "'a b'", '"x y"', "'it''s'", '"say ""hi"""', "''", '""', " "]), max_size=12
    )
)
def test_powershell_quoted_words_have_the_values_of_the_piece_walk(parts: list[str]) -> None:
    text = "".join(parts).strip(" \t")
    if not text or powershell_segments._GRAMMAR.fullmatch(text) is None:
        return
    segment = powershell_segments._segment(text)
    assert list(segment.words) == [powershell_segments._word(raw, 0) for raw in segment.raw_words]


# -- plain Bash submissions ------------------------------------------------------

PLAIN_PIECES = [
    " ", "\t", " && ", " || ", " | ", "; ", ";", "|", "&", "&&", "|||", ";;", "&&&", "ls", "-la", "git", "status",
    "if", "!", "]]", "}", "done", "x=1", "a.txt", "\u00a0", "\u2013", "--x=y", "-", "=", ":", "%", "@", "!x",
]  # fmt: skip


def general(command: str) -> Parse:
    """What the general scanner answers (grammar, split, word expression)."""
    saved = bash_segments._NOT_PLAIN
    bash_segments._NOT_PLAIN = bash_segments.re.compile(r"[\s\S]")  # every input is "not plain"
    try:
        return bash_segments.segment_bash(command)
    finally:
        bash_segments._NOT_PLAIN = saved


@given(st.lists(st.sampled_from(PLAIN_PIECES), max_size=25).map("".join))
@example("ls -la && git status | wc -l")
@example("ls ;; ls")
@example("if x")
@example("ls & ls")
@example("ls |||ls")
@example("done")
@example("ls\t-l\t")
@example("ls && ls && ls")
def test_bash_plain_path_answers_as_the_general_scanner(command: str) -> None:
    assert bash_segments.segment_bash(command) == general(command)


def test_bash_plain_path_is_taken_for_plain_input() -> None:
    # A plain submission never reaches the grammar expression.
    saved = bash_segments._GRAMMAR
    bash_segments._GRAMMAR = None  # type: ignore[assignment]
    try:
        parsed = bash_segments.segment_bash("grep -rn TODO src | head -n 20 ; ls")
    finally:
        bash_segments._GRAMMAR = saved
    assert [s.words for s in parsed.segments] == [
        ("grep", "-rn", "TODO", "src"),
        ("head", "-n", "20"),
        ("ls",),
    ]


# -- the one-pass decision of plain Bash submissions ---------------------------------

DECISION_PIECES = [
    *PLAIN_PIECES, "cat", "rm", "-rf", "--delete", "--del", "sort", "-o", "find", "-exec", "npm", "test",
    "/proc/self/environ", "environ", "env", "kubectl", "get", "log", "--output=x", "-C", "..", "/etc",
    "tsc", "--noEmit", "uniq", "b", "go", "-exec=x", "echo", "GIT_PAGER=x", "branch", "diff",
]  # fmt: skip


def scanner_decision(command: str) -> object:
    """The verdict through the scanner's parse (the path before the one-pass one)."""
    from pytest_planmode.reference.planmode.bash_policy import check_bash_segment
    from pytest_planmode.reference.planmode.safe_subcommand_match import NO_TRUST
    from pytest_planmode.reference.planmode.shell_verdict import decide

    return decide(command, general(command), "/srv/p", NO_TRUST, check_bash_segment)


@given(st.lists(st.sampled_from(DECISION_PIECES), max_size=25).map("".join))
@example("ls && ls && rm -rf x && ls")
@example("ls | ls || cat a ; ls")
@example("ls &&& ls")
@example("ls ||| ls")
@example("cat a;cat a;sort -o x")
@example("git branch x | ls")
@example("ls && kubectl get && rm -rf x && kubectl get")
@example("sort -o y | rm x | sort -o y")
def test_the_one_pass_decision_of_a_plain_submission_is_the_scanners(command: str) -> None:
    from pytest_planmode.reference.planmode.bash_policy import check_bash_uncached

    assert check_bash_uncached(command, "/srv/p") == scanner_decision(command)


def test_a_megabyte_chain_is_decided_as_through_the_scanner() -> None:
    from pytest_planmode.reference.planmode.bash_policy import check_bash_uncached

    for chain in (
        "ls && " * 30_000 + "rm -rf /",
        "ls ; " * 30_000 + "ls",
        "cat a | " * 30_000 + "wc -l",
        "ls && " * 30_000 + "rm x && " + "ls && " * 30_000 + "kubectl get && rm x",
    ):
        assert check_bash_uncached(chain, "/srv/p") == scanner_decision(chain)


# -- the option tables of the Bash policy -----------------------------------------

OPTION_WORDS = [
    "-n", "-rn", "-la", "-i", "-delete", "--delete", "--del", "--in-place=x", "--output", "-o", "--exec",
    "-exec", "-fprint", "--write", "-w", "--fix", "-", "--", "x", "-ex", "--test.run", "-test.v", "--PROJECT",
    "-p", "--outputFile.json", "--text", "--textconv", "-C", "-e", "-f/proc/self/environ", "--config",
]  # fmt: skip


def test_the_remembered_option_answers_are_program_rules_answers() -> None:
    from pytest_planmode.reference.planmode import bash_policy, program_rules

    rules = [program_rules.GLOBAL_FORBIDDEN]
    for rule in program_rules.PROGRAMS.values():
        rules.append(rule.options)
        rules.extend(sub.options for sub in rule.subcommands)
    rng = random.Random(5)
    for rule in rules:
        for _ in range(40):
            words = tuple(rng.choices(OPTION_WORDS, k=rng.randint(0, 5)))
            expected = program_rules.first_forbidden(words, rule)
            assert bash_policy.first_forbidden(words, rule) == expected, (words, rule)
            # Asked again, from the table.
            assert bash_policy.first_forbidden(words, rule) == expected, (words, rule)


# -- opl-modes policies resolved once per document ---------------------------------


def test_an_opl_policy_is_resolved_once_per_document_and_answers_as_resolving_it() -> None:
    from pytest_planmode.reference.json_values import json_text
    from pytest_planmode.reference.oplmodes.bash_gate import policy_of, resolve_bash_policy

    listed = {"bashPatterns": {"safePatterns": ["^ls$"]}, "modes": {"x": {"tools": ["bash"]}}}
    as_tuple = {"bashPatterns": {"safePatterns": ("^ls$",)}, "modes": {"x": {"tools": ["bash"]}}}
    for config in (None, {}, listed, {"modes": {"plan": {"unrestrictedBash": True}}}):
        for mode in ("plan", "execute", "x", "unknown"):
            first = policy_of(config, mode)  # type: ignore[arg-type]
            assert first == resolve_bash_policy(config, mode)  # type: ignore[arg-type]
            assert policy_of(config, mode) is first  # type: ignore[arg-type]
    # A tuple is not a JSON array: the same text, another document.
    assert json_text(as_tuple) is None and json_text(listed) is not None
    assert policy_of(as_tuple, "x") == resolve_bash_policy(as_tuple, "x")
    assert policy_of(as_tuple, "x") != policy_of(listed, "x")
    assert json_text({1: "a"}) is None and json_text({"a": float("nan")}) is None
    assert json_text(True) != json_text(1)
