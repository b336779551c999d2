"""Loading and the serialized save queue over an agent directory.

The directory is injected (`Directory`): `settings_fs.RealDirectory` works on
disk, `MemoryDirectory` in memory for the conformance operations. Both share
the same failure-injection points, so one scenario can run on either and the
results can be compared.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from pytest_planmode.reference.planmode.settings import (
    CANONICAL_NAME,
    LEGACY_NAME,
    MAX_BYTES,
    TEMP_PREFIX,
    TEMP_SUFFIX,
    Absent,
    Contents,
    Edit,
    EffectiveSettings,
    FileState,
    LoadOutcome,
    NotRegular,
    Publish,
    ReadFailed,
    Refused,
    decide_load,
    plan_edit,
)

Step = Literal["read", "create-temp", "write", "fsync", "rename"]
STEPS: tuple[Step, ...] = ("read", "create-temp", "write", "fsync", "rename")

#: Called at each step with its name; raising there injects a failure.
Fault = Callable[[str], None]


def no_fault(step: str) -> None:
    """The default: nothing fails on purpose."""


class InjectedFailure(OSError):
    """A failure injected at a named step (an ordinary I/O error)."""


class SimulatedCrash(BaseException):
    """The process dies at a named step: nothing after it runs, not even
    clean-up (a BaseException so that `except Exception` does not catch it)."""


class Directory(Protocol):
    """The agent directory, as the store needs it."""

    def observe(self, name: str) -> FileState:
        """Entry kind and up to MAX_BYTES + 1 bytes of a regular file."""

    def create_temp(self) -> str:
        """Exclusively create a new temporary file (mode 0600) beside the
        settings file and return its name."""

    def write(self, name: str, data: bytes) -> None: ...

    def sync(self, name: str) -> None: ...

    def rename(self, source: str, target: str) -> None: ...

    def remove(self, name: str) -> None: ...


@dataclass
class MemoryEntry:
    kind: Literal["file", "directory", "fifo", "symlink", "unreadable"]
    data: bytes = b""
    target: str | None = None


@dataclass
class MemoryDirectory:
    """An agent directory held in memory. `fault` is consulted at the same
    points as in `RealDirectory`."""

    entries: dict[str, MemoryEntry] = field(default_factory=dict)
    fault: Fault = no_fault
    _counter: int = 0

    def observe(self, name: str) -> FileState:
        self.fault("read")
        entry = self.entries.get(name)
        if entry is None:
            return Absent()
        if entry.kind == "unreadable":
            return ReadFailed("PermissionError")
        if entry.kind != "file":
            return NotRegular("symbolic link" if entry.kind == "symlink" else entry.kind)
        return Contents(entry.data[: MAX_BYTES + 1])

    def create_temp(self) -> str:
        self.fault("create-temp")
        while True:
            self._counter += 1
            name = f"{TEMP_PREFIX}{self._counter}{TEMP_SUFFIX}"
            if name not in self.entries:
                self.entries[name] = MemoryEntry("file")
                return name

    def write(self, name: str, data: bytes) -> None:
        entry = self.entries[name]
        half = len(data) // 2
        # A failure mid-write leaves a partial temporary file, as on disk.
        entry.data += data[:half]
        self.fault("write")
        entry.data += data[half:]

    def sync(self, name: str) -> None:
        self.fault("fsync")

    def rename(self, source: str, target: str) -> None:
        self.fault("rename")
        self.entries[target] = self.entries.pop(source)

    def remove(self, name: str) -> None:
        self.entries.pop(name, None)


@dataclass(frozen=True)
class SaveResult:
    ok: bool
    reason: str | None = None
    message: str | None = None


class SettingsStore:
    """One process's view of `pi-plan-mode.json`: load, reload, and saves
    serialized in invocation order (§ Thinking level: "Settings saves are
    serialized in invocation order inside one Pi process"). The queue is
    in-process only; separate processes can still race, as the spec says."""

    def __init__(self, directory: Directory) -> None:
        self._dir = directory
        self._current: EffectiveSettings | None = None
        self._outcome: LoadOutcome | None = None
        # A ticket lock: a plain Lock does not promise FIFO hand-over.
        self._turn = threading.Condition()
        self._next_ticket = 0
        self._serving = 0

    @property
    def settings(self) -> EffectiveSettings:
        """The settings in effect (the fallback before the first load)."""
        return self._current if self._current is not None else EffectiveSettings()

    @property
    def pending(self) -> int:
        """Saves called and not yet finished (the running one included)."""
        with self._turn:
            return self._next_ticket - self._serving

    @property
    def outcome(self) -> LoadOutcome | None:
        return self._outcome

    def _read(self) -> LoadOutcome:
        return decide_load(self._dir.observe(CANONICAL_NAME), self._dir.observe(LEGACY_NAME), self._current)

    def load(self) -> LoadOutcome:
        """§ Settings: read at session start and on every watched change.
        Never raises for an unusable file; a failing read is a `read-failed`
        outcome."""
        try:
            outcome = self._read()
        except Exception as exc:  # an I/O error while reading is a read failure
            outcome = decide_load(ReadFailed(type(exc).__name__), Absent(), self._current)
        self._outcome = outcome
        self._current = outcome.settings
        return outcome

    def save(self, edit: Edit) -> SaveResult:
        """§ Thinking level: wait for every earlier save, re-read the latest
        document, apply the one edit, publish through a same-directory
        temporary file and rename. A failed save leaves the previous file
        and the previous effective settings in place."""
        with self._turn:
            ticket = self._next_ticket
            self._next_ticket += 1
            while self._serving != ticket:
                self._turn.wait()
        try:
            return self._save_now(edit)
        finally:
            with self._turn:
                self._serving += 1
                self._turn.notify_all()

    def _save_now(self, edit: Edit) -> SaveResult:
        try:
            latest = self._read()
        except Exception as exc:
            why = type(exc).__name__
            return SaveResult(False, "read-failed", f"cannot read the settings: {why}")
        plan = plan_edit(latest, edit)
        if isinstance(plan, Refused):
            return SaveResult(False, plan.reason, plan.message)
        if not isinstance(plan, Publish):
            return SaveResult(True)
        temp: str | None = None
        try:
            temp = self._dir.create_temp()
            self._dir.write(temp, plan.data)
            self._dir.sync(temp)
            self._dir.rename(temp, CANONICAL_NAME)
            temp = None
        except Exception as exc:
            if temp is not None:
                # Best effort: the name is never read as settings anyway.
                with contextlib.suppress(Exception):
                    self._dir.remove(temp)
            return SaveResult(
                False,
                "write-failed",
                f"saving {CANONICAL_NAME} failed: {type(exc).__name__}; the previous file is unchanged",
            )
        self._current = plan.settings
        self._outcome = LoadOutcome("valid", CANONICAL_NAME, plan.settings, False, document=plan.document)
        return SaveResult(True)
