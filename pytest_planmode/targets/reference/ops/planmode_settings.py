"""`planmode.settings.load` and `planmode.settings.save`.

A scenario runs against a *driver*: something that can set up directory
entries, list them afterwards, and hand the store its `Directory`. The
operations use the in-memory driver; the project's tests run the same
scenarios through a driver over a real directory and compare the answers.
"""

from __future__ import annotations

import base64
from typing import Any, Protocol

from pytest_planmode.contract import planmode_settings
from pytest_planmode.contract.planmode_settings import (
    EditResult,
    FileEntry,
    FileEntryOut,
    Files,
    ManualEdit,
    SettingsLoadInput,
    SettingsLoadOutput,
    SettingsSaveInput,
    SettingsSaveOutput,
    fill_value,
)
from pytest_planmode.reference.planmode.settings import (
    CANONICAL_NAME,
    LEGACY_NAME,
    Edit,
    LoadOutcome,
    parse_json,
)
from pytest_planmode.reference.planmode.settings_store import (
    Directory,
    Fault,
    InjectedFailure,
    MemoryDirectory,
    MemoryEntry,
    SettingsStore,
    SimulatedCrash,
)
from pytest_planmode.targets.reference.ops import handler


class Driver(Protocol):
    """An agent directory a scenario can set up and inspect."""

    @property
    def directory(self) -> Directory: ...

    def put(self, name: str, entry: FileEntry) -> None: ...

    def remove(self, name: str) -> None: ...

    def names(self) -> list[str]: ...

    def listing(self) -> dict[str, dict[str, Any]]:
        """Every entry as `FileEntryOut` JSON, by name."""
        ...

    def set_fault(self, fault: Fault) -> None: ...


def file_out(data: bytes) -> dict[str, Any]:
    """A regular file's content as `FileEntryOut` JSON."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        encoded = base64.b64encode(data).decode("ascii")
        return FileEntryOut(
            kind="file", text=None, base64=encoded, to=None, document=None, keys=None
        ).model_dump(by_alias=True)
    try:
        document = parse_json(text)
    except (ValueError, RecursionError):
        document = None
    keys = list(document) if isinstance(document, dict) else None
    out = FileEntryOut(kind="file", text=text, base64=None, to=None, document=document, keys=keys)
    return out.model_dump(by_alias=True)


class MemoryDriver:
    def __init__(self) -> None:
        self._dir = MemoryDirectory()

    @property
    def directory(self) -> MemoryDirectory:
        return self._dir

    def put(self, name: str, entry: FileEntry) -> None:
        if entry.kind == "file":
            self._dir.entries[name] = MemoryEntry("file", entry.content())
        else:
            self._dir.entries[name] = MemoryEntry(entry.kind, target=entry.to)

    def remove(self, name: str) -> None:
        self._dir.entries.pop(name, None)

    def names(self) -> list[str]:
        return sorted(self._dir.entries)

    def listing(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for name, entry in sorted(self._dir.entries.items()):
            if entry.kind == "file":
                out[name] = file_out(entry.data)
            else:
                out[name] = FileEntryOut(
                    kind=entry.kind, text=None, base64=None, to=entry.target, document=None, keys=None
                ).model_dump(by_alias=True)
        return out

    def set_fault(self, fault: Fault) -> None:
        self._dir.fault = fault


def _replace_all(driver: Driver, files: Files) -> None:
    for name in driver.names():
        if name not in files:
            driver.remove(name)
    for name, entry in files.items():
        driver.remove(name)
        driver.put(name, entry)


def _loaded(outcome: LoadOutcome) -> dict[str, Any]:
    return {
        "status": outcome.status,
        "source": outcome.source,
        "readOnly": outcome.read_only,
        "settings": outcome.settings.as_json(),
        "warnings": list(outcome.warnings),
        "reason": outcome.reason,
        "invalidField": outcome.field,
    }


def run_load(driver: Driver, inp: SettingsLoadInput) -> dict[str, Any]:
    """A session start, or a watched reload after `previousFiles`."""
    store = SettingsStore(driver.directory)
    if inp.previous_files is not None:
        _replace_all(driver, inp.previous_files)
        store.load()
    _replace_all(driver, inp.files)
    return _loaded(store.load())


def run_save(driver: Driver, inp: SettingsSaveInput) -> dict[str, Any]:
    """Load at session start, then each edit in order: a save through the
    serialized store, or a manual change followed by the watcher's reload.
    An injected crash ends the process: later edits do not run and the
    outcome is what the next session loads."""
    _replace_all(driver, inp.files)
    inject = inp.inject
    armed: list[int] = []

    def fault(step: str) -> None:
        if inject is not None and armed == [inject.edit] and step == inject.step:
            armed.clear()  # one failure per scenario
            if inject.mode == "crash":
                raise SimulatedCrash(step)
            raise InjectedFailure(f"injected failure at {step}")

    driver.set_fault(fault)
    store = SettingsStore(driver.directory)
    store.load()
    results: list[EditResult] = []
    given = set(inp.files) | {CANONICAL_NAME, LEGACY_NAME}
    crashed = False
    for index, step in enumerate(inp.edits):
        if crashed:
            results.append(EditResult(ok=False, reason="not-run", message="the process had crashed"))
            continue
        if isinstance(step, ManualEdit):
            for name in step.remove:
                driver.remove(name)
            for name, entry in step.manual.items():
                driver.remove(name)
                driver.put(name, entry)
                given.add(name)
            store.load()  # the watcher's reload
            results.append(EditResult(ok=True, message=None))
            continue
        edit = Edit(step.field, fill_value(step.value, step.fill), step.reset)
        armed[:] = [index]
        try:
            result = store.save(edit)
        except SimulatedCrash as crash:
            crashed = True
            results.append(EditResult(ok=False, reason="crashed", message=f"crashed at {crash}"))
            continue
        finally:
            armed.clear()
        results.append(
            EditResult.model_validate({"ok": result.ok, "reason": result.reason, "message": result.message})
        )
    if crashed:
        store = SettingsStore(driver.directory)  # the next session
    outcome = store.load()
    return {
        **_loaded(outcome),
        "files": driver.listing(),
        "results": [r.model_dump(by_alias=True) for r in results],
        "leftoverFiles": sum(1 for name in driver.names() if name not in given),
    }


@handler(planmode_settings.LOAD)
def load(inp: SettingsLoadInput) -> SettingsLoadOutput:
    return SettingsLoadOutput.model_validate(run_load(MemoryDriver(), inp))


@handler(planmode_settings.SAVE)
def save(inp: SettingsSaveInput) -> SettingsSaveOutput:
    return SettingsSaveOutput.model_validate(run_save(MemoryDriver(), inp))
