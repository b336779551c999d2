"""How fast the opl-modes Bash gate decides.

    python benchmarks/oplmodes_bash.py [--repeat N]
    python benchmarks/oplmodes_bash.py --record FILE | --compare FILE

1. At least 500 distinct commands under the built-in lists (mode `plan`):
   the median decision time, against the median time of one plain
   `re.search` of the same commands with one precompiled pattern.
   Target: the median decision costs at most 20 x one regex search.
2. Inputs of 1 MB of several shapes. Target: each decided in under 1 s.
3. Given `--upstream DIR` (the upstream opl-modes sources: `utils.ts` and
   `config.ts`) and `--typescript DIR` (an installed `typescript` package),
   side by side over the same commands: the upstream `bashBlockReason` on
   V8 under its default safe and destructive lists (no user configuration:
   HOME is an empty directory), warm (each command's best of several
   passes) and first pass (each command decided once in a fresh process),
   against the reference gate (policy resolved once) timed the same way, as
   ratios. The reference's first pass is its first decision of each command
   in a fresh interpreter. Timer floors (an empty call timed the same way)
   are subtracted on both sides.

`--record FILE` writes every opl-modes gate verdict (the fixture cases of
the gate through the adapter; the commands above, the fixture commands and
seeded random mixes under the built-in lists in every built-in mode; the
same commands under every configuration and mode the fixtures use, user
patterns included) to FILE; `--compare FILE` computes them again and lists
every difference: a speed change records before and compares after, and
must report zero differences.

Figures are printed, never asserted: a slow machine does not fail anything.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from side_by_side import (
    add_verdict_options,
    each_best,
    fresh_process_best,
    plain,
    random_mix,
    ratio,
    record_or_compare,
)

from pytest_planmode.reference.oplmodes import bash_patterns as bp
from pytest_planmode.reference.oplmodes.bash_gate import check, check_command, resolve_bash_policy

#: The comparison: one precompiled, unanchored pattern of the kind a naive
#: gate would use.
BASELINE = re.compile(r"\b(?:rm|mv|cp|sudo)\b")

HEADS = [
    "ls -la",
    "cat README.md",
    "git log --oneline -20",
    "grep -rn TODO src",
    "rg -n 'fn main' .",
    "find . -name '*.py'",
    "git status",
    "head -n 50 log.txt",
    "wc -l *.txt",
    "du -sh .",
    "git diff HEAD~1 -- src",
    "jq .version package.json",
    "sort -n data.csv",
    "tree -L 2",
    'echo "$(ls)"',
    "cat f && node -e 1",
    "ls > out.txt",
    "find . -delete",
    "rm -rf build",
    "npm audit fix",
    "git branch -d old",
    "uniq -c a b",
    "fd -Hx cat",
    "tail -f app.log",
]
TAILS = [
    "",
    " | head -20",
    " 2>/dev/null",
    " && pwd",
    " | grep -v test | wc -l",
    "; echo done",
    " 2>&1 | less",
]


def commands(count: int) -> list[str]:
    out: list[str] = []
    for i, (head, tail) in enumerate(itertools.product(HEADS, TAILS)):
        out.append(f"{head}{tail}")
        out.append(f"{head} x{i}{tail}")
        out.append(f"cd src{i} && {head}{tail}")
    return sorted(set(out))[:count] if len(set(out)) >= count else sorted(set(out))


def median_ns(func, arg, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        func(arg)
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times)


# The upstream side: `config.ts` and `utils.ts` transpiled by
# `typescript.transpileModule` and loaded into Node with a `require` that
# resolves `./config.js` to the transpiled config (the type-only imports are
# gone after transpiling). Pass 0 is the first pass of a fresh process; the
# warm figure of a command is its best later pass.
_NODE_DRIVER = r"""
const fs = require("fs");
const path = require("path");
const req = JSON.parse(fs.readFileSync(0, "utf8"));
const ts = require(req.typescript);
const loaded = {};
function load(name) {
  if (loaded[name]) return loaded[name].exports;
  const source = fs.readFileSync(path.join(req.upstream, name + ".ts"), "utf8");
  const code = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const mod = (loaded[name] = { exports: {} });
  const local = (spec) => (spec.startsWith("./") ? load(spec.slice(2).replace(/\.js$/, "")) : require(spec));
  new Function("module", "exports", "require", code)(mod, mod.exports, local);
  return mod.exports;
}
const config = load("config");
const utils = load("utils");
const safe = config.SAFE_COMMAND_PATTERNS;
const destructive = config.DESTRUCTIVE_PATTERNS;
const cmds = req.commands;
const now = process.hrtime.bigint;
const first = [];
const warm = new Array(cmds.length).fill(Infinity);
const reasons = [];
for (let round = 0; round < req.rounds; round++) {
  for (let i = 0; i < cmds.length; i++) {
    const start = now();
    const reason = utils.bashBlockReason(cmds[i], safe, destructive);
    const micros = Number(now() - start) / 1000;
    if (round === 0) { first.push(micros); reasons.push(reason); }
    else if (micros < warm[i]) warm[i] = micros;
  }
}
const noop = (command, a, b) => null;
let floor = Infinity;
for (let round = 0; round < req.rounds; round++) {
  for (let i = 0; i < cmds.length; i++) {
    const start = now();
    noop(cmds[i], safe, destructive);
    const micros = Number(now() - start) / 1000;
    if (micros < floor) floor = micros;
  }
}
process.stdout.write(JSON.stringify({ first, warm, floor, allowed: reasons.filter((r) => r === null).length }));
"""

#: Fresh processes whose first passes are taken (each command's best).
FRESH_PROCESSES = 3


def upstream_times(
    upstream: Path, typescript: Path, cmds: list[str], rounds: int
) -> tuple[list[float], list[float], int]:
    """µs per command of the upstream gate on Node: first pass, warm; and
    how many commands it allows."""
    with tempfile.TemporaryDirectory() as scratch:
        driver = Path(scratch) / "driver.js"
        driver.write_text(_NODE_DRIVER, encoding="utf-8")
        home = Path(scratch) / "home"
        home.mkdir()
        request = {
            "upstream": str(upstream.resolve()),
            "typescript": str(typescript.resolve()),
            "commands": cmds,
            "rounds": rounds,
        }
        first = [float("inf")] * len(cmds)
        warm = [float("inf")] * len(cmds)
        floor = float("inf")
        allowed = 0
        for _ in range(FRESH_PROCESSES):
            done = subprocess.run(
                ["node", str(driver)],
                input=json.dumps(request),
                capture_output=True,
                text=True,
                check=True,
                env={"HOME": str(home), "PATH": os.environ.get("PATH", "")},
            )
            answer = json.loads(done.stdout)
            first = list(map(min, first, answer["first"]))
            warm = list(map(min, warm, answer["warm"]))
            floor = min(floor, answer["floor"])
            allowed = answer["allowed"]
    print(f"  timer floor on Node (an empty call, subtracted): {floor:5.2f} µs")
    return [t - floor for t in first], [t - floor for t in warm], allowed


# The reference's first pass: a fresh interpreter decides each command once.
_FIRST_PASS = r"""
import json, sys, time
commands = json.load(open(sys.argv[1]))
from pytest_planmode.reference.oplmodes.bash_gate import check_command, resolve_bash_policy
policy = resolve_bash_policy(None, "plan")
clock = time.perf_counter_ns
times = []
for c in commands:
    start = clock()
    check_command(c, policy)
    times.append((clock() - start) / 1000)
floor = float("inf")
noop = lambda command, policy: None
for c in commands:
    start = clock()
    noop(c, policy)
    floor = min(floor, (clock() - start) / 1000)
print(json.dumps([t - floor for t in times]))
"""


def first_pass(cmds: list[str]) -> list[float]:
    """µs per command of its first decision in a fresh interpreter (each
    command's best of :data:`FRESH_PROCESSES` processes)."""
    return fresh_process_best(_FIRST_PASS, cmds, FRESH_PROCESSES)


def side_by_side(upstream: Path, typescript: Path, cmds: list[str], rounds: int) -> None:
    print(
        f"side by side with the upstream opl-modes on V8: {len(cmds)} commands, mode `plan`, built-in lists"
    )
    policy = resolve_bash_policy(None, "plan")
    warm = each_best(functools.partial(check_command, policy=policy), cmds, rounds)
    first = first_pass(cmds)
    their_first, their_warm, their_allowed = upstream_times(upstream, typescript, cmds, max(rounds, 10))
    allowed = sum(check_command(c, policy).allowed for c in cmds)
    print(
        f"  allowed: reference {allowed}, upstream {their_allowed} (the lists differ; reference-choices.md)"
    )
    for name, times in (
        ("reference gate, warm", warm),
        ("reference gate, first pass", first),
        ("upstream bashBlockReason, warm", their_warm),
        ("upstream bashBlockReason, first pass", their_first),
    ):
        print(
            f"  {name:38s} median {statistics.median(times):7.2f} µs  mean {statistics.mean(times):7.2f} µs"
        )
    print(f"  ratio, warm        {ratio(warm, their_warm)}")
    print(f"  ratio, first pass  {ratio(first, their_first)}")


# -- verdict record and comparison --------------------------------------------

#: The pieces random mixes are made of: every program name of the built-in
#: lists, wrappers, options the destructive entries look for, operators,
#: quoting, expansions and redirects.
_MIX_PIECES = [
    *dict.fromkeys(w for head in HEADS for w in head.split()),
    *bp.SAFE_PROGRAMS.split(),
    *sorted(bp.WRAPPERS),
    "rm", "mv", "cp", "tee", "dd", "sudo", "kill", "bash", "sh", "eval", "source", ".", "vim", "nano",
    "git", "branch", "remote", "show", "add", "stash", "list", "worktree", "reflog", "config", "-c",
    "-C", "/tmp", "--help", "npm", "pnpm", "yarn", "pip", "python", "python3", "-m", "install", "i",
    "audit", "fix", "sort", "-o", "tree", "-R", "fd", "-x", "-Hx", "--exec", "rg", "--pre", "-z", "uniq",
    "less", "+F", "date", "-s", "file", "-C", "bat", "--paging", "always", "ps", "aux", "auxe", "e",
    "printf", "-v", "tsc", "--noEmit", "false", "-w", "--incremental", "node", "--version", "jq", "env",
    "$ENV", "/proc/self/environ", "environ", "--cache", "/x", "..", "/proc", "-r", "-d", "-D", "-n",
    "--list", "-delete", "-exec", "--output", "--out", "-fprint",
    " ", " ", " ", " ", " ", "\t", " && ", " || ", " | ", "; ", ";", "|", "&", "&&", "\n", "\r",
    "'", '"', "\\", "\\ ", "$", "$HOME", "$(", ")", "(", "`", "{", "}", "{a,b}", "$'x'", "~", "*",
    "A=1 ", 'X="a b" ', "/bin/", "./", ">", ">>", "<", "2>&1", ">&2", ">/dev/null", "2>", "<(", ">(",
    "cd ", "cd ..", "cd /", "#", "=",
]  # fmt: skip


def verdicts() -> list[list[Any]]:
    """Every verdict the comparison covers, as [kind, input, answer] rows."""
    from pytest_planmode.suite import load_suite
    from pytest_planmode.targets.reference.adapter import REFERENCE

    cases = [case for case in load_suite() if case.operation.startswith("oplmodes.bash.")]
    rows: list[list[Any]] = [
        ["fixture", case.id, REFERENCE.call(case.operation, case.input)] for case in cases
    ]
    fixture_commands = list(
        dict.fromkeys(c.input["command"] for c in cases if isinstance(c.input.get("command"), str))
    )
    configs: dict[str, tuple[Any, set[str]]] = {}
    for case in cases:
        if "mode" not in case.input:
            continue
        config = case.input.get("config")
        key = json.dumps(config, sort_keys=True)
        modes = configs.setdefault(key, (config, set()))[1]
        modes.add(case.input["mode"])
        if isinstance(config, dict) and isinstance(config.get("modes"), dict):
            modes.update(config["modes"])
    shared = list(dict.fromkeys([*commands(600), *fixture_commands, *_mix(29, 3_000)]))
    rng = random.Random(37)
    led = [f"{rng.choice(_MIX_PIECES[:40])} {mix}" for mix in _mix(41, 20_000)]
    builtin = list(dict.fromkeys([*shared, *_mix(31, 20_000), *led]))
    for mode in ("plan", "chat", "execute", "off", "no-such-mode"):
        for command in builtin if mode == "plan" else shared:
            rows.append([f"builtin {mode}", command, plain(check(command, mode, None))])
    # The destructive base alone (no safe list), so every command reaches it.
    destructive_only = {"modes": {"plan": {"safePatterns": []}}}
    for command in builtin:
        rows.append(["destructive base", command, plain(check(command, "plan", destructive_only))])
    for key, (config, modes) in configs.items():
        for mode in sorted(modes | {"plan"}):
            for command in shared:
                rows.append([f"config {mode} {key}", command, plain(check(command, mode, config))])
    for command in builtin[:2_000]:
        payload = {"command": command, "mode": "plan"}
        rows.append(["adapter", command, REFERENCE.call("oplmodes.bash.check", payload)])
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=25)
    parser.add_argument("--upstream", type=Path, help="the upstream opl-modes sources (utils.ts, config.ts)")
    parser.add_argument("--typescript", type=Path, help="an installed typescript package (with --upstream)")
    parser.add_argument(
        "--rounds", type=int, default=7, help="passes over the commands for warm figures (3.)"
    )
    add_verdict_options(parser)
    args = parser.parse_args()
    done = record_or_compare(args, verdicts)
    if done is not None:
        return done
    if args.upstream is not None and args.typescript is None:
        parser.error("--upstream needs --typescript (its sources are TypeScript)")

    cmds = commands(600)
    policy = resolve_bash_policy(None, "plan")
    for c in cmds:  # warm the compile caches
        check(c, "plan", None)
    gate = [median_ns(lambda c: check_command(c, policy), c, args.repeat) for c in cmds]
    full = [median_ns(lambda c: check(c, "plan", None), c, args.repeat) for c in cmds]
    base = [median_ns(BASELINE.search, c, args.repeat) for c in cmds]
    allowed = sum(check(c, "plan", None).allowed for c in cmds)
    g, f, b = statistics.median(gate), statistics.median(full), statistics.median(base)
    print(f"{len(cmds)} distinct commands ({allowed} allowed), median of {args.repeat} runs each")
    print(f"  median decision, policy resolved once : {g / 1000:8.2f} us  ({g / b:5.1f} x re.search)")
    print(f"  median decision, policy from the config: {f / 1000:8.2f} us  ({f / b:5.1f} x re.search)")
    print(f"  median re.search {BASELINE.pattern!r}  : {b / 1000:8.2f} us")
    print("  target: <= 20 x")

    mb = 1 << 20
    shapes = {
        "many safe segments": ("cat notes.txt | grep -n TODO && ls -la; ", None),
        "one long segment": ("cat " + "file.txt " * 8, None),
        "quotes and substitutions": ("echo \"$(ls)\" 'a|b' `pwd` ", None),
        "quoted operators, allowed": ("grep \"a|b\" 'c;d' f.txt && ", None),
        "redirect-like text": ("ls 2>&1 >/dev/null ", None),
        "wrapper and arguments": ("xargs sort sort ", "xargs "),
        "git options": ("git -C . ", None),
        "blocked at the end": ("ls && ", "rm -rf /"),
    }
    print(f"inputs of {mb} bytes:")
    for name, (unit, extra) in shapes.items():
        text = (unit * (mb // len(unit) + 1))[:mb]
        if extra and name == "blocked at the end":
            text = text[: mb - len(extra)] + extra
        elif extra:
            text = extra + text[len(extra) :]
        start = time.perf_counter()
        decision = check(text, "plan", None)
        elapsed = time.perf_counter() - start
        verdict = "allowed" if decision.allowed else "blocked"
        print(f"  {name:26s} {elapsed * 1000:8.1f} ms  {verdict}")
    print("  target: < 1000 ms each")
    if args.upstream is not None:
        side_by_side(args.upstream, args.typescript, cmds, args.rounds)
    else:
        print("upstream on V8: not measured (give --upstream DIR and --typescript DIR)")
    return 0


def _mix(seed: int, count: int) -> list[str]:
    """`count` seeded random commands made of :data:`_MIX_PIECES`."""
    return random_mix(_MIX_PIECES, seed, count, 14)


if __name__ == "__main__":
    sys.exit(main())
