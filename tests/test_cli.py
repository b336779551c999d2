"""`planmode explain` and `planmode validate`, as a person runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import broken

from pytest_planmode import cli
from pytest_planmode.contract import operations


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_explain_shows_the_rule_and_the_reference_answer(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "explain", "oplmodes.plans.name.dot-rejected")
    assert status == 0
    assert "spec:     opl-modes.md § Commands, flags, and shortcuts" in out
    summary = operations()["oplmodes.plans.resolve"].summary
    assert f"does:     {summary} A pure operation" in out
    assert 'expect:   {"accepted": false, "path": null}' in out
    assert out.rstrip().endswith("passes")


def test_explain_names_the_mismatch_of_another_target(capsys: pytest.CaptureFixture[str]) -> None:
    # The broken target answers the request with id 1 with another id.
    status, out, _ = run(capsys, "explain", "--target", broken("wrong-id", 1), "oplmodes.plans.name.simple")
    assert status == 1
    assert "failure: " in out and "carries id 1001, expected 1" in out


def test_explain_lists_the_mismatches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "accepting_port.py").write_text(
        "class Port:\n"
        "    def hello(self, suite):\n"
        "        return {'protocol': 1, 'implementation': {'name': 'port'}, 'operations': ['oplmodes.plans.resolve']}\n"
        "    def call(self, op, input):\n"
        "        return {'output': {'accepted': True, 'path': '.pi/plans/plan-.md'}}\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    status, out, _ = run(
        capsys, "explain", "--target", "python:accepting_port:Port", "oplmodes.plans.name.dot-rejected"
    )
    assert status == 1
    assert "output.accepted: expected false, got true" in out
    assert 'output.path: expected null, got ".pi/plans/plan-.md"' in out
    assert out.rstrip().endswith("fails")


def test_explain_an_unknown_id_suggests_near_ones(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "explain", "dot-rejected")
    assert status == 2
    assert "no case 'dot-rejected'" in err and "oplmodes.plans.name.dot-rejected" in err


def test_explain_a_bad_target_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "explain", "--target", "nonsense", "oplmodes.plans.name.simple")
    assert status == 2 and "unknown target 'nonsense'" in err


def test_validate_pi_plan_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "pi-plan-mode.json"
    good.write_text(json.dumps({"thinkingLevel": "high", "mine": 1}))
    status, out, _ = run(capsys, "validate", "--show", str(good))
    assert status == 0 and "valid pi-plan-mode settings" in out
    assert '"thinkingLevel": "high"' in out
    bad = tmp_path / "settings.json"
    bad.write_text(json.dumps({"thinkingLevel": "loud", "secret": "hunter2"}))
    status, out, _ = run(capsys, "validate", str(bad))
    assert status == 1 and "invalid pi-plan-mode settings" in out and "thinkingLevel" in out
    assert "loud" not in out and "hunter2" not in out  # warnings never echo file content


def test_validate_opl_modes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "opl-modes.json"
    config.write_text(json.dumps({"modes": {"review": {"tools": ["read", "grep"]}}}))
    status, out, _ = run(capsys, "validate", str(config))
    assert status == 0 and "valid opl-modes configuration" in out
    config.write_text(json.dumps({"modes": {"review": {"tools": "read"}}}))
    status, out, _ = run(capsys, "validate", str(config))
    assert status == 1 and "problem: modes.review.tools must be an array" in out
    other = tmp_path / "x.json"
    other.write_bytes(b"\xff\xfe")
    status, out, _ = run(capsys, "validate", "--kind", "opl-modes", str(other))
    assert status == 1 and "not UTF-8" in out


def test_validate_a_missing_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "validate", str(tmp_path / "nope.json"))
    assert status == 2 and "cannot read" in err


def test_console_script_help_lists_every_command() -> None:
    import subprocess

    out = subprocess.run(
        [sys.executable, "-m", "pytest_planmode.cli", "--help"], capture_output=True, text=True
    )
    for command in ("fixtures", "schemas", "explain", "validate", "check"):
        assert command in out.stdout


PLANMODE = [sys.executable, "-m", "pytest_planmode.cli"]


def planmode(
    *argv: str, stdin: bytes | None = None, shell_tail: str | None = None
) -> subprocess.CompletedProcess[str]:
    import shlex

    if shell_tail is None:
        return subprocess.run([*PLANMODE, *argv], input=stdin, capture_output=True, timeout=120, check=False)  # type: ignore[call-overload,no-any-return]
    line = f"{shlex.join([*PLANMODE, *argv])} {shell_tail}"
    return subprocess.run(
        ["bash", "-c", f"set -o pipefail; {line}"], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize("argv", [("-",), ()])
def test_check_reads_a_long_command_on_stdin(argv: tuple[str, ...]) -> None:
    command = "echo " + "a" * (1 << 18) + " && git status"
    out = planmode("check", *argv, stdin=(command + "\n").encode())
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(b"allowed\n")
    blocked = planmode("check", *argv, stdin=b"ls && rm -rf /\n")
    assert blocked.returncode == 1 and b"blocked: rm -rf /" in blocked.stdout


def test_check_an_unknown_mode_is_a_usage_error_listing_the_modes(tmp_path: Path) -> None:
    out = planmode("check", "--extension", "oplmodes", "--mode", "nosuch", "--", "ls")
    assert out.returncode == 2
    assert b"unknown mode 'nosuch': the modes are off, chat, plan, execute" in out.stderr
    assert out.stdout == b""
    config = tmp_path / "opl-modes.json"
    config.write_text(json.dumps({"modes": {"review": {"tools": ["read"]}}}))
    custom = planmode(
        "check", "--extension", "oplmodes", "--config", str(config), "--mode", "review", "--", "ls"
    )
    assert custom.returncode == 0, custom.stderr


def test_a_broken_pipe_is_one_line_and_status_2(tmp_path: Path) -> None:
    command = tmp_path / "command.txt"
    command.write_text("ls && " * 50_000 + "ls")  # one output line per segment
    out = planmode("check", "-", shell_tail=f"< {command} | head -c 10 >/dev/null")
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert out.stderr.strip().splitlines() == [
        "planmode: the output was closed before it was complete (broken pipe)"
    ]


def test_export_to_a_file_is_one_line_and_status_2(tmp_path: Path) -> None:
    target = tmp_path / "a-file"
    target.write_text("x")
    out = planmode("fixtures", "export", "--json", str(target))
    assert out.returncode == 2
    assert out.stderr.decode().strip() == f"planmode fixtures export: --json {target}: not a directory"
    nested = planmode("fixtures", "export", "--json", str(target / "sub"))
    assert nested.returncode == 2
    assert b"Traceback" not in nested.stderr and len(nested.stderr.strip().splitlines()) == 1


def test_explain_every_operation(capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_planmode.contract import operations

    for name, op in operations().items():
        assert cli.main(["explain", "--operation", name]) == 0
        out = capsys.readouterr().out
        assert out.startswith(f"{name}  ({op.kind})") and op.summary in out
        for field in op.output.model_fields.values():
            assert field.alias in out or any(f"  {n}: " in out for n in op.output.model_fields)
        assert "example exchange" in out
    assert cli.main(["explain", "--operation", "planmode.nope"]) == 2
    assert "no operation 'planmode.nope'" in capsys.readouterr().err
    assert cli.main(["explain"]) == 2


def test_validate_names_the_keys_pi_plan_mode_ignores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pi-plan-mode.json"
    path.write_text(json.dumps({"thinkingLevel": "high", "bashSafeList": ["ls"], "safeSubcommands": {}}))
    status, out, _ = run(capsys, "validate", str(path))
    assert status == 0 and "valid pi-plan-mode settings" in out
    assert "unknown key 'bashSafeList' is ignored; pi-plan-mode reads thinkingLevel," in out
    assert "'safeSubcommands'" not in out and "'thinkingLevel'" not in out
    path.write_text(json.dumps({"thinkingLevel": "high"}))
    assert "unknown key" not in run(capsys, "validate", str(path))[1]


@pytest.mark.parametrize("argv", [("-",), ()])
def test_check_without_a_command_is_a_usage_error(argv: tuple[str, ...]) -> None:
    out = planmode("check", *argv, stdin=b"")
    assert out.returncode == 2, out
    assert b"planmode check: no command: give it as one quoted argument after --" in out.stderr
    assert out.stdout == b""
