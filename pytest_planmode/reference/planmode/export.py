"""`/plan export`: where a plan is written and whether it may be
(pi-plan-mode-settings.md § Export destination).

The decision runs against a :class:`FileSystem`. :class:`ModelFileSystem`
is the in-memory model the operation uses (the input describes the paths
that exist); :class:`~pytest_planmode.reference.planmode.export_fs.RealFileSystem`
performs the same export on a real directory. Both answer the same
questions, so one algorithm serves both and a test can show they agree.
"""

from __future__ import annotations

import contextlib
import errno
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from pytest_planmode.reference.planmode.settings_values import (
    DEFAULT_EXPORT_PATH,
    InvalidSetting,
    export_path,
)

#: What a path is without following its last component.
LKind = Literal["file", "directory", "symlink", "other", "missing", "notdir"]
#: What a path is after following symbolic links.
Kind = Literal["file", "directory", "other", "missing", "dangling", "notdir"]
Outcome = Literal["written", "refused", "cancelled", "failed"]

_SYMLINK_HOPS = 40


class FileSystem(Protocol):
    def lkind(self, path: str) -> LKind: ...

    def kind(self, path: str) -> Kind: ...

    def mkdir(self, path: str) -> None: ...

    def create(self, path: str, data: bytes) -> None:
        """Create a new file; FileExistsError if anything is at `path`."""
        ...

    def remove_dir(self, path: str) -> None: ...


# --------------------------------------------------------------------------
# Destination


def requested_path(explicit: str | None, configured: str | None) -> str:
    """§ Export destination: an explicit `/plan export <path>` is a one-off
    override; without it the configured `defaultPlanExportPath`; without
    that `PLAN.md`. A blank explicit argument counts as omitted and the
    argument is trimmed like other command arguments (reference choices)."""
    if explicit is not None and explicit.strip():
        return explicit.strip()
    if configured is not None:
        return configured
    return DEFAULT_EXPORT_PATH


class InvalidDestination(ValueError):
    pass


def resolve_destination(raw: str, cwd: str, home: str) -> str:
    """§ Export destination: one leading `@` (Pi's file-mention form) is
    accepted; `~` means the home directory (reference choice, as Pi's own
    path arguments); relative values resolve against the working directory
    at export time. The path keeps the rules of `defaultPlanExportPath`."""
    text = raw[1:] if raw.startswith("@") else raw
    try:
        export_path(text)
    except InvalidSetting as exc:
        raise InvalidDestination(str(exc).split(": ", 1)[1]) from None
    if text.endswith("/"):
        # A trailing separator names a directory, never a file to create.
        raise InvalidDestination("ends with '/': name a file, not a directory")
    if text == "~" or text.startswith("~/"):
        text = home + text[1:]
    joined = text if text.startswith("/") else posixpath.join(cwd, text)
    resolved = posixpath.normpath(joined)
    if resolved.startswith("//"):
        resolved = "/" + resolved.lstrip("/")
    if resolved == "/":
        raise InvalidDestination("resolves to the root directory")
    return resolved


def preview(destination: str, width: int | None) -> str:
    """§ Export destination: long previews are truncated to the available
    width without changing the raw path the action uses. Reference choice:
    keep the end (the file name) and mark the cut with one `…`."""
    if width is None or len(destination) <= width:
        return destination
    return "…" + destination[len(destination) - (width - 1) :]


def ancestors(path: str) -> list[str]:
    """The directories above `path`, outermost first, without `/`."""
    parts = path.strip("/").split("/")[:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def file_bytes(plan: str) -> bytes:
    """§ Export destination (reference choice for the exact bytes): the
    Markdown exactly as approved plus one trailing newline, UTF-8."""
    return (plan + "\n").encode("utf-8")


# --------------------------------------------------------------------------
# The export


@dataclass(frozen=True)
class ExportResult:
    outcome: Outcome
    requested: str
    destination: str | None
    code: str | None = None
    reason: str | None = None
    content: str | None = None
    size: int | None = None
    created_directories: tuple[str, ...] = ()


_EXISTS_REASON = {
    "file": "a file already exists there; exports never overwrite",
    "directory": "a directory is there; exports never overwrite",
    "symlink": "a symbolic link is there; exports never overwrite or follow it",
    "other": "something that is not a regular file is there; exports never overwrite",
}


def export_plan(
    fs: FileSystem,
    *,
    plan: str,
    explicit: str | None,
    configured: str | None,
    cwd: str,
    home: str,
    cancel: bool = False,
) -> ExportResult:
    """§ Export destination: write the plan to a new file, creating missing
    parents, never replacing a file, directory or symbolic link. A refused,
    cancelled or failed export leaves the file system as it was."""
    requested = requested_path(explicit, configured)
    try:
        destination = resolve_destination(requested, cwd, home)
    except InvalidDestination as exc:
        return ExportResult("refused", requested, None, "invalid-path", f"invalid path: {exc}")

    missing: list[str] = []
    for directory in ancestors(destination):
        if missing:
            missing.append(directory)
            continue
        kind = fs.kind(directory)
        if kind == "directory":
            continue
        if kind == "missing":
            missing.append(directory)
            continue
        code = "parent-dangling-symlink" if kind == "dangling" else "parent-not-directory"
        return ExportResult("refused", requested, destination, code, f"{directory} is not a directory")
    if not missing:
        existing = fs.lkind(destination)
        if existing != "missing":
            key = existing if existing in _EXISTS_REASON else "other"
            return ExportResult(
                "refused",
                requested,
                destination,
                f"exists-{key}",
                f"{destination}: {_EXISTS_REASON[key]}",
            )
    if cancel:
        return ExportResult("cancelled", requested, destination, "cancelled", "export cancelled")

    data = file_bytes(plan)
    created: list[str] = []
    try:
        for directory in missing:
            fs.mkdir(directory)
            created.append(directory)
        fs.create(destination, data)
    except FileExistsError:
        _undo(fs, created)
        return ExportResult(
            "refused",
            requested,
            destination,
            "exists-file",
            f"{destination}: appeared before the export; exports never overwrite",
        )
    except OSError as exc:
        _undo(fs, created)
        return ExportResult("failed", requested, destination, "write-failed", f"cannot write: {exc.strerror}")
    return ExportResult(
        "written",
        requested,
        destination,
        content=data.decode("utf-8"),
        size=len(data),
        created_directories=tuple(created),
    )


def _undo(fs: FileSystem, created: Iterable[str]) -> None:
    # A failed export changes nothing: directories it made go again.
    for directory in reversed(list(created)):
        with contextlib.suppress(OSError):
            fs.remove_dir(directory)


# --------------------------------------------------------------------------
# File systems


@dataclass(frozen=True)
class Node:
    kind: Literal["file", "directory", "symlink"]
    content: bytes = b""
    target: str = ""
    writable: bool = True


@dataclass
class ModelFileSystem:
    """An in-memory POSIX tree. Every ancestor of a listed path exists as a
    directory; symbolic links are followed the way the OS follows them
    (lexically normalised targets, a hop limit)."""

    nodes: dict[str, Node] = field(default_factory=dict)

    @classmethod
    def of(cls, entries: Iterable[tuple[str, Node]], also: Iterable[str] = ()) -> ModelFileSystem:
        fs = cls()
        for path, node in entries:
            fs.nodes[posixpath.normpath(path)] = node
        for path, _node in list(fs.nodes.items()):
            fs._implicit_parents(path)
        for directory in also:
            directory = posixpath.normpath(directory)
            fs._implicit_parents(directory)
            fs.nodes.setdefault(directory, Node("directory"))
        return fs

    def _implicit_parents(self, path: str) -> None:
        for directory in ancestors(path):
            self.nodes.setdefault(directory, Node("directory"))

    def _walk(self, path: str, follow_last: bool, hops: int = 0) -> tuple[str, LKind | Kind]:
        parts = [p for p in path.split("/") if p]
        current = "/"
        for index, part in enumerate(parts):
            candidate = posixpath.join(current, part)
            node = self.nodes.get(candidate)
            last = index == len(parts) - 1
            if node is None:
                rest = "/".join(parts[index + 1 :])
                return posixpath.join(candidate, rest) if rest else candidate, "missing"
            if node.kind == "file" and not last:
                return candidate, "notdir"
            if node.kind == "symlink" and (follow_last or not last):
                if hops >= _SYMLINK_HOPS:
                    return candidate, "dangling"
                target = posixpath.normpath(posixpath.join(current, node.target))
                resolved, kind = self._walk(target, True, hops + 1)
                if kind in ("missing", "dangling", "notdir"):
                    return candidate, "dangling"
                if not last and kind != "directory":
                    return candidate, "notdir"
                current = resolved
                continue
            current = candidate
        node = self.nodes.get(current)
        return current, node.kind if node is not None else "directory"

    def lkind(self, path: str) -> LKind:
        _, kind = self._walk(path, follow_last=False)
        if kind == "dangling":
            # A parent link that leads nowhere: the path cannot be there.
            return "missing"
        return kind

    def kind(self, path: str) -> Kind:
        _, kind = self._walk(path, follow_last=True)
        if kind == "symlink":
            return "dangling"
        return kind

    def _parent_physical(self, path: str) -> tuple[str, str]:
        parent, name = posixpath.split(path)
        physical, kind = self._walk(parent, follow_last=True)
        if kind != "directory":
            raise OSError(errno.ENOENT, "no such directory", parent)
        if not self.nodes.get(physical, Node("directory")).writable:
            raise OSError(errno.EACCES, "Permission denied", parent)
        return physical, posixpath.join(physical, name)

    def mkdir(self, path: str) -> None:
        _, physical = self._parent_physical(path)
        if physical in self.nodes:
            raise FileExistsError(errno.EEXIST, "exists", path)
        self.nodes[physical] = Node("directory")

    def create(self, path: str, data: bytes) -> None:
        _, physical = self._parent_physical(path)
        if physical in self.nodes:
            raise FileExistsError(errno.EEXIST, "exists", path)
        self.nodes[physical] = Node("file", content=data)

    def remove_dir(self, path: str) -> None:
        _, physical = self._walk(path, follow_last=False)
        self.nodes.pop(physical, None)
