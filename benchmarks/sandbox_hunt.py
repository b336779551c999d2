"""Hunt for commands a target allows that do something in the sandbox.

    python benchmarks/sandbox_hunt.py --minutes 30 [--target reference]
        [--gate planmode.bash.check --gate oplmodes.bash.check] [--no-sweep]
        [--runners]

First the deterministic sweep over the option table (every option with
every value of its pool), then commands drawn by the grammar-aware
generator until the time is up, for each gate in turn. Every allowed
command runs in the sandbox; every effect at either level is a finding.
Prints the counts and each finding (command, verdict, effects), grouped by
effect class. It reports; it never fails.

Commands naming a test runner, compiler or package manager take seconds
each (a runtime starts; the sandbox judges them beyond their admitted bare
form): they are counted apart and run only with `--runners`, which also
sweeps the runner table (`sandbox_table.RUNNER_PROGRAMS`).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pytest_planmode.conformance.sandbox_levels import GATES, Gate, effect_class, exempt, runs_project
from pytest_planmode.sandbox import Result, Sandbox, SandboxUnavailable
from pytest_planmode.strategies import sandbox_commands as gen
from pytest_planmode.strategies import sandbox_table
from pytest_planmode.targets import Target, TargetError, resolve_target


class Hunt:
    def __init__(self, target: Target, sandbox: Sandbox, runners: bool = False) -> None:
        self.runners = runners
        self.target = target
        self.sandbox = sandbox
        self.counts: collections.Counter[str] = collections.Counter()
        self.seen: set[tuple[str, str]] = set()
        self.results: dict[tuple[str, str], Result] = {}
        self.findings: dict[tuple[str, str], tuple[dict[str, Any], Result]] = {}
        #: Why commands were inconclusive, with one example each.
        self.inconclusive: collections.Counter[str] = collections.Counter()
        self.examples: dict[str, str] = {}

    def try_command(self, gate: Gate, command: str) -> None:
        if (gate.operation, command) in self.seen:
            self.counts["repeated"] += 1
            return
        self.seen.add((gate.operation, command))
        self.counts["drawn"] += 1
        outcome = self.target.request(gate.operation, gate.input(command))
        if outcome.kind != "output" or outcome.output is None:
            self.counts["no verdict"] += 1
            return
        if outcome.output.get("allowed") is not True:
            return
        self.counts["allowed"] += 1
        if exempt(command):
            self.counts["exempt"] += 1
            return
        if runs_project(command) and not self.runners:
            self.counts["runner (not run)"] += 1
            return
        key = (gate.shell, command)
        if key not in self.results:
            self.results[key] = self.sandbox.run(command, shell=gate.shell)
        result = self.results[key]
        self.counts[result.status] += 1
        if result.status == "inconclusive":
            # "not installed: i,, ron" and "timed out after 3 s" group by kind.
            reason = result.reason.split(":")[0] if "not installed" in result.reason else result.reason
            self.inconclusive[reason] += 1
            self.examples.setdefault(reason, f"{result.reason}: {command}")
        if any(effect_class(e) in gate.must | gate.reference for e in result.effects):
            self.findings[(gate.operation, command)] = (outcome.output, result)


def draw_batch(hunt: Hunt, gate: Gate, strategy: st.SearchStrategy[str], deadline: float) -> None:
    """One batch of generated commands (generation only: no shrinking, no
    example database; findings are collected, never raised)."""

    @settings(
        max_examples=100,
        phases=[Phase.generate],
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def draw(data: st.DataObject) -> None:
        command = data.draw(strategy)
        if time.monotonic() < deadline:
            hunt.try_command(gate, command)

    draw()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--target", default="reference")
    parser.add_argument("--gate", action="append", choices=[g.operation for g in GATES])
    parser.add_argument("--no-sweep", action="store_true")
    parser.add_argument(
        "--runners", action="store_true", help="also run runner commands and sweep the runners"
    )
    args = parser.parse_args()
    if args.minutes <= 0:
        parser.error("--minutes must be greater than 0")
    gates = [g for g in GATES if not args.gate or g.operation in args.gate]
    try:
        target = resolve_target(args.target, timeout=10.0)
        handshake = target.handshake()
    except TargetError as exc:
        print(f"--target: {exc}", file=sys.stderr)
        return 2
    gates = [g for g in gates if g.operation in handshake.operations]
    try:
        sandbox = Sandbox()
    except SandboxUnavailable as exc:
        print(f"sandbox unavailable: {exc}", file=sys.stderr)
        return 2
    hunt = Hunt(target, sandbox, runners=args.runners)
    started = time.monotonic()
    deadline = started + args.minutes * 60
    try:
        if not args.no_sweep:
            for gate in gates:
                for command in gen.sweep(powershell=gate.shell == "pwsh"):
                    hunt.try_command(gate, command)
                if args.runners and gate.shell == "bash":
                    for command in gen.sweep(sandbox_table.RUNNER_PROGRAMS):
                        hunt.try_command(gate, command)
        rounds = 0
        while time.monotonic() < deadline:
            gate = gates[rounds % len(gates)]
            rounds += 1
            strategy = (
                gen.powershell_commands()
                if gate.shell == "pwsh"
                else gen.bash_commands(substitutions=gate.operation.startswith("oplmodes."))
            )
            draw_batch(hunt, gate, strategy, deadline)
    finally:
        sandbox.close()
        target.close()
    elapsed = time.monotonic() - started
    c = hunt.counts
    print(f"sandbox hunt: {handshake.label}, gates {', '.join(g.operation for g in gates)}")
    print(
        f"  {elapsed / 60:.1f} min: {c['drawn']} distinct commands drawn ({c['repeated']} repeats), "
        f"{c['allowed']} allowed, {c['exempt']} exempt, {c['runner (not run)']} runner commands not run, "
        f"{c['observed']} observed, "
        f"{c['inconclusive']} inconclusive, {c['no verdict']} without a verdict"
    )
    for reason, count in hunt.inconclusive.most_common():
        print(f"  inconclusive, {reason}: {count} (e.g. {hunt.examples[reason]!r})")
    print(f"  findings: {len(hunt.findings)}")
    by_class: dict[str, list[str]] = collections.defaultdict(list)
    for (operation, command), (verdict, result) in sorted(hunt.findings.items(), key=lambda kv: kv[0]):
        classes = sorted({effect_class(e) for e in result.effects})
        answer = json.dumps({k: verdict.get(k) for k in ("allowed", "segments") if k in verdict})
        text = f"    [{operation}] {command!r}: {answer}\n" + "\n".join(
            f"        - {effect}" for effect in result.effects[:6]
        )
        for name in classes:
            by_class[name].append(text)
    for name, texts in sorted(by_class.items()):
        print(f"  {name}: {len(texts)}")
        for text in texts[:40]:
            print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
