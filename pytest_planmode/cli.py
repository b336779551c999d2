"""`planmode`: the kit's command line for people who maintain fixtures and ports.

    planmode fixtures lint [DIR]          check every fixture file
    planmode fixtures export --json DIR   write the suite as JSON
    planmode schemas write|check          regenerate / verify the shipped schemas
    planmode check ...                    decide one command (see `planmode check -h`)

Exit status: 0 success, 1 a check found problems (or a command was blocked),
2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

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
        path.write_text(json.dumps({"suite": SUITE_VERSION, "cases": entries}, indent=2,
                                   ensure_ascii=False) + "\n", encoding="utf-8")
        files.append(path.relative_to(out).as_posix())
    index = {
        "suite": SUITE_VERSION,
        "matching": (
            "expect matches the output partially: each key given must match, keys not given are "
            "not checked; lists match element by element, except {\"$unordered\": [...]}, which "
            "matches the same items in any order; scalars by JSON equality"
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
    lint.set_defaults(func=_fixtures_lint)
    export = fsub.add_parser("export", help="write the whole suite as JSON files")
    export.add_argument("--json", required=True, metavar="DIR", help="output directory")
    export.set_defaults(func=_fixtures_export)

    schemas = sub.add_parser("schemas", help="regenerate or verify the shipped JSON Schemas")
    schemas.add_argument("action", choices=["write", "check"])
    schemas.set_defaults(func=_schemas)

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
    return func(args)


if __name__ == "__main__":
    raise SystemExit(main())
