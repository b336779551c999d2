"""How fast the opl-modes Bash gate decides.

    python benchmarks/oplmodes_bash.py [--repeat N]

1. At least 500 distinct commands under the built-in lists (mode `plan`):
   the median decision time, against the median time of one plain
   `re.search` of the same commands with one precompiled pattern.
   Target: the median decision costs at most 20 x one regex search.
2. Inputs of 1 MB of several shapes. Target: each decided in under 1 s.

Figures are printed, never asserted: a slow machine does not fail anything.
"""

from __future__ import annotations

import argparse
import itertools
import re
import statistics
import time

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


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=25)
    args = parser.parse_args()

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


if __name__ == "__main__":
    main()
