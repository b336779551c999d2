"""What running an extension through the mock Pi host costs.

    python benchmarks/pi_host.py [--cases N] [--repeat R]

The same suite cases (the fixture cases of `planmode.bash.check` and
`planmode.powershell.check`, the operations the host translates) are sent,
side by side in one run, to

- `pi:examples/pi-extension/index.mjs`: each case a fresh extension runtime in
  its own sandbox (module evaluation, session start, `/plan start`, one
  `tool_call`), and
- `exec:python -m pytest_planmode.serve`: the reference behind the JSON Lines
  protocol,

each through its target object (host start-up and handshake excluded), and
prints cases per second for both and their ratio (median of R rounds).
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from pytest_planmode.suite import load_suite
from pytest_planmode.targets.exec_target import ExecTarget
from pytest_planmode.targets.pi_target import PiTarget

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "pi-extension" / "index.mjs"
OPERATIONS = ("planmode.bash.check", "planmode.powershell.check")


def rate(target: Any, requests: list[tuple[str, dict[str, Any]]]) -> float:
    start = time.perf_counter()
    for operation, payload in requests:
        outcome = target.request(operation, payload)
        if outcome.kind != "output":
            sys.exit(f"{target.description}: {operation} answered {outcome.kind}: {outcome.message}")
    return len(requests) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300, help="cases per round (default 300)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    args = parser.parse_args()
    requests = [(c.operation, dict(c.payload)) for c in load_suite() if c.operation in OPERATIONS][
        : args.cases
    ]
    pi = PiTarget(str(EXAMPLE), timeout=60)
    exec_target = ExecTarget(shlex.join([sys.executable, "-m", "pytest_planmode.serve"]), timeout=60)
    try:
        pi.handshake()
        exec_target.handshake()
        pi_rates, exec_rates = [], []
        for _ in range(args.repeat):
            pi_rates.append(rate(pi, requests))
            exec_rates.append(rate(exec_target, requests))
    finally:
        pi.close()
        exec_target.close()
    pi_rate, exec_rate = statistics.median(pi_rates), statistics.median(exec_rates)
    print(f"{len(requests)} cases of {', '.join(OPERATIONS)}, median of {args.repeat} rounds")
    print(f"  pi:examples/pi-extension/index.mjs       {pi_rate:9.1f} cases/s")
    print(f"  exec:python -m pytest_planmode.serve     {exec_rate:9.1f} cases/s")
    print(f"  ratio exec/pi                            {exec_rate / pi_rate:9.1f} x")


if __name__ == "__main__":
    main()
