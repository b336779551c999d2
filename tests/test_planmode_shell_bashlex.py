"""The limited-Bash scanner against independent readings of the same text.

1. bashlex (the project's Bash parser): for every generated submission in the
   supported grammar that both accept, the segments and their word values
   agree.
2. Real Bash, where it is installed, for the word values bashlex gets wrong.

bashlex deviates from Bash on a few quotings, which the generator therefore
avoids (and test 2 settles against Bash itself):
- a single-quoted piece or an escape after another quoted piece of the same
  word (`"a"b'c'` and `'a''b'` keep their inner quotes, `''\\'` reads as
  `'\\`);
- a backslash before an ordinary character inside double quotes (`"\\q"`
  loses the backslash; Bash keeps it);
- the other quote character, or a backslash inside single quotes, in a
  quoted piece that follows other text (`p'a"b'` reads as `pab`, Bash gives
  `pa"b`; `p'\\'` reads as `p'`, Bash gives `p\\`).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_planmode.reference.planmode.bash_policy import check_bash
from pytest_planmode.reference.shell.bash_segments import segment_bash
from pytest_planmode.reference.shell.bashlex_oracle import parse_chain

# Ordinary characters: everything the grammar treats literally, globs
# included (bashlex keeps them unexpanded, as the scanner's value does).
ORDINARY = "abcxyz019_-./,:=@%+^]}*?"
plain = st.text(alphabet=ORDINARY, min_size=1, max_size=6)
single_quoted = st.text(alphabet=ORDINARY + " |&;<>()$!#{[~", max_size=6).map(lambda s: f"'{s}'")
double_inner = st.lists(
    st.one_of(
        st.text(alphabet=ORDINARY + " |&;<>()!#{[~", min_size=1, max_size=4),
        st.sampled_from(['\\"', "\\\\"]),
    ),
    max_size=3,
).map("".join)
double_quoted = double_inner.map(lambda s: f'"{s}"')
escaped = st.sampled_from(list(" |&;<>()'\"\\$#{}[]*?~!")).map(lambda c: "\\" + c)


@st.composite
def words(draw: st.DrawFn, first: bool = False) -> str:
    pieces = draw(st.lists(st.sampled_from(["plain", "sq", "dq", "esc"]), min_size=1, max_size=3))
    text = ""
    quoted_before = False
    for kind in pieces:
        if kind in ("sq", "esc") and quoted_before:
            kind = "plain"  # bashlex deviation: see the module docstring
        if kind == "plain":
            part = draw(plain)
            if text == "" and part[0] == "~":
                part = "a" + part
        elif kind == "sq":
            part = draw(single_quoted)
            quoted_before = True
        elif kind == "dq":
            part = draw(double_quoted)
            quoted_before = True
        else:
            part = draw(escaped)
        text += part
    if first:
        # A command name: not a reserved word, not an assignment (bashlex
        # reads `a=1` as an assignment node), not a comment.
        text = "p" + text.replace("=", "x")
    return text


@st.composite
def submissions(draw: st.DrawFn) -> str:
    count = draw(st.integers(min_value=1, max_value=4))
    blanks = st.sampled_from([" ", "  ", "\t", " \t"])
    segments = []
    for _ in range(count):
        first = draw(words(first=True))
        rest = draw(st.lists(words(), max_size=3))
        segments.append(draw(blanks).join([first, *rest]))
    text = segments[0]
    for segment in segments[1:]:
        op = draw(st.sampled_from(["&&", "||", ";", "|"]))
        text += draw(st.sampled_from(["", " ", "\t"])) + op + draw(st.sampled_from(["", " ", "  "])) + segment
    return draw(st.sampled_from(["", " ", "\t"])) + text + draw(st.sampled_from(["", " "]))


def test_the_oracle_reads_a_chain_of_every_operator() -> None:
    # The comparison below skips inputs bashlex does not read; an oracle
    # that read none would make it vacuous.
    chain = "ls -l; pwd && echo 'a b' || true | wc -l"
    assert parse_chain(chain) == (("ls", "-l"), ("pwd",), ("echo", "a b"), ("true",), ("wc", "-l"))


@settings(max_examples=400, deadline=None)
@given(command=submissions())
@example(command="git log \"a b\" c\\ d && ls | wc -l ; echo 'x'y")
@example(command="grep 'a|b' f || echo \"x;y\"")
def test_segments_and_words_agree_with_bashlex(command: str) -> None:
    ours = segment_bash(command)
    theirs = parse_chain(command)
    assert ours.unsupported is None and not ours.empty, f"the scanner rejected generated {command!r}: {ours}"
    if theirs is None:
        return  # bashlex does not read it: nothing to compare
    words = tuple(segment.words for segment in ours.segments)
    assert words == theirs, f"{command!r}: scanner {words} vs bashlex {theirs}"


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("ab ;&|<>()'\"\\$`{}~#\t\n")), max_size=30))
def test_scanner_never_accepts_what_bashlex_reads_as_more_than_a_chain(text: str) -> None:
    """Where bashlex reads a redirect, a substitution, a subshell or a
    background job (it returns no chain), the scanner must not hand the same
    text to the policy as plain segments of the same words."""
    ours = segment_bash(text)
    if ours.unsupported is not None or ours.empty:
        return
    theirs = parse_chain(text)
    if theirs is None:
        return
    words = tuple(segment.words for segment in ours.segments)
    if words != theirs:
        # Only the documented bashlex quoting deviations may differ.
        assert "'" in text or "\\" in text, f"{text!r}: scanner {words} vs bashlex {theirs}"


@pytest.mark.parametrize(
    "command",
    [
        "echo $((1+2))",  # NotImplementedError in bashlex
        "case x in a) ls;; esac",  # NotImplementedError
        "echo " + "$(echo " * 400 + ")" * 400,  # RecursionError
        "coproc x",  # NotImplementedError
        "a | | b",  # ParsingError
    ],
)
def test_inputs_that_break_bashlex_are_blocked_not_crashes(command: str) -> None:
    assert parse_chain(command) is None
    verdict = check_bash(command, "/srv/project")
    assert verdict.allowed is False
    assert verdict.blocked == command


BASH = shutil.which("bash")


@pytest.mark.skipif(BASH is None, reason="no bash executable on this machine")
@pytest.mark.parametrize(
    "word",
    [
        "\"a\"b'c'",
        "'a''b'",
        "p'a\"b'",
        'p"\'"',
        "p'\\'",
        "''\\'",
        "'it'\\''s'",
        '"\\q"',
        '"a\\"b"',
        "a\\ b",
        '"a\\\\b"',
        "'a\\b'",
        "x\\'y",
        '"a""b"',
    ],
)
def test_word_values_match_real_bash_where_bashlex_differs(word: str) -> None:
    assert BASH is not None
    result = subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", f"printf '%s\\0' {word}"],
        capture_output=True,
        check=True,
    )
    expected = result.stdout.decode().split("\0")[:-1]
    parsed = segment_bash(f"printf x {word}")
    assert parsed.segments, parsed
    assert list(parsed.segments[0].words[2:]) == expected
