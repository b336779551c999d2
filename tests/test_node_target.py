"""The Node.js example target (examples/node-target/) seen from a port's side.

The conformance suite runs against it through `exec:` in a separate pytest
process, as a port's CI would, and the outcome is read back from the JSON
report (`--planmode-report`) and, for per-case outcomes and skip reasons,
from a JUnit XML file of the same run. Expectations are computed from the
shipped fixtures and from what the run collected, never from fixed counts:
the suite grows as operations are added.

The fast gate runs a slice (the plan-name fixtures and properties, a file
of another operation); the whole suite is a `whole_suite` test.
"""

from __future__ import annotations

import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import unicodedata
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode import PROTOCOL_VERSION, SUITE_VERSION
from pytest_planmode.contract import operations as contract_operations
from pytest_planmode.matching import mismatches
from pytest_planmode.suite import CONFORMANCE_DIR, FIXTURES_DIR, Case, load_file, load_suite
from pytest_planmode.targets.reference.adapter import REFERENCE

EXAMPLE_DIR = Path(__file__).resolve().parent.parent / "examples" / "node-target"
TARGET = EXAMPLE_DIR / "target.mjs"
WRONG_TARGET = EXAMPLE_DIR / "wrong-target.mjs"
NODE = shutil.which("node")

PLANS_OP = "oplmodes.plans.resolve"
#: The property check that pins "a plan name must contain a letter or digit".
NO_ALNUM_PROPERTY = "oplmodes.plans.property.no-alnum-rejected"
#: What the wrong variant answers for a name without a letter or digit.
WRONG_ANSWER = {"accepted": True, "path": ".pi/plans/plan-.md", "reason": None}

pytestmark = pytest.mark.skipif(
    NODE is None,
    reason="node (Node.js) is not on PATH: the Node.js example target cannot run here",
)

HELLO = {"op": "hello", "protocol": PROTOCOL_VERSION, "suite": SUITE_VERSION}

#: The slice of the fast gate: every fixture file naming the implemented
#: operation's cases, its property checks, and a file of an operation the
#: example does not implement (skipped as unsupported).
SLICE_FILES = (
    FIXTURES_DIR / "oplmodes" / "plans.toml",
    FIXTURES_DIR / "planmode" / "shortcut.toml",
)
SLICE_PROPERTIES = CONFORMANCE_DIR / "test_oplmodes_plans.py"
SLICE = (*map(str, SLICE_FILES), str(SLICE_PROPERTIES))


# -- helpers -------------------------------------------------------------------


def marker(operation: str) -> str:
    """The -m marker of an operation: dots (and other punctuation) -> '_'."""
    return "".join(ch if ch.isalnum() else "_" for ch in operation)


def exec_spec(script: Path) -> str:
    assert NODE is not None
    return "exec:" + shlex.join([NODE, str(script)])


def talk(script: Path, messages: list[Any], *, raw: list[str] | None = None) -> tuple[list[Any], int, str]:
    """Send messages (then raw lines) to a target, close its input, and
    return the answers, the exit status and stderr."""
    assert NODE is not None
    lines = [json.dumps(m) for m in messages] + (raw or [])
    done = subprocess.run(
        [NODE, str(script)],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )
    # Split on "\n" only: str.splitlines() would also split inside JSON
    # strings at U+2028, U+0085 and the like, which JSON leaves unescaped.
    answers = [json.loads(line) for line in done.stdout.split("\n") if line]
    return answers, done.returncode, done.stderr


def handshake(script: Path) -> dict[str, Any]:
    answers, status, _ = talk(script, [HELLO])
    assert status == 0
    assert len(answers) == 1
    answer: dict[str, Any] = answers[0]
    return answer


@dataclass(frozen=True)
class Result:
    case_id: str
    operation: str
    outcome: str  # passed, failed, skipped, error
    message: str


@dataclass(frozen=True)
class Run:
    status: int
    output: str
    document: dict[str, Any]
    results: dict[str, Result]

    @property
    def report(self) -> dict[str, Any]:
        """The report's part for the one target of the run."""
        (target,) = self.document["targets"]
        return dict(target)

    def ids(self, outcome: str) -> set[str]:
        return {r.case_id for r in self.results.values() if r.outcome == outcome}


def read_junit(path: Path) -> dict[str, Result]:
    """Per-case outcomes: the harness records each case's id and operation
    as user properties, which JUnit XML carries."""
    results: dict[str, Result] = {}
    for testcase in ET.parse(path).getroot().iter("testcase"):
        props = {p.get("name"): p.get("value") for p in testcase.iter("property")}
        case_id = props.get("planmode_case")
        if case_id is None:
            continue
        outcome, message = "passed", ""
        for tag in ("error", "failure", "skipped"):
            element = testcase.find(tag)
            if element is not None:
                outcome = {"failure": "failed"}.get(tag, tag)
                message = element.get("message") or ""
                break
        assert case_id not in results, f"case {case_id} reported twice"
        results[case_id] = Result(case_id, str(props.get("planmode_operation")), outcome, message)
    return results


def run_suite(tmp_path: Path, script: Path, *extra: str) -> Run:
    """Run the whole shipped suite against `script` in a fresh pytest process,
    from a directory that has nothing to do with this project."""
    workdir = tmp_path / "port"
    workdir.mkdir(exist_ok=True)
    report, junit = workdir / "report.json", workdir / "junit.xml"
    for stale in (report, junit):
        stale.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            f"--planmode-target={exec_spec(script)}",
            f"--planmode-report={report}",
            f"--junitxml={junit}",
            "-p",
            "no:cacheprovider",
            "-q",
            *extra,
        ],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = done.stdout + done.stderr
    assert report.is_file(), f"no report written:\n{output[-3000:]}"
    return Run(
        done.returncode,
        output,
        json.loads(report.read_text(encoding="utf-8")),
        read_junit(junit),
    )


def fixture_cases() -> list[Case]:
    return load_suite()


def slice_cases() -> list[Case]:
    return [case for path in SLICE_FILES for case in load_file(path)]


def has_letter_or_digit(name: str) -> bool:
    """The rule the wrong variant breaks, stated independently of any
    implementation: a Unicode letter (L*) or number (N*)."""
    return any(unicodedata.category(ch)[0] in "LN" for ch in name.lower())


LIMIT = 0x30000  # the Basic, Supplementary and Ideographic planes


def unassigned_in_node(limit: int) -> set[int]:
    """Code points below `limit` that Node's Unicode tables leave unassigned."""
    assert NODE is not None
    script = (
        "const out = [];"
        f"for (let c = 0; c < {limit}; c++)"
        "  if (/^\\p{Cn}$/u.test(String.fromCodePoint(c))) out.push(c);"
        "process.stdout.write(JSON.stringify(out));"
    )
    done = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=60, check=True)
    unassigned = set(json.loads(done.stdout))
    assert 0x378 in unassigned and 0x41 not in unassigned  # sanity: a known gap, a letter
    return unassigned


def check_report_matches_results(run: Run) -> None:
    """The report's counts are the per-case outcomes of the same run."""
    per_op: dict[str, Counter[str]] = {}
    for result in run.results.values():
        per_op.setdefault(result.operation, Counter())[result.outcome] += 1
    outcomes = ("passed", "failed", "skipped", "explained", "xfailed", "error")
    assert run.report["operations"] == {
        op: {o: counts[o] for o in outcomes} for op, counts in sorted(per_op.items())
    }
    total = sum(per_op.values(), Counter())
    assert run.report["totals"] == {o: total[o] for o in outcomes}
    if "results" in run.report:  # per-case outcomes, in reports that carry them
        assert run.report["results"] == {r.case_id: r.outcome for r in run.results.values()}


# -- the wire, message by message ----------------------------------------------------


def test_handshake_names_the_implementation_and_real_operations() -> None:
    answer = handshake(TARGET)
    assert answer["protocol"] == PROTOCOL_VERSION
    assert answer["implementation"] == {
        "name": "planmode-node-example",
        "version": answer["implementation"]["version"],
        "language": "javascript",
    }
    ops = answer["operations"]
    assert PLANS_OP in ops
    # A misspelt operation would only ever be skipped: every listed name
    # must be an operation of the contract.
    assert set(ops) <= set(contract_operations()), set(ops) - set(contract_operations())


def test_requests_get_exactly_one_answer_each_and_end_of_input_exits_0() -> None:
    answers, status, stderr = talk(
        TARGET,
        [
            HELLO,
            {"id": 1, "op": PLANS_OP, "input": {"source": "command", "value": "Auth Refactor"}},
            {"id": 2, "op": "planmode.no.such-operation", "input": {}},
            {"id": 3, "op": PLANS_OP, "input": {"source": "elsewhere", "value": "x"}},
            {"id": 4, "op": PLANS_OP, "input": {"source": "command", "value": "x", "extra": 1}},
            {"id": 5, "op": PLANS_OP, "input": {"source": "command"}},
            {"id": 6, "op": PLANS_OP, "input": "not an object"},
            {"id": 7, "op": PLANS_OP, "input": {"source": "resume", "value": "plan-a.md"}},
        ],
        raw=["", "this is not JSON"],
    )
    assert status == 0, stderr
    hello, *rest = answers
    assert "id" not in hello and hello["protocol"] == PROTOCOL_VERSION
    by_id = {a["id"]: a for a in rest if a["id"] is not None}
    assert sorted(by_id) == [1, 2, 3, 4, 5, 6, 7]
    assert by_id[1] == {
        "id": 1,
        "output": {"accepted": True, "path": ".pi/plans/plan-auth-refactor.md", "reason": None},
    }
    assert by_id[2] == {"id": 2, "unsupported": True}
    for rid, needle in ((3, "source"), (4, "extra"), (5, "value"), (6, "input")):
        assert set(by_id[rid]) == {"id", "error"}, by_id[rid]
        assert needle in by_id[rid]["error"]["message"], by_id[rid]
    assert by_id[7]["output"] == {"accepted": True, "path": ".pi/plans/plan-a.md", "reason": None}
    # The blank line is ignored; the garbage line gets one error answer
    # without an id (none can be recovered).
    orphans = [a for a in rest if a["id"] is None]
    assert len(orphans) == 1 and "not JSON" in orphans[0]["error"]["message"]


def test_a_throwing_handler_becomes_an_error_answer_and_serving_goes_on(tmp_path: Path) -> None:
    # A port imports `serve` and its own handlers, as wrong-target.mjs does.
    script = tmp_path / "throwing.mjs"
    script.write_text(
        f"import {{ OPERATIONS, serve }} from {json.dumps(TARGET.as_uri())};\n"
        "const boom = () => { throw new RangeError('kaput'); };\n"
        "const later = (input) => new Promise((ok) => setTimeout(() => ok({ echo: input }), 20));\n"
        "const rejects = async () => { throw new Error('async kaput'); };\n"
        "const forgets = () => undefined;\n"
        "serve({ operations: { ...OPERATIONS, 'x.boom': boom, 'x.later': later,\n"
        "  'x.rejects': rejects, 'x.forgets': forgets } });\n",
        encoding="utf-8",
    )
    answers, status, stderr = talk(
        script,
        [
            HELLO,
            {"id": 1, "op": "x.boom", "input": {}},
            {"id": 2, "op": PLANS_OP, "input": {"source": "command", "value": "--"}},
            {"id": 3, "op": "x.later", "input": {"n": 1}},
            {"id": 4, "op": "x.rejects", "input": {}},
            {"id": 5, "op": "x.forgets", "input": {}},
            {"id": 6, "op": PLANS_OP, "input": {"source": "command", "value": "ok"}},
        ],
    )
    assert status == 0
    assert answers[0]["operations"] == sorted([PLANS_OP, "x.boom", "x.later", "x.rejects", "x.forgets"])
    assert answers[1] == {"id": 1, "error": {"message": "RangeError: kaput"}}
    assert answers[2]["id"] == 2 and answers[2]["output"]["accepted"] is False
    # Async handlers are awaited in order; a rejection is an error answer.
    assert answers[3] == {"id": 3, "output": {"echo": {"n": 1}}}
    assert answers[4] == {"id": 4, "error": {"message": "Error: async kaput"}}
    assert answers[5]["id"] == 5 and "not an object" in answers[5]["error"]["message"]
    assert answers[6]["id"] == 6 and answers[6]["output"]["accepted"] is True
    assert len(answers) == 7
    assert "RangeError: kaput" in stderr  # the stack goes to stderr, never stdout


def test_answers_match_the_reference_exactly() -> None:
    """Differential check: the same names and filenames through the Node.js
    target and through the reference give identical outputs, reasons
    included. Random characters are drawn from those assigned in both this
    Python's and this Node's Unicode tables, which may be of different
    Unicode versions (see docs/porting.md)."""
    rng = random.Random(20261129)
    node_unassigned = unassigned_in_node(LIMIT)
    assigned = [
        chr(c)
        for c in range(LIMIT)
        if unicodedata.category(chr(c)) not in ("Cn", "Cs") and c not in node_unassigned
    ]
    ascii_mix = "abcXYZ019 -_./\\'\"\t\n\x00\x7f"
    tricky = [
        "",
        ".",
        "..",
        "--",
        " ",
        "\u00a0",
        "\u3000",
        "ΑΣ",
        "ΟΔΟΣ ΑΣ.",
        "İstanbul",
        "\u212a",
        "ß",
        "ǅ",
        "Ⅻ",
        "٣",
        "x\u0301",
        "\ufeffa",
        "\u200b",
        "a\u2028b",
        "\U0001f680",
        "\ud800",
        "'",
        '"',
        "'\"",
        "\\",
        "plan-a.md",
        "plan-a..b.md",
        "\x1f",
        "\x85",
        "a\u0000b",
    ]
    values = list(tricky)
    for _ in range(1500):
        size = rng.randint(0, 12)
        pool = assigned if rng.random() < 0.5 else ascii_mix
        values.append("".join(rng.choice(pool) for _ in range(size)))
    requests = [
        {"id": i, "op": PLANS_OP, "input": {"source": source, "value": value}}
        for i, (source, value) in enumerate(
            (source, value) for value in values for source in ("command", "resume")
        )
    ]
    answers, status, stderr = talk(TARGET, [HELLO, *requests])
    assert status == 0, stderr
    assert len(answers) == len(requests) + 1
    differences = []
    for request, answer in zip(requests, answers[1:], strict=True):
        expected = REFERENCE.call(PLANS_OP, request["input"])
        expected["id"] = request["id"]
        if answer != expected:
            differences.append(f"{request['input']!r}: node {answer!r}, reference {expected!r}")
    assert not differences, f"{len(differences)} difference(s):\n" + "\n".join(differences[:20])


# -- the whole suite, as a port's CI runs it ----------------------------------------------


def check_implemented_pass_and_the_rest_is_skipped(run: Run, cases: list[Case]) -> None:
    """Every case of `cases` ran under its operation; the implemented
    operations pass entirely (fixtures and property checks) and everything
    else is skipped as unsupported, never passed."""
    implemented = set(handshake(TARGET)["operations"])
    report = run.report
    assert run.document["suite"] == SUITE_VERSION
    assert report["implementation"]["name"] == "planmode-node-example"
    assert report["failures"] == [], run.output[-3000:]
    assert report["totals"]["failed"] == 0 and report["totals"]["error"] == 0
    assert report["totals"]["xfailed"] == 0
    assert run.status == 0, run.output[-3000:]
    # End of input: the target exited with status 0 (reports that record it).
    assert report.get("targetExitStatus", 0) == 0

    by_id = {c.id: c for c in cases}
    missing = set(by_id) - set(run.results)
    assert not missing, f"fixture cases not run: {sorted(missing)[:20]}"
    for case_id, case in by_id.items():
        assert run.results[case_id].operation == case.operation
    assert {c.operation for c in cases} - implemented, "the run has no unsupported operation to skip"

    wrong = []
    for result in run.results.values():
        if result.operation in implemented:
            if result.outcome != "passed":
                wrong.append(f"{result.case_id}: {result.outcome} {result.message[:200]}")
        elif result.outcome != "skipped" or not result.message.startswith("unsupported"):
            wrong.append(f"{result.case_id} ({result.operation}): {result.outcome} {result.message!r}")
    assert not wrong, "\n".join(wrong[:30])
    assert NO_ALNUM_PROPERTY in run.results, "the property checks did not run"
    for op in implemented:
        assert any(c.operation == op for c in by_id.values()), f"{op} has no fixture case"
        assert report["operations"][op]["passed"] >= sum(c.operation == op for c in by_id.values())
    check_report_matches_results(run)
    version = handshake(TARGET)["implementation"]["version"]
    assert f"planmode: planmode-node-example {version} (javascript)" in run.output


def test_a_slice_passes_the_implemented_operation_and_skips_the_rest(tmp_path: Path) -> None:
    run = run_suite(tmp_path, TARGET, *SLICE)
    check_implemented_pass_and_the_rest_is_skipped(run, slice_cases())
    assert set(run.results) - {c.id for c in slice_cases()} <= {
        r.case_id for r in run.results.values() if ".property." in r.case_id
    }


@pytest.mark.whole_suite
def test_suite_passes_the_implemented_operations_and_skips_the_rest(tmp_path: Path) -> None:
    run = run_suite(tmp_path, TARGET, "--planmode-strict")
    check_implemented_pass_and_the_rest_is_skipped(run, fixture_cases())


def wrong_rule_case_ids(cases: list[Case] | None = None) -> set[str]:
    """The fixture cases whose expectations the wrong rule breaks: a command
    name without a letter or digit, where the wrong answer does not match."""
    return {
        case.id
        for case in (fixture_cases() if cases is None else cases)
        if case.operation == PLANS_OP
        and case.input["source"] == "command"
        and not has_letter_or_digit(case.input["value"])
        and mismatches(case.expect, WRONG_ANSWER)
    }


def test_the_wrong_rule_is_pinned_by_the_spec_examples() -> None:
    """`/plan .` and `/plan --` are the spec's own examples of the rule."""
    cases = fixture_cases()
    ids = wrong_rule_case_ids(cases)
    pinned = {case.input["value"] for case in cases if case.id in ids}
    assert {".", "--"} <= pinned


def check_wrong_variant(run: Run, cases: list[Case]) -> None:
    """The wrong variant fails exactly the cases of `cases` that pin the
    rule it breaks, and the property check of that rule."""
    expected = wrong_rule_case_ids(cases) | {NO_ALNUM_PROPERTY}
    assert run.status == 1, run.output[-3000:]

    failed = {f["id"] for f in run.report["failures"]}
    assert failed == expected, (
        f"failed but not expected: {sorted(failed - expected)}\n"
        f"expected but not failed: {sorted(expected - failed)}"
    )
    assert run.ids("failed") == expected
    for failure in run.report["failures"]:
        assert failure["outcome"] == "failed" and failure["operation"] == PLANS_OP, failure
    assert run.report["totals"]["error"] == 0
    # Each failure names its case and shows what the target answered.
    for failure in run.report["failures"]:
        if failure["id"] == NO_ALNUM_PROPERTY:
            assert "has no letter or digit but was accepted" in failure["message"]
        else:
            assert f"({failure['id']})" in failure["message"]
            assert "output.accepted: expected false, got true" in failure["message"]
    # Nothing else moved: the rest passes or is skipped as unsupported.
    for result in run.results.values():
        if result.case_id not in expected:
            assert result.outcome == "passed" or (
                result.outcome == "skipped" and result.message.startswith("unsupported")
            ), result
    check_report_matches_results(run)


def test_wrong_variant_fails_exactly_the_cases_of_a_slice_that_pin_the_rule(tmp_path: Path) -> None:
    check_wrong_variant(run_suite(tmp_path, WRONG_TARGET, *SLICE), slice_cases())


@pytest.mark.whole_suite
def test_wrong_variant_fails_exactly_the_cases_that_pin_the_rule(tmp_path: Path) -> None:
    check_wrong_variant(run_suite(tmp_path, WRONG_TARGET), fixture_cases())


def test_expectations_ratchet_from_the_wrong_variant(tmp_path: Path) -> None:
    """A port starts its ratchet in one command, gates on it, and is told to
    update it when a listed case starts passing."""
    expectations = tmp_path / "planmode-expectations.json"
    expected = wrong_rule_case_ids(slice_cases()) | {NO_ALNUM_PROPERTY}

    only = ("-m", marker(PLANS_OP), *SLICE)  # the ratchet concerns this operation only
    first = run_suite(tmp_path, WRONG_TARGET, *only, f"--planmode-write-expectations={expectations}")
    written = json.loads(expectations.read_text(encoding="utf-8"))
    assert set(written) == expected
    assert all(isinstance(reason, str) and reason.strip() for reason in written.values())
    # Every failure is recorded in the file the run wrote: the update run succeeds.
    assert first.status == 0, first.output[-3000:]

    gated = run_suite(tmp_path, WRONG_TARGET, *only, f"--planmode-expectations={expectations}")
    assert gated.status == 0, gated.output[-3000:]
    assert gated.report["failures"] == []
    assert set(gated.report["expectedFailures"]) == expected

    # The port fixes the bug: the listed cases now pass, which fails the
    # run (strict xfail) until the file is updated.
    fixed = run_suite(tmp_path, TARGET, *only, f"--planmode-expectations={expectations}")
    assert fixed.status == 1
    assert {f["id"] for f in fixed.report["failures"]} == expected


def test_xdist_gives_the_same_outcome_as_a_serial_run(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    only = ("-m", marker(PLANS_OP), *SLICE)
    serial = run_suite(tmp_path, WRONG_TARGET, *only)
    parallel = run_suite(tmp_path, WRONG_TARGET, *only, "-n", "2")
    assert parallel.ids("failed") == serial.ids("failed") != set()
    assert {k: r.outcome for k, r in parallel.results.items()} == {
        k: r.outcome for k, r in serial.results.items()
    }
    assert parallel.report["totals"] == serial.report["totals"]
    assert parallel.report["operations"] == serial.report["operations"]
