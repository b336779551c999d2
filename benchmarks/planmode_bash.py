"""How fast the reference decides limited-Bash submissions.

    python benchmarks/planmode_bash.py [--upstream TOOL_POLICY] [--typescript DIR]
    python benchmarks/planmode_bash.py --record FILE | --compare FILE

Prints, over a corpus of distinct realistic coding-agent commands plus every
limited-Bash command of the suite's fixtures:
- side by side with the upstream pi-plan-mode on V8 (given `--upstream`, the
  path of its `tool-policy.ts` or of that file compiled to JavaScript;
  a `.ts` file needs `--typescript`, the directory of an installed
  `typescript` package), the mean decision time per command warm (best of
  several passes over the corpus) and first-pass (each command decided once
  in a fresh process), as ratios against the upstream;
- the limited-PowerShell decision over the same commands (warm, cache
  bypassed), beside the upstream's Bash decision (the upstream has no
  PowerShell gate);
- the cost of the reference adapter on top of a raw decision (warm, the
  decision answered from its cache), as a share of a raw decision;
- the median decision time against a bare `bashlex.parse` of the same text;
- decision times for inputs of 64 KiB to 1 MiB (growth must be linear);
- limited Bash and limited PowerShell on the same 1 MiB inputs, side by side
  with a plain `str.split` of the same text.

`--record FILE` writes every verdict of the fixtures (through the adapter,
every shell operation), of the corpora and of seeded random mixes to FILE;
`--compare FILE` computes them again and lists every difference: a speed
change records before and compares after, and must report zero differences.
A benchmark prints figures; it never fails on a slow machine.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bashlex  # type: ignore[import-untyped]
from side_by_side import (
    add_verdict_options,
    each_best,
    fresh_process_best,
    plain,
    random_mix,
    ratio,
    record_or_compare,
)

from pytest_planmode.reference.planmode.bash_policy import check_bash, check_bash_uncached
from pytest_planmode.reference.planmode.powershell_policy import check_powershell, check_powershell_uncached
from pytest_planmode.reference.planmode.safe_subcommand_match import NO_TRUST, TrustedPrefixes
from pytest_planmode.targets.reference.adapter import REFERENCE

CWD = "/srv/project"
TRUST = TrustedPrefixes(("kubectl get", "gh pr view", "npm run inspect-custom"))

_PATHS = ["src", "src/app.py", "tests", "README.md", "package.json", "lib/util.ts", "docs/index.md", "."]
_PATTERNS = ["TODO", "'def main'", '"import os"', "FIXME", "'class .*Error'", "useState"]
_SINGLE = [
    "git status",
    "git status --short",
    "git diff",
    "git diff --stat",
    "git diff --cached",
    "git log --oneline -n 20",
    "git log -p -n 3",
    "git branch -a",
    "git remote -v",
    "git ls-files",
    "pwd",
    "ls -la",
    "npm test",
    "npm run lint",
    "npm run typecheck",
    "cargo test",
    "go test ./...",
    "pytest -q",
    "tsc --noEmit",
    "node --version",
    "python3 --version",
    "kubectl get pods -n web",
    "gh pr view 218 --web",
    "rm -rf build",
    "npm install",
    "git commit -m wip",
    "git push origin main",
    "ls > files.txt",
    "echo $(whoami)",
]


def corpus() -> list[str]:
    """At least 500 distinct commands of the kinds a coding agent sends."""
    commands: list[str] = list(_SINGLE)
    for path in _PATHS:
        commands += [
            f"cat {path}",
            f"head -n 40 {path}",
            f"tail -n 20 {path}",
            f"wc -l {path}",
            f"ls -la {path}",
            f"git log --oneline -- {path}",
            f"git diff HEAD~1 -- {path}",
            f"git show HEAD:{path}",
            f"stat {path}",
            f"sed -n 1,80p {path}",
            f"find {path} -name '*.py' -type f",
            f"tree -L 2 {path}",
            f"du -sh {path}",
            f"file {path}",
            f"git blame {path}",
            f"sort -o out.txt {path}",
        ]
    for pattern, path in itertools.product(_PATTERNS, _PATHS):
        commands += [
            f"grep -rn {pattern} {path}",
            f"rg -n {pattern} {path}",
            f"git grep -n {pattern} -- {path}",
            f"grep -rn {pattern} {path} | head -n 20",
            f"rg -l {pattern} {path} | wc -l",
        ]
    for left, right in itertools.product(
        _SINGLE[:12], ["ls", "git status", "wc -l", "rm -rf build", "head -5"]
    ):
        commands.append(f"{left} && {right}")
        commands.append(f"{left} | {right}")
    unique = list(dict.fromkeys(commands))
    return unique


def _best_of(func: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter_ns()
        func()
        best = min(best, time.perf_counter_ns() - start)
    return best / 1000.0  # microseconds


def _bashlex_parse(command: str) -> None:
    # The baseline's failures cost time too; they are not this benchmark's concern.
    with contextlib.suppress(Exception):
        bashlex.parse(command)


SHELL_OPERATIONS = (
    "planmode.bash.check",
    "planmode.powershell.check",
    "oplmodes.bash.check",
    "oplmodes.bash.segments",
)


def fixture_cases() -> list[Any]:
    """Every fixture case of a shell operation."""
    from pytest_planmode.suite import load_suite

    return [case for case in load_suite() if case.operation in SHELL_OPERATIONS]


def fixture_commands(operation: str = "planmode.bash.check") -> list[str]:
    """The distinct commands of the fixtures of `operation`."""
    found = [case.input.get("command") for case in fixture_cases() if case.operation == operation]
    return list(dict.fromkeys(c for c in found if isinstance(c, str)))


def full_corpus() -> list[str]:
    """The realistic corpus and every limited-Bash command of the fixtures."""
    return list(dict.fromkeys([*corpus(), *fixture_commands()]))


# The pieces random mixes are made of: words, operators, quoting, expansion
# and every character the grammars treat specially.
_MIX_PIECES = [
    *dict.fromkeys(word for command in _SINGLE for word in command.split()),
    *_PATHS, *_PATTERNS, " ", " ", " ", "\t", " && ", " || ", " | ", "; ", ";", "|", "&", "&&",
    "'", '"', "\\\\", "\\\\ ", "$", "$HOME", "~", "~/x", "*", "?", "[", "{a,b}", "#", "=", "A=1 ",
    "--dir=~", "(", ")", ">", "<", "2>&1", "`", "\\n", "\\r", "\\x00", "'a b'", '"a $b"', '"x\\\\"y"',
    "-exec", "-delete", "--output", "-o", ".env", "kubectl get", "gh pr view", "|&", ";;", "if", "!",
    "git -C /tmp", "Get-ChildItem", "-Recurse", "Select-String", "$env:PATH", "@(", "}", "{",
]  # fmt: skip


def verdicts() -> list[list[Any]]:
    """Every verdict the comparison covers, as [kind, input, answer] rows."""
    from pytest_planmode.reference.oplmodes.bash_gate import check as opl_check
    from pytest_planmode.reference.oplmodes.bash_scanner import allowlist_segments

    rows: list[list[Any]] = []
    for case in fixture_cases():
        rows.append(["fixture", case.id, REFERENCE.call(case.operation, case.input)])
    commands = list(
        dict.fromkeys(
            [
                *full_corpus(),
                *fixture_commands("planmode.powershell.check"),
                *fixture_commands("oplmodes.bash.check"),
                *_mix(29, 20_000),
            ]
        )
    )
    trusts: list[dict[str, Any]] = [
        {},
        {"safeSubcommands": {"kubectl": ["get"], "gh": ["pr view"]}},
        {"safeSubcommands": None},
        {"safeSubcommands": {"git": "log"}},
    ]
    for index, command in enumerate([*full_corpus(), *_mix(27, 2_000)]):
        payload = {"command": command, "cwd": CWD, **trusts[index % len(trusts)]}
        for op in ("planmode.bash.check", "planmode.powershell.check"):
            rows.append([op, json.dumps(payload), REFERENCE.call(op, payload)])
        rows.append(
            [
                "oplmodes.bash.check",
                command,
                REFERENCE.call("oplmodes.bash.check", {"command": command, "mode": "plan"}),
            ]
        )
    for command in commands:
        rows.append(["bash", command, plain(check_bash_uncached(command, CWD, NO_TRUST))])
        rows.append(["bash-trusted", command, plain(check_bash_uncached(command, CWD, TRUST))])
        rows.append(["powershell", command, plain(check_powershell(command, CWD))])
        rows.append(["powershell-trusted", command, plain(check_powershell(command, CWD, TRUST))])
        rows.append(["opl-plan", command, plain(opl_check(command, "plan", None))])
        rows.append(["opl-segments", command, allowlist_segments(command)])
    return rows


# The upstream side: its `findBlockedCommandSegment` loaded into Node (from
# TypeScript through `typescript.transpileModule` when given a `.ts` file)
# and timed command by command over the same corpus. Pass 0 is the first
# pass of a fresh process; the warm figure of a command is its best later
# pass. Timing each call alone, on both sides, keeps a busy machine's
# preemptions out of the figures (a best of several is taken).
_NODE_DRIVER = r"""
const fs = require("fs");
const req = JSON.parse(fs.readFileSync(0, "utf8"));
let code = fs.readFileSync(req.source, "utf8");
if (req.source.endsWith(".ts")) {
  const ts = require(req.typescript);
  code = ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  }).outputText;
}
const mod = { exports: {} };
new Function("module", "exports", "require", code)(mod, mod.exports, require);
const find = mod.exports.findBlockedCommandSegment;
const cmds = req.commands;
const now = process.hrtime.bigint;
const first = [];
const warm = new Array(cmds.length).fill(Infinity);
for (let round = 0; round < req.rounds; round++) {
  for (let i = 0; i < cmds.length; i++) {
    const start = now();
    find(cmds[i], {});
    const micros = Number(now() - start) / 1000;
    if (round === 0) first.push(micros);
    else if (micros < warm[i]) warm[i] = micros;
  }
}
// The timer's own cost: an empty call timed the same way.
const noop = (command, settings) => undefined;
let floor = Infinity;
for (let round = 0; round < req.rounds; round++) {
  for (let i = 0; i < cmds.length; i++) {
    const start = now();
    noop(cmds[i], {});
    const micros = Number(now() - start) / 1000;
    if (micros < floor) floor = micros;
  }
}
process.stdout.write(JSON.stringify({ first, warm, floor }));
"""

#: Fresh processes whose first passes are taken (each command's best).
FRESH_PROCESSES = 3


def upstream_times(
    source: Path, typescript: Path | None, commands: list[str], rounds: int
) -> tuple[list[float], list[float]]:
    """µs per command of the upstream on Node: first pass, warm."""
    with tempfile.TemporaryDirectory() as scratch:
        driver = Path(scratch) / "driver.js"
        driver.write_text(_NODE_DRIVER, encoding="utf-8")
        request = {
            "source": str(source.resolve()),
            "typescript": str(typescript.resolve()) if typescript else None,
            "commands": commands,
            "rounds": rounds,
        }
        first = [float("inf")] * len(commands)
        warm = [float("inf")] * len(commands)
        floor = float("inf")
        for _ in range(FRESH_PROCESSES):
            done = subprocess.run(
                ["node", str(driver)], input=json.dumps(request), capture_output=True, text=True, check=True
            )
            answer = json.loads(done.stdout)
            first = list(map(min, first, answer["first"]))
            warm = list(map(min, warm, answer["warm"]))
            floor = min(floor, answer["floor"])
    print(f"  timer floor on Node (an empty call, subtracted): {floor:5.2f} µs")
    return [t - floor for t in first], [t - floor for t in warm]


# The reference's first pass: a fresh interpreter decides each command once.
_FIRST_PASS = r"""
import json, sys, time
commands = json.load(open(sys.argv[1]))
from pytest_planmode.reference.planmode.bash_policy import check_bash
from pytest_planmode.targets.reference.adapter import REFERENCE
from pytest_planmode.targets.reference.ops import handlers
handlers()
clock = time.perf_counter_ns
times = []
if sys.argv[2] == "raw":
    for c in commands:
        start = clock()
        check_bash(c, "/srv/project")
        times.append((clock() - start) / 1000)
else:
    call = REFERENCE.call
    for r in [{"command": c, "cwd": "/srv/project"} for c in commands]:
        start = clock()
        call("planmode.bash.check", r)
        times.append((clock() - start) / 1000)
floor = float("inf")
noop = lambda command: None
for c in commands:
    start = clock()
    noop(c)
    floor = min(floor, (clock() - start) / 1000)
print(json.dumps([t - floor for t in times]))
"""


def first_pass(commands: list[str], how: str) -> list[float]:
    """µs per command of its first decision in a fresh interpreter (each
    command's best of :data:`FRESH_PROCESSES` processes)."""
    return fresh_process_best(_FIRST_PASS, commands, FRESH_PROCESSES, how)


def _figure(times: list[float]) -> str:
    return f"median {statistics.median(times):7.2f} µs  mean {statistics.mean(times):7.2f} µs"


def side_by_side(upstream: Path | None, typescript: Path | None, rounds: int) -> None:
    commands = full_corpus()
    print(f"side-by-side corpus: {len(commands)} distinct commands (the realistic corpus and the fixtures')")
    # Each function is called straight (a C-level partial, no Python frame
    # of the benchmark's own in between), as the Node side calls it.
    raw_warm = each_best(functools.partial(check_bash_uncached, cwd=CWD), commands, rounds)
    for c in commands:
        check_bash(c, CWD)
    raw_cached = each_best(functools.partial(check_bash, cwd=CWD), commands, rounds)
    requests = [{"command": c, "cwd": CWD} for c in commands]
    adapter_warm = each_best(functools.partial(REFERENCE.call, "planmode.bash.check"), requests, rounds)
    ps_warm = each_best(functools.partial(check_powershell_uncached, cwd=CWD), commands, rounds)
    raw_first = first_pass(commands, "raw")
    adapter_first = first_pass(commands, "adapter")
    print(f"  reference raw decision, warm (cache bypassed):  {_figure(raw_warm)}")
    print(f"  reference raw decision, first pass:             {_figure(raw_first)}")
    print(f"  limited PowerShell raw decision, warm (cache bypassed, the same commands): {_figure(ps_warm)}")
    print(f"  reference through the adapter, warm (cached):   {_figure(adapter_warm)}")
    print(f"  reference through the adapter, first pass:      {_figure(adapter_first)}")
    overhead = [a - c for a, c in zip(adapter_warm, raw_cached, strict=True)]
    share = statistics.median(overhead) / statistics.median(raw_warm)
    print(
        f"  adapter overhead (adapter − cached decision):   median {statistics.median(overhead):7.2f} µs = "
        f"{share:4.0%} of a raw decision (goal <= 30 %)"
    )
    first_overhead = statistics.median(adapter_first) - statistics.median(raw_first)
    print(
        f"  adapter overhead, first pass:                   median {first_overhead:7.2f} µs = "
        f"{first_overhead / statistics.median(raw_first):4.0%} of a raw first decision"
    )
    if upstream is None:
        print("  upstream on V8: not measured (give --upstream PATH to its tool-policy.ts or .js)")
        return
    their_first, their_warm = upstream_times(upstream, typescript, commands, max(rounds, 10))
    print(f"  upstream findBlockedCommandSegment on V8, warm: {_figure(their_warm)}")
    print(f"  upstream findBlockedCommandSegment, first pass: {_figure(their_first)}")
    print("  ratios against the upstream on V8 (goal <= 2x):")
    print(f"    raw decision, warm         {ratio(raw_warm, their_warm)}")
    print(f"    raw decision, first pass   {ratio(raw_first, their_first)}")
    print(f"    through the adapter, warm (cached decision)  {ratio(adapter_warm, their_warm)}")
    print(
        "    limited PowerShell raw decision, warm, against the upstream's Bash decision "
        f"(it has no PowerShell)  {ratio(ps_warm, their_warm)}"
    )
    print(f"    through the adapter, first pass             {ratio(adapter_first, their_first)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", type=Path, help="the upstream tool-policy.ts (or .js)")
    parser.add_argument(
        "--typescript", type=Path, help="an installed typescript package (for a .ts upstream)"
    )
    parser.add_argument("--rounds", type=int, default=7, help="passes over the corpus for warm figures")
    add_verdict_options(parser)
    parser.add_argument("--quick", action="store_true", help="side by side only (no large inputs)")
    args = parser.parse_args()
    done = record_or_compare(args, verdicts)
    if done is not None:
        return done
    side_by_side(args.upstream, args.typescript, args.rounds)
    if args.quick:
        return 0
    commands = corpus()
    print(f"corpus: {len(commands)} distinct commands")
    ours = [_best_of(lambda c=c: check_bash_uncached(c, CWD, TRUST), 5) for c in commands]
    theirs = [_best_of(lambda c=c: _bashlex_parse(c), 3) for c in commands]
    ours_median = statistics.median(ours)
    theirs_median = statistics.median(theirs)
    print(f"planmode.bash.check decision, cache bypassed: median {ours_median:8.2f} µs")
    print(f"bashlex.parse alone:                          median {theirs_median:8.2f} µs")
    print(f"ratio bashlex.parse / decision:                      {theirs_median / ours_median:8.1f}x")

    repeated = commands[len(commands) // 2]
    check_bash(repeated, CWD, TRUST)
    loops = 200_000
    start = time.perf_counter_ns()
    for _ in range(loops):
        check_bash(repeated, CWD, TRUST)
    per_call = (time.perf_counter_ns() - start) / loops / 1000.0
    print(f"repeated command (decision cache):                   {per_call:8.3f} µs")

    request = {"command": repeated, "cwd": CWD, "safeSubcommands": {"kubectl": ["get"]}}
    through_adapter = [_best_of(lambda: REFERENCE.call("planmode.bash.check", request), 50)]
    print(f"through the adapter, repeated (validation, output):  {through_adapter[0]:8.2f} µs")

    print("large inputs (one decision each, cache bypassed):")
    shapes = {
        "one word": lambda n: "echo " + "a" * n,
        "many words": lambda n: "echo " + "ab " * (n // 3),
        "many segments": lambda n: "ls -la && " * (n // 10) + "pwd",
        "distinct segments": lambda n: " && ".join(f"cat f{i}.txt" for i in range(n // 18)),
        "unsafe last segment": lambda n: "ls && " * (n // 6) + "rm -rf /",
        "redirect at the end": lambda n: "echo " + "a" * n + " > out",
        "nested $(": lambda n: "echo " + "$(" * (n // 3) + "x" + ")" * (n // 3),
    }
    for name, build in shapes.items():
        row = []
        for size in (1 << 16, 1 << 18, 1 << 20):
            text = build(size)
            row.append(
                f"{len(text) / 1024:7.0f} KiB {_best_of(lambda t=text: check_bash_uncached(t, CWD), 3) / 1000:8.1f} ms"
            )
        print(f"  {name:20s} " + " | ".join(row))

    # Both limited shells on the same 1 MiB inputs, side by side with a plain
    # `str.split` pass over the same text (the floor any segmenter pays);
    # inputs this large bypass the decision cache. `&&` is unsupported in
    # PowerShell, so the chains use `;` and `|`, which both shells split on.
    print("1 MiB inputs, limited Bash and limited PowerShell vs str.split (best of 3, one decision each):")
    mib = 1 << 20
    both = {
        "one word": "echo " + "a" * mib,
        "many words": "echo " + "ab " * (mib // 3),
        "many ; segments": "ls ; " * (mib // 5) + "ls",
        "many | segments": "ls | " * (mib // 5) + "ls",
        "distinct segments": "".join(f"ls f{i} ; " for i in range(mib // 12)) + "ls",
        "quoted words": "echo " + "'a b' " * (mib // 6),
        "double-quoted words": "echo " + '"a b" ' * (mib // 6),
        "deep quoting": "echo " + "'a'\"b\"'c'" * (mib // 11),
        "one long quoted word": "echo '" + "a b " * (mib // 4) + "'",
        "unclosed quote": "echo '" + "a" * mib,
        "unsupported at the end": "ls | " * (mib // 5) + "ls >",
    }
    for name, text in both.items():
        split_ms = _best_of(lambda t=text: t.split(), 3) / 1000
        bash_ms = _best_of(lambda t=text: check_bash_uncached(t, CWD), 3) / 1000
        ps_ms = _best_of(lambda t=text: check_powershell(t, CWD), 3) / 1000
        print(
            f"  {name:24s} str.split {split_ms:7.1f} ms   bash {bash_ms:7.1f} ms ({bash_ms / split_ms:5.1f}x)   "
            f"powershell {ps_ms:7.1f} ms ({ps_ms / split_ms:5.1f}x)"
        )
    return 0


def _mix(seed: int, count: int) -> list[str]:
    """`count` seeded random commands made of :data:`_MIX_PIECES`."""
    return random_mix(_MIX_PIECES, seed, count, 12)


if __name__ == "__main__":
    sys.exit(main())
