"""Virtual paths: rooted inputs, the per-request sandbox, and the mapping a
target applies (contract.virtual_paths)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from pytest_planmode.contract.planmode_lifecycle import ExportRunInput, LifecycleRunInput
from pytest_planmode.contract.virtual_paths import ROOTS, is_rooted, map_rooted, sandbox, unmap
from pytest_planmode.targets.python_target import PythonTarget
from pytest_planmode.targets.reference.adapter import REFERENCE

ROOTS_HERE = {"$CWD": "/r/cwd", "$HOME": "/r/home", "$AGENT": "/r/agent", "$TMP": "/r/tmp"}


def test_rooted_strings_map_into_the_roots_and_back() -> None:
    value = {"cwd": "$CWD", "paths": ["$HOME/notes/a.md", "@$TMP/srv/out.md", "docs/p.md", "$CWDX"]}
    mapped = map_rooted(value, ROOTS_HERE)
    assert mapped == {
        "cwd": "/r/cwd",
        "paths": ["/r/home/notes/a.md", "@/r/tmp/srv/out.md", "docs/p.md", "$CWDX"],
    }
    assert unmap(mapped, ROOTS_HERE) == value
    assert unmap("Plan exported to /r/cwd/PLAN.md.", ROOTS_HERE) == "Plan exported to $CWD/PLAN.md."
    assert unmap("/r/cwdx /q/r/cwd", ROOTS_HERE) == "/r/cwdx /q/r/cwd", (
        "only a whole root where a path starts"
    )


@pytest.mark.parametrize(
    "path", ["$CWD", "$CWD/a", "$HOME/.pi/agent", "$AGENT/pi-plan-mode.json", "$TMP/srv"]
)
def test_rooted_paths(path: str) -> None:
    assert is_rooted(path)


@pytest.mark.parametrize(
    "inp",
    [
        {"cwd": "/srv/project"},
        {"home": "/home/user"},
        {"paths": [{"path": "/project/PLAN.md", "kind": "file"}]},
        {"request": {"path": "/srv/notes/plan.md"}},
        {"request": {"path": "@/srv/out.md"}},
        {"paths": [{"path": "$CWD/PLAN.md", "kind": "symlink", "target": "/elsewhere/secret.md"}]},
    ],
)
def test_file_operations_refuse_real_absolute_paths(inp: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match="pattern"):
        ExportRunInput.model_validate(inp)


def test_lifecycle_exports_refuse_real_absolute_paths() -> None:
    with pytest.raises(ValidationError, match="pattern"):
        LifecycleRunInput.model_validate(
            {"events": [{"type": "command", "name": "plan", "args": "export /tmp/plans/next.md"}]}
        )
    with pytest.raises(ValidationError, match="pattern"):
        LifecycleRunInput.model_validate(
            {"events": [{"type": "command", "name": "plan", "args": "export @/tmp/plans/next.md"}]}
        )
    export_input = [
        {"type": "command", "name": "plan", "args": ""},
        {"type": "ui.answer", "label": "Export plan…"},
        {"type": "ui.answer", "label": "/srv/notes/plan.md"},
    ]
    with pytest.raises(ValidationError, match="pattern"):
        LifecycleRunInput.model_validate({"events": export_input})
    typed = ["export", "export plan.md", "export ~/p.md", "export @docs/p.md", "export $TMP/p.md"]
    for args in typed:
        LifecycleRunInput.model_validate({"events": [{"type": "command", "name": "plan", "args": args}]})
    with pytest.raises(ValidationError, match="pattern"):
        LifecycleRunInput.model_validate({"events": [{"type": "cwd.change", "cwd": "/work/app"}]})


def test_the_sandbox_has_one_empty_directory_per_root_and_is_removed() -> None:
    with sandbox() as roots:
        assert set(roots) == set(ROOTS)
        for directory in roots.values():
            assert Path(directory).is_dir() and not os.listdir(directory)
        base = Path(roots["$CWD"]).parent
    assert not base.exists()


class _RootsRecorder:
    def __init__(self) -> None:
        self.seen: list[dict[str, str] | None] = []

    def hello(self, suite: str) -> dict[str, Any]:
        return REFERENCE.hello(suite)

    def call(self, op: str, payload: dict[str, Any], roots: dict[str, str] | None = None) -> dict[str, Any]:
        self.seen.append(roots)
        return REFERENCE.call(op, payload)


def test_a_python_adapter_with_a_roots_parameter_receives_them() -> None:
    adapter = _RootsRecorder()
    target = PythonTarget(adapter, "recorder")
    with sandbox() as roots:
        outcome = target.request("planmode.export.run", {"state": {"source": "ready", "plan": "# P"}}, roots)
    assert outcome.kind == "output", outcome.message
    assert adapter.seen == [roots]
    assert outcome.output is not None and outcome.output["destination"] == "$CWD/PLAN.md"


def test_the_harness_gives_file_operations_a_sandbox(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        recorder="""
import os
from pytest_planmode.targets.reference.adapter import REFERENCE

SEEN = []

class Recorder:
    def hello(self, suite):
        return REFERENCE.hello(suite)

    def call(self, op, payload, roots=None):
        if op in ("planmode.export.run", "planmode.lifecycle.run"):
            assert roots is not None and all(os.path.isdir(d) for d in roots.values()), roots
        else:
            assert roots is None
        return REFERENCE.call(op, payload)

ADAPTER = Recorder()
"""
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--planmode-target=python:recorder:ADAPTER", "-k", "planmode.export.", "-q"
    )
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0 and outcomes.get("passed", 0) > 0, outcomes
    assert result.ret == 0


class _NoRoots:
    def hello(self, suite: str) -> dict[str, Any]:
        return REFERENCE.hello(suite)

    def call(self, op: str, payload: dict[str, Any]) -> dict[str, Any]:
        return REFERENCE.call(op, payload)


@pytest.mark.parametrize(("adapter", "sandboxes"), [(_RootsRecorder(), 1), (_NoRoots(), 0), (REFERENCE, 0)])
def test_a_sandbox_only_for_a_target_that_takes_roots(
    adapter: Any, sandboxes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Python adapter without a `roots` parameter (the reference's) gets no
    sandbox: nothing could reach it."""
    from pytest_planmode.harness import lifecycle

    made: list[dict[str, str]] = []
    real = lifecycle.sandbox

    @contextmanager
    def counted() -> Iterator[dict[str, str]]:
        with real() as roots:
            made.append(roots)
            yield roots

    monkeypatch.setattr(lifecycle, "sandbox", counted)
    target = PythonTarget(adapter, "adapter")
    targets = lifecycle.Targets.__new__(lifecycle.Targets)
    targets.judged = {"t": lifecycle.Judged("t", "python:x:Y", target, target.handshake())}
    outcome = targets.request("t", "planmode.export.run", {"state": {"source": "ready", "plan": "# P"}})
    assert outcome.kind == "output", outcome.message
    assert len(made) == sandboxes
