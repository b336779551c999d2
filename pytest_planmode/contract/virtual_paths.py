"""Virtual paths: every path an input names lies under a declared root.

A case never names a real absolute path. A path starts with one of the
root tokens below (``$CWD/docs/plan.md``, ``$HOME/notes``, ``$TMP/srv``) or
is relative (to ``$CWD``, as Pi resolves it). For an operation that writes
files the harness creates a fresh sandbox per case, one directory per
root, and passes their real locations with the request (``roots``); a
target that touches a real disk replaces each token by its directory in
the input and puts the token back in its output. So no case can make a
correct implementation write outside the sandbox.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

#: Root token -> what it stands for.
ROOTS: Mapping[str, str] = {
    "$CWD": "Pi's working directory (`ctx.cwd`)",
    "$HOME": "the user's home directory (where `~` points)",
    "$AGENT": "Pi's agent directory (`$PI_CODING_AGENT_DIR`, normally `~/.pi/agent`)",
    "$TMP": "a scratch directory outside the others: an absolute path elsewhere on disk",
}

#: A path under a root: the token, then nothing or `/...`.
ROOTED_PATTERN = r"^\$(CWD|HOME|AGENT|TMP)(/.*)?$"
#: A path as a user types it (relative, `~/…`, `@…`, or under a root): never
#: a real absolute path, `@`-prefixed or not, except `/` itself (the file
#: system root, which no correct implementation writes to).
TYPED_PATTERN = r"^(?:[^/@]|@(?:[^/]|$)|/$|$)"
_ROOTED = re.compile(r"\$(CWD|HOME|AGENT|TMP)(?=/|$)")


def is_rooted(path: str) -> bool:
    return re.match(ROOTED_PATTERN, path, re.DOTALL) is not None


def map_rooted(value: Any, roots: Mapping[str, str]) -> Any:
    """`value` with every string that starts with a root token rewritten
    under that root's directory (lists and objects walked)."""
    if isinstance(value, str):
        # `@path` is Pi's way of naming a file: the root follows the `@`.
        at = "@" if value.startswith("@") else ""
        match = _ROOTED.match(value, len(at))
        return at + roots[match.group(0)] + value[match.end() :] if match else value
    if isinstance(value, list):
        return [map_rooted(item, roots) for item in value]
    if isinstance(value, dict):
        return {key: map_rooted(item, roots) for key, item in value.items()}
    return value


def unmap(value: Any, roots: Mapping[str, str]) -> Any:
    """`value` with each root directory, wherever it occurs in a string
    (a path, or a message naming one), spelled as its token again."""
    return _unmap(value, _unmappers(tuple(roots.items())))


@lru_cache(maxsize=64)
def _unmappers(roots: tuple[tuple[str, str], ...]) -> tuple[tuple[str, re.Pattern[str], str], ...]:
    """Per root, longest directory first (so a root nested in another maps
    to its own token): the directory, the expression of it where a path
    starts, and its token as a replacement."""
    return tuple(
        (
            directory,
            re.compile(rf"(?<![\w.$/]){re.escape(directory)}(?=/|$|[^\w.-])"),
            token.replace("\\", "\\\\"),
        )
        for token, directory in sorted(roots, key=lambda item: -len(item[1]))
    )


def _unmap(value: Any, unmappers: tuple[tuple[str, re.Pattern[str], str], ...]) -> Any:
    if isinstance(value, str):
        for directory, pattern, token in unmappers:
            # The expression matches only where the directory occurs.
            if directory in value:
                value = pattern.sub(token, value)
        return value
    if isinstance(value, list):
        return [_unmap(item, unmappers) for item in value]
    if isinstance(value, dict):
        return {key: _unmap(item, unmappers) for key, item in value.items()}
    return value


def _memory_directory() -> str | None:
    """A memory file system to hold sandboxes (`/dev/shm` where the machine
    has a writable one): creating and removing a directory tree there costs
    a fraction of doing it on disk, and a run creates one per request that
    names files. None elsewhere (the system's temporary directory)."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


_MEMORY = _memory_directory()


@contextmanager
def sandbox() -> Iterator[dict[str, str]]:
    """A fresh sandbox: one empty directory per root, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="planmode-sandbox-", dir=_MEMORY) as base:
        roots: dict[str, str] = {}
        for token in ROOTS:
            directory = Path(base) / token.removeprefix("$").lower()
            directory.mkdir()
            roots[token] = str(directory)
        yield roots


__all__ = ["ROOTED_PATTERN", "ROOTS", "TYPED_PATTERN", "is_rooted", "map_rooted", "sandbox", "unmap"]
