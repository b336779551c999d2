"""What the decision benchmarks share: timing each call at its best against
the timer's own cost, ratios of two timings, seeded random command mixes,
and the record of every verdict a speed change must leave as it was.

Imported by `planmode_bash.py` and `oplmodes_bash.py` (run from this
directory, as `python benchmarks/<name>.py`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def each_best(func: Callable[[Any], object], items: list[Any], rounds: int) -> list[float]:
    """µs of each call `func(item)`, its best of `rounds` calls, less the
    timer's own cost (an empty call timed the same way)."""
    clock = time.perf_counter_ns
    best = [float("inf")] * len(items)
    floor = float("inf")
    for _ in range(rounds):
        for index, item in enumerate(items):
            start = clock()
            func(item)
            took = clock() - start
            if took < best[index]:
                best[index] = took
            start = clock()
            _noop(item)
            floor = min(floor, clock() - start)
    return [(ns - floor) / 1000 for ns in best]


def _noop(item: object) -> None:
    return None


def ratio(ours: list[float], theirs: list[float]) -> str:
    return (
        f"median {statistics.median(ours) / statistics.median(theirs):5.2f}x  "
        f"mean {statistics.mean(ours) / statistics.mean(theirs):5.2f}x"
    )


def random_mix(pieces: Sequence[str], seed: int, count: int, longest: int) -> list[str]:
    """`count` seeded random commands of 1 to `longest` of `pieces`."""
    rng = random.Random(seed)
    return ["".join(rng.choices(pieces, k=rng.randint(1, longest))) for _ in range(count)]


def plain(value: Any) -> Any:
    """A verdict as JSON values (dataclasses as objects, tuples as lists)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def compare(path: Path, now: list[list[Any]]) -> int:
    """Rows `[kind, input, verdict]` now against those recorded in `path`:
    prints every difference (the first 20 in full); 1 when any."""
    recorded = json.loads(path.read_text(encoding="utf-8"))
    now = json.loads(json.dumps(now))
    differences = 0
    if len(recorded) != len(now):
        print(f"verdict comparison: {len(recorded)} recorded rows, {len(now)} now")
        differences += 1
    for old, new in zip(recorded, now, strict=False):
        if old != new:
            differences += 1
            if differences <= 20:
                print(f"  differs: {old[0]} {old[1]!r}\n    before {old[2]}\n    now    {new[2]}")
    kinds = Counter(str(row[0]).split(" ", 1)[0] for row in now)
    print(
        f"verdict comparison against {path.name}: {len(now)} verdicts "
        f"({', '.join(f'{kind} {count}' for kind, count in sorted(kinds.items()))}), {differences} differences"
    )
    return 1 if differences else 0


def fresh_process_best(script: str, items: list[Any], processes: int, *args: str) -> list[float]:
    """Per item, the best of `processes` fresh interpreters running `script`
    (`python -c script LISTING *args`, LISTING a JSON file of `items`; it
    prints one figure per item as a JSON list)."""
    with tempfile.TemporaryDirectory() as scratch:
        listing = Path(scratch) / "items.json"
        listing.write_text(json.dumps(items), encoding="utf-8")
        best = [float("inf")] * len(items)
        for _ in range(processes):
            done = subprocess.run(
                [sys.executable, "-c", script, str(listing), *args],
                capture_output=True,
                text=True,
                check=True,
            )
            best = list(map(min, best, json.loads(done.stdout)))
    return best


def add_verdict_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--record", type=Path, help="write every verdict to this file and stop")
    parser.add_argument("--compare", type=Path, help="compare every verdict with this file and stop")


def record_or_compare(args: argparse.Namespace, verdicts: Callable[[], list[list[Any]]]) -> int | None:
    """`--record FILE` or `--compare FILE`: the exit status; None for neither."""
    if args.record:
        rows = verdicts()
        args.record.write_text(json.dumps(rows), encoding="utf-8")
        print(f"recorded {len(rows)} verdicts in {args.record}")
        return 0
    if args.compare:
        return compare(args.compare, verdicts())
    return None
