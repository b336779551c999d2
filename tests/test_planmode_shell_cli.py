"""`planmode check`: verdict, segments, blocking rule, exit status."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_allowed_command_exits_0_and_lists_segments(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--cwd", "/srv/project", "--", "git status && ls -la")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "allowed"
    assert "1. git status    [reviewed: allowed]" in out and "2. ls -la    [reviewed: allowed]" in out


def test_one_blocked_segment_is_marked_blocked(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--cwd", "/srv/project", "--", "rm -rf build")
    assert code == 1
    assert "1. rm -rf build    [blocked]" in out


def test_blocked_command_names_segment_and_rule(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--cwd", "/srv/project", "--", "git status && rm -rf build && ls")
    assert code == 1
    assert out.splitlines()[:3] == ["blocked", "blocked: rm -rf build", "rule: program.unknown"]
    assert "3. ls" in out and "not checked" in out


def test_unsupported_syntax_reports_the_whole_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--", "ls > out.txt")
    assert code == 1
    assert "blocked: ls > out.txt" in out and "rule: syntax.redirect" in out


def test_settings_file_trusts_its_prefixes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    settings = tmp_path / "pi-plan-mode.json"
    settings.write_text(json.dumps({"safeSubcommands": {"kubectl": ["apply"]}}), encoding="utf-8")
    code, out, _ = run(capsys, "--settings", str(settings), "--", "git status && kubectl apply -f d.yaml")
    assert code == 0
    assert "trusted by safeSubcommands 'kubectl apply'" in out
    code, out, _ = run(capsys, "--", "git status && kubectl apply -f d.yaml")
    assert code == 1


@pytest.mark.parametrize(
    "content, message",
    [
        (b"{not json", "is not valid JSON"),
        (b"[]", "must hold a JSON object"),
        (b"\xff\xfe", "is not valid UTF-8"),
        (b'{"safeSubcommands": {"kubectl": "apply"}}', "must be an array"),
        # One reader for every consumer: any invalid field invalidates the file.
        (b'{"safeSubcommands": {"kubectl": ["apply"]}, "thinkingLevel": null}', "thinkingLevel"),
        (b'{"safeSubcommands": {"kubectl": ["apply"]}, "autoSwitchModel": "yes"}', "autoSwitchModel"),
    ],
)
def test_invalid_settings_file_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes, message: str
) -> None:
    settings = tmp_path / "settings.json"
    settings.write_bytes(content)
    code, out, err = run(capsys, "--settings", str(settings), "--", "ls")
    assert code == 2
    assert out == ""
    assert str(settings) in err and message in err


def test_missing_settings_file_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "--settings", str(tmp_path / "absent.json"), "--", "ls")
    assert code == 2 and "cannot read the settings file" in err and "absent.json" in err


def test_powershell_shell(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--shell", "powershell", "--", "Get-ChildItem | Remove-Item")
    assert code == 1 and "blocked: Remove-Item" in out


def test_command_split_over_several_arguments_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--", "ls", "-la")
    assert code == 2 and "one quoted argument" in err


def test_unknown_shell_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["check", "--shell", "zsh", "--", "ls"])
    assert exc.value.code == 2


def test_oplmodes_uses_the_gate_explain_function(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls: list[tuple[str, str, Any]] = []

    def explain(command: str, mode: str, config: dict[str, Any] | None) -> dict[str, Any]:
        calls.append((command, mode, config))
        return {"allowed": False, "reason": "destructive: rm", "segments": ["ls", "rm -rf x"]}

    fake = types.ModuleType("pytest_planmode.reference.oplmodes.bash_gate")
    fake.explain = explain  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pytest_planmode.reference.oplmodes.bash_gate", fake)
    config = tmp_path / "config.json"
    config.write_text('{"modes": {"ask": {}}}', encoding="utf-8")
    code, out, _ = run(
        capsys, "--extension", "oplmodes", "--mode", "ask", "--config", str(config), "--", "ls && rm -rf x"
    )
    assert code == 1
    assert calls == [("ls && rm -rf x", "ask", {"modes": {"ask": {}}})]
    assert "reason: destructive: rm" in out and "2. rm -rf x" in out


def test_oplmodes_without_the_gate_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pytest_planmode.reference.oplmodes.bash_gate", None)
    code, _, err = run(capsys, "--extension", "oplmodes", "--", "ls")
    assert code == 2 and "not available" in err


def test_oplmodes_gates_bash_only(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--extension", "oplmodes", "--shell", "powershell", "--", "ls")
    assert code == 2 and "Bash only" in err
