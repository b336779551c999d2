"""What one sandboxed command costs.

    python benchmarks/sandbox.py [--rounds 5]

Runs a corpus of reviewed inspection commands through the sandbox and,
side by side in the same run, through a plain `bash -c` (no namespaces, no
tracing), and prints the sandbox's start-up time, the median and 90th
percentile per command for both, and their ratio. A benchmark prints
figures; it never fails on a slow machine.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time

from pytest_planmode.sandbox import Sandbox, SandboxUnavailable, world

CORPUS = [
    "ls -la",
    "cat README.md",
    "git status",
    "git log --oneline -n 5",
    "git diff --stat",
    "grep -rn alpha .",
    "head -n 3 notes.txt",
    "sort notes.txt | uniq -c",
    "wc -l notes.txt src/app.py",
    "find . -name '*.py'",
    "git branch -a",
    "jq .name data.json",
    "pwd && echo done",
    "stat README.md",
    "du -sh src",
]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    started = time.perf_counter()
    try:
        sandbox = Sandbox()
    except SandboxUnavailable as exc:
        print(f"sandbox unavailable: {exc}")
        return 0
    startup = time.perf_counter() - started
    boxed: list[float] = []
    plain: list[float] = []
    with tempfile.TemporaryDirectory() as scratch, sandbox:
        subprocess.run(["git", "init", "-q", scratch], check=True)
        for _ in range(args.rounds):
            for command in CORPUS:
                t0 = time.perf_counter()
                result = sandbox.run(command)
                boxed.append(time.perf_counter() - t0)
                if result.effects or result.status != "observed":
                    print(f"note: {result.describe()}")
                t0 = time.perf_counter()
                subprocess.run(["bash", "-c", command], cwd=scratch, capture_output=True, env=world.BASE_ENV)
                plain.append(time.perf_counter() - t0)
    print(f"sandbox start-up: {startup * 1000:.0f} ms (once per process)")
    print(f"{len(boxed)} commands ({len(CORPUS)} distinct x {args.rounds} rounds)")
    for name, values in (("sandboxed", boxed), ("plain bash -c", plain)):
        print(
            f"  {name:<14} median {statistics.median(values) * 1000:6.1f} ms   "
            f"p90 {_percentile(values, 0.9) * 1000:6.1f} ms"
        )
    print(f"  ratio of medians: {statistics.median(boxed) / statistics.median(plain):.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
