"""`planmode fixtures lint|export` and `planmode schemas check` on the shipped suite."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from conftest import ONE_CASE_TOML

from pytest_planmode import SUITE_VERSION, cli
from pytest_planmode.contract import operations
from pytest_planmode.suite import (
    FIXTURES_DIR,
    FixtureError,
    check_spec,
    fixture_files,
    load_suite,
    spec_headings,
    spec_sections,
)


def test_shipped_fixtures_lint_clean(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["fixtures", "lint"]) == 0
    out = capsys.readouterr().out
    assert f"{len(fixture_files())} file(s)" in out and ": ok" in out


def test_lint_fails_on_an_operation_without_a_case(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pydantic import BaseModel

    from pytest_planmode import contract

    declared = dict(contract.operations())
    declared["planmode.example.new"] = contract.Operation(
        "planmode.example.new", BaseModel, BaseModel, "New."
    )
    monkeypatch.setattr(contract, "operations", lambda: declared)
    assert cli.main(["fixtures", "lint"]) == 1
    err = capsys.readouterr().err
    assert "planmode.example.new: the contract declares it but no fixture case exercises it" in err
    assert "1 operation(s) without a case" in err


def test_every_fixture_operation_has_a_reference_handler() -> None:
    from pytest_planmode.targets.reference.ops import handlers

    used = {case.operation for case in load_suite()}
    assert used <= set(handlers()), used - set(handlers())
    assert set(handlers()) <= set(operations())
    for name, (operation, _) in handlers().items():
        assert operations()[name] is operation


def test_shipped_schemas_match_the_models(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["schemas", "check"]) == 0, capsys.readouterr().err


def test_lint_reports_every_problem_with_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "area").mkdir()
    (tmp_path / "area" / "one.toml").write_text(
        textwrap.dedent(
            """
            [[group]]
            description = "first"
            operation = "oplmodes.plans.resolve"
            spec = "opl-modes.md § No Such Section"
            level = "must"
              [[group.case]]
              id = "x.one"
              input = { source = "command", value = "a", extra = 1 }
              expect = { accepted = true, nonsense = 2 }

            [[group]]
            description = "second"
            operation = "no.such.operation"
            spec = "elsewhere.md § Mode behavior"
            level = "sometimes"
              [[group.case]]
              id = "Bad Id"
              input = {}
              expect = {}
            """
        )
    )
    (tmp_path / "area" / "two.toml").write_text("[[group]\nbroken")
    assert cli.main(["fixtures", "lint", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "area/two.toml: not valid TOML" in err
    assert "area/one.toml: group 2 ('second'): level: Input should be 'must' or 'reference'" in err
    assert "area/one.toml: group 2 ('second'), case 1 (Bad Id): id: String should match pattern" in err
    # Group 1 fits the format, so its contract problems show in the same run.
    assert "area/one.toml: group 1, case 1 (x.one): input.extra: Extra inputs are not permitted" in err
    assert "6 problem(s)" in err


def test_lint_checks_citations_inputs_and_expect_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "one.toml").write_text(
        textwrap.dedent(
            """
            [[group]]
            description = "first"
            operation = "oplmodes.plans.resolve"
            spec = "opl-modes.md § No Such Section"
            level = "must"
              [[group.case]]
              id = "x.one"
              input = { source = "command", value = "a", extra = 1 }
              expect = { accepted = true, nonsense = 2 }
            """
        )
    )
    assert cli.main(["fixtures", "lint", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "opl-modes.md has no section 'No Such Section'" in err
    assert "one.toml: group 1, case 1 (x.one): input.extra: Extra inputs are not permitted" in err
    assert "expect names ['nonsense'], which are not output fields" in err


def test_duplicate_ids_across_files(tmp_path: Path) -> None:
    body = ONE_CASE_TOML
    (tmp_path / "a.toml").write_text(body)
    (tmp_path / "b.toml").write_text(body)
    with pytest.raises(FixtureError, match=r"duplicate case id 'same.id': a.toml: group 1, case 1"):
        load_suite(tmp_path)


@pytest.mark.parametrize(
    ("spec", "ok"),
    [
        ("opl-modes.md § Mode behavior", True),
        ("pi-plan-mode-settings.md § Safe shell subcommands", True),
        ("reference-choices.md § pi-plan-mode: limited Bash", True),
        ("reference-choices.md § Both shell gates: how words, options and paths are read (suite 0.6)", True),
        ("opl-modes.md § Extension features", True),
        ("opl-modes.md § mode behavior", False),
        ("opl-modes.md Mode behavior", False),
        ("README.md § Mode behavior", False),
    ],
)
def test_spec_citations(spec: str, ok: bool) -> None:
    assert (check_spec(spec) is None) is ok


def test_spec_headings_are_read_as_fixtures_cite_them() -> None:
    text = textwrap.dedent(
        """
        # Title is not a section

        ## ⚙️ Settings
        text
        ```json
        ## not a heading, in a fence
        ```
        ### Plan helper tools ##
        #### Deeper: still a section
        #no space, no heading
        ## Settings
        """
    )
    assert spec_headings(text) == ["Settings", "Plan helper tools", "Deeper: still a section"]


def _spec_documents(folder: Path, extra: dict[str, str], drop: dict[str, str]) -> None:
    for doc, heads in spec_sections().items():
        lines = [f"# {doc}", ""]
        for head in sorted(heads):
            if drop.get(doc) != head:
                lines += [f"## {head}", "", "A sentence.", ""]
        if doc in extra:
            lines += [f"### {extra[doc]}", ""]
        (folder / doc).write_text("\n".join(lines), encoding="utf-8")


def test_lint_checks_the_section_table_against_the_spec_documents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _spec_documents(tmp_path, {}, {})
    assert cli.main(["fixtures", "lint", "--spec-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    _spec_documents(
        tmp_path,
        {"reference-choices.md": "A new choice"},
        {"opl-modes.md": "Mode behavior"},
    )
    assert cli.main(["fixtures", "lint", "--spec-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "reference-choices.md: the document has the section 'A new choice'" in err
    assert "opl-modes.md: the section table has 'Mode behavior', which the document lacks" in err
    assert "2 difference(s)" in err
    (tmp_path / "opl-modes.md").unlink()
    assert cli.main(["fixtures", "lint", "--spec-dir", str(tmp_path)]) == 1
    assert "opl-modes.md: not found in" in capsys.readouterr().err
    assert cli.main(["fixtures", "lint", "--spec-dir", str(tmp_path / "missing")]) == 2


def test_null_sentinel_becomes_null(tmp_path: Path) -> None:
    (tmp_path / "n.toml").write_text(
        textwrap.dedent(
            """
            [[group]]
            description = "d"
            operation = "oplmodes.plans.resolve"
            spec = "opl-modes.md § Commands, flags, and shortcuts"
            level = "must"
              [[group.case]]
              id = "n.one"
              input = { source = "command", value = "." }
              expect = { accepted = false, path = { "$null" = true } }
            """
        )
    )
    (case,) = load_suite(tmp_path)
    assert case.expect == {"accepted": False, "path": None}


def test_export_writes_the_suite_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["fixtures", "export", "--json", str(tmp_path)]) == 0
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["suite"] == SUITE_VERSION
    cases = load_suite()
    assert index["cases"] == len(cases)
    exported = []
    for name in index["files"]:
        exported.extend(json.loads((tmp_path / name).read_text())["cases"])
    assert [c["id"] for c in exported] == [c.id for c in cases]
    plans = json.loads((tmp_path / "oplmodes" / "plans.json").read_text())["cases"]
    dot = next(c for c in plans if c["id"] == "oplmodes.plans.name.dot-rejected")
    assert dot["expect"] == {"accepted": False, "path": None}
    assert dot["spec"] == "opl-modes.md § Commands, flags, and shortcuts"


def test_every_case_cites_a_section_and_a_level() -> None:
    for case in load_suite():
        assert check_spec(case.spec) is None, case.where
        assert case.level in ("must", "reference"), case.where


def test_fixture_files_are_sorted() -> None:
    files = fixture_files(FIXTURES_DIR)
    assert files == sorted(files)
