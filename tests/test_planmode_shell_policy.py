"""The reference's limited shells, tested directly: which rule blocks, option
matching, `git -C`, trusted prefixes, the decision cache, large inputs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_planmode.reference.planmode.bash_policy import check_bash, check_bash_uncached
from pytest_planmode.reference.planmode.git_policy import keeps_cwd
from pytest_planmode.reference.planmode.powershell_policy import check_powershell
from pytest_planmode.reference.planmode.program_rules import (
    GLOBAL_FORBIDDEN,
    PROGRAMS,
    OptionRule,
    forbidden_option,
)
from pytest_planmode.reference.planmode.safe_subcommand_match import TrustedPrefixes
from pytest_planmode.reference.shell.bash_segments import segment_bash
from pytest_planmode.suite import Case, load_suite
from pytest_planmode.targets.reference.ops.planmode_shell import trusted_prefixes

CWD = "/srv/project"


@pytest.mark.parametrize(
    "command, rule",
    [
        ("", "syntax.empty"),
        ("ls > x", "syntax.redirect"),
        ("ls\nx", "syntax.newline"),
        ("echo `x`", "syntax.backtick"),
        ("ls &", "syntax.background"),
        ("ls |& x", "syntax.pipe-stderr"),
        ("ls ;; x", "syntax.case-terminator"),
        ("; ls", "syntax.empty-segment"),
        ("ls &&", "syntax.empty-segment"),
        ("echo 'x", "syntax.unclosed-quote"),
        ("ls \\", "syntax.trailing-backslash"),
        ("ls\x00", "syntax.control-character"),
        ("ls # c", "syntax.comment"),
        ("if x; then ls; fi", "syntax.reserved-word"),
        ("echo $(x)", "syntax.parenthesis"),
        ("ls $HOME", "expansion"),
        ("FOO=1 ls", "environment-assignment"),
        ("'ls'", "program.quoted"),
        ("rm x", "program.unknown"),
        ("ls --delete", "argument.forbidden"),
        ("node -v", "program.exact-args"),
        ("npm run build", "program.subcommand"),
        ("npm audit fix", "program.forbidden-word"),
        ("go test -o x", "program.forbidden-option"),
        ("sed -n 1p -e x", "program.shape"),
        ("git -c a=b log", "git.global.option"),
        ("git -C .. log", "git.global.C"),
        ("git", "git.subcommand.missing"),
        ("git push", "git.subcommand.unreviewed"),
        ("git log --output=x", "git.option.forbidden"),
        ("git log --format=%GS", "git.format.signature"),
        ("git log --format='%G?'", "git.format.signature"),
        ("git grep -O x", "git.grep.pager"),
        ("git branch -D x", "git.branch.mutating"),
        ("git branch x", "git.branch.positional"),
        ("git remote add a b", "git.remote.shape"),
    ],
)
def test_each_rule_names_itself(command: str, rule: str) -> None:
    verdict = check_bash(command, CWD)
    assert verdict.allowed is False
    assert verdict.rule == rule, verdict
    assert verdict.reason


@pytest.mark.parametrize(
    "word, hit",
    [
        ("--output", "--output"),
        ("--outp=F", "--output"),
        ("--o=F", "--output"),
        ("--o", "--output"),
        ("--", None),
        ("--output-indicator-new", None),
        ("--text", None),
        ("--textc", "--textconv"),
        ("-ro", "-o"),
        ("-ko", None),
        ("plain", None),
    ],
)
def test_long_options_match_like_getopt(word: str, hit: str | None) -> None:
    rule = OptionRule(long=("--output", "--textconv"), known_long=("--text",), short="o", value_short="k")
    assert forbidden_option(word, rule) == hit


def test_go_style_flags_take_one_or_two_dashes_and_the_test_prefix() -> None:
    rule = OptionRule(flags=("o", "exec"))
    assert forbidden_option("-o", rule) == "-o"
    assert forbidden_option("--exec=sh", rule) == "-exec"
    assert forbidden_option("-test.o", rule) == "-o"
    assert forbidden_option("---o", rule) is None
    assert forbidden_option("-v", rule) is None


def test_every_program_rule_cites_its_source() -> None:
    assert PROGRAMS, "the program table is empty"
    for name, rule in PROGRAMS.items():
        assert rule.program == name
        assert "§" in rule.source, f"{name} has no spec citation"
    assert "env" not in PROGRAMS and "printenv" not in PROGRAMS and "gh" not in PROGRAMS
    assert "-i" not in GLOBAL_FORBIDDEN.long + GLOBAL_FORBIDDEN.exact


@pytest.mark.parametrize(
    "path, cwd, keeps",
    [
        (".", "/srv/project", True),
        ("./", "/srv/project", True),
        ("/srv/project", "/srv/project", True),
        ("/srv/project/", "/srv/project/", True),
        ("..", "/srv/project", False),
        ("../project", "/srv/project", False),
        ("sub/..", "/srv/project", False),
        ("", "/srv/project", False),
        ("/srv", "/srv/project", False),
        ("sub", "/srv/project", False),
        ("//srv/project", "/srv/project", False),
        ("/", "/", True),
    ],
)
def test_git_C_keeps_the_working_directory(path: str, cwd: str, keeps: bool) -> None:
    assert keeps_cwd(path, cwd) is keeps


def test_trusted_prefixes_need_a_token_boundary() -> None:
    trust = TrustedPrefixes.from_settings({"kubectl": ("apply",), "gh": ("pr view",)})
    assert trust.match("kubectl apply") == "kubectl apply"
    assert trust.match("kubectl apply -f x") == "kubectl apply"
    assert trust.match("kubectl apply\t-f x") == "kubectl apply"
    assert trust.match("kubectl applies") is None
    assert trust.match("kubectl  apply") is None
    assert trust.match("gh pr view 1") == "gh pr view"


def test_invalid_safe_subcommands_trust_nothing_and_say_why() -> None:
    trust, error = trusted_prefixes({"kubectl": "apply"})
    assert trust.prefixes == ()
    assert error is not None and "safeSubcommands" in error and "must be an array" in error
    trust, error = trusted_prefixes({" kubectl ": [" apply ", "apply"]})
    assert trust.prefixes == ("kubectl apply",) and error is None
    assert trusted_prefixes(None, given=False) == (TrustedPrefixes(), None)
    trust, error = trusted_prefixes(None)
    assert trust.prefixes == () and error is not None and "got null" in error


def test_repeated_decisions_come_from_the_cache_keyed_on_the_whole_input() -> None:
    trust = TrustedPrefixes(("kubectl apply",))
    first = check_bash("kubectl apply -f x && ls", CWD, trust)
    assert check_bash("kubectl apply -f x && ls", CWD, trust) is first
    other_cwd = check_bash("git -C /srv/project log", "/srv/other")
    assert other_cwd.allowed is False
    assert check_bash("git -C /srv/project log", CWD).allowed is True
    assert check_bash("kubectl apply -f x && ls", CWD).allowed is False


def test_large_inputs_are_decided_without_the_cache() -> None:
    big = "echo " + "a" * 100_000
    assert check_bash(big, CWD).allowed is True
    assert check_bash(big, CWD) is not check_bash(big, CWD)


def test_a_megabyte_of_segments_reports_the_first_blocked_one() -> None:
    command = "ls && " * 150_000 + "cat x && rm -rf / && ls"
    verdict = check_bash_uncached(command, CWD)
    assert verdict.allowed is False
    assert verdict.blocked == "rm -rf /"
    assert len(verdict.segments) == 150_003


def test_nested_substitutions_ten_thousand_deep_are_unsupported() -> None:
    command = "echo " + "$(" * 10_000 + "x" + ")" * 10_000
    verdict = check_bash_uncached(command, CWD)
    assert (verdict.allowed, verdict.blocked, verdict.rule) == (False, command, "syntax.parenthesis")


def test_a_failure_at_the_end_of_a_long_input_is_classified() -> None:
    command = "ls -la && " * 50_000 + "ls |& cat"
    assert check_bash_uncached(command, CWD).rule == "syntax.pipe-stderr"


@pytest.mark.parametrize(
    "command, rule",
    [
        ("Get-ChildItem && ls", "syntax.ampersand"),
        ("Get-ChildItem || ls", "syntax.or-operator"),
        ("Get-ChildItem $x", "syntax.variable"),
        ("Get-ChildItem @x", "syntax.array-or-splat"),
        ("Get-ChildItem {x}", "syntax.script-block"),
        ("[IO.File]::x", "syntax.type-literal"),
        ("Get-ChildItem a::b", "syntax.static-member"),
        ("git log --% x", "syntax.stop-parsing"),
        ("Get-ChildItem \u2013Force", "syntax.typographic-dash"),
        ("Get-ChildItem \u201cx\u201d", "syntax.typographic-quote"),
        ("ls", "program.unknown"),
        ("Get-ChildItem Env:", "powershell.provider-drive"),
        ("Get-Process -ComputerName x", "powershell.parameter"),
    ],
)
def test_powershell_rules_name_themselves(command: str, rule: str) -> None:
    verdict = check_powershell(command, CWD)
    assert (verdict.allowed, verdict.rule) == (False, rule), verdict


def test_powershell_quotes_are_removed_with_their_doubling_escapes() -> None:
    verdict = check_powershell("Write-Output 'it''s' \"a\"\"b\"", CWD)
    assert verdict.allowed is True
    assert verdict.segments == ("Write-Output 'it''s' \"a\"\"b\"",)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=60))
def test_any_text_is_decided_by_both_shells(text: str) -> None:
    for verdict in (check_bash_uncached(text, CWD), check_powershell(text, CWD)):
        assert (verdict.blocked is None) is verdict.allowed


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.text(alphabet="abc-./=", min_size=1, max_size=5), min_size=1, max_size=6))
def test_plain_words_come_back_unchanged(words: list[str]) -> None:
    command = "p" + " ".join(words)
    parsed = segment_bash(command)
    assert parsed.segments and parsed.segments[0].words == tuple(command.split(" "))


_SHELL_OPS = {"planmode.bash.check", "planmode.powershell.check"}


def _shell_cases() -> list[Case]:
    return [case for case in load_suite() if case.operation in _SHELL_OPS]


def test_must_cases_pin_only_the_verdict() -> None:
    """Which text a block names is a reference choice; a must case pins `allowed` only."""
    must = [case for case in _shell_cases() if case.level == "must"]
    assert must, "no must cases for the limited shells"
    pinned = [case.id for case in must if set(case.expect) - {"allowed"}]
    assert pinned == []


def test_blocked_text_twins_repeat_a_blocked_must_case() -> None:
    """Each `.blocked-text` reference case repeats a blocked must case's input and
    pins the text the reference names."""
    cases = {case.id: case for case in _shell_cases()}
    twins = [case for case in cases.values() if case.id.endswith(".blocked-text")]
    assert len(twins) >= 80
    for twin in twins:
        base = cases[twin.id.removesuffix(".blocked-text")]
        assert (base.level, base.expect, twin.level) == ("must", {"allowed": False}, "reference")
        assert twin.input == base.input and twin.operation == base.operation
        check = check_bash if twin.operation == "planmode.bash.check" else check_powershell
        trust, _ = trusted_prefixes(twin.input.get("safeSubcommands"), "safeSubcommands" in twin.input)
        assert check(twin.input["command"], twin.input["cwd"], trust).blocked == twin.expect["blocked"]
