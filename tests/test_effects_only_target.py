"""A target that observes effects only: the reference behind a black-box
adapter that leaves every explanation field out of its answers
(`tests/targets/effects_only.py`). It passes every must case and every
reference case that pins effects only; every case that needs an
explanation is skipped with its reason and counted apart."""

from __future__ import annotations

import json
import shlex
import sys

import pytest
from conftest import TESTS

from pytest_planmode.contract import operations
from pytest_planmode.observability import explanation_pins
from pytest_planmode.suite import FIXTURES_DIR, load_suite

EFFECTS_ONLY = f"exec:{shlex.join([sys.executable, str(TESTS / 'targets' / 'effects_only.py')])}"


def test_every_effect_case_passes_and_every_explanation_case_is_explained(suite) -> None:  # type: ignore[no-untyped-def]
    run = suite(EFFECTS_ONLY, str(FIXTURES_DIR), "-n", "2", subprocess=True)
    report = run.report
    assert report is not None, run.text[-4000:]
    assert run.result.ret == 0, run.text[-4000:]
    assert report["observes"] == "effects"
    ops = operations()
    explained = 0
    for case in load_suite():
        pins = explanation_pins(ops[case.operation].output, case.expect)
        outcome = report["results"].get(case.id)
        if pins:
            assert case.level == "reference", case.id
            assert outcome == "explained", (case.id, outcome)
            assert report["skipReasons"][case.id] == f"explanation: {pins[0]}"
            explained += 1
        else:
            assert outcome == "passed", (case.id, outcome, report["skipReasons"].get(case.id))
    assert explained > 500
    assert report["totals"]["explained"] == explained
    assert report["totals"]["failed"] == report["totals"]["error"] == report["totals"]["skipped"] == 0
    assert "the target observes effects only" in run.text


def test_an_effects_only_target_fails_where_an_effect_is_wrong(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    pytester.makepyfile(
        wrong_effects=(
            "import sys\n"
            f"sys.path.insert(0, {str(TESTS / 'targets')!r})\n"
            "from effects_only import EffectsOnly\n"
            "class Wrong(EffectsOnly):\n"
            "    def call(self, op, input):\n"
            "        answer = super().call(op, input)\n"
            "        if 'output' in answer:\n"
            "            answer['output']['accepted'] = True\n"
            "        return answer\n"
        )
    )
    pytester.syspathinsert()
    plans = FIXTURES_DIR / "oplmodes" / "plans.toml"
    run = suite("python:wrong_effects:Wrong", str(plans))
    assert run.report is not None and run.report["observes"] == "effects"
    assert "oplmodes.plans.name.dot-rejected" in run.outcomes


def test_observes_must_be_a_known_value_and_needs_protocol_2(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    pytester.makepyfile(
        bad_observes=(
            "class Odd:\n"
            "    def hello(self, suite):\n"
            "        return {'protocol': 2, 'implementation': {'name': 'odd'},\n"
            "                'operations': ['oplmodes.plans.resolve'], 'observes': 'outputs'}\n"
            "    def call(self, op, input):\n"
            "        return {'unsupported': True}\n"
            "class Old(Odd):\n"
            "    def hello(self, suite):\n"
            "        return {**super().hello(suite), 'protocol': 1, 'observes': 'effects'}\n"
        )
    )
    pytester.syspathinsert()
    plans = str(FIXTURES_DIR / "oplmodes" / "plans.toml")
    odd = suite("python:bad_observes:Odd", plans)
    assert odd.result.ret != 0 and "\"observes\" must be one of 'everything', 'effects'" in odd.text
    old = suite("python:bad_observes:Old", plans)
    assert old.result.ret != 0 and '"observes" needs protocol 2' in old.text


#: The property modules whose checks judge effects only (besides the shells').
EFFECT_PROPERTY_MODULES = (
    "test_planmode_settings",
    "test_planmode_tools",
    "test_oplmodes_tools",
    "test_oplmodes_modes",
)


def test_property_checks_run_unless_they_read_explanations(suite) -> None:  # type: ignore[no-untyped-def]
    # Every check of these modules runs (and passes) for an effects-only
    # target, except the ones that declare the explanation they read, which
    # are skipped with its name.
    from pytest_planmode.properties import property_checks
    from pytest_planmode.suite import CONFORMANCE_DIR

    # One shell check that reads `blocked`, for the explained side.
    shell = "test_any_text_is_decided_and_blocked_is_null_exactly_when_allowed"
    paths = [str(CONFORMANCE_DIR / f"{name}.py") for name in EFFECT_PROPERTY_MODULES]
    paths.append(f"{CONFORMANCE_DIR / 'test_planmode_shell.py'}::{shell}")
    run = suite(EFFECTS_ONLY, *paths, "-n", "2", subprocess=True)
    report = run.report
    assert report is not None and run.result.ret == 0, run.text[-4000:]
    results = report["results"]
    checks = [
        c
        for c in property_checks().values()
        if c.module.rsplit(".", 1)[1] in EFFECT_PROPERTY_MODULES or c.function == shell
    ]
    explained = 0
    for check in checks:
        if check.explains:
            assert check.level == "reference", check.id
            assert results.get(check.id) == "explained", (check.id, results.get(check.id))
            assert report["skipReasons"][check.id] == f"explanation: {check.explains[0]}"
            explained += 1
        else:
            assert results.get(check.id) == "passed", (check.id, results.get(check.id))
    effect_checks = [c for c in checks if c.module.rsplit(".", 1)[1] in EFFECT_PROPERTY_MODULES]
    assert len(effect_checks) >= 25 and not [c.id for c in effect_checks if c.explains]
    for rewritten in (
        "planmode.settings.property.any-bytes-usable-or-read-only",
        "planmode.settings.property.valid-document",
        "planmode.tools.property.freezing-never-widens",
        "planmode.tools.property.allowlist-within-names",
        "oplmodes.tools.property.load-within-policy",
        "oplmodes.modes.property.restricted-survives-foreign",
    ):
        assert results[rewritten] == "passed", rewritten
    assert results["planmode.bash.property.blocked-iff-denied"] == "explained"
    assert explained == 2 and report["totals"]["explained"] == explained


def test_a_refresh_drops_entries_of_cases_the_target_cannot_be_judged_on(suite, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # A case that needs an explanation is skipped as explained on every run of
    # an effects-only target, so its entry can never be met: a refresh drops
    # it, and keeps the entries of cases that did not run.
    path = tmp_path / "expectations.json"
    path.write_text(
        json.dumps({"oplmodes.bash.edge.blocked-segment-named": "old reason", "elsewhere.case": "kept"})
    )
    bash_config = FIXTURES_DIR / "oplmodes" / "bash-config.toml"
    run = suite(
        EFFECTS_ONLY,
        f"--planmode-expectations={path}",
        f"--planmode-write-expectations={path}",
        str(bash_config),
    )
    assert run.report is not None, run.text[-2000:]
    assert run.report["results"]["oplmodes.bash.edge.blocked-segment-named"] == "explained"
    assert "1 case id(s) this target is never judged on" in run.text
    assert json.loads(path.read_text()) == {"elsewhere.case": "kept"}
