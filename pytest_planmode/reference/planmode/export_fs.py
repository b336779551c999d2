"""`/plan export` on a real directory: the questions of
:class:`~pytest_planmode.reference.planmode.export.FileSystem` asked of the
operating system.

No conformance operation reaches this module (the operation describes the
paths that exist, and :class:`~pytest_planmode.reference.planmode.export.ModelFileSystem`
answers for them); the project's own tests run the same exports here and
check that both agree.
"""

from __future__ import annotations

import errno
import os
import stat

from pytest_planmode.reference.planmode.export import Kind, LKind


def _through_broken_link(path: str) -> bool:
    """Whether some link on `path` (the path itself included) cannot be
    resolved."""
    parts = [part for part in path.split("/") if part]
    current = "/" if path.startswith("/") else ""
    for part in parts:
        current = os.path.join(current, part) if current else part
        if os.path.islink(current) and not os.path.exists(current):
            return True
        if not os.path.isdir(current):
            return False
    return False


class RealFileSystem:
    """The same questions asked of the operating system."""

    def lkind(self, path: str) -> LKind:
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return "missing"
        except NotADirectoryError:
            return "notdir"
        if stat.S_ISLNK(mode):
            return "symlink"
        if stat.S_ISDIR(mode):
            return "directory"
        return "file" if stat.S_ISREG(mode) else "other"

    def kind(self, path: str) -> Kind:
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            return "dangling" if os.path.lexists(path) else "missing"
        except NotADirectoryError:
            # Through a link that leads nowhere (its target passes through a
            # file) the path is a dangling link's, as the model reads it.
            return "dangling" if _through_broken_link(path) else "notdir"
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return "dangling"
            raise
        if stat.S_ISDIR(mode):
            return "directory"
        return "file" if stat.S_ISREG(mode) else "other"

    def mkdir(self, path: str) -> None:
        os.mkdir(path)

    def create(self, path: str, data: bytes) -> None:
        # O_EXCL with O_NOFOLLOW: never replace, never write through a link.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
        except OSError:
            os.unlink(path)
            raise

    def remove_dir(self, path: str) -> None:
        os.rmdir(path)
