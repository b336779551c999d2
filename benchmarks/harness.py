"""How much the kit itself costs.

    python benchmarks/harness.py [--repeat N]

1. The whole suite through `reference` and through
   `exec:python -m pytest_planmode.serve`: wall time of each (median of N
   runs of a fresh pytest process) and their ratio. Target: exec <= 1.3 x
   reference.
2. The harness's own cost per case (collection + dispatch + comparison +
   reporting), with a target that answers instantly from a precomputed table:
   the time from the start of collection to the end of the session, divided
   by the number of cases (median of N runs). Target: under 1 ms per case.
   Side by side, alternating, the same runs without the check of every
   answer against its output model: the cost that check adds; and the CPU
   time per answer of that check alone, beside the `expect` comparison.
3. The whole suite through `reference` against pytest's floor for the same
   number of items (a fresh pytest process running that many empty tests),
   as a ratio, and the property checks' share. Goal: <= 3 x. Wall time
   and CPU time (user + system of the pytest process) both: on a loaded
   machine the wall time follows the load, the CPU time much less.
   The shipped fixture files' parse cache is warm (this script loads the
   suite before it measures); with `PLANMODE_FIXTURE_CACHE=off` every run
   parses them. `--baseline DIR` runs the same measures, alternated in the
   same run, with the package of another checkout (say, of main: `git
   worktree add DIR main`), and prints the two side by side.
4. Where the property checks' time goes (`--properties`): one run of them
   in this process, per check the examples drawn and the CPU time, with the
   time spent in target requests apart; the rest is Hypothesis's
   generation, its engine and the check's own code.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode.suite import FIXTURES_DIR, load_suite
from pytest_planmode.targets.reference.adapter import REFERENCE

#: pytest's floor: a test module of `N` items that do nothing.
_FLOOR_MODULE = """
import pytest

@pytest.mark.parametrize("index", range({items}))
def test_nothing(index):
    pass
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def floor_run(items: int) -> tuple[float, float]:
    """Wall and CPU time of a fresh pytest process running `items` empty
    tests (pytest's own floor for that many items)."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "test_floor.py").write_text(_FLOOR_MODULE.format(items=items), encoding="utf-8")
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_floor.py"]
        cpu = _children_cpu()
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            sys.exit(f"floor run: pytest exited {proc.returncode}\n{proc.stdout[-3000:]}")
        return elapsed, _children_cpu() - cpu


def timed_run(target: str, *args: str) -> tuple[float, dict[str, Any]]:
    elapsed, _, report = cpu_timed_run(target, *args)
    return elapsed, report


def cpu_timed_run(
    target: str, *args: str, package: Path | None = None
) -> tuple[float, float, dict[str, Any]]:
    """Wall time, CPU time and report of a fresh pytest process running the
    suite through `target`; `package`: the checkout whose `pytest_planmode`
    that process imports (default: this one)."""
    env = dict(os.environ)
    if package is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(package), env.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--planmode-target={target}",
            f"--planmode-report={report}",
            *args,
        ]
        cpu = _children_cpu()
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, env=env)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            sys.exit(f"{target}: pytest exited {proc.returncode}\n{proc.stdout[-3000:]}")
        return elapsed, _children_cpu() - cpu, json.loads(report.read_text())


class InstantAdapter:
    """Answers every suite request from a table computed beforehand."""

    def __init__(self) -> None:
        self.table: dict[tuple[str, str], dict[str, Any]] = {}
        for case in load_suite():
            key = (case.operation, json.dumps(case.input, sort_keys=True))
            self.table[key] = REFERENCE.call(case.operation, case.input)
        self.hello_answer = REFERENCE.hello("")

    def hello(self, suite: str) -> dict[str, Any]:
        return self.hello_answer

    def call(self, op: str, payload: dict[str, Any]) -> dict[str, Any]:
        return self.table[(op, json.dumps(payload, sort_keys=True))]


INSTANT = InstantAdapter()


class Clock:
    def __init__(self) -> None:
        self.start = 0.0
        self.end = 0.0
        self.items = 0

    def pytest_collection(self) -> None:
        self.start = time.perf_counter()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.items = len(session.items)

    def pytest_sessionfinish(self) -> None:
        self.end = time.perf_counter()


def harness_cost(shape_check: bool = True) -> tuple[int, float]:
    """Items and seconds of a run with the instant target; without
    `shape_check`, answers are compared with `expect` only (the cost the
    shape check adds is the difference)."""
    from pytest_planmode.harness import verdict

    saved = verdict.shape_problems
    if not shape_check:
        verdict.shape_problems = lambda operation, output: []
    try:
        return _harness_cost()
    finally:
        verdict.shape_problems = saved


def _harness_cost() -> tuple[int, float]:
    clock = Clock()
    with tempfile.TemporaryDirectory() as tmp:
        code = pytest.main(
            [
                "-q",
                "-p",
                "no:cacheprovider",
                "--planmode-target=python:__main__:INSTANT",
                f"--planmode-report={Path(tmp) / 'r.json'}",
                str(FIXTURES_DIR),
                "--rootdir",
                tmp,
            ],
            plugins=[clock],
        )
    if code != 0:
        sys.exit(f"instant target run failed with exit status {code}")
    return clock.items, clock.end - clock.start


def check_cost() -> str:
    """CPU time per answer of the shape check and of the `expect`
    comparison, on the reference's answers to every case (best of 3): the
    figure machine load does not blur."""
    from pytest_planmode.answer_shape import shape_problems
    from pytest_planmode.matching import mismatches

    answers = [
        (case, json.loads(json.dumps(answer["output"])))
        for case in load_suite()
        if "output" in (answer := INSTANT.call(case.operation, case.input))
    ]

    def best(work: Any) -> float:
        times = []
        for _ in range(3):
            start = time.process_time()
            work()
            times.append(time.process_time() - start)
        return min(times) / len(answers) * 1000

    compare = best(lambda: [mismatches(c.expect, out) for c, out in answers])
    shape = best(lambda: [shape_problems(c.operation, out) for c, out in answers])
    return (
        f"  per answer (CPU time): shape check {shape:.4f} ms, expect comparison {compare:.4f} ms "
        f"({len(answers)} answers)"
    )


def report_harness_cost(repeat: int) -> None:
    # Alternated, so that both see the same machine load.
    with_check: list[float] = []
    without_check: list[float] = []
    for _ in range(repeat):
        items, seconds = harness_cost(shape_check=False)
        without_check.append(seconds)
        items, seconds = harness_cost(shape_check=True)
        with_check.append(seconds)
    bare = statistics.median(without_check)
    seconds = statistics.median(with_check)
    print(
        f"harness cost, instant target: {items} fixture cases in {seconds:.3f} s from collection "
        f"to session end = {seconds / items * 1000:.3f} ms per case  (target < 1 ms)"
    )
    print(
        f"  without the answer shape check: {bare / items * 1000:.3f} ms per case; the check adds "
        f"{(seconds - bare) / items * 1000:+.3f} ms per case ({seconds / bare:.3f} x)"
    )
    print(check_cost())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--harness-only", action="store_true", help="measure only the harness cost per case (2.)"
    )
    parser.add_argument(
        "--floor-only",
        action="store_true",
        help="measure only the whole suite through reference against pytest's floor (3.)",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="DIR",
        help="in 3., also measure the package of the checkout DIR (e.g. main), alternated",
    )
    parser.add_argument(
        "--properties",
        action="store_true",
        help="only where the property checks' time goes, per check (4.)",
    )
    args = parser.parse_args()
    if args.baseline is not None and not (args.baseline / "pytest_planmode" / "__init__.py").is_file():
        parser.error(
            f"--baseline: {args.baseline} is not a checkout of the project (no pytest_planmode/ there)"
        )
    if args.harness_only:
        report_harness_cost(args.repeat)
        return
    if args.floor_only:
        report_floor(args.repeat, args.baseline)
        return
    if args.properties:
        report_properties()
        return
    serve = "exec:" + shlex.join([sys.executable, "-m", "pytest_planmode.serve"])
    times: dict[str, list[float]] = {"reference": [], serve: []}
    counts: dict[str, dict[str, int]] = {}
    for _ in range(args.repeat):
        for target in times:
            elapsed, report = timed_run(target)
            times[target].append(elapsed)
            counts[target] = report["targets"][0]["totals"]
    if counts["reference"] != counts[serve]:
        sys.exit(f"the two targets disagree: {counts}")
    ref = statistics.median(times["reference"])
    wire = statistics.median(times[serve])
    print(f"suite: {sum(counts['reference'].values())} items, outcomes {counts['reference']}")
    print(
        f"reference           median wall time {ref:7.2f} s  (runs: {', '.join(f'{t:.2f}' for t in times['reference'])})"
    )
    print(
        f"exec: (serve)       median wall time {wire:7.2f} s  (runs: {', '.join(f'{t:.2f}' for t in times[serve])})"
    )
    print(f"ratio exec/reference: {wire / ref:.3f}  (target <= 1.3)")
    report_harness_cost(args.repeat)
    report_floor(args.repeat, args.baseline)


def report_floor(repeat: int, baseline: Path | None = None) -> None:
    """The whole suite through `reference`, and its property checks alone,
    against pytest's floor for the same number of items (alternated, so
    that all see the same machine load); with `baseline`, the same for the
    package of that checkout, in the same rounds."""
    packages: dict[str, Path | None] = {"this checkout": None}
    if baseline is not None:
        packages = {f"baseline {baseline.name}": baseline.resolve(), **packages}
    # Per package: wall and CPU times of the whole suite and of the property checks alone.
    runs: dict[str, dict[str, list[tuple[float, float]]]] = {
        name: {"suite": [], "properties": []} for name in packages
    }
    floors: list[tuple[float, float]] = []
    items: dict[str, int] = {}
    checks: dict[str, int] = {}
    for _ in range(repeat):
        for name, package in packages.items():
            wall, cpu, report = cpu_timed_run("reference", package=package)
            runs[name]["suite"].append((wall, cpu))
            items[name] = sum(report["targets"][0]["totals"].values())
            wall, cpu, report = cpu_timed_run("reference", "-k", ".property.", package=package)
            runs[name]["properties"].append((wall, cpu))
            checks[name] = sum(report["targets"][0]["totals"].values())
        floors.append(floor_run(items["this checkout"]))
    floor_wall = statistics.median(w for w, _ in floors)
    floor_cpu = statistics.median(c for _, c in floors)
    count = items["this checkout"]
    print(
        f"pytest's floor for {count} empty items: wall {floor_wall:.2f} s = {floor_wall / count * 1000:.3f} ms "
        f"per item, CPU {floor_cpu:.2f} s  (median of {repeat})"
    )
    for name, measured in runs.items():
        wall = statistics.median(w for w, _ in measured["suite"])
        cpu = statistics.median(c for _, c in measured["suite"])
        prop_wall = statistics.median(w for w, _ in measured["properties"])
        prop_cpu = statistics.median(c for _, c in measured["properties"])
        print(
            f"whole suite through reference, {name}: {items[name]} items, wall {wall:.2f} s = "
            f"{wall / items[name] * 1000:.3f} ms per item, ratio {wall / floor_wall:.2f} x; "
            f"CPU {cpu:.2f} s, ratio {cpu / floor_cpu:.2f} x  (goal <= 3 x)"
        )
        print(
            f"  of which the {checks[name]} property checks alone (a run of them only): "
            f"wall {prop_wall:.2f} s, CPU {prop_cpu:.2f} s"
        )


def report_properties() -> None:
    """Per property check: examples drawn, CPU time, and the CPU time of its
    target requests (the rest is generation, Hypothesis's engine and the
    check itself), from one run of the property checks in this process."""
    from pytest_planmode.harness import lifecycle

    spent: dict[str, list[float]] = {}
    current: list[str] = []
    request = lifecycle.Targets.request

    def timed_request(self: Any, name: str, operation: str, payload: Any) -> Any:
        start = time.process_time()
        try:
            return request(self, name, operation, payload)
        finally:
            if current:
                spent[current[0]][1] += time.process_time() - start

    class PerCheck:
        @pytest.hookimpl(wrapper=True)
        def pytest_runtest_call(self, item: pytest.Item) -> Any:
            key = next((v for k, v in item.user_properties if k == "planmode_case"), item.nodeid)
            row = spent.setdefault(key, [0.0, 0.0, 0.0])
            handle = getattr(getattr(item, "obj", None), "hypothesis", None)
            inner = handle.inner_test if handle is not None else None

            def counted(*args: Any, **kwargs: Any) -> Any:
                row[2] += 1
                return inner(*args, **kwargs)  # type: ignore[misc]

            if handle is not None:
                handle.inner_test = counted
            current[:] = [key]
            start = time.process_time()
            try:
                return (yield)
            finally:
                row[0] += time.process_time() - start
                current.clear()
                if handle is not None:
                    handle.inner_test = inner

    lifecycle.Targets.request = timed_request  # type: ignore[method-assign]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            code = pytest.main(
                ["-q", "-p", "no:cacheprovider", "--planmode-target=reference", "-k", ".property.",
                 f"--planmode-report={Path(tmp) / 'r.json'}", "--rootdir", tmp],
                plugins=[PerCheck()],
            )  # fmt: skip
    finally:
        lifecycle.Targets.request = request  # type: ignore[method-assign]
    if code != 0:
        sys.exit(f"the property checks failed through reference (exit status {code})")
    total, target, examples = (sum(row[i] for row in spent.values()) for i in range(3))
    print(
        f"property checks: {len(spent)}, {int(examples)} examples, CPU {total:.2f} s in the checks, "
        f"of which {target:.2f} s in target requests and {total - target:.2f} s generating and checking"
    )
    for key, (cpu, in_target, drawn) in sorted(spent.items(), key=lambda kv: -kv[1][0])[:30]:
        print(f"  {cpu * 1000:7.0f} ms  {int(drawn):4d} examples  target {in_target * 1000:6.0f} ms  {key}")


if __name__ == "__main__":
    main()
