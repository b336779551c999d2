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
  again before it ended (Git's optional index lock, `sort`'s spill files),
  and what it wrote inside a directory it made and removed again (a
  compiler's scratch directory), and a removal of something that was not
  there (`ENOENT`) or of an empty path (it names nothing). A path relative to a directory descriptor
  is read against the directory the tracer names (`strace -y`), so a
  command that changed directory is judged where it wrote.
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
import dataclasses
import functools
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
    #: The call failed (still an effect: it was attempted).
    failed: bool = False

    def __str__(self) -> str:
        by = f" by {self.program}" if self.program else ""
        return f"{self.kind}{by}: {self.detail}"


@dataclass
class Observation:
    effects: list[Effect] = field(default_factory=list)
    #: Every program the command executed (the shell, the programs its
    #: command line names and their interpreters included), as paths.
    ran: frozenset[str] = frozenset()

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
        elif char == "<" and i and (text[i - 1].isalnum() or text[i - 1] == "_"):
            # `strace -y`: the file a descriptor names, `7</tmp/d>` (a `>`
            # in the name is escaped, `\76`): one piece of the argument.
            end = text.find(">", i)
            i = len(text) if end < 0 else end
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
                path = _path_arg(call, 0 if call.name == "execve" else 1)
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


_DESCRIBED = re.compile(r"^(?:-?\d+|AT_FDCWD)<(.*)>$", re.S)


def _path_arg(call: Call, where: int, root: str = "") -> str:
    """The path argument at `where`, made absolute against the directory
    descriptor before it where the call takes one (`strace -y` prints the
    directory it names, the process's own working directory for
    `AT_FDCWD`, as the tracer sees it: under the command's `root`);
    otherwise as given (a relative path then stands for one in the working
    tree)."""
    path = unquote(call.args[where]) if len(call.args) > where else ""
    if path.startswith("/") or where == 0 or not call.name.endswith(("at", "at2")):
        return path
    described = _DESCRIBED.match(call.args[where - 1])
    if described is None:
        return path
    directory = unquote(f'"{described.group(1)}"')
    if root and (directory == root or directory.startswith(root + "/")):
        directory = directory[len(root) :] or "/"
    return os.path.normpath(os.path.join(directory, path))


def _open_parts(call: Call, root: str) -> tuple[str, str] | None:
    if call.name == "open" and len(call.args) >= 2:
        return unquote(call.args[0]), call.args[1]
    if call.name in ("openat", "openat2") and len(call.args) >= 3:
        return _path_arg(call, 1, root), call.args[2]
    if call.name == "creat" and call.args:
        return unquote(call.args[0]), "O_CREAT|O_WRONLY|O_TRUNC"
    return None


def _moved(effects: list[Effect], source: str, target: str) -> None:
    """A directory the command made, then renamed into place (`cargo`
    builds `target/` as `targetXXXXXX` first): what it did there happened at
    the place it ended up, where a baseline knows it. Only a directory the
    command made: a renamed file or directory that was there before is
    judged where the command found it."""
    if not any(
        e.detail.startswith(("mkdir(", "mkdirat(")) and not e.failed and _resolve(e.path) == source
        for e in effects
        if e.path
    ):
        return
    for index, effect in enumerate(effects):
        resolved = _resolve(effect.path) if effect.path else ""
        if resolved == source or resolved.startswith(source + "/"):
            effects[index] = dataclasses.replace(effect, path=target + resolved[len(source) :])


class _Transient:
    """Directories the command made and removed again before it ended (a
    compiler's scratch directory, `/tmp/rustcXXXXXX`): what was written
    inside one while it existed is gone, as with a file made exclusively
    and removed. Only what left it (a rename out of it) remains."""

    def __init__(self, calls: Sequence[Call], root: str) -> None:
        self.spans: dict[str, list[tuple[int, int]]] = {}
        made: dict[str, int] = {}
        for call in calls:
            if not call.ok:
                continue
            if call.name in ("mkdir", "mkdirat"):
                made[_resolve(_path_arg(call, MUTATIONS[call.name] or 0, root))] = call.index
            elif call.name == "rmdir" or (
                call.name == "unlinkat" and bool(call.args) and "AT_REMOVEDIR" in call.args[-1]
            ):
                path = _resolve(_path_arg(call, MUTATIONS[call.name] or 0, root))
                if path in made:
                    self.spans.setdefault(path, []).append((made.pop(path), call.index))

    def covers(self, path: str, index: int) -> bool:
        if not self.spans or not path:
            return False
        place = _resolve(path)
        while True:
            if any(begin <= index <= end for begin, end in self.spans.get(place, ())):
                return True
            parent = os.path.dirname(place)
            if parent == place:
                return False
            place = parent


def _empty_path_allowed(call: Call) -> bool:
    """Whether an empty path stands for the descriptor itself here."""
    return any("AT_EMPTY_PATH" in arg for arg in call.args)


def _loopback(address: str) -> bool:
    return address.startswith("127.") or address in ("::1", "::ffff:127.0.0.1", "0.0.0.0", "::")


def observe(
    trace: str,
    outputs: Iterable[bytes],
    *,
    shell: str,
    programs: Iterable[str],
    root: str = "",
) -> Observation:
    """What the command traced in `trace` did (`root`: the directory the
    tracer sees as the command's `/`)."""
    calls = parse_trace(trace)
    # Everything before the shell starts belongs to the sandbox's own launcher.
    start = next(
        (c.index for c in calls if c.name == "execve" and c.ok and c.args and unquote(c.args[0]) == shell),
        len(calls),
    )
    owner = _Programs([c for c in calls if c.index >= start])
    calls = [c for c in calls if c.index > start]
    allowed = {os.path.basename(shell), *programs}
    transient = _Transient(calls, root)
    effects: list[Effect] = []
    exclusive: dict[str, Call] = {}
    removed: set[str] = set()
    for call in calls:
        if call.name in ("unlink", "unlinkat") and call.ok:
            removed.add(_resolve(_path_arg(call, MUTATIONS[call.name] or 0, root)))
    canary_readers: dict[str, set[str]] = {}
    for call in calls:
        program = owner.at(call.pid, call.index)
        parts = _open_parts(call, root)
        if parts is not None:
            path, flags = parts
            if not any(flag in flags for flag in WRITE_FLAGS):
                if call.ok:
                    canary_readers.setdefault(_resolve(path), set()).add(program)
                continue
            if path in HARMLESS_DEVICES or (not path and not _empty_path_allowed(call)):
                continue
            if "O_EXCL" in flags and _resolve(path) in removed:
                exclusive[_resolve(path)] = call
                continue
            if transient.covers(path, call.index):
                continue
            effects.append(Effect("write", call.text(), program, path, not call.ok))
        elif call.name in MUTATIONS:
            where = MUTATIONS[call.name]
            path = _path_arg(call, where, root) if where is not None else ""
            if call.name in ("unlink", "unlinkat") and _resolve(path) in exclusive:
                continue
            if where is not None and not path and not _empty_path_allowed(call):
                # An empty path names nothing (the call fails, `ENOENT`).
                continue
            if call.name in ("unlink", "unlinkat", "rmdir") and call.result.startswith("-1 ENOENT"):
                # Nothing was there to remove (`go test -n` removes its
                # unexpanded `$WORK/b001/`): nothing changed.
                continue
            if transient.covers(path, call.index):
                continue
            renamed_away = ""
            if call.name in ("rename", "renameat", "renameat2") and call.ok:
                source = _path_arg(call, 0 if call.name == "rename" else 1, root)
                resolved = _resolve(source)
                # What was there before the command ran is gone from where it
                # was found: a write there too. What the command made itself
                # (written, made exclusively, made in a scratch directory) is
                # judged where it was made, or where a made directory ended.
                made = (
                    resolved in exclusive
                    or transient.covers(source, call.index)
                    or any(e.path and _resolve(e.path) == resolved for e in effects)
                )
                _moved(effects, resolved, _resolve(path))
                renamed_away = "" if made else source
            effects.append(Effect("write", call.text(), program, path, not call.ok))
            if renamed_away:
                effects.append(Effect("write", call.text(), program, renamed_away))
        elif call.name in ("execve", "execveat") and call.ok:
            path = _path_arg(call, 0 if call.name == "execve" else 1, root)
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
    finder = SecretFinder(b"\n".join(outputs))
    leaked = [name for name, value in world.SECRETS.items() if finder.contains(value)]
    if leaked:
        names = ", ".join("$" + name for name in leaked)
        effects.append(Effect("secret", f"the value of {names} appeared in the output"))
    for path, value in world.CANARY_FILES.items():
        if finder.contains(value):
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
    ran = frozenset(path for paths in owner.paths.values() for _, path in paths)
    return Observation(effects, ran)


class SecretFinder:
    """Finds canaries in a command's output as a one-liner can print them:
    as is or with separators in between (`od -c`, one per line), in any
    letter case, reversed, rot13 or rot47; as character codes in decimal,
    octal, hex (also as little-endian 16-bit words, `od -x`) or binary,
    with any separators and escapes (`od`, `xxd`, `hexdump`, `printf`,
    `\\163`, `\\x73`, `%73`, `&#115;`, `\\u0073`); in base64, base64url,
    base32, base32hex, ascii85 and base85 at any alignment.

    A run of `WINDOW` characters of a canary in a row is as good as the
    canary (line offsets and breaks cut dumps into pieces). Canaries are
    random-looking letters and digits, so ordinary output never holds one."""

    def __init__(self, output: bytes) -> None:
        lowered = output.lower()
        # Dumps number their lines: without the offsets, the characters of
        # one line run on into the next.
        unnumbered = _OFFSET.sub(b"", lowered)
        self.views = [
            lowered,
            re.sub(rb"[^a-z0-9]", b"", lowered),
            re.sub(rb"[^a-z0-9]", b"", unnumbered),
            *_code_streams(lowered),
        ]
        self.compact = re.sub(rb"\s", b"", output)
        self.pieces = [_pieces(view) for view in self.views]
        self.compact_pieces = _pieces(self.compact)

    def contains(self, canary: str) -> bool:
        windows, grams, cores, core_grams = _needles(canary)
        for view, pieces in zip(self.views, self.pieces, strict=True):
            if not pieces.isdisjoint(grams) and _holds(view, windows, grams):
                return True
        return not self.compact_pieces.isdisjoint(core_grams) and any(core in self.compact for core in cores)


_GRAM = WINDOW // 2


def _pieces(view: bytes) -> frozenset[bytes]:
    """The view's _GRAM-byte pieces at multiples of _GRAM: a needle of at
    least 2 * _GRAM bytes found anywhere in the view covers one of them."""
    return frozenset(view[q : q + _GRAM] for q in range(0, len(view) - _GRAM + 1, _GRAM))


def _holds(view: bytes, windows: frozenset[bytes], grams: frozenset[bytes]) -> bool:
    found = [q for q in range(0, len(view) - _GRAM + 1, _GRAM) if view[q : q + _GRAM] in grams]
    return any(view[p : p + WINDOW] in windows for q in found for p in range(max(0, q - _GRAM), q + 1))


@functools.lru_cache(maxsize=64)
def _needles(canary: str) -> tuple[frozenset[bytes], frozenset[bytes], frozenset[bytes], frozenset[bytes]]:
    raw = canary.encode()
    windows: set[bytes] = set()
    for variant in _variants(raw):
        windows.update(variant[i : i + WINDOW] for i in range(len(variant) - WINDOW + 1))
    cores = _encoded_cores(raw)
    return (
        frozenset(windows),
        frozenset(w[i : i + _GRAM] for w in windows for i in range(WINDOW - _GRAM + 1)),
        frozenset(cores),
        frozenset(c[i : i + _GRAM] for c in cores for i in range(len(c) - _GRAM + 1)),
    )


def _variants(raw: bytes) -> list[bytes]:
    text = raw.decode("latin-1")
    rot13 = text.translate(_ROT13)
    rot47 = "".join(chr(33 + (ord(c) - 33 + 47) % 94) if 33 <= ord(c) <= 126 else c for c in text)
    return [v.lower().encode("latin-1") for v in (text, text[::-1], rot13, rot13[::-1], rot47)]


_ROT13 = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "nopqrstuvwxyzabcdefghijklmNOPQRSTUVWXYZABCDEFGHIJKLM",
)
_OFFSET = re.compile(rb"(?m)^[ \t]*[0-9a-f]{6,}:?(?=[ \t])")
#: Escape prefixes before a character code: `\x73`, `0x73`, `%73`, `&#x73;`, `\u0073`, `U+0073`.
_HEX_PREFIX = re.compile(rb"\\x|0x|%|&#x|\\u00|u\+00")


def _code_streams(lowered: bytes) -> list[bytes]:
    """The output read as lists of character codes, one stream per way of
    writing a code; a token that is no code of that kind is left out
    (offsets, the text column of a dump)."""
    decimal = [int(t) for t in re.findall(rb"(?<!\d)\d{1,3}(?!\d)", lowered)]
    octal = [int(t, 8) for t in re.findall(rb"(?<!\d)[0-7]{1,3}(?!\d)", lowered)]
    bits = [int(t, 2) for t in re.findall(rb"(?<![01])[01]{8}(?![01])", lowered)]
    plain = _HEX_PREFIX.sub(b" ", lowered)
    hexes = re.findall(rb"(?<![0-9a-f])(?:[0-9a-f]{2})+(?![0-9a-f])", plain)
    words = bytes.fromhex(b"".join(re.findall(rb"(?<![0-9a-f])[0-9a-f]{4}(?![0-9a-f])", plain)).decode())
    streams = [
        bytes(c for c in decimal if c < 256),
        bytes(c for c in octal if c < 256),
        bytes(bits),
        bytes.fromhex(b"".join(hexes).decode()),
        # 16-bit words as `od -x` prints them: the second byte first.
        b"".join(words[i + 1 : i + 2] + words[i : i + 1] for i in range(0, len(words) - 1, 2)),
    ]
    return [stream.lower() for stream in streams if stream]


_BLOCKS = (
    (base64.b64encode, 3, 4),
    (base64.urlsafe_b64encode, 3, 4),
    (base64.b32encode, 5, 8),
    (base64.b32hexencode, 5, 8),
    (base64.a85encode, 4, 5),
    (base64.b85encode, 4, 5),
)


def _encoded_cores(raw: bytes) -> list[bytes]:
    """What every encoding of a text holding `raw` contains, at each
    alignment of `raw` to the encoder's blocks: the encoded blocks made of
    `raw`'s bytes alone."""
    cores: list[bytes] = []
    for encode, block, chars in _BLOCKS:
        for shift in range(block):
            encoded = encode(b"\0" * shift + raw)
            # Drop the first block (it holds the filler) and the last one
            # (padding, or bytes that follow in the real output).
            core = encoded[chars if shift else 0 :][: -chars or None]
            if len(core) >= 2 * WINDOW:
                cores.append(core)
    return cores
