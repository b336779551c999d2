"""The pytest plugin (entry point `pytest11`, name `planmode`).

It loads in every pytest session where the package is installed, so this
module imports nothing heavy: options and ini keys are declared here, and the
harness (pydantic, the targets, the suite) is imported only once
`--planmode-target` (or the `planmode_target` ini key) names a target.
Disable it with `-p no:planmode`.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_planmode.limits import DEFAULT_MAX_LINE, DEFAULT_STARTUP_TIMEOUT, DEFAULT_TIMEOUT, PI_VERSIONS

LEVELS = ("all", "must")

_OPTIONS: list[tuple[str, dict[str, Any], str]] = [
    (
        "target",
        {"metavar": "[NAME=]TARGET", "action": "append"},
        "Run the planmode conformance suite against TARGET: 'reference' (the built-in "
        "reference), 'python:package.module:attribute' (a Python adapter object), "
        "'exec:<command line>' (a process speaking JSON Lines on stdin/stdout) or "
        "'pi:<extension module>' (a Pi extension run inside the real Pi runtime). "
        "Give it several times to judge several targets side by side (items are then "
        "named '<case id>[<name>]'; NAME= sets the name). The ini key takes one target "
        "per line. Without it the plugin adds nothing to the run.",
    ),
    (
        "level",
        {"metavar": "LEVEL", "choices": LEVELS},
        "Which cases to run: 'all' (default) or 'must' (only the cases the specs state; "
        "cases that pin the reference's choices where the specs are silent are deselected).",
    ),
    (
        "timeout",
        {"metavar": "SECONDS", "type": float},
        f"Per-request timeout for exec: targets, in seconds (default {DEFAULT_TIMEOUT:g}). "
        "A request not answered in time fails its case and the target is restarted. "
        "Start-up has its own limit, --planmode-startup-timeout.",
    ),
    (
        "startup-timeout",
        {"metavar": "SECONDS", "type": float},
        "How long an exec: target may take to start and answer the handshake, in seconds "
        f"(default {DEFAULT_STARTUP_TIMEOUT:g}); raise it for a slow-starting runtime. It "
        "applies to every start, restarts after a broken request included.",
    ),
    (
        "pi-node",
        {"metavar": "CMD"},
        "The Node.js command that runs the Pi host for pi: targets (default: the Node the Pi "
        "release was installed with: the machine's when new enough, else the kit's Node 22).",
    ),
    (
        "pi",
        {"metavar": "VERSION"},
        f"Which Pi release hosts pi: targets: {' or '.join(PI_VERSIONS)} (default "
        f"{PI_VERSIONS[-1]}). A release not yet installed is installed from the npm registry on "
        "first use ('planmode pi install VERSION' does it ahead of time). Cases whose steps "
        "that Pi cannot take are reported unsupported, with the reason.",
    ),
    (
        "expectations",
        {"metavar": "[NAME=]FILE", "action": "append"},
        "JSON file mapping case id -> reason for cases the target is known to fail. They run "
        "as strict xfail: a regression fails the run, and so does a listed case that passes "
        "(remove it from the file). With several targets, NAME=FILE gives target NAME its "
        "own file (repeat the option); a FILE without NAME= applies to every target.",
    ),
    (
        "write-expectations",
        {"metavar": "[NAME=]FILE", "action": "append"},
        "Write an expectations file listing every case that failed in this run (keeping the "
        "reasons of cases already listed), to start or update a port's ratchet. With several "
        "targets, give NAME=FILE once per target. Such a run exits 0 when every failure is "
        "recorded in the file(s) it wrote, and 1 when anything else failed it (a target without "
        "a file, a test of your own, a target's exit status).",
    ),
    (
        "fixtures",
        {"metavar": "DIR"},
        "Read fixture files (*.toml) from DIR instead of the shipped suite, e.g. to try new "
        "cases before proposing them. Property checks still run.",
    ),
    (
        "sandbox",
        {"action": "store_true"},
        "Also run the sandbox checks (marked planmode(sandbox=True)): every shell command "
        "of the suite the target allows, and generated ones, runs in a Linux sandbox that "
        "observes file writes, program executions, network contact and leaked secrets. "
        "Where the sandbox cannot start, those checks are skipped with the reason.",
    ),
    (
        "sandbox-programs",
        {"metavar": "NAME[,NAME...]"},
        "Run the sandbox checks (implies --planmode-sandbox) for the named reviewed programs only "
        "(e.g. 'git,grep'): suite commands that name one of them, their part of the sweep, and "
        "generated commands made of them. For working on one program's rules; a run that "
        "judges a gate uses --planmode-sandbox. An unknown name is an error listing the "
        "reviewed programs.",
    ),
    (
        "report",
        {"metavar": "FILE"},
        "Write a JSON report: suite version, the selection and, per target, implementation, "
        "counts per operation and level and every case's result (schema: "
        "pytest_planmode/schemas/report.schema.json).",
    ),
    (
        "html",
        {"metavar": "FILE"},
        "Write the run as one self-contained HTML page (the same as `planmode report html`).",
    ),
    (
        "spec",
        {"metavar": "TEXT"},
        "Keep only the cases whose spec section contains TEXT (case-insensitive), e.g. "
        "'Auto model switch' or 'opl-modes.md'; property checks that cite no section are "
        "deselected. The report records the selection.",
    ),
    (
        "max-line",
        {"metavar": "BYTES", "type": int},
        f"Longest answer line an exec: target may write, in bytes (default {DEFAULT_MAX_LINE}); "
        "a longer line fails its case as a flood and the target is restarted.",
    ),
    (
        "explore",
        {"metavar": "N", "nargs": "?", "const": "1000", "type": str},
        "Property checks draw new random examples, N per check (default 1000), instead of the "
        "fixed examples every run draws (seeded by each check's case id). For finding new "
        "failures; a verdict to keep or compare comes from a run without it.",
    ),
    (
        "strict",
        {"action": "store_true"},
        "Fail the run when it would prove nothing: no fixture case selected at all, or none "
        "for an operation the target supports (without it these are warnings). Use it in CI.",
    ),
]

#: Options that may be given several times; their ini keys take one value per line.
LISTS = ("target", "expectations")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("planmode", "planmode conformance suite (pytest-planmode)")
    for name, kwargs, help_text in _OPTIONS:
        dest = "planmode_" + name.replace("-", "_")
        group.addoption(f"--planmode-{name}", dest=dest, default=None, help=help_text, **kwargs)
        help_ini = f"Default for --planmode-{name}."
        if name == "strict":
            parser.addini(dest, help_ini, type="bool", default=False)
        elif name in LISTS:
            parser.addini(dest, help_ini + " One per line.", type="linelist", default=None)
        elif name != "write-expectations":
            parser.addini(dest, help_ini, default=None)


def option(config: pytest.Config, name: str) -> Any:
    """A planmode option: the command line wins over the ini key."""
    dest = "planmode_" + name.replace("-", "_")
    value = config.getoption(dest)
    if value is None and name != "write-expectations":
        value = config.getini(dest) or None
    return value


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "planmode(operation, level='must', id=None, operations=(), spec=None, sandbox=False): a "
        "conformance check of the planmode suite; skipped when the target does not list the "
        "operation(s); spec (the section it checks) is what --planmode-spec matches; a sandbox "
        "check runs only with --planmode-sandbox.",
    )
    targets = option(config, "target")
    if not targets:
        return
    from pytest_planmode.harness import PlanmodeRun

    run = PlanmodeRun(config, [str(t) for t in targets])
    run.register()
    run.start()


def pytest_unconfigure(config: pytest.Config) -> None:
    run = config.pluginmanager.get_plugin("planmode-run")
    if run is not None:
        run.stop()
        run.unregister()
