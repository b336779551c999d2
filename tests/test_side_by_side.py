"""Several targets judged in one run: item names, per-target expectations,
the side-by-side summary and report, xdist, and selection by spec section."""

from __future__ import annotations

import json

import pytest
from conftest import PLANS, PLANS_PROPERTIES, SERVE, python_adapter

from pytest_planmode.contract.report import Report
from pytest_planmode.suite import load_file

CASES = load_file(PLANS)
PLAN_IDS = {case.id for case in CASES}
DOUBLE_DASH = "oplmodes.plans.name.double-dash-rejected"


def lenient(pytester: pytest.Pytester) -> str:
    """The reference, except that it accepts the plan name '--'."""
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


def test_every_case_runs_against_each_target(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    run = suite("reference", f"--planmode-target={lenient(pytester)}", str(PLANS), "-v")
    run.result.assert_outcomes(passed=2 * len(PLAN_IDS) - 1, failed=1)
    run.result.stdout.fnmatch_lines(
        [f"*plans.toml::{DOUBLE_DASH}?reference? PASSED*", f"*plans.toml::{DOUBLE_DASH}?lenient? FAILED*"]
    )
    Report.model_validate(run.document)
    assert [t["name"] for t in run.document["targets"]] == ["reference", "lenient"]
    ref, other = run.target("reference"), run.target("lenient")
    assert set(ref["results"]) == set(other["results"]) == PLAN_IDS
    assert set(ref["results"].values()) == {"passed"}
    assert [f["id"] for f in other["failures"]] == [DOUBLE_DASH]
    assert other["implementation"]["name"] == "lenient"
    assert other["target"] == "python:lenient:Adapter"


def test_the_summary_puts_the_targets_side_by_side(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    run = suite("reference", f"--planmode-target={lenient(pytester)}", str(PLANS))
    text = run.result.stdout.str()
    must = sum(1 for c in CASES if c.level == "must")
    assert "planmode: 2 targets against suite" in text
    assert "lenient: lenient  [python:lenient:Adapter]" in text
    row = next(line for line in text.splitlines() if line.startswith("oplmodes.plans.resolve"))
    numbers = row.split()[1:]
    # per target: passed failed xfail skipped explained must-percent
    assert numbers[:6] == [str(len(PLAN_IDS)), "0", "0", "0", "0", "100"]
    ratio = f"{int(1000 * (must - 1) / must) / 10:.1f}"
    assert numbers[7:14] == [str(len(PLAN_IDS) - 1), "1", "0", "0", "0", ratio, "%"]


def test_keyword_with_a_case_id_selects_it_for_every_target(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--planmode-target=reference", "--planmode-target=ref2=reference",
        "-k", "name.dot-rejected", "-v", str(PLANS),
    )  # fmt: skip
    result.assert_outcomes(passed=2, deselected=2 * (len(PLAN_IDS) - 1))
    result.stdout.fnmatch_lines(["*dot-rejected?reference? PASSED*", "*dot-rejected?ref2? PASSED*"])


def test_property_checks_run_once_per_target(suite) -> None:  # type: ignore[no-untyped-def]
    run = suite("reference", f"--planmode-target=wire={SERVE}", str(PLANS_PROPERTIES), "-v")
    text = run.result.stdout.str()
    assert "[reference] PASSED" in text and "[wire] PASSED" in text
    ref, wire = run.target("reference"), run.target("wire")
    assert ref["results"] == wire["results"] and ref["results"]
    assert set(ref["results"].values()) == {"passed"}


def test_one_target_keeps_plain_case_ids_as_item_names(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--planmode-target=reference", "--co", "-q", str(PLANS)
    )
    assert f"plans.toml::{DOUBLE_DASH}" in result.stdout.str()
    assert f"{DOUBLE_DASH}[" not in result.stdout.str()


def test_the_ini_key_lists_one_target_per_line(pytester: pytest.Pytester) -> None:
    ini = pytester.makeini(f"[pytest]\nplanmode_target =\n    reference\n    wire={SERVE}\n")
    result = pytester.runpytest("-c", str(ini), "-p", "no:cacheprovider", str(PLANS))
    result.assert_outcomes(passed=2 * len(PLAN_IDS))


class TestExpectationsPerTarget:
    def test_a_named_file_applies_to_its_target_only(self, pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
        exp = pytester.path / "lenient-expectations.json"
        exp.write_text(json.dumps({DOUBLE_DASH: "accepts '--' (bug 12)"}))
        target = lenient(pytester)
        run = suite(
            "reference", f"--planmode-target={target}", f"--planmode-expectations=lenient={exp}", str(PLANS)
        )
        assert run.result.ret == pytest.ExitCode.OK, run.text
        assert run.target("lenient")["expectedFailures"] == [DOUBLE_DASH]
        assert run.target("lenient")["expectationsFiles"] == [str(exp)]
        assert run.target("reference")["results"][DOUBLE_DASH] == "passed"
        assert run.target("reference")["expectationsFiles"] == []

    def test_a_plain_file_applies_to_every_target(self, pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
        exp = pytester.path / "shared.json"
        exp.write_text(json.dumps({DOUBLE_DASH: "accepts '--'"}))
        run = suite(
            "reference",
            f"--planmode-target={lenient(pytester)}",
            f"--planmode-expectations={exp}",
            str(PLANS),
        )
        # Listed for the reference too, where it passes: strict XPASS fails the run.
        assert run.result.ret == pytest.ExitCode.TESTS_FAILED
        assert run.target("lenient")["expectedFailures"] == [DOUBLE_DASH]
        assert [f["id"] for f in run.target("reference")["failures"]] == [DOUBLE_DASH]

    def test_a_file_for_an_unknown_target_is_a_usage_error(self, pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
        run = suite("reference", "--planmode-expectations=nobody=x.json", str(PLANS))
        assert run.result.ret == pytest.ExitCode.USAGE_ERROR
        assert "there is no target named 'nobody' (targets: reference)" in run.text

    def test_written_expectations_per_target(self, pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
        out = pytester.path / "lenient.json"
        target = lenient(pytester)
        run = suite(
            "reference",
            f"--planmode-target={target}",
            f"--planmode-write-expectations=lenient={out}",
            str(PLANS),
        )
        assert list(json.loads(out.read_text())) == [DOUBLE_DASH]
        assert f"planmode expectations of lenient written to {out}" in run.text
        plain = suite(
            "reference", f"--planmode-target={target}", f"--planmode-write-expectations={out}", str(PLANS)
        )
        assert plain.result.ret == pytest.ExitCode.USAGE_ERROR
        assert "with several targets, give NAME=FILE for each target" in plain.text


def test_two_targets_given_the_same_name_is_a_usage_error(suite) -> None:  # type: ignore[no-untyped-def]
    run = suite("a=reference", "--planmode-target=a=reference", str(PLANS))
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert "the name 'a' is given to several targets" in run.text


def test_a_broken_second_target_names_itself(suite) -> None:  # type: ignore[no-untyped-def]
    run = suite("reference", "--planmode-target=exec:/no/such/program", str(PLANS))
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--planmode-target exec:/no/such/program: " in run.text and "cannot start" in run.text


def test_xdist_runs_each_target_in_each_worker(suite) -> None:  # type: ignore[no-untyped-def]
    # Fixture cases only: property checks under xdist are in test_node_target.py.
    args = (f"--planmode-target=wire={SERVE}", str(PLANS))
    serial = suite("reference", *args)
    parallel = suite("reference", "-n", "2", *args, subprocess=True)
    assert parallel.result.ret == pytest.ExitCode.OK, parallel.text
    for name in ("reference", "wire"):
        assert serial.target(name)["results"] == parallel.target(name)["results"]
        assert serial.target(name)["levels"] == parallel.target(name)["levels"]
        assert parallel.target(name)["targetExitStatus"] == 0


class TestSpecSelection:
    def test_keeps_the_cases_citing_the_section(self, suite) -> None:  # type: ignore[no-untyped-def]
        section = "Commands, flags, and shortcuts"
        run = suite("reference", f"--planmode-spec={section.lower()}", str(PLANS), str(PLANS_PROPERTIES))
        wanted = {c.id for c in CASES if section in c.spec}
        assert wanted and wanted != PLAN_IDS
        assert set(run.report["results"]) == wanted
        assert run.document["selection"]["spec"] == section.lower()

    def test_a_text_no_section_contains_is_a_usage_error(self, suite) -> None:  # type: ignore[no-untyped-def]
        run = suite("reference", "--planmode-spec=No such heading", str(PLANS))
        assert run.result.ret == pytest.ExitCode.USAGE_ERROR
        assert "--planmode-spec 'No such heading': no case's spec section contains it" in run.text


def test_a_long_mismatch_shows_a_compact_diff(pytester: pytest.Pytester, suite, snapshot) -> None:  # type: ignore[no-untyped-def]
    """A long output: the message shortens expected and got and diffs only what expect checks."""
    target = python_adapter(
        pytester,
        "verbose",
        """
        from pytest_planmode.targets.reference.adapter import REFERENCE
        answer = REFERENCE.call(op, input)
        answer["output"]["path"] = ".pi/plans/" + "x" * 200 + ".md"
        answer["output"]["unchecked"] = "y" * 300
        return answer
        """,
    )
    run = suite(target, "-k", "name.simple", str(PLANS))
    (failure,) = run.report["failures"]
    assert failure["got"]["path"].startswith(".pi/plans/xxx")
    assert failure["expected"] == next(c.expect for c in CASES if c.id == failure["id"])
    assert failure["rule"] and failure["spec"]
    assert "unchecked" not in failure["message"].split("diff of what expect checks")[1]
    assert failure["message"] == snapshot(name="long-mismatch")


def test_report_path_outside_an_existing_directory_is_created(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    page = pytester.path / "out" / "page.html"
    run = suite("reference", f"--planmode-html={page}", "-k", "name.simple", str(PLANS))
    assert page.is_file() and '<table id="operation-table">' in page.read_text()
    assert f"planmode page written to {page}" in run.text


def test_report_is_valid_against_the_shipped_schema(suite) -> None:  # type: ignore[no-untyped-def]
    import jsonschema

    from pytest_planmode.suite import PACKAGE_DIR

    schema = json.loads((PACKAGE_DIR / "schemas" / "report.schema.json").read_text())
    run = suite("reference", f"--planmode-target=wire={SERVE}", str(PLANS))
    jsonschema.validate(run.document, schema)
    broken = dict(run.document, targets=[])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)
