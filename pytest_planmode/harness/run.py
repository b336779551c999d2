"""One conformance run: its options read once, its targets started, and
the plugin objects that play its roles (collection, property checks,
results, terminal summary) registered together and removed together."""

from __future__ import annotations

import atexit
import gc
from pathlib import Path

import pytest

import pytest_planmode.harness.property_checks as property_checks
from pytest_planmode.harness.items import Collection, marker_name
from pytest_planmode.harness.lifecycle import Targets
from pytest_planmode.harness.options import Options, read_options
from pytest_planmode.harness.property_checks import PropertyChecks
from pytest_planmode.harness.results import Results
from pytest_planmode.harness.summary import TerminalSummary
from pytest_planmode.suite import CONFORMANCE_DIR

#: The module whose fixture (`planmode_target`) the run's items use.
FIXTURES_PLUGIN = "planmode-fixtures"

_exit_freeze: list[bool] = []


def _freeze_at_exit() -> None:
    """At the exit of a process that ran the suite, set what is left apart
    from the garbage collector: the interpreter's last collections would walk
    every object the run leaves (modules, contract models, cases) only to
    free memory the exit frees anyway (pytest's own end-of-session
    collections, for what the checks left, ran before). Registered once."""
    if not _exit_freeze:
        _exit_freeze.append(True)
        atexit.register(gc.freeze)


class PlanmodeRun:
    PLUGIN_NAME = "planmode-run"

    def __init__(self, config: pytest.Config, target_specs: list[str]) -> None:
        self.config = config
        self.options: Options = read_options(config, target_specs)
        self.targets = Targets(self.options)
        self.checks = PropertyChecks(self.targets)
        self.collection = Collection(config, self.options, self.targets, self.checks)
        self.results = Results(config, self.options, self.targets, self.collection, self.checks)
        self.summary = TerminalSummary(self.options, self.targets, self.collection, self.results)

    @property
    def fixtures_dir(self) -> Path:
        return self.options.fixtures_dir

    def _plugins(self) -> list[tuple[object, str]]:
        return [
            (self, self.PLUGIN_NAME),
            (property_checks, FIXTURES_PLUGIN),
            (self.checks, PropertyChecks.PLUGIN_NAME),
            (self.collection, Collection.PLUGIN_NAME),
            (self.results, Results.PLUGIN_NAME),
            (self.summary, TerminalSummary.PLUGIN_NAME),
        ]

    def register(self) -> None:
        for plugin, name in self._plugins():
            self.config.pluginmanager.register(plugin, name)

    def unregister(self) -> None:
        for _, name in self._plugins():
            plugin = self.config.pluginmanager.get_plugin(name)
            if plugin is not None:
                self.config.pluginmanager.unregister(plugin)

    def start(self) -> None:
        """Start the targets and set up the session for them: the paths to
        collect, the hypothesis profile, the markers, the sandbox."""
        config = self.config
        if config.option.help or config.option.version:
            return
        self.targets.start()
        if config.args_source != pytest.Config.ArgsSource.ARGS:
            config.args = [str(CONFORMANCE_DIR), str(self.options.fixtures_dir)]
        if not config.getoption("hypothesis_profile", None):
            from pytest_planmode import hypothesis_profiles

            hypothesis_profiles.load(explore=self.options.explore)
        from pytest_planmode.contract import operations

        for name in operations():
            config.addinivalue_line("markers", f"{marker_name(name)}: cases of operation {name}")
        for level in ("must", "reference"):
            config.addinivalue_line("markers", f"planmode_{level}: cases of level {level!r}")
        if self.options.sandbox:
            from pytest_planmode.sandbox_session import SandboxSession

            config.pluginmanager.register(
                SandboxSession(config, self.options.sandbox_programs), SandboxSession.PLUGIN_NAME
            )
        if not self.options.is_worker and getattr(config.option, "dist", "no") != "no":
            self.targets.release()
        # What starting left (modules, contract models, the targets) lives as
        # long as the process: out of the garbage collector's full passes
        # during collection (see `pytest_collection_finish`). Given back to
        # the collector when the session's last cleanups run (registered
        # now, so after pytest's own end-of-session collections, which then
        # skip what is frozen: nothing there is garbage a check made).
        config.add_cleanup(gc.unfreeze)
        _freeze_at_exit()
        gc.freeze()

    # Last, once the items are final.
    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """The objects collection leaves (modules, contract models, cases,
        items) live until the session ends: set apart from the garbage
        collector's full passes, which otherwise walk them all again and
        again while the checks run. Given back to it at the end (`start`)."""
        gc.freeze()

    def stop(self) -> None:
        self.targets.stop()
