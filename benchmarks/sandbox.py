"""What one sandboxed command costs.

    python benchmarks/sandbox.py [--rounds 5]

Runs a corpus of reviewed inspection commands through the sandbox and,
side by side in the same run, through a plain `bash -c` (no namespaces, no
tracing), and prints the sandbox's start-up time, the median and 90th
percentile per command for both, and their ratio, overall and per
command (the target: within 10x of a plain `bash -c`). Wall time on a
shared machine varies with its load, so the CPU time both spend (every
process of the sandbox, the tracer and the parsing of its trace included)
is printed as well. A benchmark prints
figures; it never fails on a slow machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def _sandbox_cpu(sandbox: Sandbox) -> float:
    """CPU seconds of the sandbox's resident process and everything it has
    started and reaped (each command's processes, the tracer)."""
    fields = Path(f"/proc/{sandbox._zygote.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


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
    per_command: dict[str, tuple[list[float], list[float]]] = {c: ([], []) for c in CORPUS}
    with tempfile.TemporaryDirectory() as scratch, sandbox:
        subprocess.run(["git", "init", "-q", scratch], check=True)
        cpu_box = cpu_plain = 0.0
        for _ in range(args.rounds):
            for command in CORPUS:
                t0 = time.perf_counter()
                c0, p0 = _sandbox_cpu(sandbox), time.process_time()
                result = sandbox.run(command)
                cpu_box += _sandbox_cpu(sandbox) - c0 + time.process_time() - p0
                boxed.append(time.perf_counter() - t0)
                per_command[command][0].append(boxed[-1])
                if result.effects or result.status != "observed":
                    print(f"note: {result.describe()}")
                t0 = time.perf_counter()
                c0 = _children_cpu()
                subprocess.run(["bash", "-c", command], cwd=scratch, capture_output=True, env=world.BASE_ENV)
                plain.append(time.perf_counter() - t0)
                cpu_plain += _children_cpu() - c0
                per_command[command][1].append(plain[-1])
    print(f"sandbox start-up: {startup * 1000:.0f} ms (once per process)")
    print(f"{len(boxed)} commands ({len(CORPUS)} distinct x {args.rounds} rounds)")
    for name, values in (("sandboxed", boxed), ("plain bash -c", plain)):
        print(
            f"  {name:<14} median {statistics.median(values) * 1000:6.1f} ms   "
            f"p90 {_percentile(values, 0.9) * 1000:6.1f} ms"
        )
    print(f"  ratio of medians: {statistics.median(boxed) / statistics.median(plain):.1f}x")
    count = len(boxed)
    print(
        f"  CPU per command: sandboxed {cpu_box / count * 1000:.1f} ms, plain {cpu_plain / count * 1000:.1f} ms, "
        f"ratio {cpu_box / max(cpu_plain, 1e-9):.1f}x"
    )
    print("per command (median sandboxed / median plain):")
    ratios = []
    for command, (box, bare) in per_command.items():
        ratio = statistics.median(box) / statistics.median(bare)
        ratios.append(ratio)
        print(
            f"  {command:<28} {statistics.median(box) * 1000:6.1f} ms / "
            f"{statistics.median(bare) * 1000:5.1f} ms = {ratio:4.1f}x"
        )
    print(f"  highest per-command ratio: {max(ratios):.1f}x (target: within 10x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
