"""How a run of the project's own tests reads in a CI log.

- The default run is the fast gate: tests marked `whole_suite` (the whole
  shipped suite, or every example, through a target) are deselected unless
  the -m expression names the marker (`python -m pytest -m whole_suite`).
- Under CI (the `CI` environment variable set, as CI services and `.ci/run`
  do) the run prints one line per test (`-v`) and ends with the durations
  of its slowest tests.
- While one test runs long, a line every few seconds names it and its
  running time, so the log never stays silent for long.

`configure(config)` is called from `tests/conftest.py`; as a plugin of its
own (`-p runlog`) the module does the same for any test directory.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

#: The marker of the tests that are not part of the fast gate.
WHOLE_SUITE = "whole_suite"
#: Under CI, how many of the slowest tests the run lists (unless --durations is given).
CI_DURATIONS = 25
#: The longest a run stays silent while a test runs, in seconds.
HEARTBEAT_SECONDS = 20.0
#: Overrides HEARTBEAT_SECONDS (0 turns the lines off).
HEARTBEAT_VARIABLE = "PLANMODE_TESTS_HEARTBEAT"


def configure(config: pytest.Config) -> None:
    if not any(line.split(":")[0].strip() == WHOLE_SUITE for line in config.getini("markers")):
        config.addinivalue_line(
            "markers",
            f"{WHOLE_SUITE}: runs the whole shipped suite, or every example, through a target; "
            "deselected unless -m names it",
        )
    config.pluginmanager.register(WholeSuiteGate(), "planmode-tests-whole-suite")
    if os.environ.get("CI"):
        if not config.getoption("durations", None):
            config.option.durations = CI_DURATIONS
        # One line per test: a CI log shows a line once it is complete, and
        # a line of result letters can take minutes to fill.
        if config.option.verbose == 0:
            config.option.verbose = 1
    interval = heartbeat_interval()
    if interval and not hasattr(config, "workerinput"):
        try:
            heartbeat = Heartbeat(config, interval)
        except (OSError, ValueError):  # stdout without a descriptor: no lines
            return
        config.pluginmanager.register(heartbeat, "planmode-tests-heartbeat")
        config.add_cleanup(heartbeat.stop)


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin("planmode-tests-whole-suite"):
        configure(config)


def heartbeat_interval() -> float:
    raw = os.environ.get(HEARTBEAT_VARIABLE, "")
    if not raw:
        return HEARTBEAT_SECONDS
    try:
        return max(0.0, float(raw))
    except ValueError:
        raise pytest.UsageError(f"{HEARTBEAT_VARIABLE}={raw!r}: expected a number of seconds") from None


class WholeSuiteGate:
    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        if WHOLE_SUITE in (config.getoption("markexpr", "") or ""):
            return
        dropped = [item for item in items if item.get_closest_marker(WHOLE_SUITE) is not None]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = [item for item in items if item.get_closest_marker(WHOLE_SUITE) is None]


class Heartbeat:
    """The running test's line goes to the terminal the run started on: a
    copy of the descriptor taken at configure time, before any test
    captures output."""

    def __init__(self, config: pytest.Config, interval: float) -> None:
        self.config = config
        self.interval = interval
        self.fd = os.dup(sys.stdout.fileno())
        self.lock = threading.Lock()
        self.running: tuple[str, float] | None = None
        self.quiet_since = time.monotonic()
        #: The last thing written is a beat's whole line.
        self.after_beat = False
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._beat, name="planmode-tests-heartbeat", daemon=True)
        self.thread.start()

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        with self.lock:
            self.running = (nodeid, time.monotonic())
            self.quiet_since = time.monotonic()
            self.after_beat = False

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_logreport(self) -> object:
        # The terminal writes the result under the lock: a beat's line never
        # lands in the middle of it.
        with self.lock:
            return (yield)

    def pytest_runtest_logfinish(self) -> None:
        with self.lock:
            self.running = None
            self.quiet_since = time.monotonic()

    def _beat(self) -> None:
        tick = min(1.0, self.interval / 4)
        while not self.done.wait(tick):
            with self.lock:
                now = time.monotonic()
                if self.running is None or now - self.quiet_since < self.interval:
                    continue
                nodeid, started = self.running
                self.quiet_since = now
                # A whole line: CI logs show lines once they are complete.
                line = "" if self.after_beat else "\n"
                line += f"    ... {nodeid} running for {now - started:.0f} s\n"
                reporter = self.config.pluginmanager.get_plugin("terminalreporter")
                if reporter is not None and isinstance(reporter.currentfspath, Path):
                    # Results as letters: they go on after the file's name again.
                    line += f"{os.path.relpath(reporter.currentfspath, reporter.startpath)} "
                elif reporter is not None and reporter.verbosity > 0:
                    # Results as lines: the next one repeats the test's name.
                    reporter.currentfspath = None
                try:
                    os.write(self.fd, line.encode())
                except OSError:
                    return
                self.after_beat = reporter is None or reporter.verbosity > 0

    def stop(self) -> None:
        self.done.set()
        self.thread.join()
        os.close(self.fd)
