"""`planmode`: the kit's command line for people who maintain fixtures and ports.

    planmode fixtures lint [DIR] [--spec-dir DIR]   check every fixture file (and the
                                          cited sections against the spec documents)
    planmode fixtures export --json DIR   write the suite as JSON
    planmode schemas write|check          regenerate / verify the shipped schemas
    planmode explain CASE_ID              one case: its rule, input, expectation, a target's answer
    planmode explain --operation OP       one operation's contract: events, fields (each output
                                          field an effect or an explanation), an example
    planmode validate FILE                check a pi-plan-mode.json or opl-modes.json
    planmode report summary|diff|badge|html FILE ...   views of a JSON report
    planmode check ...                    decide one command (see `planmode check -h`)
    planmode pi install [VERSION ...]     install the real Pi for pi: targets (0.84.2, 1.6.0)

Exit status: 0 success, 1 a check found problems (or a command was blocked),
2 usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_planmode import SUITE_VERSION, __version__


def _fixtures_lint(args: argparse.Namespace) -> int:
    from pytest_planmode.suite import FIXTURES_DIR, FixtureError, fixture_files, load_suite

    root = Path(args.dir) if args.dir else FIXTURES_DIR
    if not root.is_dir():
        print(f"planmode fixtures lint: {root} is not a directory", file=sys.stderr)
        return 2
    files = fixture_files(root)
    if not files:
        print(f"planmode fixtures lint: no *.toml fixture file under {root}", file=sys.stderr)
        return 1
    try:
        cases = load_suite(root)
    except FixtureError as exc:
        print(exc, file=sys.stderr)
        count = str(exc).count("\n") + 1
        print(f"\n{count} problem(s) in the fixtures under {root}", file=sys.stderr)
        return 1
    ops = {c.operation for c in cases}
    if root == FIXTURES_DIR:
        from pytest_planmode.contract import operations

        # The shipped suite judges every operation of the contract: one
        # without a case would be listed in the handshake and never tested.
        untested = sorted(set(operations()) - ops)
        if untested:
            for name in untested:
                print(f"{name}: the contract declares it but no fixture case exercises it", file=sys.stderr)
            print(f"\n{len(untested)} operation(s) without a case under {root}", file=sys.stderr)
            return 1
    if args.spec_dir:
        from pytest_planmode.suite import sections_drift

        spec_dir = Path(args.spec_dir)
        if not spec_dir.is_dir():
            print(f"planmode fixtures lint: --spec-dir {spec_dir} is not a directory", file=sys.stderr)
            return 2
        drift = sections_drift(spec_dir)
        if drift:
            for line in drift:
                print(line, file=sys.stderr)
            print(f"\n{len(drift)} difference(s) between the section table and {spec_dir}", file=sys.stderr)
            return 1
    levels = {lvl: sum(1 for c in cases if c.level == lvl) for lvl in ("must", "reference")}
    print(
        f"{len(files)} file(s), {len(cases)} case(s) ({levels['must']} must, "
        f"{levels['reference']} reference), {len(ops)} operation(s): ok"
    )
    return 0


def _fixtures_export(args: argparse.Namespace) -> int:
    from pytest_planmode.suite import FixtureError, load_suite

    try:
        cases = load_suite()
    except FixtureError as exc:
        print(f"planmode fixtures export: the suite's fixtures are malformed:\n{exc}", file=sys.stderr)
        return 1
    out = Path(args.json)
    if out.exists() and not out.is_dir():
        print(f"planmode fixtures export: --json {out}: not a directory", file=sys.stderr)
        return 2
    by_file: dict[str, list[dict[str, object]]] = {}
    for case in cases:
        by_file.setdefault(case.file, []).append(
            {
                "id": case.id,
                "operation": case.operation,
                "level": case.level,
                "spec": case.spec,
                "description": case.description,
                "input": case.input,
                "expect": case.expect,
            }
        )
    files = []
    for name, entries in by_file.items():
        path = out / Path(name).with_suffix(".json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            json.dumps({"suite": SUITE_VERSION, "cases": entries}, indent=2, ensure_ascii=False) + "\n",
            encoding="utf-8",
        )
        files.append(path.relative_to(out).as_posix())
    index = {
        "suite": SUITE_VERSION,
        "matching": (
            "expect matches the output partially: each key given must match, keys not given are "
            'not checked; lists match element by element, except {"$unordered": [...]}, which '
            'matches the same items in any order; {"$anyText": true} matches any non-blank '
            'string; {"$anyTextBut": [...]} matches any non-blank string but those listed; '
            '{"$textWith": [...]} / {"$textWithout": [...]} match a string holding each / none '
            'of the texts listed, ignoring case; {"$has": [...]} matches a list holding an item '
            "for each pattern, among others; scalars by JSON equality"
        ),
        "files": files,
        "cases": len(cases),
    }
    (out / "index.json").write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {len(cases)} case(s) in {len(files)} file(s) to {out}")
    return 0


def _schemas(args: argparse.Namespace) -> int:
    from pytest_planmode import schemas_export

    if args.action == "write":
        written = schemas_export.write()
        print(f"wrote {len(written)} schema(s) to {schemas_export.SCHEMAS_DIR}")
        return 0
    problems = schemas_export.drift()
    if problems:
        print("\n".join(problems), file=sys.stderr)
        print("run `planmode schemas write` to regenerate them", file=sys.stderr)
        return 1
    print(f"{len(schemas_export.generate())} schema(s) match their models")
    return 0


def _explain(args: argparse.Namespace) -> int:
    from pytest_planmode.contract import operations
    from pytest_planmode.limits import DEFAULT_TIMEOUT
    from pytest_planmode.matching import mismatches
    from pytest_planmode.suite import FixtureError, load_suite
    from pytest_planmode.targets import TargetError, resolve_target

    try:
        cases = {case.id: case for case in load_suite()}
    except FixtureError as exc:
        print(f"planmode explain: the suite's fixtures are malformed:\n{exc}", file=sys.stderr)
        return 2
    if (args.case_id is None) == (args.operation is None):
        print("planmode explain: give a CASE_ID or --operation OP (one of them)", file=sys.stderr)
        return 2
    if args.operation is not None:
        from pytest_planmode.contract_docs import explain_operation

        text = explain_operation(args.operation, list(cases.values()))
        if text is None:
            from pytest_planmode.contract import operations

            known = ", ".join(operations())
            print(f"planmode explain: no operation {args.operation!r}; known: {known}", file=sys.stderr)
            return 2
        print(text)
        return 0
    case = cases.get(args.case_id)
    if case is None:
        from pytest_planmode.properties import property_checks

        check = property_checks().get(args.case_id)
        if check is not None:
            return _explain_property(check, args.target)
        near = sorted(i for i in cases if args.case_id in i)[:10]
        hint = f"; ids containing it: {', '.join(near)}" if near else ""
        print(f"planmode explain: no case {args.case_id!r} in suite {SUITE_VERSION}{hint}", file=sys.stderr)
        return 2
    show = json.dumps
    print(f"{case.id}  ({case.operation}, level {case.level})")
    operation = operations().get(case.operation)
    if operation is not None:
        print(f"does:     {operation.describe()}")
    print(f"where:    {case.where}")
    print(f"spec:     {case.spec}")
    print(f"rule:     {case.description}")
    print(f"input:    {show(case.input, ensure_ascii=False)}")
    print(f"expect:   {show(case.expect, ensure_ascii=False)}")
    try:
        target = resolve_target(args.target, timeout=DEFAULT_TIMEOUT)
        handshake = target.handshake()
    except TargetError as exc:
        print(f"planmode explain: {exc}", file=sys.stderr)
        return 2
    try:
        if case.operation not in handshake.operations:
            print(f"{handshake.label}: does not list {case.operation} (the case would be skipped)")
            return 1
        outcome = target.request(case.operation, case.input)
    finally:
        target.close()
    if outcome.kind != "output":
        print(f"{handshake.label}: {outcome.kind}: {outcome.message or ''}")
        return 1
    print(f"answer:   {show(outcome.output, ensure_ascii=False)}  ({handshake.label})")
    problems = mismatches(case.expect, outcome.output)
    for problem in problems:
        print(f"  {problem}")
    print("passes" if not problems else "fails")
    return 0 if not problems else 1


def _explain_property(check: Any, target: str) -> int:
    """A property check: what it states, then one run of it against `target`
    (through pytest, exactly as the suite runs it)."""
    import subprocess
    import tempfile

    from pytest_planmode.suite import CONFORMANCE_DIR

    module_file = CONFORMANCE_DIR / f"{check.module.rsplit('.', 1)[1]}.py"
    print(f"{check.id}  (property check of {', '.join(check.operations)}, level {check.level})")
    print(f"where:    {module_file.name}::{check.function}")
    print(f"spec:     {check.spec}")
    print(f"rule:     {check.rule}")
    if check.explains:
        print(f"explains: {', '.join(check.explains)} (a target that observes effects only skips it)")
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        argv = [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
            f"--rootdir={tmp}", f"--planmode-target={target}", f"--planmode-report={report}",
            "-k", check.id, str(module_file),
        ]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        done = subprocess.run(argv, cwd=tmp, env=env, capture_output=True, text=True, check=False)
        if not report.exists():
            print(
                f"planmode explain: the run failed:\n{(done.stdout + done.stderr)[-3000:]}", file=sys.stderr
            )
            return 2
        data = json.loads(report.read_text(encoding="utf-8"))["targets"][0]
    outcome = data["results"].get(check.id, "not run")
    label = data["implementation"].get("name", target)
    for failure in data["failures"]:
        if failure["id"] == check.id:
            print(failure["message"])
    if outcome in ("skipped", "explained"):
        print(f"{label}: {data['skipReasons'].get(check.id, outcome)}")
    print("passes" if outcome == "passed" else "fails")
    return 0 if outcome == "passed" else 1


def _unknown_keys(data: bytes, settings: Any) -> list[str]:
    """The top-level keys of a settings document that no setting reads
    (the effective settings name every key that is read)."""
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):
        return []
    if not isinstance(document, dict) or not isinstance(settings, dict):
        return []
    return [key for key in document if key not in settings]


def _validate(args: argparse.Namespace) -> int:
    import base64

    from pytest_planmode.targets.reference.adapter import REFERENCE

    path = Path(args.file)
    kind = args.kind or ("opl-modes" if path.name == "opl-modes.json" else "pi-plan-mode")
    try:
        data = path.read_bytes()
    except OSError as exc:
        print(f"planmode validate: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    if kind == "pi-plan-mode":
        # Judged as the canonical file of an agent directory holding only it.
        entry = {"kind": "file", "base64": base64.b64encode(data).decode("ascii")}
        answer = REFERENCE.call("planmode.settings.load", {"files": {"pi-plan-mode.json": entry}})
        out = answer["output"]
        ok = out["status"] == "valid"
        print(f"{path}: {'valid' if ok else 'invalid'} pi-plan-mode settings")
        for warning in out.get("warnings", []):
            print(f"  warning: {warning.get('message', warning) if isinstance(warning, dict) else warning}")
        unknown = _unknown_keys(data, out.get("settings"))
        if unknown:
            print(
                f"  warning: unknown key{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(map(repr, unknown))} {'are' if len(unknown) > 1 else 'is'} ignored; "
                f"pi-plan-mode reads {', '.join(out['settings'])}"
            )
        if args.show:
            print(json.dumps(out["settings"], indent=2, ensure_ascii=False))
        return 0 if ok else 1
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        print(f"{path}: invalid opl-modes configuration: not UTF-8 ({exc.reason} at byte {exc.start})")
        return 1
    out = REFERENCE.call("oplmodes.config.load", {"text": text})["output"]
    problems = out.get("problems", [])
    print(f"{path}: {'valid' if not problems else 'invalid'} opl-modes configuration")
    for problem in problems:
        print(f"  problem: {problem['message']}")
    for warning in out.get("warnings", []):
        print(f"  warning: {warning['message']}")
    if args.show:
        print(json.dumps(out["modes"], indent=2, ensure_ascii=False))
    return 0 if not problems else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="planmode",
        description="pytest-planmode: conformance kit for plan-mode policy engines.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Run the conformance suite itself with: pytest --planmode-target=<target>",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    fixtures = sub.add_parser("fixtures", help="lint or export the suite's fixture files")
    fsub = fixtures.add_subparsers(dest="action", metavar="ACTION")
    fsub.required = True
    lint = fsub.add_parser("lint", help="validate every fixture file (format, ids, spec citations, inputs)")
    lint.add_argument("dir", nargs="?", help="fixtures directory (default: the shipped suite)")
    lint.add_argument(
        "--spec-dir",
        metavar="DIR",
        help="also check the section table citations are checked against with the headings of the "
        "specification documents in DIR (opl-modes.md, pi-plan-mode-settings.md, reference-choices.md)",
    )
    lint.set_defaults(func=_fixtures_lint)
    export = fsub.add_parser("export", help="write the whole suite as JSON files")
    export.add_argument("--json", required=True, metavar="DIR", help="output directory")
    export.set_defaults(func=_fixtures_export)

    schemas = sub.add_parser("schemas", help="regenerate or verify the shipped JSON Schemas")
    schemas.add_argument("action", choices=["write", "check"])
    schemas.set_defaults(func=_schemas)

    explain = sub.add_parser(
        "explain", help="show one case: its spec rule, input, expectation and a target's answer"
    )
    explain.add_argument("case_id", metavar="CASE_ID", nargs="?")
    explain.add_argument("--target", default="reference", help="reference (default), python:… or exec:…")
    explain.add_argument(
        "--operation",
        metavar="OP",
        help="instead of a case: an operation's contract (its events, input and output fields, "
        "an example exchange)",
    )
    explain.set_defaults(func=_explain)

    validate = sub.add_parser(
        "validate", help="check a pi-plan-mode.json or opl-modes.json as the reference reads it"
    )
    validate.add_argument("file", metavar="FILE")
    validate.add_argument(
        "--kind",
        choices=["pi-plan-mode", "opl-modes"],
        help="which document (default: opl-modes for a file named opl-modes.json, else pi-plan-mode)",
    )
    validate.add_argument("--show", action="store_true", help="print the effective settings or modes")
    validate.set_defaults(func=_validate)

    from pytest_planmode.reports.cli import add_report_command

    add_report_command(sub)

    # The real Pi for pi: targets (pytest_planmode/hosts/pi/install.py).
    from pytest_planmode.hosts.pi.cli import add_pi_command

    add_pi_command(sub)

    # The programs the sandbox checks observe (pytest_planmode/sandbox/install.py).
    from pytest_planmode.sandbox.cli import add_sandbox_command

    add_sandbox_command(sub)

    try:
        from pytest_planmode.cli_check import add_check_command
    except ImportError:
        pass
    else:
        add_check_command(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        status = func(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader left (`| head`): one line, and no second error when
        # Python flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        print(f"{parser.prog}: the output was closed before it was complete (broken pipe)", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        print(f"{parser.prog}: cannot write{where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return status


if __name__ == "__main__":
    raise SystemExit(main())
