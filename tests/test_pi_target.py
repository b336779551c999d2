"""The `pi:` target end to end: the example extension (examples/pi-extension/)
inside real Pi (the default release), its expectations file, and each translation seen
passing and failing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode.hosts.pi.install import VERSIONS
from pytest_planmode.suite import Case, load_suite
from pytest_planmode.targets import TargetError, resolve_target
from pytest_planmode.targets.pi import TRANSLATIONS, UNSUPPORTED
from pytest_planmode.targets.pi_target import DEFAULT_PI, PiTarget
from pytest_planmode.targets.reference.adapter import REFERENCE

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "pi-extension" / "index.mjs"
EXPECTATIONS = ROOT / "examples" / "pi-extension" / "planmode-expectations.json"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js (.ci/run installs it)")

#: A few lines of an opl-modes-like extension: `/mode <name>` and a Bash gate
#: that allows `ls` and `cat` only while a mode other than off is active.
OPL_MINI = """
export default function (pi) {
  let mode = "off";
  const set = (next) => { mode = next; globalThis.__agentMode = { mode }; };
  pi.registerFlag("plan", { type: "boolean", default: false });
  pi.registerFlag("chat", { type: "boolean", default: false });
  pi.registerCommand("mode", { handler: async (args) => set(args.trim() || "off") });
  pi.on("session_start", () => set(pi.getFlag("plan") ? "plan" : pi.getFlag("chat") ? "chat" : "off"));
  pi.on("tool_call", (event) => {
    if (mode === "off" || event.toolName !== "bash") return undefined;
    const ok = event.input.command.split(/&&|\\|\\||;|\\|/).every((s) => ["ls", "cat"].includes(s.trim().split(/\\s+/)[0]));
    return ok ? undefined : { block: true, reason: "not safe-listed" };
  });
}
"""


@pytest.fixture(scope="module")
def example() -> Iterator[PiTarget]:
    target = PiTarget(str(EXAMPLE))
    target.handshake()
    yield target
    target.close()


def cases(operation: str) -> list[Case]:
    return [c for c in load_suite() if c.operation == operation]


def verdict_matches(target: PiTarget, case: Case) -> bool:
    outcome = target.request(case.operation, case.input)
    assert outcome.kind == "output", outcome.message
    assert outcome.output is not None
    return outcome.output["allowed"] == case.expect["allowed"]


def run_documented_command(
    tmp_path: Path, example: Path, expectations: Path, *selection: Path | str
) -> dict[str, Any]:
    """`pytest --planmode-target=pi:EXAMPLE --planmode-expectations=FILE`,
    green (on the fixture files `selection` only, when given); its report's
    target entry."""
    report = tmp_path / "report.json"
    args = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--planmode-target=pi:{example.relative_to(ROOT)}",
        f"--planmode-expectations={expectations.relative_to(ROOT)}",
        f"--planmode-report={report}",
        *map(str, selection),
    ]
    try:
        import xdist  # noqa: F401

        args += ["-n", "2"]
    except ImportError:
        pass
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    (data,) = json.loads(report.read_text())["targets"]
    assert isinstance(data, dict)
    return data


FIXTURES = ROOT / "pytest_planmode" / "fixtures"


def found_cases(directory: str, found: str, *names: str) -> list[str]:
    """The node ids of the cases of these fixture files whose group was
    `found` that way (`*`: every group)."""
    out = []
    for name in names:
        path = FIXTURES / directory / name
        for group in tomllib.loads(path.read_text(encoding="utf-8"))["group"]:
            if found == "*" or group.get("found") == found:
                out += [f"{path.relative_to(ROOT)}::{case['id']}" for case in group["case"]]
    return out


#: Cases that reach every operation the example translates, few enough for
#: the default run: the groups a review of unpinned rules added (bash,
#: PowerShell and tools), the export edges mutation testing found, and the
#: settings document's cases.
PLANMODE_SLICE = [
    *found_cases("planmode", "review", "bash.toml", "bash-programs.toml", "powershell.toml"),
    *found_cases("planmode", "review", "tools.toml", "tools-authorize.toml"),
    *found_cases("planmode", "mutation", "export.toml"),
    *found_cases("planmode", "*", "settings-document.toml"),
]
OPLMODES_SLICE = [
    *found_cases("oplmodes", "sandbox", "bash-destructive.toml"),
    *found_cases("oplmodes", "*", "lazy-tools.toml"),
    *found_cases("oplmodes", "review", "bash-in-modes.toml", "modes.toml", "commands.toml", "execute.toml"),
    *found_cases(
        "oplmodes",
        "mutation",
        "bash-destructive.toml",
        "bash-config.toml",
        "plans.toml",
        "config.toml",
        "models.toml",
        "modes.toml",
    ),
]


def test_the_documented_command_is_green_on_a_slice(tmp_path: Path) -> None:
    """The documented command on a few fixture files that reach every
    operation of the example; the whole run is the whole_suite test below."""
    data = run_documented_command(tmp_path, EXAMPLE, EXPECTATIONS, *PLANMODE_SLICE)
    ops = data["operations"]
    judged = ("planmode.bash.check", "planmode.powershell.check", "planmode.tools.authorize")
    for op in (*judged, "planmode.lifecycle.run", "planmode.export.run", "planmode.tools.freeze"):
        assert ops[op]["failed"] == 0, (op, ops[op])
        assert ops[op]["passed"] + ops[op]["xfailed"] > 0, (op, ops[op])
    for op in judged:
        assert ops[op]["passed"] > 0, (op, ops[op])


@pytest.mark.whole_suite
def test_the_documented_command_is_green(tmp_path: Path) -> None:
    data = run_documented_command(tmp_path, EXAMPLE, EXPECTATIONS)
    assert data["implementation"]["name"] == "planmode-pi-extension-example"
    ops = data["operations"]
    for op in ("planmode.bash.check", "planmode.powershell.check"):
        assert ops[op]["passed"] > 0 and ops[op]["xfailed"] > 0, (op, ops[op])
        assert ops[op]["failed"] == 0
    # The Plan allowlist frozen at the first context: the slice passes.
    authorize = ops["planmode.tools.authorize"]
    assert authorize["passed"] > 0 and authorize["failed"] == 0, authorize
    # The lifecycle slice (ready menu, keep reinjection, Plan thinking,
    # exports) passes; fresh sessions and clear-after-first-run are listed.
    for op in ("planmode.lifecycle.run", "planmode.export.run"):
        assert ops[op]["passed"] > 0 and ops[op]["xfailed"] > 0, (op, ops[op])
        assert ops[op]["failed"] == 0, (op, ops[op])
    # Without /mode the extension is no opl-modes implementation: every case skips.
    for op in ("oplmodes.bash.check", "oplmodes.modes.script"):
        assert ops[op]["skipped"] > 0 and ops[op]["passed"] == 0, (op, ops[op])


@pytest.mark.parametrize("operation", ["planmode.bash.check", "planmode.powershell.check"])
def test_each_shell_translation_passes_and_fails_must_cases(example: PiTarget, operation: str) -> None:
    expectations = json.loads(EXPECTATIONS.read_text())
    verdicts = [c for c in cases(operation) if c.level == "must" and set(c.expect) == {"allowed"}]
    listed = [c for c in verdicts if c.id in expectations]
    passing = [c for c in verdicts if c.id not in expectations]
    assert passing and listed
    assert all(verdict_matches(example, c) for c in passing[:10])
    assert not any(verdict_matches(example, c) for c in listed[:10])


def test_the_translation_matches_the_reference_on_plain_inputs(example: PiTarget) -> None:
    for command, allowed in [
        ("ls -la", True),
        ("git status", True),
        ("rm -rf build", False),
        ("ls > out", False),
    ]:
        out = example.request("planmode.bash.check", {"command": command, "cwd": "/srv/project"})
        ref = REFERENCE.call("planmode.bash.check", {"command": command, "cwd": "/srv/project"})
        assert out.output == {"allowed": allowed} and ref["output"]["allowed"] is allowed, command


def test_the_example_blocks_edits_and_honours_settings(example: PiTarget) -> None:
    trusted = {"command": "kubectl get pods", "cwd": "/srv/project", "safeSubcommands": {"kubectl": ["get"]}}
    assert example.request("planmode.bash.check", trusted).output == {"allowed": True}
    invalid = {**trusted, "safeSubcommands": {"kubectl": "get"}}
    assert example.request("planmode.bash.check", invalid).output == {"allowed": False}


def test_oplmodes_translation_passes_and_fails(tmp_path: Path) -> None:
    mini = tmp_path / "opl-mini.mjs"
    mini.write_text(textwrap.dedent(OPL_MINI), encoding="utf-8")
    target = PiTarget(str(mini))
    try:
        target.handshake()
        by_id = {c.id: c for c in cases("oplmodes.bash.check")}
        # awk is deliberately absent from the safe list: the mini gate agrees.
        assert verdict_matches(target, by_id["oplmodes.bash.absent.awk"])
        allowed_elsewhere = [
            c
            for c in by_id.values()
            if c.expect.get("allowed") is True and c.input.get("mode") in (None, "plan")
        ]
        assert allowed_elsewhere
        # The mini gate knows two programs only: some allowed command fails.
        assert not all(verdict_matches(target, c) for c in allowed_elsewhere[:20])
        execute = target.request("oplmodes.bash.check", {"command": "ls", "mode": "execute"})
        assert execute.kind == "unsupported" and "execute" in (execute.message or "")
    finally:
        target.close()


def test_the_handshake_declares_effects_and_every_operation(example: PiTarget) -> None:
    answer = example.hello_answer
    assert answer["observes"] == "effects"
    assert f"Pi {DEFAULT_PI} (real; host " in answer["implementation"]["host"]
    assert set(answer["operations"]) == {*TRANSLATIONS, *UNSUPPORTED}


def test_operations_without_a_translation_are_unsupported_with_a_reason(example: PiTarget) -> None:
    assert set(TRANSLATIONS).isdisjoint(UNSUPPORTED)
    outcome = example.request("planmode.tools.picker", {"registry": []})
    assert outcome.kind == "unsupported" and UNSUPPORTED["planmode.tools.picker"] in (outcome.message or "")
    no_mode = example.request("oplmodes.bash.check", {"command": "ls", "mode": "plan"})
    assert no_mode.kind == "unsupported" and "/mode" in (no_mode.message or "")


def test_a_write_outside_the_sandbox_fails_the_case(tmp_path: Path) -> None:
    outside = tmp_path / "escaped.txt"
    ext = tmp_path / "escape.mjs"
    ext.write_text(
        "import fs from 'node:fs';\n"
        "export default (pi) => {\n"
        "  pi.registerCommand('plan', { handler: async () => {\n"
        f"    try {{ fs.writeFileSync({json.dumps(str(outside))}, 'x'); }} catch {{}}\n"
        "  } });\n"
        "};\n",
        encoding="utf-8",
    )
    target = PiTarget(str(ext))
    try:
        target.handshake()
        outcome = target.request("planmode.bash.check", {"command": "ls", "cwd": "/srv/project"})
    finally:
        target.close()
    assert outcome.kind == "error" and "outside its sandbox" in (outcome.message or "")
    assert not outside.exists()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("pi:", "needs the path"),
        ("pi:no/such/file.mjs", "no such file"),
        ("pi:README.md", "JavaScript or TypeScript module"),
    ],
)
def test_bad_pi_targets_are_clear_errors(spec: str, message: str) -> None:
    with pytest.raises(TargetError, match=message):
        resolve_target(spec, timeout=5)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("export default 1;\n", "does not export a valid factory function"),
        ("export const x = 1;\n", "does not export a valid factory function"),
        ("export default function (pi) {\n", "ParseError"),
        ("export default function (pi) { throw new Error('boom at load'); }\n", "boom at load"),
    ],
    ids=["not-a-function", "no-default-export", "syntax-error", "factory-throws"],
)
@pytest.mark.parametrize("pi", VERSIONS)
def test_an_extension_that_does_not_load_is_a_clear_error(
    tmp_path: Path, source: str, message: str, pi: str
) -> None:
    # Pi goes on without an extension it cannot load; the kit never judges
    # cases on such a Pi.
    bad = tmp_path / "bad.mjs"
    bad.write_text(source, encoding="utf-8")
    target = PiTarget(str(bad), pi=pi)
    try:
        with pytest.raises(TargetError, match=f"does not start.*Pi could not load the extension.*{message}"):
            target.handshake()
    finally:
        target.close()


def test_pi_node_option_reaches_the_host(tmp_path: Path) -> None:
    def option(name: str) -> Any:
        return "no-such-node-command" if name == "pi-node" else None

    target = resolve_target(f"pi:{EXAMPLE}", timeout=5, option=option)
    with pytest.raises(TargetError, match="no-such-node-command"):
        target.handshake()


def test_the_opl_example_command_is_green_on_a_slice(tmp_path: Path) -> None:
    example = ROOT / "examples" / "pi-extension-opl" / "index.mjs"
    expectations = example.with_name("planmode-expectations.json")
    data = run_documented_command(tmp_path, example, expectations, *OPLMODES_SLICE)
    ops = data["operations"]
    for op in (
        "oplmodes.bash.check",
        "oplmodes.tools.active",
        "oplmodes.tools.load",
        "oplmodes.modes.script",
    ):
        assert ops[op]["failed"] == 0, (op, ops[op])
        assert ops[op]["passed"] > 0, (op, ops[op])


@pytest.mark.whole_suite
def test_the_opl_example_command_is_green(tmp_path: Path) -> None:
    example = ROOT / "examples" / "pi-extension-opl" / "index.mjs"
    data = run_documented_command(tmp_path, example, example.with_name("planmode-expectations.json"))
    assert data["implementation"]["name"] == "planmode-pi-extension-opl-example"
    ops = data["operations"]
    translated = (
        "oplmodes.bash.check",
        "oplmodes.modes.script",
        "oplmodes.models.script",
        "oplmodes.tools.active",
        "oplmodes.tools.load",
        "oplmodes.plans.resolve",
    )
    for op in translated:
        assert ops[op]["passed"] > 0 and ops[op]["xfailed"] > 0 and ops[op]["failed"] == 0, (op, ops[op])
    # The effective registry has no translation: every case stands aside.
    assert ops["oplmodes.config.load"]["passed"] == 0 and ops["oplmodes.config.load"]["skipped"] > 0
    # /mode marks an opl-modes extension: the pi-plan-mode cases stand aside.
    for op in ("planmode.bash.check", "planmode.tools.authorize"):
        assert ops[op]["passed"] == 0 and ops[op]["skipped"] > 0, (op, ops[op])
