"""The agent directory on disk (§ Settings: `$PI_CODING_AGENT_DIR/pi-plan-mode.json`,
normally `~/.pi/agent/pi-plan-mode.json`).

Reads never follow a symbolic link and never block on a FIFO; writes go
through an exclusively created temporary file (mode 0600) in the same
directory, renamed over the target (reference choices § pi-plan-mode:
settings file). The environment and home directory are passed in: there is
no global state.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pytest_planmode.reference.planmode.settings import (
    MAX_BYTES,
    TEMP_PREFIX,
    TEMP_SUFFIX,
    Absent,
    Contents,
    FileState,
    NotRegular,
    ReadFailed,
)
from pytest_planmode.reference.planmode.settings_store import Fault, no_fault


def agent_directory(environ: Mapping[str, str], home: Path) -> Path:
    """§ Settings: `$PI_CODING_AGENT_DIR` when set (and non-empty), else
    `~/.pi/agent`."""
    configured = environ.get("PI_CODING_AGENT_DIR")
    if configured:
        return Path(configured).expanduser() if configured.startswith("~") else Path(configured)
    return home / ".pi" / "agent"


_KINDS = (
    (stat.S_ISLNK, "symbolic link"),
    (stat.S_ISDIR, "directory"),
    (stat.S_ISFIFO, "fifo"),
)


def _kind(mode: int) -> str | None:
    for test, name in _KINDS:
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "special file"


@dataclass
class RealDirectory:
    """`settings_store.Directory` on disk."""

    path: Path
    fault: Fault = no_fault
    _fds: dict[str, int] = field(default_factory=dict)

    def observe(self, name: str) -> FileState:
        self.fault("read")
        target = self.path / name
        try:
            info = os.lstat(target)
        except FileNotFoundError:
            return Absent()
        except OSError as exc:
            return ReadFailed(type(exc).__name__)
        kind = _kind(info.st_mode)
        if kind is not None:
            return NotRegular(kind)
        try:
            # O_NOFOLLOW and O_NONBLOCK: the entry may have been swapped for a
            # link or a FIFO since lstat; never follow or hang on it.
            fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            return Absent()
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return NotRegular("symbolic link")
            return ReadFailed(type(exc).__name__)
        try:
            kind = _kind(os.fstat(fd).st_mode)
            if kind is not None:
                return NotRegular(kind)
            chunks: list[bytes] = []
            remaining = MAX_BYTES + 1
            while remaining > 0:
                chunk = os.read(fd, remaining)
                if not chunk:
                    break
                chunks.append(chunk)
                remaining -= len(chunk)
            return Contents(b"".join(chunks))
        except OSError as exc:
            return ReadFailed(type(exc).__name__)
        finally:
            os.close(fd)

    def create_temp(self) -> str:
        self.fault("create-temp")
        # A first save may find no agent directory yet (reference choice:
        # create it, private to the user, rather than fail the save).
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        while True:
            name = f"{TEMP_PREFIX}{secrets.token_hex(6)}{TEMP_SUFFIX}"
            try:
                fd = os.open(
                    self.path / name,
                    os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                    0o600,
                )
            except FileExistsError:
                continue
            # The umask can only narrow the mode; make it exactly 0600.
            os.fchmod(fd, 0o600)
            self._fds[name] = fd
            return name

    def write(self, name: str, data: bytes) -> None:
        fd = self._fds[name]
        view = memoryview(data)
        half = len(data) // 2
        written = 0
        faulted = False
        while written < len(data):
            if not faulted and written >= half:
                faulted = True
                self.fault("write")
            limit = half if not faulted else len(data)
            written += os.write(fd, view[written:limit])
        if not faulted:
            self.fault("write")

    def sync(self, name: str) -> None:
        self.fault("fsync")
        fd = self._fds.pop(name)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def rename(self, source: str, target: str) -> None:
        self.fault("rename")
        os.replace(self.path / source, self.path / target)
        try:
            # Make the rename itself durable; a failure here changes nothing
            # about which file is current.
            dir_fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            return
        try:
            os.fsync(dir_fd)
        except OSError:
            pass
        finally:
            os.close(dir_fd)

    def remove(self, name: str) -> None:
        fd = self._fds.pop(name, None)
        if fd is not None:
            os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path / name)
