"""The reference's opl-modes Bash gate, tested directly: policy resolution,
the user-pattern guard, the scanner's invariants and the handler."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pytest_planmode.contract.oplmodes_bash import BashCheckInput
from pytest_planmode.reference.oplmodes import bash_gate, bash_patterns, bash_scanner, pattern_guard
from pytest_planmode.reference.oplmodes.bash_gate import check, explain, resolve_bash_policy
from pytest_planmode.reference.oplmodes.bash_scanner import allowlist_segments, blocklist_segments
from pytest_planmode.targets.reference.ops import handlers

REVIEW = {"modes": {"review": {"tools": ["read", "bash"], "safePatterns": ["^git", "^cat"]}}}


# -- policy -------------------------------------------------------------------


def test_chat_and_plan_use_the_built_in_lists() -> None:
    for mode in ("chat", "plan"):
        policy = resolve_bash_policy(None, mode)
        assert not policy.unrestricted
        assert policy.source == {"safe": "built-in", "destructive": "built-in", "mode": "gated"}
        assert policy.safe_patterns == bash_patterns.builtin_safe_patterns()
        assert policy.destructive_patterns == bash_patterns.builtin_destructive_patterns()
        assert policy.problems == ()


@pytest.mark.parametrize("mode", ["off", "execute"])
def test_off_and_execute_are_unrestricted_until_given_tools(mode: str) -> None:
    assert resolve_bash_policy(None, mode).unrestricted
    assert resolve_bash_policy({"modes": {mode: {"prompt": "x"}}}, mode).unrestricted
    pinned = resolve_bash_policy({"modes": {mode: {"tools": ["read", "bash"]}}}, mode)
    assert not pinned.unrestricted and pinned.safe_source == "built-in"


def test_shared_arrays_replace_and_mode_arrays_override() -> None:
    config = {
        "bashPatterns": {"safePatterns": ["^cat"], "destructivePatterns": [r"\brm\b"]},
        "modes": {"m": {"safePatterns": ["^ls"]}},
    }
    shared = resolve_bash_policy(config, "plan")
    assert (shared.safe_patterns, shared.safe_source) == (("^cat",), "bashPatterns")
    assert (shared.destructive_patterns, shared.destructive_source) == ((r"\brm\b",), "bashPatterns")
    own = resolve_bash_policy(config, "m")
    assert (own.safe_patterns, own.safe_source) == (("^ls",), "mode")
    assert own.destructive_source == "bashPatterns"


def test_empty_mode_array_means_no_policy_and_malformed_inherits() -> None:
    empty = resolve_bash_policy({"modes": {"m": {"safePatterns": []}}}, "m")
    assert (empty.safe_patterns, empty.safe_source) == ((), "none")
    assert check("node -e 1", "m", {"modes": {"m": {"safePatterns": []}}}).allowed
    malformed = resolve_bash_policy({"modes": {"m": {"safePatterns": ["^ls", 3]}}}, "m")
    assert malformed.safe_source == "built-in"
    assert not check("node -e 1", "m", {"modes": {"m": {"safePatterns": ["^ls", 3]}}}).allowed


def test_unknown_mode_is_gated_by_the_shared_base() -> None:
    policy = resolve_bash_policy({"bashPatterns": {"safePatterns": ["^cat"]}}, "ghost")
    assert not policy.unrestricted and not policy.known_mode
    assert policy.safe_patterns == ("^cat",)


def test_unrestricted_bash_true_only() -> None:
    assert resolve_bash_policy({"modes": {"plan": {"unrestrictedBash": True}}}, "plan").unrestricted
    assert not resolve_bash_policy({"modes": {"plan": {"unrestrictedBash": 1}}}, "plan").unrestricted
    assert not resolve_bash_policy({"modes": {"off": {"unrestrictedBash": False}}}, "off").unrestricted


def test_array_with_a_non_compiling_pattern_is_ignored_and_named() -> None:
    config = {"modes": {"review": {"safePatterns": ["^git", "(unclosed"]}}}
    policy = resolve_bash_policy(config, "review")
    assert policy.safe_source == "built-in" and not policy.problems
    assert len(policy.ignored) == 1
    assert "modes.review.safePatterns" in policy.ignored[0] and "'(unclosed'" in policy.ignored[0]
    assert check("ls", "review", config).allowed
    assert not check("node -e 1", "review", config).allowed


def test_built_in_patterns_compile_on_their_own() -> None:
    for pattern in (*bash_patterns.builtin_safe_patterns(), *bash_patterns.builtin_destructive_patterns()):
        re.compile(pattern)


# -- user-pattern guard -------------------------------------------------------


def test_user_patterns_are_compiled_once_per_tuple() -> None:
    first = pattern_guard.compile_patterns(("^git", "^cat"))
    assert pattern_guard.compile_patterns(("^git", "^cat")) is first
    assert pattern_guard.compile_patterns(("^cat", "^git")) is not first


def test_catastrophic_pattern_is_cut_off_and_blocks() -> None:
    config = {"modes": {"m": {"safePatterns": ["(a|aa)+$"]}}}
    command = "a" * 5000 + "!"
    decision = check(command, "m", config)
    assert not decision.allowed
    assert decision.pattern == "(a|aa)+$" and "time budget" in (decision.reason or "")


class _Clocks:
    """A wall clock and a CPU clock the fake searches below move by hand."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0


class _FakeCompiled:
    """A compiled pattern whose searches time out after taking `cpu` seconds of
    CPU per attempt (a busy machine gives little, a catastrophic pattern all),
    or match once `finish_on` attempts have been made."""

    def __init__(self, clocks: _Clocks, cpu_share: float, finish_on: int | None) -> None:
        self.clocks, self.cpu_share, self.finish_on = clocks, cpu_share, finish_on
        self.timeouts: list[float] = []

    def search(self, text: str, timeout: float) -> object | None:
        if self.finish_on is not None and len(self.timeouts) + 1 >= self.finish_on:
            self.clocks.cpu += 0.001
            return object()
        self.timeouts.append(timeout)
        self.clocks.wall += timeout
        self.clocks.cpu += timeout * self.cpu_share
        raise TimeoutError


def _budget(clocks: _Clocks) -> pattern_guard.Budget:
    return pattern_guard.Budget.start(0.25, lambda: clocks.wall, lambda: clocks.cpu)


def test_a_starved_search_is_tried_again_not_blocked() -> None:
    """Under load the thread gets a tenth of the wall time: the search is
    retried with more wall time and its verdict is the pattern's, not the
    machine's."""
    clocks = _Clocks()
    fake = _FakeCompiled(clocks, cpu_share=0.1, finish_on=3)
    pattern = pattern_guard.UserPattern("^ls", fake, None)
    assert _budget(clocks).search(pattern, "ls") is True
    assert fake.timeouts == [0.25, 0.5]


def test_each_starved_retry_doubles_the_wall_time() -> None:
    """Starved twice: the third attempt gets four times the budget, not two."""
    clocks = _Clocks()
    fake = _FakeCompiled(clocks, cpu_share=0.1, finish_on=4)
    pattern = pattern_guard.UserPattern("^ls", fake, None)
    assert _budget(clocks).search(pattern, "ls") is True
    assert fake.timeouts == [0.25, 0.5, 1.0]


def _never_finishing() -> tuple[_Clocks, _FakeCompiled, pattern_guard.UserPattern]:
    """A user pattern whose search spends all the CPU it gets and never ends."""
    clocks = _Clocks()
    fake = _FakeCompiled(clocks, cpu_share=1.0, finish_on=None)
    return clocks, fake, pattern_guard.UserPattern("(a|aa)+$", fake, None)


def test_a_search_that_spends_its_cpu_is_cut_off() -> None:
    clocks, fake, pattern = _never_finishing()
    with pytest.raises(pattern_guard.PatternTimeout):
        _budget(clocks).search(pattern, "aaa!")
    assert fake.timeouts == [0.25]


def test_a_search_cut_off_once_is_not_run_again_for_no_more_cpu() -> None:
    """The same pattern on the same text, cut off after spending its budget:
    a later check with the same budget is blocked without searching again;
    a check with more CPU time left searches."""
    clocks, fake, pattern = _never_finishing()
    with pytest.raises(pattern_guard.PatternTimeout):
        _budget(clocks).search(pattern, "aaaa!")
    assert fake.timeouts == [0.25]
    with pytest.raises(pattern_guard.PatternTimeout):
        _budget(clocks).search(pattern, "aaaa!")
    assert fake.timeouts == [0.25]
    with pytest.raises(pattern_guard.PatternTimeout):
        _budget(clocks).search(pattern, "aaa!")
    assert fake.timeouts == [0.25, 0.25]
    with pytest.raises(pattern_guard.PatternTimeout):
        pattern_guard.Budget.start(0.5, lambda: clocks.wall, lambda: clocks.cpu).search(pattern, "aaaa!")
    assert fake.timeouts == [0.25, 0.25, 0.5]


def test_a_starved_search_that_spent_the_budget_is_not_tried_again() -> None:
    """Starved attempts are retried with more wall time, but once one of them
    has run for the whole CPU budget without finishing, the search is cut
    off: a busy machine does not let a search run past its budget (and find
    a match an idle one would not)."""
    clocks = _Clocks()
    fake = _FakeCompiled(clocks, cpu_share=0.45, finish_on=4)
    pattern = pattern_guard.UserPattern("(a|aa)+$", fake, None)
    with pytest.raises(pattern_guard.PatternTimeout):
        _budget(clocks).search(pattern, "aaaaa!")
    assert fake.timeouts == [0.25, 0.5, 1.0]


def test_a_machine_too_busy_to_search_hits_the_wall_ceiling() -> None:
    clocks = _Clocks()
    fake = _FakeCompiled(clocks, cpu_share=0.0, finish_on=None)
    pattern = pattern_guard.UserPattern("^ls", fake, None)
    with pytest.raises(pattern_guard.PatternTimeout):
        _budget(clocks).search(pattern, "ls")
    assert clocks.wall == pytest.approx(0.25 * pattern_guard.WALL_FACTOR)


def test_catastrophic_destructive_pattern_blocks_too() -> None:
    config = {"modes": {"m": {"safePatterns": [".*"], "destructivePatterns": ["(a|aa)+$"]}}}
    assert not check("a" * 5000 + "!", "m", config).allowed


def test_spent_budget_blocks_without_searching() -> None:
    clock = iter([0.0, 10.0]).__next__
    budget = pattern_guard.Budget.start(0.25, clock)
    policy = resolve_bash_policy({"modes": {"m": {"safePatterns": ["^ls"]}}}, "m")
    decision = bash_gate.check_command("ls", policy, budget)
    assert not decision.allowed and decision.pattern == "^ls"


# -- scanner invariants -------------------------------------------------------

TEXT = st.text(alphabet=st.sampled_from(list("ab $()`'\"\\;&|<>\n\t")), max_size=60)


@given(TEXT)
def test_segments_are_trimmed_substrings(command: str) -> None:
    for seg in allowlist_segments(command):
        assert seg and seg == seg.strip() and seg in command
    for seg in blocklist_segments(command):
        assert seg and seg == seg.strip() and seg in command


@given(TEXT)
def test_check_never_raises_and_answers_a_bool(command: str) -> None:
    decision = check(command, "plan", None)
    assert isinstance(decision.allowed, bool)
    assert decision.allowed or decision.reason


def test_quoted_payload_is_split_out() -> None:
    assert allowlist_segments('echo "$(node -e 1)"') == ['echo "', "node -e 1"]
    assert allowlist_segments('grep "a|b" f') == ['grep "a|b" f']


# -- handler and explain --------------------------------------------------------


@pytest.mark.parametrize("value", [None, 0, True, ["ls"], {"c": "ls"}])
def test_handler_blocks_non_strings_in_every_mode(value: object) -> None:
    _, run = handlers()["oplmodes.bash.check"]
    for mode in ("off", "plan"):
        out = run(BashCheckInput.model_validate({"command": value, "mode": mode}))
        assert out.allowed is False and "not a string" in (out.reason or "")


def test_explain_names_no_pattern_source_for_an_unrestricted_mode() -> None:
    answer = explain("rm -rf build", "m", {"modes": {"m": {"unrestrictedBash": True}}})
    assert answer["allowed"] is True
    assert answer["policy"] == {
        "unrestricted": True,
        "safe": "none",
        "destructive": "none",
        "mode": "unrestrictedBash",
        "problems": [],
    }


def test_explain_shape() -> None:
    answer = explain("ls && node -e 1", "plan", None)
    assert answer["allowed"] is False
    assert answer["segments"] == ["ls", "node -e 1"]
    assert "node -e 1" in answer["reason"]
    assert explain("git log", "review", REVIEW)["allowed"] is True


def _fixture_commands() -> list[str]:
    import tomllib
    from pathlib import Path

    import pytest_planmode

    out: list[str] = []
    for path in sorted((Path(pytest_planmode.__file__).parent / "fixtures" / "oplmodes").glob("bash*.toml")):
        for group in tomllib.loads(path.read_text(encoding="utf-8"))["group"]:
            for case in group["case"]:
                command = case["input"].get("command")
                if isinstance(command, str):
                    out.append(command)
    return out


def test_exposed_destructive_strings_decide_like_the_gate() -> None:
    """Other tools read BashPolicy.destructive_patterns: used as plain user
    patterns they must decide every fixture command like the gate does."""
    wide = {"modes": {"wide": {"safePatterns": [".*"]}}}
    as_user = {
        "bashPatterns": {"destructivePatterns": list(bash_patterns.builtin_destructive_patterns())},
        **wide,
    }
    commands = _fixture_commands()
    assert len(commands) > 300
    differ = [c for c in commands if check(c, "wide", wide).allowed != check(c, "wide", as_user).allowed]
    assert differ == []


def test_without_the_regex_package_user_patterns_fail_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pattern_guard, "_regex", None)
    pattern_guard.compile_patterns.cache_clear()
    try:
        decision = check("git log", "review", REVIEW)
        assert not decision.allowed
        assert "'review'" in (decision.reason or "") and "cannot be used" in (decision.reason or "")
        assert check("ls", "plan", None).allowed, "the built-in lists do not need the package"
    finally:
        pattern_guard.compile_patterns.cache_clear()


@given(st.text(alphabet=st.sampled_from(list("ab -;&|\n\t")), max_size=60))
def test_without_quotes_or_substitutions_both_splits_agree(command: str) -> None:
    """Quotes, escapes and substitutions are the only places where the
    quote-aware scanner and the quote-blind split may differ."""
    assert allowlist_segments(command) == blocklist_segments(command)


@pytest.mark.parametrize("command", ["rm x", "ls && rm x", "ls | xargs rm", "ls > out"])
def test_destructive_reason_names_entry_and_text(command: str) -> None:
    decision = check(command, "wide", {"modes": {"wide": {"safePatterns": [".*"]}}})
    assert not decision.allowed
    assert decision.pattern and decision.blocked_segment
    assert decision.pattern in (decision.reason or "") and decision.blocked_segment in (decision.reason or "")


#: Every character either split or the command-position prefix treats
#: specially, plus words of the built-in lists.
_GATE_PIECES = st.sampled_from(
    [
        *"ab -;&|\n\r\t<>=/'\"\\$`(){}*.!",
        "rm",
        "cat",
        "git",
        "branch",
        "-d",
        "xargs",
        "sudo",
        "ls",
        "sort",
        "-o",
        "npm",
        "i",
        "python",
        "-m",
        "pip",
        "install",
        "X=1",
        "/bin/",
        "2>&1",
        "|&",
        "&>",
        "$(",
    ]
)
_GATE_TEXT = st.lists(_GATE_PIECES, max_size=16).map("".join)


@given(_GATE_TEXT)
@example("a &&> b")
@example("a |&& b ;; c\r\nd & e &> f 2>&1")
def test_the_scanner_fast_paths_cut_like_the_loop(command: str) -> None:
    assert allowlist_segments(command) == bash_scanner.scan_segments(command)


@given(_GATE_TEXT)
def test_the_blocklist_split_taken_from_the_allowlist_is_the_same(command: str) -> None:
    allowlist = allowlist_segments(command)
    assert bash_scanner.blocklist_segments_after(command, allowlist) == blocklist_segments(command)


def test_both_splits_differ_after_a_pipe_with_stderr() -> None:
    """Why `|&` takes the blind split: the scanner cuts `|&` once."""
    assert allowlist_segments("ls |&> f") == ["ls", "> f"]
    assert blocklist_segments("ls |&> f") == ["ls", "&> f"]
    assert bash_scanner.blocklist_segments_after("ls |&> f", ["ls", "> f"]) == ["ls", "&> f"]


@given(_GATE_TEXT, st.integers(min_value=0, max_value=20))
@example(" /bin/rm x", 0)  # blanks, then a first word with `/`
@example(" \tX=1 rm x", 0)
@example("xargs  nice rm", 5)
@example("  kill", 0)
def test_the_cut_down_alternation_matches_like_the_whole(text: str, pos: int) -> None:
    lists = bash_patterns.compiled_builtins()
    whole = lists.anchored.match(text, pos)
    cut = lists.match_anchored(text, pos)
    assert (whole is None) == (cut is None)
    if whole is not None and cut is not None:
        assert (whole.lastgroup, whole.span()) == (cut.lastgroup, cut.span())


def test_literal_prefixes_are_read_from_the_parse_tree() -> None:
    assert bash_patterns.literal_prefixes(r"(?:rm|mv)(?=\s)") == {"rm", "mv"}
    assert bash_patterns.literal_prefixes(r"git[ \t]+x") == {"git"}
    assert bash_patterns.literal_prefixes(r"(?:py|pip)[ \t]") == {"py ", "py\t", "pip"}
    # Nothing known: an optional start, a look-around, a case-insensitive group.
    for pattern in (r"a?b", r"(?=a)a", r"(?i:ab)", r"\w+"):
        assert bash_patterns.literal_prefixes(pattern) == {""}


def test_a_first_word_without_a_destructive_start_runs_no_expression() -> None:
    lists = bash_patterns.compiled_builtins()
    assert lists.match_anchored("cat x") is None
    assert lists.by_key["cat"] == ()
    assert lists.match_anchored("rm -rf x") is not None
    # A first word holding `/` or `=` takes the whole alternation.
    assert lists.match_anchored("/bin/rm x") is not None
    assert lists.match_anchored("A=1 rm x") is not None


def test_the_table_of_literal_prefixes_is_what_the_parser_reads() -> None:
    """Every anchored branch is in the table, with the prefixes
    :func:`literal_prefixes` reads from its text (a changed branch is read
    again at run time, never looked up under its old text)."""
    lists = bash_patterns.compiled_builtins()
    assert len(bash_patterns._KNOWN_PREFIXES) == len(lists.anchored_branches)
    for body, prefixes in lists.anchored_branches:
        assert prefixes == bash_patterns.literal_prefixes(body) != {""}
        assert bash_patterns._prefixes_of(body) == prefixes
        assert bash_patterns._prefixes_of(body + "x") == bash_patterns.literal_prefixes(body + "x")
