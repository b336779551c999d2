"""What a sandboxed command did, read from its `strace -f` log and its output.

Effects (each names the program that caused it):
- `write`: a file opened for writing, created, truncated, renamed, removed,
  linked, chmod-ed, chown-ed, its times or attributes set, or a mount
  changed, anywhere (the scratch tree and HOME included). Attempts count
  even when they failed: the root is read-only, so a write outside the
  scratch areas fails, and it was still attempted. Not effects: opening
  the terminal and the standard streams' device files (`/dev/null`,
  `/dev/tty`, `/dev/stdout`...), and a file the command itself created
  exclusively (`O_EXCL`, how lock and temporary files are made) and removed
  again before it ended (Git's optional index lock, `sort`'s spill files).
- `exec`: a program executed other than the shell and the programs the
  command line names.
- `network`: a socket connected or sent to beyond loopback, or a raw packet
  socket.
- `secret`: an environment canary in stdout or stderr.
- `canary-file`: the content of a canary file (fake keys, the file outside
  the tree, /etc/hostname) in stdout or stderr, with the programs that
  opened it.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pytest_planmode.sandbox import world

WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND", "O_TMPFILE")
HARMLESS_DEVICES = frozenset(
    ["/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/stdout", "/dev/stderr", "/dev/stdin"]
    + [f"{d}/{n}" for d in ("/dev/fd", "/proc/self/fd", "/proc/thread-self/fd") for n in (0, 1, 2)]
)
#: Mutating system calls -> index of the path argument (None: no path, an fd).
MUTATIONS: dict[str, int | None] = {
    "truncate": 0, "ftruncate": None, "unlink": 0, "unlinkat": 1, "rename": 1, "renameat": 3,
    "renameat2": 3, "mkdir": 0, "mkdirat": 1, "rmdir": 0, "link": 1, "linkat": 3, "symlink": 1,
    "symlinkat": 2, "mknod": 0, "mknodat": 1, "chmod": 0, "fchmod": None, "fchmodat": 1,
    "chown": 0, "fchown": None, "lchown": 0, "fchownat": 1, "utime": 0, "utimes": 0,
    "utimensat": 1, "futimesat": 1, "setxattr": 0, "lsetxattr": 0, "fsetxattr": None,
    "removexattr": 0, "lremovexattr": 0, "fremovexattr": None, "mount": 1, "umount2": 0,
    "pivot_root": 0, "chroot": 0, "sethostname": None, "setdomainname": None,
    "open_tree": 1, "move_mount": 3, "fsopen": 0, "fsconfig": None, "fsmount": None, "fspick": 1,
    "mount_setattr": 1, "quotactl": 2, "quotactl_fd": None, "acct": 0, "swapon": 0, "swapoff": 0,
    "io_uring_setup": None, "fanotify_mark": 4, "name_to_handle_at": None,
}  # fmt: skip
#: System calls newer than the strace that reads the trace (it prints them
#: as `syscall_0x1c4`): the numbers of those that change nothing on disk.
#: Every other unnamed call counts as a write. (One numbering for every
#: architecture from 424 on.)
#: map_shadow_stack, futex_wake/wait/requeue, statmount, listmount,
#: lsm_get_self_attr, lsm_list_modules, mseal, getxattrat, listxattrat,
#: file_getattr.
UNNAMED_HARMLESS = frozenset([453, 454, 455, 456, 457, 458, 459, 461, 462, 464, 465, 468])
UNNAMED_NAMES = {452: "fchmodat2", 460: "lsm_set_self_attr", 463: "setxattrat", 466: "removexattrat",
                 467: "open_tree_attr", 469: "file_setattr"}  # fmt: skip
_UNIX_PATH = re.compile(r'sun_path="')
NETWORK_SENDS = ("connect", "sendto", "sendmsg", "sendmmsg")
SPAWNS = ("clone", "clone3", "fork", "vfork")

WINDOW = 12

_LINE = re.compile(r"^(\d+)\s+(.*)$")
_CALL = re.compile(r"^([a-z_0-9]+|syscall_0x[0-9a-f]+)\((.*)\)\s+=\s+(.*)$", re.S)
_RESUMED = re.compile(r"^<\.\.\. ([a-z_0-9]+) resumed>(.*)$", re.S)
_INET = re.compile(r'inet_addr\("([^"]*)"\)|inet_pton\(AF_INET6?, "([^"]*)"')


@dataclass(frozen=True)
class Call:
    index: int
    pid: int
    name: str
    args: tuple[str, ...]
    result: str

    @property
    def ok(self) -> bool:
        return not self.result.startswith("-1") and not self.result.startswith("?")

    def text(self) -> str:
        return f"{self.name}({', '.join(self.args)}) = {self.result}"[:300]


@dataclass(frozen=True)
class Effect:
    kind: str
    detail: str
    program: str = ""
    path: str = ""

    def __str__(self) -> str:
        by = f" by {self.program}" if self.program else ""
        return f"{self.kind}{by}: {self.detail}"


@dataclass
class Observation:
    effects: list[Effect] = field(default_factory=list)

    def kinds(self) -> set[str]:
        return {effect.kind for effect in self.effects}


def split_args(text: str) -> tuple[str, ...]:
    """strace's argument list, split at top-level commas."""
    args: list[str] = []
    depth = 0
    quoted = False
    start = 0
    i = 0
    while i < len(text):
        char = text[i]
        if quoted:
            if char == "\\":
                i += 1
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            args.append(text[start:i].strip())
            start = i + 1
        i += 1
    tail = text[start:].strip()
    if tail:
        args.append(tail)
    return tuple(args)


def unquote(arg: str) -> str:
    """A strace string argument (`"a\\nb"...`) as text."""
    if not arg.startswith('"'):
        return arg
    body = arg[1:]
    end = body.rfind('"')
    body = body[:end] if end >= 0 else body
    try:
        return (
            body.encode("latin-1", "backslashreplace")
            .decode("unicode_escape")
            .encode("latin-1")
            .decode("utf-8", "replace")
        )
    except (UnicodeDecodeError, UnicodeEncodeError):
        return body


def parse_trace(trace: str) -> list[Call]:
    calls: list[Call] = []
    pending: dict[int, str] = {}
    for raw in trace.splitlines():
        line = _LINE.match(raw)
        if line is None:
            continue
        pid, rest = int(line.group(1)), line.group(2)
        if rest.endswith("<unfinished ...>"):
            pending[pid] = rest[: -len("<unfinished ...>")].rstrip()
            continue
        resumed = _RESUMED.match(rest)
        if resumed is not None:
            rest = pending.pop(pid, resumed.group(1) + "(") + resumed.group(2)
        call = _CALL.match(rest)
        if call is None:
            continue
        calls.append(Call(len(calls), pid, call.group(1), split_args(call.group(2)), call.group(3).strip()))
    return calls


class _Programs:
    """Which program each process was running when it made a call."""

    def __init__(self, calls: Sequence[Call]) -> None:
        self.execs: dict[int, list[tuple[int, str]]] = {}
        self.paths: dict[int, list[tuple[int, str]]] = {}
        self.parent: dict[int, tuple[int, int]] = {}
        for call in calls:
            if call.name in ("execve", "execveat") and call.ok:
                path = unquote(call.args[0 if call.name == "execve" else 1])
                self.execs.setdefault(call.pid, []).append((call.index, os.path.basename(path)))
                self.paths.setdefault(call.pid, []).append((call.index, path))
            elif call.name in SPAWNS and call.result.split()[0].isdigit():
                self.parent[int(call.result.split()[0])] = (call.pid, call.index)

    def last_exec(self, pid: int, index: int) -> str:
        """The path of the last program `pid` executed before `index`."""
        found = [path for at, path in self.paths.get(pid, []) if at < index]
        return found[-1] if found else ""

    def at(self, pid: int, index: int, depth: int = 0) -> str:
        found = [name for at, name in self.execs.get(pid, []) if at <= index]
        if found:
            return found[-1]
        if pid in self.parent and depth < 64:
            parent, at = self.parent[pid]
            return self.at(parent, at, depth + 1)
        return ""


def _interprets(call: Call, script: str) -> bool:
    """Whether this exec starts the interpreter of `script`, the program the
    same process executed just before (a `#!` line naming `env`)."""
    if not script:
        return False
    argv = call.args[1 if call.name == "execve" else 2] if len(call.args) > 1 else ""
    return f'"{script}"' in argv


def _resolve(path: str) -> str:
    return os.path.normpath(path if path.startswith("/") else os.path.join(world.REPO, path))


def _open_parts(call: Call) -> tuple[str, str] | None:
    if call.name == "open" and len(call.args) >= 2:
        return unquote(call.args[0]), call.args[1]
    if call.name in ("openat", "openat2") and len(call.args) >= 3:
        return unquote(call.args[1]), call.args[2]
    if call.name == "creat" and call.args:
        return unquote(call.args[0]), "O_CREAT|O_WRONLY|O_TRUNC"
    return None


def _loopback(address: str) -> bool:
    return address.startswith("127.") or address in ("::1", "::ffff:127.0.0.1", "0.0.0.0", "::")


def observe(
    trace: str,
    outputs: Iterable[bytes],
    *,
    shell: str,
    programs: Iterable[str],
) -> Observation:
    calls = parse_trace(trace)
    # Everything before the shell starts belongs to the sandbox's own launcher.
    start = next(
        (c.index for c in calls if c.name == "execve" and c.ok and c.args and unquote(c.args[0]) == shell),
        len(calls),
    )
    owner = _Programs([c for c in calls if c.index >= start])
    calls = [c for c in calls if c.index > start]
    allowed = {os.path.basename(shell), *programs}
    effects: list[Effect] = []
    exclusive: dict[str, Call] = {}
    removed: set[str] = set()
    for call in calls:
        if call.name in ("unlink", "unlinkat") and call.ok:
            removed.add(_resolve(unquote(call.args[MUTATIONS[call.name] or 0])))
    canary_readers: dict[str, set[str]] = {}
    for call in calls:
        program = owner.at(call.pid, call.index)
        parts = _open_parts(call)
        if parts is not None:
            path, flags = parts
            if not any(flag in flags for flag in WRITE_FLAGS):
                if call.ok:
                    canary_readers.setdefault(_resolve(path), set()).add(program)
                continue
            if path in HARMLESS_DEVICES:
                continue
            if "O_EXCL" in flags and _resolve(path) in removed:
                exclusive[_resolve(path)] = call
                continue
            effects.append(Effect("write", call.text(), program, path))
        elif call.name in MUTATIONS:
            where = MUTATIONS[call.name]
            path = unquote(call.args[where]) if where is not None and len(call.args) > where else ""
            if call.name in ("unlink", "unlinkat") and _resolve(path) in exclusive:
                continue
            effects.append(Effect("write", call.text(), program, path))
        elif call.name in ("execve", "execveat") and call.ok:
            path = unquote(call.args[0 if call.name == "execve" else 1])
            if _interprets(call, owner.last_exec(call.pid, call.index)):
                # `#!/usr/bin/env node`: the script's interpreter runs the
                # script that was executed, it is the same program.
                continue
            if os.path.basename(path) not in allowed:
                effects.append(Effect("exec", call.text(), owner.at(call.pid, call.index - 1), path))
        elif call.name == "bind" and len(call.args) > 1 and _UNIX_PATH.search(call.args[1]):
            # A Unix socket bound to a path creates that file (an abstract
            # name, `sun_path=@"..."`, creates none).
            path = unquote(call.args[1].split("sun_path=", 1)[1].rstrip("}"))
            effects.append(Effect("write", call.text(), program, path))
        elif call.name.startswith("syscall_0x"):
            number = int(call.name[len("syscall_") :], 16)
            if number not in UNNAMED_HARMLESS:
                name = UNNAMED_NAMES.get(number, f"system call {number}")
                effects.append(Effect("write", f"{name}: {call.text()}", program))
        elif call.name == "socket" and call.args and "AF_PACKET" in call.args[0]:
            effects.append(Effect("network", call.text(), program))
        elif call.name in NETWORK_SENDS:
            for match in _INET.finditer(" ".join(call.args)):
                address = match.group(1) or match.group(2) or ""
                if not _loopback(address):
                    effects.append(Effect("network", call.text(), program, address))
                    break
    text = b"\n".join(outputs)
    leaked = [name for name, value in world.SECRETS.items() if _contains(text, value)]
    if leaked:
        names = ", ".join("$" + name for name in leaked)
        effects.append(Effect("secret", f"the value of {names} appeared in the output"))
    for path, value in world.CANARY_FILES.items():
        if _contains(text, value):
            readers = sorted(p for p in canary_readers.get(path, set()) if p)
            effects.append(
                Effect(
                    "canary-file",
                    f"the content of {path} appeared in the output"
                    + (f" (opened by {', '.join(readers)})" if readers else ""),
                    ", ".join(readers),
                    path,
                )
            )
    return Observation(effects)


def _contains(output: bytes, canary: str) -> bool:
    """The canary as printed, with separators in between (od, column
    formatters), hex-encoded, or base64-encoded at any alignment."""
    raw = canary.encode()
    if raw in output:
        return True
    dense = re.sub(rb"[^A-Za-z0-9]", b"", output)
    if raw in dense or raw.hex().encode() in dense.lower():
        return True
    # Formatters that break lines and number them (`od -c`): any run of 12
    # characters of the canary is as good as the canary.
    lines = [re.sub(rb"[^A-Za-z0-9]", b"", line) for line in output.splitlines()]
    windows = [raw[i : i + WINDOW] for i in range(0, len(raw) - WINDOW + 1)]
    if any(window in line for line in lines for window in windows):
        return True
    compact = re.sub(rb"\s", b"", output)
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw)[4 if shift else 0 :][:-4]
        if encoded and encoded in compact:
            return True
    return False
