"""What running an extension through a Pi host costs, and where.

    python benchmarks/pi_host.py [--cases N] [--repeat R] [--pi 0.84.2,1.6.0]
                                 [--breakdown-pi WHICH] [--side-by-side-only]
    python benchmarks/pi_host.py --memory 0.84.2

First, side by side: cases per second and the host's peak resident memory
for the example extension (`examples/pi-extension/index.mjs`) and the
multi-module TypeScript example (`examples/pi-extension-ts/index.ts`) through
each Pi release named by `--pi` (installed with `planmode pi install`), and
for `exec:`
on the reference; the same `planmode.bash.check` cases for all (host start-up
and handshake excluded; median of R rounds).

The same suite cases (the fixture cases of `planmode.bash.check` and
`planmode.powershell.check`) are sent, side by side in one run, to

- `pi:examples/pi-extension/index.mjs`: each case a fresh extension runtime in
  its own sandbox (module evaluation, session start, `/plan start`, an agent
  run to its first context, one `tool_call`), and
- `exec:python -m pytest_planmode.serve`: the reference behind the JSON Lines
  protocol,

each through its target object (host start-up and handshake excluded), and
prints cases per second for both and their ratio (median of R rounds).

`--memory WHICH` instead sends every fixture case of the operations the
example translates through one `pi:` target on that host, as a whole-suite
run does, and prints the highest peak resident memory of its host processes
(the real host's process is replaced every `RECYCLE_EVERY` runs).

Then one more round through `pi:` (`--breakdown-pi`, default the default Pi) with
each case's time split into its parts:
on the kit's side the sandbox, the translation both ways and the JSON of the
request and answer; on the host's side (the timing the host reports) the
run's set-up, the file snapshots, the module evaluations, the steps; the
rest of the round trip is the pipe. The host's process start is measured
once, apart. `--compare` also runs the round as the host ran before its cheap
wins (sandboxes on disk rather than in memory, every sandbox directory made,
a real tick after every step: `options.baseline`), so the figures before and
after are printed side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from pytest_planmode.hosts.pi import install
from pytest_planmode.hosts.pi.client import PiHost, Sandbox
from pytest_planmode.suite import load_suite
from pytest_planmode.targets.exec_target import ExecTarget
from pytest_planmode.targets.pi import TRANSLATIONS, HostRun
from pytest_planmode.targets.pi_target import DEFAULT_PI, PiTarget, scratch_parent

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "pi-extension" / "index.mjs"
OPERATIONS = ("planmode.bash.check", "planmode.powershell.check")
HOST_PARTS = ("setupMs", "filesMs", "loadMs", "stepsMs", "closeMs")


def rate(target: Any, requests: list[tuple[str, dict[str, Any]]]) -> float:
    return measure(target, requests)[0]


def cpu_seconds(pid: int | None) -> float:
    """User and system CPU time of a process so far (Linux; 0 elsewhere)."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(target: Any, requests: list[tuple[str, dict[str, Any]]]) -> tuple[float, float]:
    """Cases per second, and CPU milliseconds per case of this process and
    the target's process together (a figure a loaded machine does not
    change much)."""
    host = getattr(target, "host", None)  # pi: the host process; exec: the target's own
    proc = host._proc if host is not None else getattr(getattr(target, "_proc", None), "proc", None)
    pid = proc.pid if proc is not None else None
    cpu0, child0 = time.process_time(), cpu_seconds(pid)
    start = time.perf_counter()
    for operation, payload in requests:
        outcome = target.request(operation, payload)
        if outcome.kind != "output":
            sys.exit(f"{target.description}: {operation} answered {outcome.kind}: {outcome.message}")
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu0 + cpu_seconds(pid) - child0
    return len(requests) / wall, cpu * 1000 / len(requests)


def breakdown(
    target: PiTarget, requests: list[tuple[str, dict[str, Any]]], options: dict[str, Any], parent: Path
) -> dict[str, float]:
    """Milliseconds per case spent in each part of a `pi:` request, with the
    sandboxes under `parent`."""
    parts: dict[str, float] = defaultdict(float)
    for operation, payload in requests:
        translation = TRANSLATIONS[operation]
        t0 = time.perf_counter()
        sandbox = Sandbox.create(parent)
        t1 = time.perf_counter()
        script = translation.script(payload, sandbox)
        t2 = time.perf_counter()
        answer = target.host.run(target.entry, sandbox, script, {**translation.options, **options})
        t3 = time.perf_counter()
        translation.effects(payload, HostRun.from_answer(answer))
        t4 = time.perf_counter()
        encoded = json.dumps(answer)
        t5 = time.perf_counter()
        json.loads(encoded)
        t6 = time.perf_counter()
        sandbox.remove()
        t7 = time.perf_counter()
        timing = answer.get("timing") or {}
        host_ms = float(timing.get("totalMs", 0.0))
        parts["kit: sandbox create + remove"] += (t1 - t0 + t7 - t6) * 1000
        parts["kit: translation (script + effects)"] += (t2 - t1 + t4 - t3) * 1000
        # The answer is decoded once by the client; encoding it costs the host about as much.
        parts["kit: JSON of the answer (decode)"] += (t6 - t5) * 1000
        parts["pipe + host JSON (round trip - host run)"] += (t3 - t2) * 1000 - host_ms - (t6 - t5) * 1000
        for key, value in timing.items():
            # The host reports its parts and each kind of step (`steps`).
            if key in HOST_PARTS:
                parts[f"host: {key[:-2]}"] += float(value)
            elif key == "steps" and isinstance(value, dict):
                for step, ms in value.items():
                    parts[f"host:   step {step}"] += float(ms)
        parts["answer bytes"] += len(encoded)
    return {key: value / len(requests) for key, value in parts.items()}


def process_start(repeat: int, version: str) -> float:
    """Milliseconds from starting a host process (Pi `version`) to its handshake."""
    found = install.find(version)
    times = []
    for _ in range(repeat):
        host = PiHost(found.node, script_args=(str(found.root),))
        began = time.perf_counter()
        host.start()
        times.append((time.perf_counter() - began) * 1000)
        host.close()
    return statistics.median(times)


TS_EXAMPLE = EXAMPLE.parent.parent / "pi-extension-ts" / "index.ts"


def peak_rss_mb(host: PiHost) -> float | None:
    """The highest peak resident memory of the host's processes (Linux), in
    MB, recycled ones included."""
    peak = host.peak_rss_kb()
    return peak / 1024 if peak else None


def side_by_side(hosts: list[str], cases: int, repeat: int) -> None:
    """Cases/s and peak RSS per host and extension, with exec: alongside."""
    requests = [(c.operation, dict(c.input)) for c in load_suite() if c.operation == "planmode.bash.check"][
        :cases
    ]
    rows: list[tuple[str, float, float, float | None]] = []
    for which in hosts:
        for entry in (EXAMPLE, TS_EXAMPLE):
            target = PiTarget(str(entry), timeout=120, pi=which)
            try:
                target.handshake()
                rounds = [measure(target, requests) for _ in range(repeat)]
                rows.append(
                    (
                        f"pi:{entry.parent.name}/{entry.name} on {which}",
                        statistics.median(r[0] for r in rounds),
                        statistics.median(r[1] for r in rounds),
                        peak_rss_mb(target.host),
                    )
                )
            finally:
                target.close()
    exec_target = ExecTarget(shlex.join([sys.executable, "-m", "pytest_planmode.serve"]), timeout=60)
    try:
        exec_target.handshake()
        rounds = [measure(exec_target, requests) for _ in range(repeat)]
        rows.append(
            (
                "exec:python -m pytest_planmode.serve",
                statistics.median(r[0] for r in rounds),
                statistics.median(r[1] for r in rounds),
                None,
            )
        )
    finally:
        exec_target.close()
    print(f"{len(requests)} planmode.bash.check cases, median of {repeat} rounds")
    print(f"  {'target':52s} {'cases/s':>9s} {'CPU ms/case':>12s} {'peak RSS':>10s}")
    for name, value, cpu, rss in rows:
        print(f"  {name:52s} {value:9.1f} {cpu:12.2f} {'' if rss is None else f'{rss:7.0f} MB':>10s}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300, help="cases per round (default 300)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--compare", action="store_true", help="also run with the host's cheap wins off")
    parser.add_argument(
        "--pi",
        default=",".join(install.VERSIONS),
        help=f"Pi releases side by side (default {','.join(install.VERSIONS)})",
    )
    parser.add_argument("--side-by-side-only", action="store_true", help="skip the breakdown")
    parser.add_argument(
        "--breakdown-pi",
        default=DEFAULT_PI,
        help=f"the Pi release whose case time is split into parts (default {DEFAULT_PI})",
    )
    parser.add_argument(
        "--memory",
        metavar="PI",
        help="only run every fixture case of the example's operations through this Pi host and "
        "print the host's peak resident memory (a whole-suite run's)",
    )
    args = parser.parse_args()
    if args.memory:
        memory(args.memory)
        return
    side_by_side([h.strip() for h in args.pi.split(",") if h.strip()], args.cases, args.repeat)
    if args.side_by_side_only:
        return
    requests = [(c.operation, dict(c.input)) for c in load_suite() if c.operation in OPERATIONS][: args.cases]
    pi = PiTarget(str(EXAMPLE), timeout=60, pi=args.breakdown_pi)
    exec_target = ExecTarget(shlex.join([sys.executable, "-m", "pytest_planmode.serve"]), timeout=60)
    try:
        pi.handshake()
        exec_target.handshake()
        pi_rates, exec_rates = [], []
        for _ in range(args.repeat):
            pi_rates.append(rate(pi, requests))
            exec_rates.append(rate(exec_target, requests))
        now = Path(tempfile.mkdtemp(prefix="planmode-bench-", dir=scratch_parent()))
        after = breakdown(pi, requests, {}, now)
        before = None
        if args.compare:
            # Before: sandboxes on disk, every sandbox directory made, a tick
            # after every step.
            disk = Path(tempfile.mkdtemp(prefix="planmode-bench-"))
            before = breakdown(pi, requests, {"baseline": True}, disk)
            shutil.rmtree(disk, ignore_errors=True)
        shutil.rmtree(now, ignore_errors=True)
    finally:
        pi.close()
        exec_target.close()
    pi_rate, exec_rate = statistics.median(pi_rates), statistics.median(exec_rates)
    print(f"{len(requests)} cases of {', '.join(OPERATIONS)}, median of {args.repeat} rounds")
    print(f"  pi:examples/pi-extension/index.mjs (Pi {args.breakdown_pi}) {pi_rate:9.1f} cases/s")
    print(f"  exec:python -m pytest_planmode.serve     {exec_rate:9.1f} cases/s")
    print(f"  ratio exec/pi                            {exec_rate / pi_rate:9.1f} x")
    print(
        f"host process start to handshake            {process_start(3, args.breakdown_pi):9.1f} ms (once per worker)"
    )
    print("per pi: case, ms" + ("        before     after" if before else "     after"))
    for key, value in after.items():
        unit = "" if key != "answer bytes" else " (bytes)"
        if before is not None:
            print(f"  {key + unit:44s} {before.get(key, 0.0):9.2f} {value:9.2f}")
        else:
            print(f"  {key + unit:44s} {value:9.2f}")
    total = sum(v for k, v in after.items() if k != "answer bytes" and " step " not in k)
    if before is not None:
        old = sum(v for k, v in before.items() if k != "answer bytes" and " step " not in k)
        print(f"  {'total':44s} {old:9.2f} {total:9.2f}")
    else:
        print(f"  {'total':44s} {total:9.2f}")


def memory(which: str) -> None:
    """Every fixture case of the operations the example translates, through
    one `pi:` target on `which`, as a whole-suite run sends them; the
    highest peak resident memory of its host processes (recycled ones
    included) and of this process."""
    import resource

    target = PiTarget(str(EXAMPLE), timeout=120, pi=which)
    started = time.perf_counter()
    counts: dict[str, int] = defaultdict(int)
    try:
        target.handshake()
        for case in load_suite():
            if case.operation in TRANSLATIONS:
                counts[target.request(case.operation, dict(case.input)).kind] += 1
        peak = target.host.peak_rss_kb() / 1024
        processes = target.host.processes
    finally:
        target.close()
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"pi:{EXAMPLE.parent.name}/{EXAMPLE.name} on {which}: {sum(counts.values())} fixture cases "
        f"({dict(counts)}) in {time.perf_counter() - started:.0f} s"
    )
    print(
        f"  host peak RSS {peak:.0f} MB over {processes} process(es) (goal < 400 MB); "
        f"the kit's own peak {own:.0f} MB"
    )


if __name__ == "__main__":
    main()
