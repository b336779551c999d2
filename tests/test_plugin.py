"""The plugin as a user meets it: options, collection, outcomes, reports."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import ONE_CASE_TOML, PLANS, PLANS_PROPERTIES, SERVE, broken, python_adapter

from pytest_planmode.contract.report import Report
from pytest_planmode.suite import load_file
from pytest_planmode.targets import TargetError

PLAN_IDS = {case.id for case in load_file(PLANS)}


def test_without_a_target_the_plugin_adds_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_one():\n    assert 1 + 1 == 2\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "planmode:" not in result.stdout.str()


def test_plugin_module_imports_nothing_heavy() -> None:
    code = (
        "import sys, pytest_planmode.plugin\n"
        "heavy = [m for m in ('pydantic', 'bashlex', 'hypothesis', 'pytest_planmode.reference',"
        " 'pytest_planmode.targets.reference',"
        " 'pytest_planmode.harness') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_planmode_disables_the_plugin(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("-p", "no:planmode", "--planmode-target=reference")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unrecognized arguments: --planmode-target" in result.stderr.str()


def test_help_documents_every_option(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    text = result.stdout.str()
    names = (
        "target level timeout startup-timeout expectations write-expectations report fixtures html spec "
        "sandbox sandbox-programs explore strict max-line pi pi-node"
    )
    for name in names.split():
        assert f"--planmode-{name}" in text


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("nonsense", "unknown target 'nonsense'"),
        ("python:no_such_module_xyz:ADAPTER", "cannot import 'no_such_module_xyz'"),
        ("python:pytest_planmode.targets.reference.adapter:NOPE", "has no attribute 'NOPE'"),
        ("python:json", "expected python:package.module:attribute"),
        ("exec:/no/such/program --serve", "cannot start"),
        ("exec:", "exec: needs a command line"),
    ],
)
def test_unresolvable_target_is_a_usage_error(suite, target: str, message: str) -> None:  # type: ignore[no-untyped-def]
    run = suite(target, str(PLANS))
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in run.text
    assert run.report is None


def test_reference_runs_every_case_and_prints_the_summary(suite) -> None:  # type: ignore[no-untyped-def]
    run = suite("reference", str(PLANS))
    run.result.assert_outcomes(passed=len(PLAN_IDS))
    text = run.result.stdout.str()
    assert "planmode: pytest-planmode reference" in text
    assert "oplmodes.plans.resolve" in text
    assert set(run.report["results"]) == PLAN_IDS
    Report.model_validate(run.document)
    assert run.report["totals"]["passed"] == len(PLAN_IDS)
    assert run.report["implementation"]["language"] == "python"


def test_exec_serve_gives_the_same_results_as_reference(suite) -> None:  # type: ignore[no-untyped-def]
    ref = suite("reference", str(PLANS), str(PLANS_PROPERTIES))
    wire = suite(SERVE, str(PLANS), str(PLANS_PROPERTIES))
    assert ref.report["results"] == wire.report["results"]
    assert set(ref.report["results"].values()) == {"passed"}


def test_python_target_runs_an_adapter_object(suite) -> None:  # type: ignore[no-untyped-def]
    run = suite("python:pytest_planmode.targets.reference.adapter:ReferenceAdapter", str(PLANS))
    run.result.assert_outcomes(passed=len(PLAN_IDS))


def test_ini_key_names_the_target(pytester: pytest.Pytester) -> None:
    ini = pytester.makeini("[pytest]\nplanmode_target = reference\nplanmode_level = must\n")
    result = pytester.runpytest("-c", str(ini), "-p", "no:cacheprovider", str(PLANS))
    must = sum(1 for c in load_file(PLANS) if c.level == "must")
    result.assert_outcomes(passed=must, deselected=len(PLAN_IDS) - must)


def test_level_must_deselects_reference_cases(suite) -> None:  # type: ignore[no-untyped-def]
    run = suite("reference", "--planmode-level=must", str(PLANS))
    levels = {c.id: c.level for c in load_file(PLANS)}
    assert set(run.report["results"]) == {i for i, lvl in levels.items() if lvl == "must"}
    assert any(lvl == "reference" for lvl in levels.values())


def test_markers_select_by_operation_and_level(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--planmode-target=reference", "-m", "oplmodes_plans_resolve and planmode_reference", str(PLANS)
    )
    reference = sum(1 for c in load_file(PLANS) if c.level == "reference")
    result.assert_outcomes(passed=reference, deselected=len(PLAN_IDS) - reference)


def test_keyword_selects_a_case_by_id(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--planmode-target=reference", "-k", "name.dot-rejected", "-v", str(PLANS))
    result.assert_outcomes(passed=1, deselected=len(PLAN_IDS) - 1)
    result.stdout.fnmatch_lines(["*oplmodes.plans.name.dot-rejected PASSED*"])


def test_unsupported_operation_is_skipped_with_reason(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    target = python_adapter(pytester, "nothing", 'raise AssertionError("never called")', operations=())
    run = suite(target, str(PLANS), "-rs")
    run.result.assert_outcomes(skipped=len(PLAN_IDS))
    assert "unsupported: nothing does not list operation oplmodes.plans.resolve" in run.text
    assert set(run.report["results"].values()) == {"skipped"}


def test_an_error_answer_fails_the_case_with_its_message(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    target = python_adapter(pytester, "erring", 'return {"error": {"message": "not implemented yet"}}')
    run = suite(target, str(PLANS), "-k", "name.simple")
    run.result.assert_outcomes(failed=1, deselected=len(PLAN_IDS) - 1)
    assert "the target answered an error where an output was expected" in run.text
    assert "not implemented yet" in run.text
    assert "opl-modes.md § Commands, flags, and shortcuts" in run.text


def test_wrong_output_names_the_mismatch(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    target = python_adapter(
        pytester, "lenient", 'return {"output": {"accepted": True, "path": ".pi/plans/plan-x.md"}}'
    )
    run = suite(target, str(PLANS), "-k", "name.dot-rejected")
    run.result.assert_outcomes(failed=1, deselected=len(PLAN_IDS) - 1)
    assert "output.accepted: expected false, got true" in run.text
    failure = run.report["failures"][0]
    assert failure["id"] == "oplmodes.plans.name.dot-rejected"
    assert "output.accepted: expected false, got true" in failure["message"]


def test_malformed_fixture_file_names_file_group_and_case(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    fixtures = pytester.mkdir("my-fixtures")
    (fixtures / "bad.toml").write_text(
        textwrap.dedent(
            """
            [[group]]
            description = "x"
            operation = "oplmodes.plans.resolve"
            spec = "opl-modes.md § Commands, flags, and shortcuts"
            level = "must"

              [[group.case]]
              id = "my.case.one"
              input = { source = "command", value = "a" }

              [[group.case]]
              id = "my.case.two"
              input = { source = "sideways", value = "a" }
              expect = { accepted = true }
            """
        )
    )
    run = suite("reference", f"--planmode-fixtures={fixtures}", str(fixtures))
    assert run.result.ret == pytest.ExitCode.INTERRUPTED
    text = run.text
    assert "bad.toml: group 1 ('x'), case 1 (my.case.one): expect: Field required" in text
    # The case that fits the format is checked against the contract in the same run.
    assert (
        "bad.toml: group 1, case 2 (my.case.two): input.source: Input should be 'command' or 'resume'" in text
    )
    (fixtures / "bad.toml").write_text(
        (fixtures / "bad.toml")
        .read_text()
        .replace(
            'input = { source = "command", value = "a" }',
            'input = { source = "command", value = "a" }\n  expect = { accepted = true }',
        )
    )
    run2 = suite("reference", f"--planmode-fixtures={fixtures}", str(fixtures))
    assert (
        "bad.toml: group 1, case 2 (my.case.two): input.source: Input should be 'command' or 'resume'"
        in run2.text
    )


def test_duplicate_case_ids_are_an_error(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    fixtures = pytester.mkdir("dups")
    body = ONE_CASE_TOML
    (fixtures / "a.toml").write_text(body)
    (fixtures / "b.toml").write_text(body)
    run = suite("reference", f"--planmode-fixtures={fixtures}", str(fixtures))
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert "duplicate case id 'same.id'" in run.text


class TestExpectations:
    def write(self, pytester: pytest.Pytester, data: object) -> Path:
        path = pytester.path / "expectations.json"
        path.write_text(json.dumps(data))
        return path

    def lenient(self, pytester: pytest.Pytester) -> str:
        return python_adapter(
            pytester,
            "lenient",
            """
            from pytest_planmode.targets.reference.adapter import REFERENCE
            answer = REFERENCE.call(op, input)
            if input["value"] == "--":
                answer["output"]["accepted"] = True
            return answer
            """,
        )

    def test_known_failure_is_xfailed_and_the_run_passes(self, pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
        target = self.lenient(pytester)
        exp = self.write(pytester, {"oplmodes.plans.name.double-dash-rejected": "accepts '--' (bug 12)"})
        run = suite(target, f"--planmode-expectations={exp}", str(PLANS))
        assert run.result.ret == pytest.ExitCode.OK
        run.result.assert_outcomes(passed=len(PLAN_IDS) - 1, xfailed=1)
        assert run.report["expectedFailures"] == ["oplmodes.plans.name.double-dash-rejected"]

    def test_a_regression_still_fails(self, pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
        target = self.lenient(pytester)
        exp = self.write(pytester, {"oplmodes.plans.name.dot-rejected": "unrelated"})
        run = suite(target, f"--planmode-expectations={exp}", str(PLANS))
        assert run.result.ret == pytest.ExitCode.TESTS_FAILED
        assert [f["id"] for f in run.report["failures"]] == [
            "oplmodes.plans.name.dot-rejected",
            "oplmodes.plans.name.double-dash-rejected",
        ]
        outcomes = {f["id"]: f["outcome"] for f in run.report["failures"]}
        assert outcomes["oplmodes.plans.name.dot-rejected"] == "failed"  # strict xpass

    def test_a_listed_case_that_passes_fails_the_run(self, pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
        exp = self.write(pytester, {"oplmodes.plans.name.simple": "thought broken"})
        run = suite("reference", f"--planmode-expectations={exp}", str(PLANS))
        assert run.result.ret == pytest.ExitCode.TESTS_FAILED
        assert f"passes now: remove `oplmodes.plans.name.simple` from `{exp}`" in run.text
        (failure,) = run.report["failures"]
        assert failure["summary"] == f"passes now: remove `oplmodes.plans.name.simple` from `{exp}`"
        assert "XPASS" not in failure["message"]

    def test_a_reason_is_required(self, pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
        exp = self.write(pytester, {"oplmodes.plans.name.simple": ""})
        run = suite("reference", f"--planmode-expectations={exp}", str(PLANS))
        assert run.result.ret == pytest.ExitCode.USAGE_ERROR
        assert "needs a non-empty reason" in run.text

    def test_malformed_file_is_a_usage_error(self, pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
        path = pytester.path / "expectations.json"
        path.write_text("{not json")
        run = suite("reference", f"--planmode-expectations={path}", str(PLANS))
        assert run.result.ret == pytest.ExitCode.USAGE_ERROR
        assert "not valid JSON" in run.text

    def test_stale_ids_are_reported(self, pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
        exp = self.write(pytester, {"no.such.case": "gone"})
        run = suite("reference", f"--planmode-expectations={exp}", str(PLANS))
        assert "expectations file lists 1 case id(s) this suite does not have" in run.text

    def test_write_expectations_starts_the_ratchet(self, pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
        target = self.lenient(pytester)
        out = pytester.path / "written.json"
        first = suite(target, f"--planmode-write-expectations={out}", str(PLANS))
        # The update run did what it was asked: its one failure is in the file.
        assert first.result.ret == pytest.ExitCode.OK, first.text
        assert first.report["totals"]["failed"] == 1
        assert "every failure of this run is recorded in the expectations file(s) written" in first.text
        written = json.loads(out.read_text())
        assert list(written) == ["oplmodes.plans.name.double-dash-rejected"]
        assert written["oplmodes.plans.name.double-dash-rejected"].strip()
        second = suite(target, f"--planmode-expectations={out}", str(PLANS))
        assert second.result.ret == pytest.ExitCode.OK

    def test_an_update_run_fails_for_what_the_file_cannot_record(
        self, pytester: pytest.Pytester, suite
    ) -> None:  # type: ignore[no-untyped-def]
        target = self.lenient(pytester)
        own = pytester.makepyfile(test_own="def test_own():\n    assert 1 == 2\n")
        out = pytester.path / "written.json"
        run = suite(target, f"--planmode-write-expectations={out}", str(PLANS), str(own))
        assert run.result.ret == pytest.ExitCode.TESTS_FAILED
        assert list(json.loads(out.read_text())) == ["oplmodes.plans.name.double-dash-rejected"]
        assert "recorded in the expectations file" not in run.text


class TestBrokenTargets:
    """A broken target never yields a pass and never stops the run."""

    # Generous: a loaded machine answers slowly; start-up has its own limit.
    ARGS = ("--planmode-timeout=10", "-p", "no:randomly")

    def run(self, suite, mode: str, *args: str) -> object:  # type: ignore[no-untyped-def]
        return suite(broken(mode, 3), *self.ARGS, *args, str(PLANS))

    def assert_third_failed_rest_passed(self, run, needle: str) -> None:  # type: ignore[no-untyped-def]
        failures = run.report["failures"]
        assert len(failures) == 1, failures
        assert failures[0]["outcome"] == "failed"
        assert needle in failures[0]["message"]
        assert run.report["totals"]["passed"] == len(PLAN_IDS) - 1

    def test_crash_mid_run(self, suite) -> None:  # type: ignore[no-untyped-def]
        run = self.run(suite, "crash")
        self.assert_third_failed_rest_passed(run, "exited with status 3")
        assert "fatal: simulated crash" in run.report["failures"][0]["message"]

    def test_hang(self, suite) -> None:  # type: ignore[no-untyped-def]
        run = self.run(suite, "hang")
        self.assert_third_failed_rest_passed(run, "no answer within 10 s")

    def test_garbage(self, suite) -> None:  # type: ignore[no-untyped-def]
        run = self.run(suite, "garbage")
        self.assert_third_failed_rest_passed(run, "is not one JSON object on one line")

    def test_wrong_id(self, suite) -> None:  # type: ignore[no-untyped-def]
        run = self.run(suite, "wrong-id")
        self.assert_third_failed_rest_passed(run, "carries id 1003, expected 3")

    def test_an_answer_given_twice_fails_its_own_case(self, suite) -> None:  # type: ignore[no-untyped-def]
        run = self.run(suite, "twice")
        self.assert_third_failed_rest_passed(run, "request 3 (oplmodes.plans.resolve): the target answered")
        assert "answered this request twice" in run.report["failures"][0]["message"]
        assert "carries id" not in run.text

    def test_property_checks_name_the_timeout_of_a_target_that_hangs_some_requests(self, suite) -> None:  # type: ignore[no-untyped-def]
        # Every seventh request hangs; the repeats of a failing example then disagree.
        run = suite(
            broken("hang-every", 7), "--planmode-timeout=1", "-p", "no:randomly", str(PLANS_PROPERTIES)
        )
        failures = run.report["failures"]
        assert failures, run.text
        assert "answered the same requests differently" not in run.text
        for failure in failures:
            assert "no answer within 1 s (--planmode-timeout)" in failure["summary"], failure["summary"]

    def test_two_answers(self, suite) -> None:  # type: ignore[no-untyped-def]
        run = self.run(suite, "two-answers")
        self.assert_third_failed_rest_passed(run, "exactly one of")

    def test_a_crash_leaving_a_child_on_the_pipe_does_not_stall(self, suite) -> None:  # type: ignore[no-untyped-def]
        run = self.run(suite, "fork")
        self.assert_third_failed_rest_passed(run, "exited with status 3")

    def test_a_hang_with_a_child_on_the_pipe_does_not_stall(self, suite) -> None:  # type: ignore[no-untyped-def]
        run = self.run(suite, "fork-hang")
        self.assert_third_failed_rest_passed(run, "no answer within 10 s")

    def test_flood(self, suite) -> None:  # type: ignore[no-untyped-def]
        run = suite(broken("flood", 3), *self.ARGS, "--planmode-max-line=1048576", str(PLANS))
        self.assert_third_failed_rest_passed(run, "the target flooded its output with")
        assert "bytes without a newline" in run.report["failures"][0]["message"]

    def test_deep_nesting(self, suite) -> None:  # type: ignore[no-untyped-def]
        run = self.run(suite, "deep")
        self.assert_third_failed_rest_passed(run, "the answer cannot be decoded (RecursionError")
        assert "Traceback" not in run.text

    @pytest.mark.parametrize(
        ("mode", "needle"),
        [
            ("handshake-exit", "exited with status 2"),
            ("handshake-garbage", "the handshake answer is not JSON"),
            ("handshake-protocol", "speaks protocol 99"),
            ("handshake-hang", "no handshake answer within 3 s (--planmode-startup-timeout"),
        ],
    )
    def test_handshake_failure_is_one_clear_error(self, suite, mode: str, needle: str) -> None:  # type: ignore[no-untyped-def]
        # Only the hanging target meets the start-up limit: the others answer or exit.
        run = self.run(suite, mode, "--planmode-startup-timeout=3")
        assert run.result.ret == pytest.ExitCode.USAGE_ERROR
        assert needle in run.text
        assert run.text.count(needle) == 1
        assert run.report is None

    def test_the_startup_limit_has_an_ini_key(self, suite) -> None:  # type: ignore[no-untyped-def]
        run = self.run(suite, "handshake-hang", "-o", "planmode_startup_timeout=2")
        assert run.result.ret == pytest.ExitCode.USAGE_ERROR
        assert "no handshake answer within 2 s (--planmode-startup-timeout" in run.text

    @pytest.mark.parametrize(
        "value",
        ["--planmode-startup-timeout=0", "--planmode-startup-timeout=nan", "-oplanmode_startup_timeout=soon"],
    )
    def test_the_startup_limit_is_checked(self, suite, value: str) -> None:  # type: ignore[no-untyped-def]
        run = self.run(suite, "handshake-hang", value)
        assert run.result.ret == pytest.ExitCode.USAGE_ERROR
        assert "--planmode-startup-timeout must be" in run.text

    def test_handshake_exit_shows_stderr(self, suite) -> None:  # type: ignore[no-untyped-def]
        run = self.run(suite, "handshake-exit")
        assert "cannot start: missing configuration" in run.text


def test_xdist_gives_the_same_results(suite) -> None:  # type: ignore[no-untyped-def]
    serial = suite(SERVE, str(PLANS), str(PLANS_PROPERTIES))
    parallel = suite(SERVE, "-n", "2", str(PLANS), str(PLANS_PROPERTIES), subprocess=True)
    assert parallel.result.ret == pytest.ExitCode.OK, parallel.text
    assert serial.report["results"] == parallel.report["results"]
    assert serial.report["operations"] == parallel.report["operations"]


def test_target_must_exit_zero_at_end_of_input(suite) -> None:  # type: ignore[no-untyped-def]
    run = suite(broken("exit-1", 0), str(PLANS))
    assert run.report["targetExitStatus"] == 1
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    assert run.report["totals"]["failed"] == 0  # every case passed; the exit status fails the run
    assert "the target did not exit with status 0 at end of input (status 1)" in run.text
    ok = suite(SERVE, str(PLANS))
    assert ok.report["targetExitStatus"] == 0
    assert "did not exit with status 0" not in ok.text


def test_rewriting_expectations_drops_cases_that_now_pass(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    exp = pytester.path / "old.json"
    exp.write_text(
        json.dumps({"oplmodes.plans.name.simple": "was broken", "oplmodes.plans.name.dot-rejected": "x"})
    )
    out = pytester.path / "new.json"
    run = suite(
        "reference", f"--planmode-expectations={exp}", f"--planmode-write-expectations={out}", str(PLANS)
    )
    # The listed cases pass (strict XPASS) and leave the written file: it records them.
    assert run.result.ret == pytest.ExitCode.OK
    assert run.report["totals"]["failed"] == 2
    assert json.loads(out.read_text()) == {}


def test_written_reason_says_what_failed(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    target = python_adapter(
        pytester,
        "accepting",
        'return {"output": {"accepted": True, "path": ".pi/plans/plan-x.md", "reason": None}}',
    )
    out = pytester.path / "written.json"
    suite(target, f"--planmode-write-expectations={out}", str(PLANS), str(PLANS_PROPERTIES))
    written = json.loads(out.read_text())
    assert written["oplmodes.plans.name.double-dash-rejected"] == (
        'output.accepted: expected false, got true; output.path: expected null, got ".pi/plans/plan-x.md"'
    )
    prop = written["oplmodes.plans.property.no-alnum-rejected"]
    assert "has no letter or digit but was accepted" in prop and " at 0x" not in prop


def test_target_exit_status_is_reported_under_xdist(suite) -> None:  # type: ignore[no-untyped-def]
    run = suite(broken("exit-1", 0), "-n", "2", str(PLANS), subprocess=True)
    assert run.report["targetExitStatus"] == 1
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    assert "did not exit with status 0 at end of input (status 1)" in run.text


def test_skip_reasons_are_in_the_report(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    target = python_adapter(pytester, "nothing", "return {'unsupported': True}", operations=())
    run = suite(target, str(PLANS))
    reasons = run.report["skipReasons"]
    assert set(reasons) == PLAN_IDS
    assert all(r.startswith("unsupported: ") for r in reasons.values())


DEEP_ANSWER = """
if input["value"] == "a":
    raise ValueError("the port broke")
deep = []
for _ in range(100_000):
    deep = [deep]
return {"output": {"accepted": deep}}
"""


def test_a_python_answer_too_deep_is_the_kits_problem_and_a_ports_exception_shows_once(
    pytester: pytest.Pytester, suite
) -> None:  # type: ignore[no-untyped-def]
    target = python_adapter(pytester, "deepanswer", DEEP_ANSWER)
    fixtures = pytester.mkdir("two")
    deep_case = ONE_CASE_TOML[ONE_CASE_TOML.index("  [[group.case]]") :]
    deep_case = deep_case.replace("same.id", "deep.id").replace('value = "a"', 'value = "b"')
    (fixtures / "a.toml").write_text(ONE_CASE_TOML + deep_case)
    run = suite(target, f"--planmode-fixtures={fixtures}", str(fixtures))
    failures = {f["id"]: f["message"] for f in run.report["failures"]}
    assert set(failures) == {"same.id", "deep.id"}
    deep = failures["deep.id"]
    assert (
        "python:deepanswer:Adapter: the answer to call('oplmodes.plans.resolve') is nested too deeply" in deep
    )
    assert "answer too deep" in deep and "raised" not in deep and "Traceback" not in deep
    # The port's own exception: its traceback, once.
    assert "call('oplmodes.plans.resolve') raised:" in failures["same.id"]
    # Counted in the failure reports (under CI, pytest's short summary repeats
    # each message whole).
    reports = run.text.split("short test summary info")[0]
    assert reports.count("Traceback (most recent call last)") == 1
    assert reports.count("ValueError: the port broke") == 1


def test_a_slow_start_is_not_held_to_the_request_timeout() -> None:
    from pytest_planmode.targets.exec_target import ExecTarget

    # The hello comes after 2 s; one request may take 0.5 s, start-up 60 s.
    target = ExecTarget(broken("slow-start", 0)[len("exec:") :], timeout=0.5, startup_timeout=60)
    try:
        handshake = target.handshake()
    finally:
        target.close()
    assert "oplmodes.plans.resolve" in handshake.operations
    stalled = ExecTarget(broken("handshake-hang", 0)[len("exec:") :], timeout=60, startup_timeout=1)
    with pytest.raises(TargetError, match=r"no handshake answer within 1 s \(--planmode-startup-timeout"):
        stalled.handshake()


def test_exec_client_sends_lone_surrogates_escaped() -> None:
    from pytest_planmode.targets.exec_target import ExecTarget

    target = ExecTarget(SERVE[len("exec:") :], timeout=10)
    try:
        outcome = target.request("oplmodes.plans.resolve", {"source": "command", "value": "\ud800x\u2028"})
    finally:
        assert target.close() == 0
    assert outcome.kind == "output", outcome.message
    assert outcome.output is not None and outcome.output["path"] == ".pi/plans/plan-x.md"


def _section(text: str, start: str, end: str) -> str:
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if start in line)
    last = next(i for i in range(first, len(lines)) if lines[i].startswith(end))
    return "\n".join(lines[first : last + 1])


def test_terminal_summary_and_failure_message_read_well(pytester: pytest.Pytester, suite, snapshot) -> None:  # type: ignore[no-untyped-def]
    target = TestExpectations().lenient(pytester)
    run = suite(target, str(PLANS))
    text = run.result.stdout.str()
    assert " planmode: lenient against suite " in text
    assert _section(text, "operation  ", "total") == snapshot(name="summary")
    failure = run.report["failures"][0]["message"]
    assert failure == snapshot(name="failure-message")


def test_duplicate_case_ids_in_one_file_are_an_error(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    fixtures = pytester.mkdir("dups-one-file")
    case = ONE_CASE_TOML[ONE_CASE_TOML.index("  [[group.case]]") :]
    (fixtures / "a.toml").write_text(ONE_CASE_TOML + case)
    run = suite("reference", f"--planmode-fixtures={fixtures}", str(fixtures))
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert "duplicate case id 'same.id': a.toml: group 1, case 1" in run.text
    assert "case 2" in run.text
    assert run.report is None


class TestVacuousRuns:
    def test_an_empty_fixture_directory_warns(self, pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
        empty = pytester.mkdir("empty")
        run = suite("reference", f"--planmode-fixtures={empty}", str(empty), str(PLANS_PROPERTIES))
        assert f"planmode warning: no fixture case selected: {empty} holds no fixture file" in run.text

    @pytest.mark.parametrize("how", [("--planmode-strict",), ("-o", "planmode_strict=true")])
    def test_an_empty_fixture_directory_is_an_error_under_strict(
        self, pytester: pytest.Pytester, suite, how: tuple[str, ...]
    ) -> None:  # type: ignore[no-untyped-def]
        empty = pytester.mkdir("empty")
        run = suite("reference", *how, f"--planmode-fixtures={empty}", str(empty), str(PLANS_PROPERTIES))
        assert run.result.ret == pytest.ExitCode.USAGE_ERROR
        assert "holds no fixture file (*.toml) (--planmode-strict)" in run.text
        assert run.report is None

    def test_a_selection_leaving_a_supported_operation_uncovered_is_an_error_under_strict(
        self, suite
    ) -> None:  # type: ignore[no-untyped-def]
        run = suite("reference", "--planmode-strict", str(PLANS))
        assert run.result.ret == pytest.ExitCode.USAGE_ERROR
        assert (
            "no fixture case selected for operation(s) the target supports: oplmodes.bash.check" in run.text
        )
        covered = suite("reference", "--planmode-strict", str(PLANS), "-k", "nothing-matches-this")
        assert covered.result.ret == pytest.ExitCode.USAGE_ERROR
        assert "the run's paths and selection leave none" in covered.text

    def test_under_a_marker_the_warning_names_only_the_selected_operations(
        self, pytester: pytest.Pytester
    ) -> None:
        def collect(*selection: str) -> pytest.RunResult:
            args = ("--planmode-target=reference", "--collect-only", "-q", "-p", "no:cacheprovider")
            return pytester.runpytest(*args, *selection)

        # Fixture cases of plans.resolve, property checks of both operations.
        text = collect("-m", "oplmodes_plans_resolve or oplmodes_bash_check", "-k", "property or plans.name")
        lines = [line for line in text.stdout.lines if "no fixture case selected" in line]
        assert lines and set(lines) == {
            "planmode warning: no fixture case selected for operation(s) the target supports: oplmodes.bash.check"
        }
        assert "no fixture case selected" not in collect("-m", "oplmodes_plans_resolve").stdout.str()

    def test_the_whole_suite_covers_every_operation(self, pytester: pytest.Pytester) -> None:
        result = pytester.runpytest(
            "--planmode-target=reference",
            "--planmode-strict",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
        )
        assert result.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()

    @pytest.mark.parametrize("value", ["inf", "nan", "0", "-1", "-inf"])
    def test_timeout_must_be_finite_and_positive(self, suite, value: str) -> None:  # type: ignore[no-untyped-def]
        run = suite("reference", f"--planmode-timeout={value}", str(PLANS))
        assert run.result.ret == pytest.ExitCode.USAGE_ERROR
        assert "--planmode-timeout must be finite and greater than 0" in run.text
        assert "INTERNALERROR" not in run.text

    def test_an_ini_timeout_is_checked_too(self, pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
        run = suite("reference", "-o", "planmode_timeout=soon", str(PLANS))
        assert run.result.ret == pytest.ExitCode.USAGE_ERROR
        assert "--planmode-timeout must be a number, got 'soon'" in run.text

    @pytest.mark.parametrize("option", ["report", "write-expectations"])
    def test_an_unwritable_output_path_is_a_usage_error_before_the_run(
        self, pytester: pytest.Pytester, option: str
    ) -> None:
        (pytester.path / "afile").write_text("x")
        result = pytester.runpytest(
            "--planmode-target=reference",
            f"--planmode-{option}=afile/out.json",
            "-p",
            "no:cacheprovider",
            str(PLANS),
        )
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        text = result.stdout.str() + result.stderr.str()
        assert f"--planmode-{option} afile/out.json:" in text and "is not a directory" in text
        assert "passed" not in text and "Traceback" not in text


class TestRatchetLosesNothing:
    def lenient(self, pytester: pytest.Pytester) -> str:
        return TestExpectations().lenient(pytester)

    def test_a_partial_refresh_keeps_every_entry_that_did_not_run(
        self, pytester: pytest.Pytester, suite
    ) -> None:  # type: ignore[no-untyped-def]
        target = self.lenient(pytester)
        path = pytester.path / "expectations.json"
        listed = {
            "oplmodes.plans.name.double-dash-rejected": "accepts '--' (edited reason)",
            "oplmodes.plans.property.no-alnum-rejected": "not run in this refresh",
            "planmode.bash.some-case": "another operation, not run either",
        }
        path.write_text(json.dumps(listed))
        run = suite(
            target,
            f"--planmode-expectations={path}",
            f"--planmode-write-expectations={path}",
            "-k",
            "oplmodes.plans.name",
            str(PLANS),
        )
        assert run.result.ret == pytest.ExitCode.OK
        assert json.loads(path.read_text()) == listed

    def test_only_cases_that_ran_and_passed_leave_the_file(self, pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
        path = pytester.path / "expectations.json"
        path.write_text(json.dumps({"oplmodes.plans.name.simple": "fixed since", "elsewhere.case": "kept"}))
        run = suite(
            "reference",
            f"--planmode-expectations={path}",
            f"--planmode-write-expectations={path}",
            str(PLANS),
        )
        # The fixed case's strict XPASS leaves the file it wrote: the update run exits 0.
        assert run.result.ret == pytest.ExitCode.OK
        assert json.loads(path.read_text()) == {"elsewhere.case": "kept"}

    def test_writing_over_an_existing_file_keeps_its_reasons(self, pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
        target = self.lenient(pytester)
        path = pytester.path / "expectations.json"
        path.write_text(json.dumps({"oplmodes.plans.name.double-dash-rejected": "bug 12", "other.case": "x"}))
        suite(target, f"--planmode-write-expectations={path}", str(PLANS))
        assert json.loads(path.read_text()) == {
            "oplmodes.plans.name.double-dash-rejected": "bug 12",
            "other.case": "x",
        }


def test_start_and_collection_are_frozen_while_checks_run(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    """The checks run with the objects of start and collection frozen out of
    the garbage collector's full passes; the session's cleanup unfreezes them."""
    record = pytester.path / "freeze-counts.txt"
    pytester.makepyfile(
        freezewatch=f"""
import gc

def pytest_runtest_call(item):
    with open({str(record)!r}, "a") as out:
        out.write(f"{{gc.get_freeze_count()}}\\n")
"""
    )
    pytester.syspathinsert()
    before = gc.get_freeze_count()
    run = suite("reference", "-p", "freezewatch", "-m", "oplmodes_plans_resolve")
    assert run.result.ret == 0, run.text
    counts = [int(line) for line in record.read_text().split()]
    assert counts and min(counts) > before
    assert gc.get_freeze_count() == before
