"""`planmode.settings.load` and `planmode.settings.save` over an in-memory
agent directory (the same store the real directory uses)."""

from __future__ import annotations

import base64
from typing import Any

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
from pytest_planmode.reference.ops import handler
from pytest_planmode.reference.planmode.settings import (
    CANONICAL_NAME,
    LEGACY_NAME,
    Edit,
    LoadOutcome,
    parse_json,
)
from pytest_planmode.reference.planmode.settings_store import (
    InjectedFailure,
    MemoryDirectory,
    MemoryEntry,
    SettingsStore,
    SimulatedCrash,
)


def memory_entry(entry: FileEntry) -> MemoryEntry:
    if entry.kind == "file":
        return MemoryEntry("file", entry.content())
    return MemoryEntry(entry.kind, target=entry.to)


def memory_directory(files: Files) -> MemoryDirectory:
    return MemoryDirectory({name: memory_entry(entry) for name, entry in files.items()})


def entry_out(entry: MemoryEntry) -> dict[str, Any]:
    if entry.kind != "file":
        return FileEntryOut(kind=entry.kind, to=entry.target).model_dump(by_alias=True)
    try:
        text = entry.data.decode("utf-8")
    except UnicodeDecodeError:
        data = base64.b64encode(entry.data).decode("ascii")
        return FileEntryOut(kind="file", base64=data).model_dump(by_alias=True)
    try:
        document = parse_json(text)
    except (ValueError, RecursionError):
        document = None
    keys = list(document) if isinstance(document, dict) else None
    out = FileEntryOut(kind="file", text=text, document=document, keys=keys)
    return out.model_dump(by_alias=True)


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


@handler("planmode.settings.load")
def load(inp: SettingsLoadInput) -> SettingsLoadOutput:
    store = SettingsStore(directory := memory_directory(inp.files))
    if inp.previous_files is not None:
        directory.entries = memory_directory(inp.previous_files).entries
        store.load()
        directory.entries = memory_directory(inp.files).entries
    return SettingsLoadOutput.model_validate(_loaded(store.load()))


@handler("planmode.settings.save")
def save(inp: SettingsSaveInput) -> SettingsSaveOutput:
    directory = memory_directory(inp.files)
    inject = inp.inject
    armed: list[int] = []

    def fault(step: str) -> None:
        if inject is not None and armed == [inject.edit] and step == inject.step:
            armed.clear()  # one failure per scenario
            if inject.mode == "crash":
                raise SimulatedCrash(step)
            raise InjectedFailure(f"injected failure at {step}")

    directory.fault = fault
    store = SettingsStore(directory)
    store.load()
    results: list[EditResult] = []
    given = set(inp.files) | {CANONICAL_NAME, LEGACY_NAME}
    crashed = False
    for index, step in enumerate(inp.edits):
        if crashed:
            results.append(
                EditResult(ok=False, reason="not-run", message="the process had crashed")
            )
            continue
        if isinstance(step, ManualEdit):
            for name in step.remove:
                directory.entries.pop(name, None)
            for name, entry in step.manual.items():
                directory.entries[name] = memory_entry(entry)
                given.add(name)
            store.load()  # the watcher's reload
            results.append(EditResult(ok=True))
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
        results.append(EditResult(ok=result.ok, reason=result.reason, message=result.message))
    if crashed:
        store = SettingsStore(directory)  # the next session
    outcome = store.load()
    leftover = sum(1 for name in directory.entries if name not in given)
    return SettingsSaveOutput.model_validate(
        {
            **_loaded(outcome),
            "files": {name: entry_out(e) for name, e in sorted(directory.entries.items())},
            "results": [r.model_dump(by_alias=True) for r in results],
            "leftoverFiles": leftover,
        }
    )
