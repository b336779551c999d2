"""Mutation testing of the reference core under the conformance suite alone.

    python benchmarks/mutation.py [--sample N | --all] [--seed S] [--jobs J]
                                  [--module NAME ...] [--json FILE] [--diffs]

How strong is the suite? Every mutant of the reference core
(`pytest_planmode/reference/planmode`, `reference/oplmodes`,
`reference/shell`) is a wrong implementation; the suite should reject it.

1. mutmut (configured under `[tool.mutmut]` in pyproject.toml) generates the
   mutants in `mutants/` and maps every reference function to the conformance
   cases that call it (its "stats" run). This step reruns only what changed.
2. The mutants are run here, not by `mutmut run`: one pytest process collects
   the conformance suite once (`--planmode-target=reference`), then forks one
   child per mutant that runs only the cases calling the mutated function,
   fastest first, and stops at the first failure. mutmut's own runner starts
   pytest (and collects the 3,000-odd fixture cases) again for every mutant,
   which costs several times more per mutant.
3. Figures per module: mutants sampled, set aside as equivalent
   (`benchmarks/mutation-equivalent.toml`, one reason each: nothing else is
   excluded), killed by the whole suite and killed by `must` cases alone
   (what `--planmode-level=must` runs: each child runs the `must` cases
   first, so one run gives both figures).
   A mutant that runs out of time counts as killed, as in mutmut. A mutant
   whose function no conformance case calls survives.
4. A survivor in a function its module calls while being imported (a
   helper that builds a table or compiles a pattern) is run once more in a
   fresh pytest process started with the mutant switched on, over the cases
   that reach any function of its module (`must` cases first). A forked
   child inherits the modules the parent imported, so such a mutant is never
   switched on there, and mutmut's stats credit the helper to whichever case
   happened to import the module. The fresh process imports the mutant.
   Such a mutant that only a `reference` case killed in the forked run (a
   table the module builds later, on first use, did switch it on there) has
   its `must` cases run the same way: a `must` kill there is its outcome.
5. Four modules of the core are reached by no operation, so by no
   conformance case (`OWN_TESTS`: the real agent directory, the real export
   destination, opl-modes.json read as bytes, the bashlex cross-check);
   their mutants run against the project's own tests of them
   and are reported apart, outside the conformance totals.
6. A mutant killed by a `reference` case but by no `must` case is
   explained: the killing case's answer is kept, and `why_not_must` reads
   its mismatches with the field classes (`pytest_planmode.observability`):
   explanation fields only (out of `must`'s reach by Contract 2), an effect
   the spec leaves open (the case cites reference-choices.md), or an effect
   under a spec sentence (a gap a `must` case should pin). The figures and
   the list are reported; nothing is excluded from the kill rates.
7. The `must` goal is "every spec-stated-effect mutant killed by `must`
   cases" (`must_goal`): explanation-only and reference-choice mutants
   cannot be killed at `must` by design, so the goal figure is the mutants
   killed by a `must` case over those plus the gaps of step 6, per module
   (`goal` column) and in total; the gaps are listed for reading, and the
   survivors of the whole suite apart (no case says what they change).

The sample is seeded and spread over every module: each module gets its
share of N in proportion to its mutants, at least `--min-per-module`.
`--module` keeps the mutants of the named modules only, after the draw: the
mutants a module gets are the same as in the whole run with that seed and
size, so per-module figures measured apart add up to the whole run's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import time
import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
EQUIVALENT = Path(__file__).resolve().parent / "mutation-equivalent.toml"
#: How pytest reports a target that cannot start (the plugin's usage error).
TARGET_FAILED = "ERROR: --planmode-target: reference:"
#: One record per mutant killed by a `reference` case: what that case saw.
WHY_DIR = MUTANTS / ".planmode-mutation" / "why"
CORE = (
    "pytest_planmode/reference/planmode",
    "pytest_planmode/reference/oplmodes",
    "pytest_planmode/reference/shell",
)
#: Outcomes of the runner that count as killed by the whole suite, and by `must` cases.
KILLED = (
    "killed",
    "killed-reference",
    "timeout",
    "timeout-reference",
    "killed-fresh",
    "killed-reference-fresh",
)
KILLED_BY_MUST = ("killed", "timeout", "killed-fresh")
KILLED_BY_OWN_TESTS = ("killed-own-tests", "timeout-own-tests")
#: Seconds a mutant of an `OWN_TESTS` module may keep its tests running.
OWN_TESTS_BUDGET_S = 120
PREPARE_PATTERN = "pytest_planmode.reference.planmode.safe_subcommand_match.*"
#: Modules of the reference core that no operation reaches, so no
#: conformance case can: the real agent directory, the real export
#: destination, opl-modes.json's bytes (the reference target models the file
#: systems in memory and hands documents over as text) and the bashlex
#: cross-check of the Bash scanner. Their mutants are run against the
#: project's own tests of them instead, and reported apart from the
#: conformance figures.
OWN_TESTS = {
    "pytest_planmode.reference.planmode.settings_fs": ["tests/test_planmode_settings_fs.py"],
    "pytest_planmode.reference.planmode.export_fs": ["tests/test_planmode_export_real.py"],
    "pytest_planmode.reference.oplmodes.config_fs": ["tests/test_oplmodes_config.py"],
    "pytest_planmode.reference.shell.bashlex_oracle": ["tests/test_planmode_shell_bashlex.py"],
}


# -- mutants and the cases that reach them ------------------------------------------


#: Left next to mutmut's stats once they were collected with the reference's
#: caches emptied before every case (`StatsCaches`); stats without it are
#: collected again from scratch. (mutmut refuses unknown keys in its file.)
STATS_MARK = MUTANTS / "planmode-stats-without-caches"


def prepare() -> None:
    """Let mutmut (re)generate the mutants and its function -> cases map.

    The stats run loads this file as a plugin (`StatsCaches`). `mutmut run`
    needs mutant names to run; the smallest module's few mutants are run by
    it as a side effect (their results are not used here)."""
    stats = MUTANTS / "mutmut-stats.json"
    if stats.is_file() and not STATS_MARK.is_file():
        stats.unlink()  # collected while caches hid callers: collect them all again
    proc = subprocess.run(
        [sys.executable, "-m", "mutmut", "run", "--max-children", "1", PREPARE_PATTERN],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "CI": "1",
            "PYTEST_ADDOPTS": "-p mutation",
            "PYTHONPATH": os.pathsep.join(
                p for p in (str(Path(__file__).resolve().parent), os.environ.get("PYTHONPATH")) if p
            ),
        },
    )
    if proc.returncode != 0 or not stats.is_file():
        tail = (proc.stdout + proc.stderr)[-3000:]
        sys.exit(f"mutmut run failed (exit {proc.returncode}); is mutmut installed?\n{tail}")
    STATS_MARK.touch()


def module_of(mutant: str) -> str:
    return mutant.split(".x_")[0].split(".xǁ")[0]


def function_of(mutant: str) -> str:
    return mutant.rsplit("__mutmut_", 1)[0]


def all_mutants() -> dict[str, list[str]]:
    """Mutant names per module, from mutmut's `.meta` files."""
    out: dict[str, list[str]] = {}
    for part in CORE:
        for meta in sorted((MUTANTS / part).glob("*.py.meta")):
            names = sorted(json.loads(meta.read_text())["exit_code_by_key"])
            module = str(meta.relative_to(MUTANTS))[: -len(".py.meta")].replace("/", ".")
            out[module] = names
    return out


def draw(per_module: dict[str, list[str]], size: int | None, seed: int, minimum: int) -> list[str]:
    """A seeded sample spread over every module (or every mutant)."""
    if size is None:
        return [m for names in per_module.values() for m in names]
    total = sum(len(v) for v in per_module.values())
    rng = random.Random(seed)
    chosen: list[str] = []
    for _module, names in sorted(per_module.items()):
        if not names:
            continue
        share = max(minimum, round(size * len(names) / total))
        chosen.extend(rng.sample(names, min(share, len(names))))
    return chosen


def select_modules(per_module: dict[str, list[str]], names: list[str]) -> set[str]:
    """The modules `--module` names: a dotted name relative to the reference
    (`planmode.export`) or in full; an unknown name stops the run."""
    prefix = "pytest_planmode.reference."
    wanted: set[str] = set()
    for name in names:
        full = name if name.startswith(prefix) else prefix + name.removesuffix(".py").replace("/", ".")
        if full not in per_module:
            known = ", ".join(sorted(m.removeprefix(prefix) for m in per_module))
            sys.exit(f"--module {name!r}: no such module of the reference core; known: {known}")
        wanted.add(full)
    return wanted


def load_equivalent() -> dict[str, str]:
    if not EQUIVALENT.is_file():
        return {}
    data = tomllib.loads(EQUIVALENT.read_text())
    table = data.get("equivalent", {})
    bad = [k for k, v in table.items() if not (isinstance(v, str) and v.strip())]
    if bad:
        sys.exit(f"{EQUIVALENT.name}: every equivalent mutant needs a one-line reason: {bad}")
    return dict(table)


# -- the in-process runner (a pytest plugin loaded in the child pytest) --------------


class MutantRunner:
    """Collects once, then forks a child per mutant (`-p mutation`).

    A child runs the `must` cases that call the mutated function first, then
    the `reference` ones, each group fastest first, and stops at the first
    failure; before the `reference` cases it writes one byte to a pipe. So one
    run tells both figures apart: killed by a `must` case (exit 1), killed
    only by a `reference` case (exit 2), or survived (exit 0), and a timeout
    is placed by whether the byte arrived. This is what a second run at
    `--planmode-level=must` would find, at half the cost."""

    def __init__(self, jobs: Path) -> None:
        self.job = json.loads(jobs.read_text())

    def pytest_runtestloop(self, session: Any) -> bool:
        from _pytest.runner import runtestprotocol

        by_id = {item.nodeid: item for item in session.items}
        durations: dict[str, float] = self.job["durations"]
        results: dict[str, str] = {}
        pending = list(self.job["mutants"])
        running: dict[int, tuple[str, float, float, int]] = {}
        width = int(self.job["jobs"])

        def is_reference(test: str) -> bool:
            return by_id[test].get_closest_marker("planmode_reference") is not None

        def start(name: str) -> None:
            tests = [t for t in self.job["tests"].get(function_of(name), []) if t in by_id]
            if not tests:
                results[name] = "no case"
                return
            tests.sort(key=lambda t: (is_reference(t), durations.get(t, 0.0)))
            budget = 10.0 + 4.0 * sum(durations.get(t, 0.1) for t in tests)
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(read_end)
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                os.dup2(devnull, 2)
                os.environ["MUTANT_UNDER_TEST"] = name
                code = 0
                signalled = False
                try:
                    for test in tests:
                        if not signalled and is_reference(test):
                            os.write(write_end, b"r")
                            signalled = True
                        reports = runtestprotocol(by_id[test], log=False, nextitem=None)
                        if any(r.failed for r in reports):
                            code = 2 if signalled else 1
                            if signalled:
                                write_failure(Path(self.job["why"]), name, by_id[test])
                            break
                except BaseException:
                    code = 2 if signalled else 1
                os._exit(code)
            os.close(write_end)
            os.set_blocking(read_end, False)
            running[pid] = (name, time.monotonic(), budget, read_end)

        def reached_reference(fd: int) -> bool:
            try:
                return bool(os.read(fd, 1))
            except BlockingIOError:
                return False
            finally:
                os.close(fd)

        while pending or running:
            while pending and len(running) < width:
                start(pending.pop(0))
            if not running:
                continue
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                now = time.monotonic()
                for child, (name, began, budget, fd) in list(running.items()):
                    if now - began > budget:
                        os.kill(child, signal.SIGKILL)
                        os.waitpid(child, 0)
                        del running[child]
                        results[name] = "timeout-reference" if reached_reference(fd) else "timeout"
                time.sleep(0.005)
                continue
            name, _, _, fd = running.pop(pid)
            os.close(fd)
            code = os.waitstatus_to_exitcode(status)
            results[name] = {0: "survived", 2: "killed-reference"}.get(code, "killed")
            if len(results) % 25 == 0:
                # Partial results, so a long run can be read while it goes on.
                Path(self.job["out"] + ".partial").write_text(json.dumps(results))
        Path(self.job["out"]).write_text(json.dumps(results))
        return True


class FailureRecorder:
    """In a fresh process (`-p mutation`, `PLANMODE_MUTATION_WHY` set):
    records the first failing `reference` case, as the forked child does."""

    def __init__(self, folder: Path, name: str) -> None:
        self.folder = folder
        self.name = name
        self.done = False

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: Any, call: Any) -> Any:
        outcome = yield
        report = outcome.get_result()
        if report.failed and not self.done and item.get_closest_marker("planmode_reference") is not None:
            write_failure(self.folder, self.name, item)
            self.done = True


def write_failure(folder: Path, name: str, item: Any) -> None:
    """What the `reference` case that killed mutant `name` saw: its id,
    spec, operation, expectation and the answer (for `why_not_must`)."""
    record: dict[str, Any] = {"test": item.nodeid}
    case = getattr(item, "case", None)
    if case is not None:
        detail = dict(item.user_properties).get("planmode_failure")
        record.update(case=case.id, operation=case.operation, spec=case.spec, expected=case.expect)
        if isinstance(detail, dict):
            record.update({k: detail[k] for k in ("got", "answer") if k in detail})
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(record))


class StatsCaches:
    """While mutmut collects its stats (`MUTANT_UNDER_TEST=stats`): empty
    every cache of the reference core before each case. The stats record
    which functions a case calls; a case whose answer came from a cache
    (the Bash and PowerShell verdicts are memoized) would call nothing
    below it, so the mutants there would never be run against it."""

    def pytest_runtest_setup(self, item: Any) -> None:
        for module_name, module in list(sys.modules.items()):
            if not module_name.startswith("pytest_planmode.reference") or module is None:
                continue
            for value in list(vars(module).values()):
                clear = getattr(value, "cache_clear", None)
                if callable(clear):
                    clear()


def pytest_configure(config: Any) -> None:
    if os.environ.get("MUTANT_UNDER_TEST") == "stats":
        config.pluginmanager.register(StatsCaches(), "planmode-mutation-stats-caches")
    jobs = os.environ.get("PLANMODE_MUTATION_JOB")
    if jobs:
        config.pluginmanager.register(MutantRunner(Path(jobs)), "planmode-mutation-runner")
    why = os.environ.get("PLANMODE_MUTATION_WHY")
    if why:
        recorder = FailureRecorder(Path(why), os.environ["MUTANT_UNDER_TEST"])
        config.pluginmanager.register(recorder, "planmode-mutation-recorder")


# -- why `must` cases missed a mutant a `reference` case killed ------------------------

#: The classes of `why_not_must`, in report order, with what each means.
WHY = {
    "explanation": "explanation fields only (out of must's reach by Contract 2)",
    "choice": "an effect the spec leaves open (a reference choice)",
    "gap": "an effect under a spec sentence (a gap: a must case should pin it)",
    "unclassified": "no mismatch to read (a property check, or an answer too large to keep)",
}


def why_not_must(record: dict[str, Any]) -> tuple[str, list[str]]:
    """Why no `must` case saw a mutant that the `reference` case of
    `record` (written by `write_failure`) killed, and the mismatching paths.

    - "explanation": the answer fails the case in explanation fields only;
      with every explanation left out of expectation and answer, nothing
      differs (`observability.effect_mismatches`), so no `must` case could
      have seen it.
    - "choice": an effect differs and the case cites reference-choices.md:
      the spec leaves that effect open.
    - "gap": an effect differs (or the answer was an error, or had the wrong
      shape) and the case cites opl-modes.md or pi-plan-mode-settings.md:
      the spec states the rule, so a `must` case should pin that effect
      (or the case's level is wrong).
    - "unclassified": a property check or an answer kept only as text."""
    from pytest_planmode.contract import operations
    from pytest_planmode.harness import judge_output
    from pytest_planmode.observability import effect_mismatches

    operation = operations().get(record.get("operation", ""))
    expected = record.get("expected")
    if operation is None or not isinstance(expected, dict):
        return "unclassified", []
    effect_class = "choice" if str(record.get("spec", "")).startswith("reference-choices.md") else "gap"
    if "answer" in record:
        return effect_class, [f"output: {str(record['answer']).split(':', 1)[0]} answer"]
    got = record.get("got")
    if not isinstance(got, dict):
        return "unclassified", []
    shape, problems = judge_output(record["operation"], expected, got)
    paths = [p.split(": ", 1)[0] for p in [*shape, *problems]]
    if shape or effect_mismatches(operation.output, expected, got):
        return effect_class, paths
    return ("explanation", paths) if problems else ("unclassified", paths)


#: The classes a tested mutant is sorted into for the `must` goal, in report order.
GOAL_CLASSES = {
    "must": "killed by a must case (an effect the spec states)",
    "gap": "killed only by a reference case, in an effect under a spec sentence",
    "explanation": "killed only in explanation fields (out of must's reach by design)",
    "choice": "killed only in an effect the spec leaves open (a reference choice)",
    "unclassified": "killed only by a check whose answer cannot be read (a property check)",
    "survived": "killed by no case (its class is unknown: read it)",
}


def must_goal(outcomes: dict[str, str], why: dict[str, str]) -> dict[str, list[str]]:
    """Each tested mutant (name -> runner outcome) in its `GOAL_CLASSES`
    class; `why` gives the `why_not_must` class of those killed only by
    `reference` cases. The goal is "every spec-stated-effect mutant killed by
    `must` cases": the spec-stated-effect class is `must` plus `gap`, so the
    goal figure is `must` over both and `gap` lists the exceptions to read.
    Explanation-only and reference-choice mutants cannot be killed at `must`
    by design and are not part of it."""
    classes: dict[str, list[str]] = {name: [] for name in GOAL_CLASSES}
    for mutant in sorted(outcomes):
        outcome = outcomes[mutant]
        if outcome in KILLED_BY_MUST:
            kind = "must"
        elif outcome in KILLED:
            kind = why.get(mutant, "unclassified")
        else:
            kind = "survived"
        classes[kind if kind in classes else "unclassified"].append(mutant)
    return classes


def goal_rate(classes: dict[str, list[str]]) -> tuple[int, int]:
    """(spec-stated-effect mutants killed by `must` cases, all of that class)."""
    return len(classes["must"]), len(classes["must"]) + len(classes["gap"])


def run_mutants(
    mutants: list[str], level: str, jobs: int, stats: dict[str, Any], tmp: Path
) -> dict[str, str]:
    job = tmp / f"job-{level}.json"
    out = tmp / f"out-{level}.json"
    job.write_text(
        json.dumps(
            {
                "mutants": mutants,
                "tests": {k: sorted(v) for k, v in stats["tests_by_mangled_function_name"].items()},
                "durations": stats["duration_by_test"],
                "jobs": jobs,
                "out": str(out),
                "why": str(WHY_DIR),
            }
        )
    )
    env = {
        **os.environ,
        "CI": "1",
        "MUTANT_UNDER_TEST": "",
        "PLANMODE_MUTATION_JOB": str(job),
        "PYTHONPATH": os.pathsep.join([str(MUTANTS), str(Path(__file__).resolve().parent)]),
    }
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "--rootdir=.",
        "-p",
        "no:cacheprovider",
        "-p",
        "mutation",
        "--planmode-target=reference",
        f"--planmode-level={level}",
        "pytest_planmode/conformance",
        "pytest_planmode/fixtures",
    ]
    proc = subprocess.run(cmd, cwd=MUTANTS, env=env, capture_output=True, text=True)
    if not out.is_file():
        sys.exit(f"the mutant runner failed (exit {proc.returncode}):\n{(proc.stdout + proc.stderr)[-3000:]}")
    return dict(json.loads(out.read_text()))


def _fresh_pytest(
    name: str, tests: list[str], level: str, budget: float, *, only_reference: bool = False
) -> str:
    """Run `tests` in a new pytest process with mutant `name` switched on
    from the start: "failed", "passed" or "timeout". The run of the
    `reference` cases records the one that fails (`FailureRecorder`)."""
    env = {
        **os.environ,
        "CI": "1",
        "MUTANT_UNDER_TEST": name,
        "PYTHONPATH": os.pathsep.join([str(MUTANTS), str(Path(__file__).resolve().parent)]),
    }
    env.pop("PLANMODE_MUTATION_JOB", None)
    env.pop("PLANMODE_MUTATION_WHY", None)
    if only_reference:
        env["PLANMODE_MUTATION_WHY"] = str(WHY_DIR)
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-x",
        "--rootdir=.",
        "-p",
        "no:cacheprovider",
        "--planmode-target=reference",
        f"--planmode-level={level}",
        # The `must` cases already passed: the second run needs only the rest.
        *(["-m", "planmode_reference", "-p", "mutation"] if only_reference else []),
        *tests,
    ]
    try:
        proc = subprocess.run(cmd, cwd=MUTANTS, env=env, capture_output=True, text=True, timeout=budget)
    except subprocess.TimeoutExpired:
        return "timeout"
    if proc.returncode == 5 and only_reference:
        return "passed"  # no `reference` case reaches the module
    if proc.returncode == 4 and TARGET_FAILED in proc.stdout + proc.stderr:
        # The mutant breaks the reference before any case runs (its
        # handshake raises): a run that refuses the target is a kill.
        return "failed"
    # Exit 5 (nothing collected) or 4 (usage) would be a benchmark bug, not a kill.
    if proc.returncode in (4, 5) or "ERROR collecting" in proc.stdout:
        sys.exit(f"fresh run of {name} could not collect its cases:\n{(proc.stdout + proc.stderr)[-2000:]}")
    return "failed" if proc.returncode == 1 else "passed"


def run_own_tests(mutants: list[str], jobs: int) -> dict[str, str]:
    """Mutants of `OWN_TESTS` modules against those tests, each in a fresh
    process: "killed-own-tests", "timeout-own-tests" or "survived"."""
    from concurrent.futures import ThreadPoolExecutor

    def one(name: str) -> tuple[str, str]:
        env = {**os.environ, "CI": "1", "MUTANT_UNDER_TEST": name, "PYTHONPATH": str(MUTANTS)}
        env.pop("PLANMODE_MUTATION_JOB", None)
        cmd = [sys.executable, "-m", "pytest", "-q", "-x", "--rootdir=.", "-p", "no:cacheprovider"]
        try:
            proc = subprocess.run(
                [*cmd, *OWN_TESTS[module_of(name)]],
                cwd=MUTANTS,
                env=env,
                capture_output=True,
                text=True,
                # These tests take seconds: a mutant that makes them hang is
                # caught in two minutes, not ten.
                timeout=OWN_TESTS_BUDGET_S,
            )
        except subprocess.TimeoutExpired:
            return name, "timeout-own-tests"
        if proc.returncode not in (0, 1):
            sys.exit(f"the own tests of {name} did not run:\n{(proc.stdout + proc.stderr)[-2000:]}")
        return name, "killed-own-tests" if proc.returncode == 1 else "survived"

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return dict(pool.map(one, mutants))


#: Methods that run when their class is instantiated.
CONSTRUCTORS = ("__init__", "__post_init__")


def import_time_functions(module: str) -> set[str]:
    """Functions of `module` that run while it is imported: top-level
    functions called from module-level statements (class bodies included,
    method bodies not), or from such a function; and, written
    `Class.method`, the constructors (`__init__`, `__post_init__`) of the
    module's classes instantiated there (a dataclass table built at import
    runs its `__post_init__` then). Found from the source."""
    import ast

    path = ROOT / (module.replace(".", "/") + ".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    constructors = {
        f"{name}.{part.name}": part
        for name, node in classes.items()
        for part in node.body
        if isinstance(part, ast.FunctionDef) and part.name in CONSTRUCTORS
    }

    def called(nodes: list[ast.stmt]) -> set[str]:
        names: set[str] = set()
        for stmt in nodes:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            body = stmt.body if isinstance(stmt, ast.ClassDef) else [stmt]
            for part in body:
                if isinstance(part, ast.FunctionDef | ast.AsyncFunctionDef):
                    # Decorators and defaults run at import; the body does not.
                    roots: list[ast.AST] = [*part.decorator_list, *part.args.defaults]
                else:
                    roots = [part]
                for root in roots:
                    for node in ast.walk(root):
                        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                            continue
                        if node.func.id in functions:
                            names.add(node.func.id)
                        for method in CONSTRUCTORS:
                            if f"{node.func.id}.{method}" in constructors:
                                names.add(f"{node.func.id}.{method}")
        return names

    bodies = {**functions, **constructors}
    found = called(tree.body)
    pending = list(found)
    while pending:
        for name in called(bodies[pending.pop()].body):
            if name not in found:
                found.add(name)
                pending.append(name)
    return found


def runs_at_import(mutant: str) -> bool:
    """The mutated function is one its module calls while being imported: a
    top-level function, or the constructor of a class instantiated then."""
    function = function_of(mutant)
    if ".x_" in function:
        module, name = function.split(".x_", 1)
    elif ".xǁ" in function:
        module, rest = function.split(".xǁ", 1)
        name = rest.replace("ǁ", ".", 1)
    else:
        return False
    return name in import_time_functions(module)


def recheck_fresh(
    survivors: list[str], stats: dict[str, Any], jobs: int, *, must_only: bool = False
) -> dict[str, str]:
    """Survivors of the forked run, run again each in a fresh process over
    the cases of every function of their module: new outcomes by mutant.
    With `must_only` (mutants a `reference` case already killed in the
    forked run): only the `must` cases run, and only a `must` kill is an
    outcome."""
    from concurrent.futures import ThreadPoolExecutor

    by_module: dict[str, set[str]] = defaultdict(set)
    for function, tests in stats["tests_by_mangled_function_name"].items():
        by_module[module_of(function)].update(tests)
    durations: dict[str, float] = stats["duration_by_test"]

    def one(name: str) -> tuple[str, str]:
        tests = sorted(by_module.get(module_of(name), ()))
        if not tests:
            return name, "no case"
        budget = 60.0 + 4.0 * sum(durations.get(t, 0.1) for t in tests)
        must = _fresh_pytest(name, tests, "must", budget)
        if must != "passed":
            return name, "killed-fresh" if must == "failed" else "timeout"
        if must_only:
            return name, ""
        every = _fresh_pytest(name, tests, "all", budget, only_reference=True)
        if every == "passed":
            return name, "survived"
        return name, "killed-reference-fresh" if every == "failed" else "timeout-reference"

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return {name: outcome for name, outcome in pool.map(one, survivors) if outcome}


# -- report ---------------------------------------------------------------------------


def show_diff(name: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "mutmut", "show", name], cwd=ROOT, capture_output=True, text=True
    )
    return proc.stdout.strip()


def reuse_forked(tested: list[str], tmp: Path) -> dict[str, str]:
    """The forked run's outcomes of the last run (`--reuse-forked`); every
    mutant of this draw must be in it."""
    out = tmp / "out-all.json"
    if not out.is_file():
        sys.exit(f"--reuse-forked: {out} does not exist; run without it first")
    earlier = json.loads(out.read_text())
    missing = [m for m in tested if m not in earlier]
    if missing:
        sys.exit(
            f"--reuse-forked: the last run did not run {len(missing)} mutant(s) of this draw, e.g. {missing[0]}"
        )
    return {m: earlier[m] for m in tested}


def explain_kill(mutant: str) -> tuple[str, str, list[str]]:
    """`why_not_must` of the record the run left for `mutant`, with the
    killing case: a mutant killed by running out of time has none."""
    path = WHY_DIR / f"{mutant}.json"
    if not path.is_file():
        return "unclassified", "(ran out of time, no case failed)", []
    record = json.loads(path.read_text())
    kind, paths = why_not_must(record)
    return kind, str(record.get("case") or record.get("test")), paths


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sample", type=int, default=450, help="sample size (default 450)")
    parser.add_argument("--all", action="store_true", help="run every mutant instead of a sample")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--min-per-module", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at once (default 2)")
    parser.add_argument("--json", type=Path, help="write every mutant's outcome to this file")
    parser.add_argument("--diffs", action="store_true", help="print each survivor's diff")
    parser.add_argument("--no-prepare", action="store_true", help="reuse mutants/ as it is")
    parser.add_argument(
        "--reuse-forked",
        action="store_true",
        help="take the forked run's outcomes (and its why-records) from the last run of the same"
        " draw in mutants/ instead of running them again; implies --no-prepare",
    )
    parser.add_argument(
        "--module",
        action="append",
        default=[],
        metavar="NAME",
        help="only the sampled mutants of this module (repeatable), e.g. planmode.export or"
        " shell.bash_segments; the draw is the whole run's, so figures stay comparable",
    )
    args = parser.parse_args()

    began = time.monotonic()
    if not (args.no_prepare or args.reuse_forked):
        prepare()
    prepared = time.monotonic()
    per_module = all_mutants()
    stats = json.loads((MUTANTS / "mutmut-stats.json").read_text())
    sample = draw(per_module, None if args.all else args.sample, args.seed, args.min_per_module)
    if args.module:
        wanted = select_modules(per_module, args.module)
        sample = [m for m in sample if module_of(m) in wanted]
    equivalent = load_equivalent()
    stale = sorted(set(equivalent) - {m for v in per_module.values() for m in v})
    tested = [m for m in sample if m not in equivalent and module_of(m) not in OWN_TESTS]
    own = [m for m in sample if m not in equivalent and module_of(m) in OWN_TESTS]

    tmp = MUTANTS / ".planmode-mutation"
    tmp.mkdir(exist_ok=True)
    if args.reuse_forked:
        every = reuse_forked(tested, tmp)
    else:
        for old in WHY_DIR.glob("*.json") if WHY_DIR.is_dir() else ():
            old.unlink()
        every = run_mutants(tested, "all", args.jobs, stats, tmp)
    every.update(run_own_tests(own, args.jobs))
    forked = time.monotonic()
    every.update(
        recheck_fresh([m for m in tested if every[m] == "survived" and runs_at_import(m)], stats, args.jobs)
    )
    # A forked child switched such a mutant on only for what runs after the
    # import (a table its module builds lazily, say): the `reference` case
    # that killed it there may hide `must` cases that kill the whole mutant.
    every.update(
        recheck_fresh(
            [
                m
                for m in tested
                if every[m] in ("killed-reference", "timeout-reference") and runs_at_import(m)
            ],
            stats,
            args.jobs,
            must_only=True,
        )
    )
    finished = time.monotonic()
    fresh_kills = sorted(m for m in tested if every[m].endswith("-fresh"))
    killed = [m for m in tested if every[m] in KILLED]
    must = {m: every[m] for m in tested if every[m] in KILLED_BY_MUST}

    must_only = sorted(m for m in killed if m not in must)
    why = {m: explain_kill(m) for m in must_only}
    classes = must_goal({m: every[m] for m in tested}, {m: k for m, (k, _, _) in why.items()})
    gaps = set(classes["gap"])

    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    own_rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for m in sample:
        if module_of(m) in OWN_TESTS:
            own_row = own_rows[module_of(m)]
            own_row["sampled"] += 1
            if m in equivalent:
                own_row["equivalent"] += 1
            else:
                own_row["tested"] += 1
                own_row["all"] += every[m] in KILLED_BY_OWN_TESTS
            continue
        row = rows[module_of(m)]
        row["sampled"] += 1
        if m in equivalent:
            row["equivalent"] += 1
            continue
        row["tested"] += 1
        if every[m] in KILLED:
            row["all"] += 1
            if m in must:
                row["must"] += 1
            row["gap"] += m in gaps

    def pct(a: int, b: int) -> str:
        return f"{100 * a / b:5.1f}%" if b else "    -"

    print(f"mutants: {sum(len(v) for v in per_module.values())} in {len(per_module)} modules; ", end="")
    print("all of them" if args.all else f"seeded sample of {len(sample)} (seed {args.seed})")
    # `goal`: of the mutants changing an effect under a spec sentence (killed
    # by a must case, or only by a reference case in such an effect), the
    # share must cases kill.
    print(
        f"{'module':<52} {'mut':>4} {'equ':>4} {'all':>4} {'rate':>6} {'must':>4} {'rate':>6}"
        f" {'gap':>4} {'goal':>6}"
    )
    totals: dict[str, int] = defaultdict(int)
    for module in sorted(rows):
        r = rows[module]
        for key in ("sampled", "equivalent", "tested", "all", "must", "gap"):
            totals[key] += r[key]
        short = module.removeprefix("pytest_planmode.reference.")
        print(
            f"{short:<52} {r['sampled']:>4} {r['equivalent']:>4} {r['all']:>4} {pct(r['all'], r['tested'])}"
            f" {r['must']:>4} {pct(r['must'], r['tested'])} {r['gap']:>4} {pct(r['must'], r['must'] + r['gap'])}"
        )
    print(
        f"{'total':<52} {totals['sampled']:>4} {totals['equivalent']:>4} {totals['all']:>4}"
        f" {pct(totals['all'], totals['tested'])} {totals['must']:>4} {pct(totals['must'], totals['tested'])}"
        f" {totals['gap']:>4} {pct(totals['must'], totals['must'] + totals['gap'])}"
    )
    killed_by_must, spec_stated = goal_rate(classes)
    print(
        f"\nmust goal: spec-stated-effect mutants killed by must cases: {killed_by_must} of {spec_stated}"
        f" ({pct(killed_by_must, spec_stated).strip()}); all levels: {totals['all']} of {totals['tested']}"
        f" ({pct(totals['all'], totals['tested']).strip()})"
    )
    for kind, meaning in GOAL_CLASSES.items():
        print(f"  {kind:<13} {len(classes[kind]):>4}  {meaning}")
    if own_rows:
        print("\nnot reachable by any operation, run against the project's own tests instead:")
        for module in sorted(own_rows):
            r = own_rows[module]
            short = module.removeprefix("pytest_planmode.reference.")
            print(
                f"{short:<52} {r['sampled']:>4} {r['equivalent']:>4} {r['all']:>4} {pct(r['all'], r['tested'])}"
                f"  ({', '.join(OWN_TESTS[module])})"
            )
    unsampled = [m for m, names in per_module.items() if names and m not in rows and m not in own_rows]
    if unsampled and not args.module:
        print("modules not sampled:", ", ".join(unsampled))
    survivors = sorted(m for m in tested if every[m] not in KILLED) + sorted(
        m for m in own if every[m] not in KILLED_BY_OWN_TESTS
    )
    print(f"\nspec-stated-effect mutants no must case killed ({len(classes['gap'])}), to read:")
    for m in classes["gap"]:
        _, case, paths = why[m]
        print(f"  {m}  {case}" + (f": {', '.join(paths[:4])}" if paths else ""))
        if args.diffs:
            print("    " + show_diff(m).replace("\n", "\n    "))
    print(f"\nsurvivors of the whole suite ({len(survivors)}):")
    for m in survivors:
        print(f"  {m}  [{every[m]}]")
        if args.diffs:
            print("    " + show_diff(m).replace("\n", "\n    "))
    print(f"\nkilled only by reference cases ({len(must_only)}), and why no must case saw them:")
    for kind, meaning in WHY.items():
        count = sum(1 for k, _, _ in why.values() if k == kind)
        print(f"  {kind:<13} {count:>4}  {pct(count, len(must_only))}  {meaning}")
    for m in must_only:
        kind, case, paths = why[m]
        print(f"  {m}  [{kind}] {case}" + (f": {', '.join(paths[:4])}" if paths else ""))
        if args.diffs:
            print("    " + show_diff(m).replace("\n", "\n    "))
    timeouts = sorted(m for m in tested + own if every[m].startswith("timeout"))
    if timeouts:
        # Counted as killed, as mutmut does (an endless loop is a real
        # failure); on a loaded machine a slow child also runs out of time,
        # so they are listed: rerun them on a quiet machine before trusting them.
        print(f"\nran out of time, counted as killed ({len(timeouts)}):")
        for m in timeouts:
            print(f"  {m}  [{every[m]}]")
    if fresh_kills:
        print(
            f"\nkilled only in a fresh process (import-time code, or cases the stats missed) ({len(fresh_kills)}):"
        )
        for m in fresh_kills:
            print(f"  {m}  [{every[m]}]")
    if stale:
        print(f"\nequivalent entries naming no current mutant ({len(stale)}): " + ", ".join(stale))
    print(
        f"\ncost: prepare {prepared - began:.0f} s, forked run {forked - prepared:.0f} s, "
        f"fresh rechecks {finished - forked:.0f} s ({len(tested)} mutants, {args.jobs} at once)"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "seed": args.seed,
                    "all": every,
                    "must": must,
                    "equivalent": sorted(equivalent),
                    "why_not_must": {m: {"class": k, "case": c, "paths": p} for m, (k, c, p) in why.items()},
                    "goal": {
                        "killed_by_must": killed_by_must,
                        "spec_stated": spec_stated,
                        "classes": classes,
                    },
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
