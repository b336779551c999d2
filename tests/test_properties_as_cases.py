"""Property checks are conformance cases like the fixture cases: selectable
by id, explained, reported with spec, rule, counterexample and a one-line
summary, and never a Hypothesis error caused by the target's answers."""

from __future__ import annotations

import pytest
from conftest import python_adapter

from pytest_planmode import cli
from pytest_planmode.properties import property_checks
from pytest_planmode.suite import CONFORMANCE_DIR, check_spec

SHELL = str(CONFORMANCE_DIR / "test_planmode_shell.py")
BASH = "planmode.bash.check"


def bash_only(pytester: pytest.Pytester, name: str, body: str) -> str:
    return python_adapter(pytester, name, body, operations=(BASH,))


DENY_ALL = """
command = input["command"]
return {"output": {"allowed": False, "blocked": command.strip() or "(empty command)"}}
"""

REFERENCE_BASH = """
from pytest_planmode.targets.reference.adapter import REFERENCE
if op != "planmode.bash.check":
    return {"unsupported": True}
return REFERENCE.call(op, input)
"""


def test_a_deny_all_bash_port_gets_conformance_failures_and_no_hypothesis_error(
    pytester: pytest.Pytester, suite
) -> None:  # type: ignore[no-untyped-def]
    target = bash_only(pytester, "deny_all", DENY_ALL)
    run = suite(target, SHELL, "-m", "planmode_bash_check")
    failures = {f["id"]: f for f in run.report["failures"]}
    assert "planmode.bash.property.spoiler-blocks" in failures
    # Consistent, though useless: every chain and every segment is blocked.
    assert run.report["results"]["planmode.bash.property.chain-iff-segments"] == "passed"
    assert {f["outcome"] for f in failures.values()} == {"failed"}
    text = run.text
    for error in ("FailedHealthCheck", "Unsatisfiable", "hypothesis.errors", "Traceback"):
        assert error not in text
    spoiler = failures["planmode.bash.property.spoiler-blocks"]
    assert spoiler["outcome"] == "failed"
    assert spoiler["summary"].startswith("the target's answers never met the check's precondition")
    message = spoiler["message"]
    assert "spec: pi-plan-mode-settings.md § Safe shell subcommands (level must)" in message
    assert "\nrule: " in message and "\ninput:    planmode.bash.check {" in message
    assert '\ngot:      {"allowed": false' in message


def test_a_property_failure_reads_like_a_fixture_failure(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    # Decides a chain by its first segment only.
    leaky = python_adapter(
        pytester,
        "first_segment_only",
        """
        from pytest_planmode.targets.reference.adapter import REFERENCE
        first = input["command"].split("&&")[0].split("||")[0].split(";")[0].split("|")[0]
        answer = REFERENCE.call(op, {**input, "command": first})
        return answer
        """,
        operations=(BASH,),
    )
    run = suite(leaky, SHELL, "-k", "planmode.bash.property.chain-iff-segments")
    (failure,) = run.report["failures"]
    message = failure["message"]
    assert message.splitlines()[1] == "spec: pi-plan-mode-settings.md § Safe shell subcommands (level must)"
    assert "rule: " in message and "input:    planmode.bash.check" in message and "got:      " in message
    assert "failed:   " in message and "counterexample: chain=" in message
    assert "allowed although" in failure["summary"]
    assert " at 0x" not in failure["summary"] and "assert False is True" not in failure["summary"]


def test_a_bash_only_port_meets_every_bash_must_property(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    target = bash_only(pytester, "bash_only", REFERENCE_BASH)
    run = suite(target, SHELL, "--planmode-level=must")
    bash_must = {
        check.id
        for check in property_checks().values()
        if check.level == "must" and check.operations == (BASH,) and check.module.endswith("planmode_shell")
    }
    ran = {case_id for case_id, outcome in run.report["results"].items() if outcome == "passed"}
    assert bash_must and bash_must <= ran, bash_must - ran
    assert "planmode.bash.property.whitespace-around-operators" in ran
    assert "planmode.bash.property.any-text-decided" in ran
    assert run.report["totals"]["failed"] == 0


def test_k_selects_a_property_by_its_id(suite) -> None:  # type: ignore[no-untyped-def]
    run = suite("reference", SHELL, "-k", "planmode.bash.property.spoiler-blocks")
    assert set(run.report["results"]) == {"planmode.bash.property.spoiler-blocks"}


def test_every_property_has_a_cited_section_and_a_rule() -> None:
    checks = property_checks()
    assert len(checks) >= 80
    for check in checks.values():
        assert check_spec(check.spec) is None, (check.id, check.spec)
        assert check.rule.endswith((".", "!", "?")) and len(check.rule) > 10, (check.id, check.rule)
    assert not [c for c in checks if c.startswith("planmode.shell.")]  # split per shell


def test_explain_a_property(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["explain", "planmode.bash.property.blocked-iff-denied"])
    out = capsys.readouterr().out
    assert code == 0
    assert (
        "planmode.bash.property.blocked-iff-denied  (property check of planmode.bash.check, level reference)"
        in out
    )
    assert "spec:     pi-plan-mode-settings.md § Safe shell subcommands" in out
    assert "test_planmode_shell.py::test_any_text_is_decided_and_blocked_is_null_exactly_when_allowed" in out
    assert "explains: blocked (a target that observes effects only skips it)" in out


def test_explain_a_property_against_a_target(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    target = bash_only(pytester, "deny_everything", DENY_ALL)
    code = cli.main(["explain", "--target", target, "planmode.bash.property.spoiler-blocks"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "the target's answers never met the check's precondition" in out
    assert out.rstrip().endswith("fails")
