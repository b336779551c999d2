"""`planmode check`: decide one shell command the way a plan mode would.

    planmode check [--extension planmode|oplmodes] [--shell bash|powershell]
                   [--cwd DIR] [--settings FILE] [--mode NAME] [--config FILE]
                   -- '<command>'
    planmode check [options] -          # the command on stdin (also with no argument)

Prints the verdict, the segments, and for a block the segment and the rule
that blocked it. Exit status: 0 allowed, 1 blocked, 2 usage error
(including a settings or config file that cannot be read or is invalid).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

EXIT_ALLOWED = 0
EXIT_BLOCKED = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """A problem with the command line or a file it names."""


def add_check_command(subparsers: Any) -> None:
    """Register `planmode check` on the `planmode` command's subparsers."""
    parser = subparsers.add_parser(
        "check",
        help="decide one shell command under a plan mode's shell policy",
        description=(
            "Decide one shell command the way pi-plan-mode (limited bash/powershell) or "
            "opl-modes (Bash gate) would. Exit status: 0 allowed, 1 blocked, 2 usage error."
        ),
        epilog="Example: planmode check --settings pi-plan-mode.json -- 'git status && ls'",
    )
    parser.add_argument(
        "--extension",
        choices=["planmode", "oplmodes"],
        default="planmode",
        help="whose policy decides: pi-plan-mode (default) or opl-modes",
    )
    parser.add_argument(
        "--shell",
        choices=["bash", "powershell"],
        default="bash",
        help="pi-plan-mode's limited shell (default: bash); opl-modes gates Bash only",
    )
    parser.add_argument("--cwd", metavar="DIR", help="Pi's working directory (default: the current one)")
    parser.add_argument(
        "--settings",
        metavar="FILE",
        help="pi-plan-mode settings JSON; its safeSubcommands are applied",
    )
    parser.add_argument("--mode", metavar="NAME", default="plan", help="opl-modes mode (default: plan)")
    parser.add_argument("--config", metavar="FILE", help="opl-modes configuration JSON")
    parser.add_argument(
        "command",
        nargs="*",
        help="the command, as one argument after --; '-' or nothing reads it from stdin "
        "(one trailing newline is dropped), for commands too long for one argument",
    )
    parser.set_defaults(func=run_check)


def _read_json_object(path: str, what: str) -> dict[str, Any]:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read the {what} file {path}: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"the {what} file {path} is not valid UTF-8 (byte {exc.start})") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"the {what} file {path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from exc
    if not isinstance(data, dict):
        raise UsageError(f"the {what} file {path} must hold a JSON object, not {type(data).__name__}")
    return data


def _print_planmode(verdict: Any) -> None:
    print("allowed" if verdict.allowed else "blocked")
    if not verdict.allowed:
        print(f"blocked: {verdict.blocked}")
        print(f"rule: {verdict.rule}")
        if verdict.reason:
            print(f"reason: {verdict.reason}")
    if verdict.segments:
        print("segments:")
        blocked_at = len(verdict.trusted) - 1 if not verdict.allowed else -1
        for index, text in enumerate(verdict.segments):
            if index < len(verdict.trusted) and verdict.trusted[index] is not None:
                state = f"trusted by safeSubcommands '{verdict.trusted[index]}'"
            elif index == blocked_at:
                state = "blocked"
            elif index < len(verdict.trusted):
                state = "reviewed: allowed"
            else:
                state = "not checked (an earlier segment is blocked)"
            print(f"  {index + 1}. {text}    [{state}]")
    elif verdict.allowed is False and verdict.rule != "syntax.empty":
        print("segments: none (the whole input is unsupported)")


def _check_planmode(args: argparse.Namespace, command: str, cwd: str) -> int:
    from pytest_planmode.reference.planmode.bash_policy import check_bash
    from pytest_planmode.reference.planmode.powershell_policy import check_powershell
    from pytest_planmode.reference.planmode.safe_subcommand_match import NO_TRUST, TrustedPrefixes
    from pytest_planmode.reference.planmode.settings import read_document

    trust = NO_TRUST
    if args.settings:
        reading = read_document(_read_json_object(args.settings, "settings"))
        if reading.invalid is not None:
            raise UsageError(
                f"the settings file {args.settings} is invalid: {reading.invalid.detail} "
                "(Plan mode would ignore the whole file and use the default policy)"
            )
        trust = TrustedPrefixes.of(reading.settings)
    check = check_bash if args.shell == "bash" else check_powershell
    verdict = check(command, cwd, trust)
    _print_planmode(verdict)
    return EXIT_ALLOWED if verdict.allowed else EXIT_BLOCKED


def _check_oplmodes(args: argparse.Namespace, command: str) -> int:
    if args.shell != "bash":
        raise UsageError("opl-modes gates Bash only: --shell powershell needs --extension planmode")
    config = _read_json_object(args.config, "config") if args.config else None
    configured = config.get("modes") if config else None
    modes = ["off", "chat", "plan", "execute"]
    if isinstance(configured, dict):
        modes += [name for name in configured if name not in modes]
    if args.mode not in modes:
        raise UsageError(
            f"unknown mode {args.mode!r}: the modes are {', '.join(modes)}"
            + ("" if args.config else " (custom modes come from --config)")
        )
    try:
        module = importlib.import_module("pytest_planmode.reference.oplmodes.bash_gate")
        explain = module.explain
    except (ImportError, AttributeError) as exc:
        raise UsageError(
            f"the opl-modes Bash gate is not available in this installation ({exc}); use --extension planmode"
        ) from exc
    result: dict[str, Any] = explain(command, args.mode, config)
    allowed = bool(result.get("allowed"))
    print("allowed" if allowed else "blocked")
    if not allowed:
        print(f"reason: {result.get('reason')}")
    segments = result.get("segments") or []
    if segments:
        print("segments:")
        for index, text in enumerate(segments):
            print(f"  {index + 1}. {text}")
    return EXIT_ALLOWED if allowed else EXIT_BLOCKED


def _read_stdin() -> str:
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError("give the command as one quoted argument after --, or pipe it on stdin")
    try:
        text = sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"the command on stdin is not valid UTF-8 (byte {exc.start})") from exc
    # `echo CMD |` adds a newline that is not part of the command.
    text = text.removesuffix("\n")
    if not text:
        raise UsageError("no command: give it as one quoted argument after --, or pipe it on stdin")
    return text


def run_check(args: argparse.Namespace) -> int:
    """Entry point of `planmode check`."""
    try:
        if len(args.command) > 1:
            raise UsageError(
                f"give the command as one quoted argument after -- (got {len(args.command)} arguments)"
            )
        command = _read_stdin() if args.command in ([], ["-"]) else args.command[0]
        if args.extension == "oplmodes":
            return _check_oplmodes(args, command)
        cwd = args.cwd if args.cwd is not None else os.getcwd()
        if not cwd.startswith("/"):
            cwd = os.path.abspath(cwd)
        return _check_planmode(args, command, cwd)
    except UsageError as exc:
        print(f"planmode check: {exc}", file=sys.stderr)
        return EXIT_USAGE
