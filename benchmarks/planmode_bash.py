"""How fast the reference decides limited-Bash submissions.

    python benchmarks/planmode_bash.py

Prints, over a corpus of distinct realistic coding-agent commands:
- the median time of the reference's complete `planmode.bash.check` decision
  (segmentation, trusted prefixes, reviewed policy; cache bypassed) and of a
  bare `bashlex.parse` of the same text, and their ratio;
- the time of a repeated command (answered from the decision cache);
- the time of the operation through the adapter (input validation included);
- decision times for inputs of 64 KiB to 1 MiB (growth must be linear);
- limited Bash and limited PowerShell on the same 1 MiB inputs (one long
  segment, many segments, quoting), side by side with a plain `str.split`
  of the same text.
A benchmark prints figures; it never fails on a slow machine.
"""

from __future__ import annotations

import contextlib
import itertools
import statistics
import sys
import time
from collections.abc import Callable

import bashlex  # type: ignore[import-untyped]

from pytest_planmode.reference.planmode.bash_policy import check_bash, check_bash_uncached
from pytest_planmode.reference.planmode.powershell_policy import check_powershell
from pytest_planmode.reference.planmode.safe_subcommand_match import TrustedPrefixes
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


def main() -> int:
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


if __name__ == "__main__":
    sys.exit(main())
