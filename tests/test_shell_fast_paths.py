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
