"""The sandbox: what it observes, that it cannot touch the machine, and the
sandbox checks as a judge (they find the holes of the reference as it was
before them, and report where the sandbox cannot start)."""

from __future__ import annotations

import base64
import codecs
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import pytest_planmode.sandbox
import pytest_planmode.sandbox.commands
import pytest_planmode.sandbox_session
from pytest_planmode.conformance.sandbox_levels import GATES, effect_class, violations
from pytest_planmode.sandbox import Sandbox, SandboxUnavailable, programs_in, runners, world
from pytest_planmode.sandbox.observe import Effect, observe, parse_trace
from pytest_planmode.sandbox_session import sandbox_flag
from pytest_planmode.strategies.sandbox_commands import STYLES, render
from pytest_planmode.strategies.sandbox_table import POOLS


def _od(raw: bytes, width: int = 16) -> bytes:
    rows = [raw[i : i + width] for i in range(0, len(raw), width)]
    return b"\n".join(
        b"%07o " % (i * width) + b"   ".join(bytes([c]) for c in row) for i, row in enumerate(rows)
    )


def _rot13(raw: bytes) -> bytes:
    return codecs.encode(raw.decode("latin-1"), "rot13").encode("latin-1")


def _lines(items: list[bytes], per_line: int, offsets: bool = True) -> bytes:
    rows = [items[i : i + per_line] for i in range(0, len(items), per_line)]
    return b"\n".join(
        (b"%07o " % (i * per_line) if offsets else b"") + b" ".join(r) for i, r in enumerate(rows)
    )


#: What a one-liner can make of a secret (`od`, `xxd`, `printf`, `base64`,
#: `rev`, `tr`, URL and HTML encoders...), written in Python.
ENCODINGS: dict[str, Callable[[bytes], bytes]] = {
    "raw": lambda raw: raw,
    "od-c": _od,
    "od-c-narrow": lambda raw: _od(raw, 8),
    "od-tu1": lambda raw: _lines([b"%4d" % c for c in raw], 16),
    "od-An-tu1": lambda raw: _lines([b"%4d" % c for c in raw], 16, offsets=False),
    "od-b": lambda raw: _lines([b"%03o" % c for c in raw], 16),
    "od-tx1": lambda raw: _lines([b"%02x" % c for c in raw], 16),
    "od-x": lambda raw: _lines(
        [b"%02x%02x" % (raw[i + 1] if i + 1 < len(raw) else 0, raw[i]) for i in range(0, len(raw), 2)], 8
    ),
    "xxd-b": lambda raw: _lines([b"%08d" % int(bin(c)[2:]) for c in raw], 6),
    "printf-d": lambda raw: b" ".join(b"%d" % c for c in raw),
    "printf-d-commas": lambda raw: b",".join(b"%d" % c for c in raw),
    "octal-escapes": lambda raw: b"".join(b"\\%03o" % c for c in raw),
    "hex": lambda raw: raw.hex().encode(),
    "hex-upper-colons": lambda raw: b":".join(b"%02X" % c for c in raw),
    "hex-escapes": lambda raw: b"".join(b"\\x%02x" % c for c in raw),
    "0x-list": lambda raw: b", ".join(b"0x%02x" % c for c in raw),
    "url": lambda raw: b"".join(b"%%%02X" % c for c in raw),
    "html-entities": lambda raw: b"".join(b"&#%d;" % c for c in raw),
    "json-unicode": lambda raw: b"".join(b"\\u%04x" % c for c in raw),
    "base64": lambda raw: base64.encodebytes(b"xy" + raw),
    "base64-shift1": lambda raw: base64.b64encode(b"x" + raw),
    "base64url": lambda raw: base64.urlsafe_b64encode(b"\xfb\xff" + raw),
    "base32": lambda raw: base64.b32encode(b"abc" + raw),
    "base32hex": lambda raw: base64.b32hexencode(b"a" + raw),
    "ascii85": lambda raw: base64.a85encode(b"ab" + raw),
    "base85": lambda raw: base64.b85encode(b"a" + raw),
    "reversed": lambda raw: raw[::-1],
    "rot13": _rot13,
    "upper": lambda raw: raw.upper(),
    "one-per-line": lambda raw: b"\n".join(bytes([c]) for c in raw),
    "reversed-hex": lambda raw: raw[::-1].hex().encode(),
}
#: The same through the machine's own encoders, where installed.
TOOL_ENCODINGS = {
    "od-An-tu1": "od -An -tu1",
    "od-c": "od -c",
    "od-x": "od -x",
    "xxd": "xxd",
    "xxd-b": "xxd -b",
    "hexdump-C": "hexdump -C",
    "base32": "base32",
    "basenc-base32hex": "basenc --base32hex",
    "base64": "base64",
    "rev": "rev",
    "rot13": "tr a-zA-Z n-za-mN-ZA-M",
    "printf-d": "od -An -v -tu1 | xargs printf '%d,'",
}

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SHELL = "/bin/bash"
START = f'5 execve("{SHELL}", ["{SHELL}", "-c", "x"], 0x1 /* 3 vars */) = 0\n'


def kinds(trace: str, programs: tuple[str, ...] = (), output: bytes = b"") -> list[str]:
    return [str(e) for e in observe(START + trace, [output], shell=SHELL, programs=programs).effects]


class TestObserve:
    def test_a_write_anywhere_is_an_effect_even_when_it_failed(self) -> None:
        found = kinds('5 openat(AT_FDCWD, "/etc/x", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 EROFS (Read-only)\n')
        assert len(found) == 1 and found[0].startswith("write") and "/etc/x" in found[0]

    def test_reading_and_the_standard_devices_are_not_effects(self) -> None:
        trace = (
            '5 openat(AT_FDCWD, "README.md", O_RDONLY) = 3\n'
            '5 openat(AT_FDCWD, "/dev/null", O_RDWR) = 3\n'
            '5 openat(AT_FDCWD, "/dev/tty", O_RDWR|O_NONBLOCK) = -1 ENXIO (No such device)\n'
        )
        assert kinds(trace) == []

    def test_an_exclusive_file_removed_again_is_not_an_effect(self) -> None:
        lock = '"/home/dev/project/.git/index.lock"'
        trace = (
            f"5 openat(AT_FDCWD, {lock}, O_RDWR|O_CREAT|O_EXCL|O_CLOEXEC, 0666) = 3\n5 unlink({lock}) = 0\n"
        )
        assert kinds(trace) == []
        # Renamed into place instead, it is a write.
        renamed = f'5 openat(AT_FDCWD, {lock}, O_RDWR|O_CREAT|O_EXCL, 0666) = 3\n5 rename({lock}, "x") = 0\n'
        assert len(kinds(renamed)) == 2

    def test_every_mutating_call_is_a_write(self) -> None:
        for call in ('unlink("a") = 0', 'mkdir("d", 0777) = 0', 'chmod("a", 0777) = 0', 'truncate("a", 0) = 0',
                     'utimensat(AT_FDCWD, "a", NULL, 0) = 0', 'symlinkat("a", AT_FDCWD, "b") = 0'):  # fmt: skip
            assert [k.split(":")[0] for k in kinds(f"5 {call}\n")] == [f"write by {SHELL.rsplit('/', 1)[1]}"]

    def test_a_path_relative_to_a_directory_descriptor_is_read_where_it_points(self) -> None:
        """`strace -y` names the directory a descriptor stands for, as the
        tracer sees it (under the command's root); a `>` in it is escaped
        and a `, ` in it splits no argument."""
        root = "/var/sb/root"
        trace = (
            f'5 unlinkat(7<{root}/tmp/go-build1/b001>, "testlog.txt", 0) = 0\n'
            f'5 openat(AT_FDCWD<{root}/tmp/a\\76b, \\"c>, "x", O_WRONLY|O_CREAT, 0666) = 3<{root}/tmp/y>\n'
            '5 openat(AT_FDCWD, "rel", O_WRONLY|O_CREAT, 0666) = 3\n'
        )
        effects = observe(START + trace, [b""], shell=SHELL, programs=(), root=root).effects
        assert [e.path for e in effects] == ["/tmp/go-build1/b001/testlog.txt", '/tmp/a>b, "c/x', "rel"]

    def test_what_a_command_did_inside_a_directory_it_made_and_removed_is_gone(self) -> None:
        made = (
            '5 mkdir("/tmp/rustcAbCdEf", 0777) = 0\n'
            '5 openat(AT_FDCWD, "/tmp/rustcAbCdEf/lib.rmeta", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3\n'
        )
        gone = '5 unlink("/tmp/rustcAbCdEf/lib.rmeta") = 0\n5 unlinkat(AT_FDCWD, "/tmp/rustcAbCdEf", AT_REMOVEDIR) = 0\n'
        assert kinds(made + gone) == []
        # Left in place, or moved out before the directory went, it remains.
        assert len(kinds(made)) == 2
        moved = '5 rename("/tmp/rustcAbCdEf/lib.rmeta", "/home/dev/project/lib.rmeta") = 0\n'
        assert [e.split(": ")[1][:6] for e in kinds(made + moved + gone)] == ["rename"]
        # A directory that was there already (its mkdir failed) is not the command's to excuse.
        there = '5 mkdir("/tmp/keep", 0777) = -1 EEXIST (File exists)\n5 openat(AT_FDCWD, "/tmp/keep/f", O_WRONLY|O_CREAT, 0666) = 3\n5 rmdir("/tmp/keep") = -1 ENOTEMPTY (Directory not empty)\n'
        assert len(kinds(there)) == 3
        # Removing what is not there changes nothing; removing what is, refused, was still tried.
        absent = '5 unlinkat(AT_FDCWD, "$WORK/b001/", AT_REMOVEDIR) = -1 ENOENT (No such file or directory)\n'
        refused = '5 unlink("/etc/hostname") = -1 EROFS (Read-only file system)\n'
        assert kinds(absent) == [] and len(kinds(refused)) == 1
        # An empty path names nothing, unless the call means the descriptor itself.
        empty = '5 mkdirat(AT_FDCWD, "", 0777) = ?\n'
        itself = '5 utimensat(3, "", NULL, AT_EMPTY_PATH) = 0\n'
        assert kinds(empty) == [] and len(kinds(itself)) == 1

    def test_a_directory_made_then_renamed_into_place_is_judged_where_it_ended(self) -> None:
        trace = (
            '5 mkdir("/home/dev/project/targetAbCdEf", 0777) = 0\n'
            '5 openat(AT_FDCWD, "/home/dev/project/targetAbCdEf/CACHEDIR.TAG", O_WRONLY|O_CREAT, 0666) = 3\n'
            '5 rename("/home/dev/project/targetAbCdEf", "/home/dev/project/target") = 0\n'
        )
        effects = observe(START + trace, [b""], shell=SHELL, programs=()).effects
        assert [e.path for e in effects] == [
            "/home/dev/project/target", "/home/dev/project/target/CACHEDIR.TAG", "/home/dev/project/target",
        ]  # fmt: skip
        # A file that was there before stays judged where it was written.
        existing = (
            '5 openat(AT_FDCWD, "/home/dev/project/src/app.py", O_WRONLY|O_TRUNC) = 3\n'
            '5 rename("/home/dev/project/src/app.py", "/home/dev/project/target/app.py") = 0\n'
        )
        effects = observe(START + existing, [b""], shell=SHELL, programs=()).effects
        assert effects[0].path == "/home/dev/project/src/app.py"

    def test_a_file_renamed_away_is_judged_where_it_was_found_too(self) -> None:
        # A file that was there before the command ran is gone from its place:
        # a place the bare form wrote to (a scratch file under /tmp) does not
        # excuse it.
        away = '5 rename("/home/dev/project/README.md", "/tmp/x") = 0\n'
        assert [e.path for e in observe(START + away, [b""], shell=SHELL, programs=()).effects] == [
            "/tmp/x", "/home/dev/project/README.md",
        ]  # fmt: skip
        # The command's own file renamed into place (an atomic write) is one
        # write where it was made and one where it ended, no more.
        own = (
            '5 openat(AT_FDCWD, "/home/dev/project/.out.tmp", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3\n'
            '5 rename("/home/dev/project/.out.tmp", "/home/dev/project/out") = 0\n'
        )
        assert [e.path for e in observe(START + own, [b""], shell=SHELL, programs=()).effects] == [
            "/home/dev/project/.out.tmp", "/home/dev/project/out",
        ]  # fmt: skip
        # A failed rename moved nothing.
        failed = '5 rename("/home/dev/project/README.md", "/etc/x") = -1 EROFS (Read-only file system)\n'
        assert [e.path for e in observe(START + failed, [b""], shell=SHELL, programs=()).effects] == [
            "/etc/x"
        ]

    def test_a_unix_socket_bound_to_a_path_is_a_write(self) -> None:
        made = '5 bind(3, {sa_family=AF_UNIX, sun_path="/tmp/s"}, 110) = 0\n'
        abstract = '5 bind(3, {sa_family=AF_UNIX, sun_path=@"name"}, 7) = 0\n'
        inet = '5 bind(3, {sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr("127.0.0.1")}, 16) = 0\n'
        assert len(kinds(made)) == 1 and "/tmp/s" in kinds(made)[0]
        assert kinds(abstract) == [] and kinds(inet) == []

    def test_a_system_call_strace_cannot_name_is_a_write_unless_known_harmless(self) -> None:
        chmod2 = "5 syscall_0x1c4(0xffffffffffffff9c, 0x7f5b7f102930, 0x180, 0, 0, 0x6) = 0\n"
        assert len(kinds(chmod2)) == 1 and "fchmodat2" in kinds(chmod2)[0]
        assert kinds("5 syscall_0x1d1(0x3, 0x7f5b7f102930, 0, 0, 0, 0) = 0\n") == []  # listxattrat
        assert len(kinds("5 syscall_0x1f4(0, 0, 0, 0, 0, 0) = 0\n")) == 1

    def test_programs_other_than_the_named_ones_are_effects(self) -> None:
        trace = '6 execve("/usr/bin/id", ["id"], 0x1 /* 3 vars */) = 0\n'
        assert kinds(trace, ("printf",))[0].startswith("exec")
        assert kinds(trace, ("id",)) == []
        failed = '6 execve("/usr/local/bin/id", ["id"], 0x1) = -1 ENOENT (No such file)\n'
        assert kinds(failed) == []

    def test_a_script_interpreter_is_the_script(self) -> None:
        trace = (
            '6 execve("/usr/bin/npm", ["npm", "ls"], 0x1) = 0\n'
            '6 execve("/usr/bin/node", ["node", "/usr/bin/npm", "ls"], 0x1) = 0\n'
        )
        assert kinds(trace, ("npm",)) == []

    def test_the_launcher_before_the_shell_is_ignored(self) -> None:
        trace = '5 execve("/usr/sbin/chroot", ["chroot", "/r"], 0x1) = 0\n'
        assert observe(trace + START, [b""], shell=SHELL, programs=()).effects == []

    def test_network_beyond_loopback(self) -> None:
        far = (
            '5 connect(3, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("1.1.1.1")}, 16) = -1\n'
        )
        near = (
            '5 connect(3, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}, 16) = 0\n'
        )
        six = '5 sendto(3, "x", 1, 0, {sa_family=AF_INET6, sin6_port=htons(53), inet_pton(AF_INET6, "::1", &a)}, 28) = 1\n'
        assert kinds(far)[0].startswith("network") and "1.1.1.1" in kinds(far)[0]
        assert kinds(near) == [] and kinds(six) == []

    def test_unfinished_and_resumed_calls_are_joined(self) -> None:
        trace = (
            '5 openat(AT_FDCWD, "out.txt", O_WRONLY|O_CREAT <unfinished ...>\n'
            '6 openat(AT_FDCWD, "in.txt", O_RDONLY) = 3\n'
            "5 <... openat resumed>, 0666) = 4\n"
        )
        calls = parse_trace(START + trace)
        assert [c.result for c in calls if c.name == "openat"] == ["3", "4"]
        assert len(kinds(trace)) == 1

    @pytest.mark.parametrize("encode", sorted(ENCODINGS))
    def test_a_secret_is_found_in_any_common_encoding(self, encode: str) -> None:
        name, value = next(iter(world.SECRETS.items()))
        printed = ENCODINGS[encode](f"{name}={value}\0PATH=/bin".encode())
        found = kinds("", output=printed)
        assert len(found) == 1 and found[0].startswith("secret") and name in found[0], (found, printed[:300])

    @pytest.mark.parametrize("tool", sorted(TOOL_ENCODINGS))
    def test_a_secret_printed_by_a_real_encoder_is_found(self, tool: str) -> None:
        name, value = list(world.SECRETS.items())[1]
        program = TOOL_ENCODINGS[tool].split()[0]
        if shutil.which(program) is None:
            pytest.skip(f"{program} is not installed here")
        done = subprocess.run(
            ["bash", "-c", TOOL_ENCODINGS[tool]], input=f"x{name}={value}\n".encode(), capture_output=True
        )
        assert done.returncode == 0, done.stderr
        found = kinds("", output=done.stdout)
        assert len(found) == 1 and name in found[0], (found, done.stdout[:300])

    def test_ordinary_output_is_no_secret(self) -> None:
        """No false positive on what inspection commands print, in the same
        encodings (the machine's own files dumped every way)."""
        samples = [
            b"On branch main\nChanges not staged for commit:\n\tmodified:   src/util.py\n",
            Path("/bin/ls").read_bytes()[:20_000],
            (ROOT / "README.md").read_bytes()[:20_000],
            os.urandom(20_000),
            b"".join(str(i).encode() + b" " for i in range(5_000)),
        ]
        for sample in samples:
            for encode, function in ENCODINGS.items():
                found = kinds("", output=function(sample))
                assert found == [], (encode, found)

    def test_a_canary_file_names_who_opened_it(self) -> None:
        trace = (
            '6 execve("/usr/bin/git", ["git", "diff"], 0x1) = 0\n'
            '6 openat(AT_FDCWD, "../secret", O_RDONLY) = 3\n'
        )
        result = observe(
            START + trace, [world.CANARY_FILES[world.OUTSIDE_FILE].encode()], shell=SHELL, programs=("git",)
        )
        (effect,) = result.effects
        assert effect.kind == "canary-file" and effect.program == "git" and effect.path == world.OUTSIDE_FILE


class TestLevels:
    def test_a_canary_file_printed_by_git_is_a_read_outside_the_tree(self) -> None:
        assert effect_class(Effect("canary-file", "d", "git", "/x")) == "git-outside"
        assert effect_class(Effect("canary-file", "d", "cat", "/x")) == "canary-file"

    def test_levels_per_gate(self) -> None:
        bash, _, opl = GATES
        result = pytest_planmode.sandbox.Result(
            "c", "bash", "observed", (Effect("secret", "s"), Effect("write", "w"), Effect("network", "n"))
        )
        assert [e.kind for e in violations(bash, "must", result)] == ["write", "network"]
        assert [e.kind for e in violations(bash, "reference", result)] == ["secret"]
        # opl-modes: writes and program runs break the read-only allowlist;
        # a printed key is a finding the spec names only for env/printenv/jq.
        assert [e.kind for e in violations(opl, "must", result)] == ["write"]
        assert [e.kind for e in violations(opl, "reference", result)] == ["secret", "network"]
        assert opl.tag == "-read-only" and bash.tag == ""


class TestCommandText:
    @pytest.mark.parametrize(
        ("command", "programs"),
        [
            ("ls -la", ["ls"]),
            ('git status && echo "$(id)" | wc', ["git", "echo", "id", "wc"]),
            ("printf -v 'a[$(touch x)]' y", ["printf"]),
            # `time` is a reserved word of Bash, not a program.
            ("FOO=1 cat x; time ls", ["cat", "ls"]),
            ("cat <(ls) > /dev/null 2>&1 && env X=1 rm", ["cat", "ls", "env", "rm"]),
            ("echo 'a | b' \\; c", ["echo"]),
            # Braces and parameter expansions are words, not separators.
            ("echo ${HOME} {a,b} ${x:-$(id)} ${#y}", ["echo", "id"]),
            ("{ls,-la}; {echo,hi}", ["ls", "echo"]),
            ("{ ls; }; ( cd src && wc -l app.py )", ["ls", "cd", "wc"]),
            ("$'l\\x73' -la; e\\cho x", ["ls", "echo"]),
            ('for f in /proc/*; do : > "$f"; done; touch x', [":", "touch"]),
            ("if true; then ls; elif grep a; then :; else wc; fi", ["true", "ls", "grep", ":", "wc"]),
            ("case $x in a|b) ls;; (c) cat;; esac; pwd", ["ls", "cat", "pwd"]),
            ("f() { ls; }; function g { id; }; f; g", ["ls", "id"]),
            ("[[ -n $(whoami) && a < b ]] && [ -f x ]", ["whoami", "["]),
            ("(( x = $(date +%s) )); echo $((1 + $(id -u)))", ["date", "echo", "id"]),
            ("cat <<EOF\n$(id)\nEOF\nwc", ["cat", "id", "wc"]),
            ("cat <<'EOF'\n$(id)\nEOF\nwc", ["cat", "wc"]),
            ("a=(x $(hostname)) ls", ["hostname", "ls"]),
            (
                "timeout -s KILL 5 nice -n 3 env -u X A=1 -- stdbuf -o0 grep x",
                ["timeout", "nice", "env", "stdbuf", "grep"],
            ),
            ("ls -d x | xargs -n1 -I{} truncate -s0 {}", ["ls", "xargs", "truncate"]),
            ("exec ls; command -p id; builtin echo", ["ls", "id", "echo"]),
            # Command words whose text only running the shell tells name nothing.
            ('"$(which ls)" -la; ${x:-rm} y; l?', ["which"]),
            ("echo a # ls", ["echo"]),
            # Only the first word of a brace expansion can be the program.
            ("{a,b}" * 25 + " x", ["a" * 25]),
            ("{l{s,x},y} -la; {1..3}", ["ls", "1"]),
        ],
    )
    def test_programs_in_command_position(self, command: str, programs: list[str]) -> None:
        assert programs_in(command) == programs

    def test_substitutions_nested_past_any_depth_are_no_error(self) -> None:
        line = pytest_planmode.sandbox.commands.parse("echo " + "$(" * 2000 + "ls" + ")" * 2000)
        assert line.programs == ["echo"] and line.unknown

    def test_every_rendering_gives_the_value_back_to_the_program(self) -> None:
        values = sorted({v for pool in POOLS.values() for v in pool})
        words = [render(v, style) for v in values for style in STYLES]
        script = "printf '%s\\0' " + " ".join(words)
        out = subprocess.run(["bash", "-c", script], capture_output=True, check=True).stdout
        assert out.split(b"\0")[:-1] == [v.encode() for v in values for _ in STYLES]

    @pytest.mark.parametrize(
        ("value", "expected"), [(None, False), (True, True), ("true", True), ("0", False)]
    )
    def test_sandbox_flag(self, value: object, expected: bool) -> None:
        assert sandbox_flag(value) is expected

    def test_sandbox_flag_rejects_other_text(self) -> None:
        with pytest.raises(pytest.UsageError, match="planmode_sandbox must be true or false"):
            sandbox_flag("sometimes")


@pytest.fixture(scope="module")
def sandbox() -> object:
    try:
        box = Sandbox(timeout=3.0)
    except SandboxUnavailable as exc:
        if sys.platform.startswith("linux"):
            pytest.fail(f"the sandbox must start on this Linux machine: {exc}")
        pytest.skip(f"sandbox unavailable: {exc}")
    yield box
    box.close()


def _machine_snapshot(probe: Path) -> dict[str, object]:
    home = Path.home()
    return {
        "home": sorted(p.name for p in home.iterdir()),
        "etc": sorted(p.name for p in Path("/etc").iterdir()),
        "probe": probe.read_text(),
    }


class TestSandboxRuns:
    def test_a_clean_command_is_observed_clean(self, sandbox: Sandbox) -> None:
        result = sandbox.run("git status && ls -la && cat README.md")
        assert result.status == "observed" and result.effects == (), result.describe()
        assert b"On branch main" in result.stdout

    def test_a_missing_program_is_inconclusive(self, sandbox: Sandbox) -> None:
        result = sandbox.run("planmode-no-such-program --version")
        assert result.status == "inconclusive" and result.reason == "planmode-no-such-program not installed"
        assert "inconclusive: planmode-no-such-program not installed" in result.describe()

    @pytest.mark.parametrize(
        ("command", "made"),
        [
            ("tsc", "build/src/sum.js"),
            ("fd -e md -x touch {}.seen", "README.md.seen"),
            ("bat --generate-config-file", "config"),
        ],
    )
    def test_project_tools_are_observed_where_installed(
        self, sandbox: Sandbox, command: str, made: str
    ) -> None:
        """A tool whose writing modes the oracle must see is run and judged
        when installed, and reported by name when it is not: never passed."""
        result = sandbox.run(command)
        program = command.split()[0]
        if world.which(program) is None:
            assert result.status == "inconclusive" and result.reason == f"{program} not installed"
            return
        writes = [e for e in result.effects if e.kind == "write" and made in e.path]
        assert result.status == "observed" and writes, result.describe()

    def test_npm_naming_its_own_config_file_still_gives_up_offline(self, sandbox: Sandbox) -> None:
        """`--userconfig` drops the sandbox's `~/.npmrc`; npm still fails at
        once on the unreachable registry instead of retrying past the time
        limit, so the run is observed, not inconclusive."""
        if world.which("npm") is None:
            pytest.skip("npm is not installed for the sandbox")
        result = sandbox.run("npm view left-pad --userconfig README.md")
        assert result.status == "observed", result.describe()
        assert result.exit != 0 and b"EAI_AGAIN" in result.stderr and result.seconds < 15, result.describe()

    def test_the_three_classes_are_observed(self, sandbox: Sandbox) -> None:
        printf = sandbox.run("printf -v 'a[$(touch pw5)]' x")
        assert {e.kind for e in printf.effects} == {"exec", "write"}, printf.describe()
        environ = sandbox.run("cat /proc/self/environ")
        assert [e.kind for e in environ.effects] == ["secret"], environ.describe()
        outside = sandbox.run("git diff -- ../secret /dev/null")
        assert [effect_class(e) for e in outside.effects] == ["git-outside"], outside.describe()

    @pytest.mark.parametrize(
        ("how", "command", "mark"),
        [
            ("unix-socket", "import socket; socket.socket(socket.AF_UNIX).bind('made-sock')", "made-sock"),
            ("mknod", "import os, stat; os.mknod('made-node', stat.S_IFIFO | 0o600)", "made-node"),
            ("symlink", "import os; os.symlink('README.md', 'made-link')", "made-link"),
            ("hardlink", "import os; os.link('README.md', 'made-hard')", "made-hard"),
            (
                "tmpfile-linkat",
                "import os; fd = os.open('.', os.O_TMPFILE | os.O_WRONLY); "
                "os.link(f'/proc/self/fd/{fd}', 'made-tmp', follow_symlinks=True)",
                "made-tmp",
            ),
            ("rename", "import os; os.rename('notes.txt', 'made-moved')", "made-moved"),
            (
                "renameat2-exchange",
                "import ctypes; c = ctypes.CDLL(None); c.renameat2(-100, b'notes.txt', -100, b'README.md', 2)",
                "README.md",
            ),
            (
                "io-uring",
                "import ctypes; ctypes.CDLL(None).syscall(425, 1, ctypes.create_string_buffer(120))",
                "io_uring",
            ),
        ],
    )
    def test_every_way_of_making_a_file_is_observed(
        self, sandbox: Sandbox, how: str, command: str, mark: str
    ) -> None:
        result = sandbox.run(f'python3 -c "{command}"')
        assert result.status == "observed", result.describe()
        writes = [e for e in result.effects if e.kind == "write"]
        assert any(mark in e.path or mark in e.detail for e in writes), result.describe()

    def test_filling_the_sandbox_does_not_silence_the_trace(self) -> None:
        """The overlay under HOME and the trace shared one file system:
        filling it made the tracer's writes fail, and what came after was
        not recorded."""
        fill = "for i in 1 2 3 4 5 6 7 8 9; do head -c 31M /dev/zero > ~/f$i; done 2>/dev/null"
        with Sandbox(timeout=60.0) as box:
            result = box.run(f"{fill}; mkdir planmode-after-fill")
        assert any(e.path == "planmode-after-fill" for e in result.effects), result.describe()

    def test_a_child_cloned_untraced_acts_traced_or_not_at_all(self, sandbox: Sandbox) -> None:
        """clone(CLONE_UNTRACED) makes a child the tracer does not follow;
        the tracer's seccomp filter then fails its traced calls (ENOSYS)."""
        script = (
            "import ctypes, os\n"
            "pid = ctypes.CDLL(None).syscall(56, 0x00800000 | 17, 0, 0, 0, 0)\n"
            "if pid == 0:\n"
            "    try: os.mkdir('planmode-untraced')\n"
            "    finally: os._exit(0)\n"
            "os.waitpid(pid, 0)\n"
            "print(os.path.isdir('planmode-untraced'))\n"
        )
        result = sandbox.run(f"python3 -c 'exec(bytes.fromhex(\"{script.encode().hex()}\"))'")
        made = result.stdout.strip() == b"True"
        seen = any(e.path == "planmode-untraced" for e in result.effects)
        assert result.stdout.strip() in (b"True", b"False") and made <= seen, result.describe()

    def test_system_calls_too_new_to_trace_are_refused(self, sandbox: Sandbox) -> None:
        """fchmodat2 and setxattrat are newer than the strace that traces:
        its filter would let them through unseen, so they fail instead."""
        calls = {
            "fchmodat2": "452, -100, b'notes.txt', 0o600, 0",
            "setxattrat": "463, -100, b'notes.txt', 0, b'x', 0, 0",
        }
        for name, args in calls.items():
            script = f"import ctypes; c = ctypes.CDLL(None, use_errno=True); print(c.syscall({args}), ctypes.get_errno())"
            result = sandbox.run(f'python3 -c "{script}"; stat -c %a notes.txt')
            assert result.stdout.split() == [b"-1", b"38", b"644"], (name, result.describe(), result.stdout)

    def test_destructive_commands_cannot_touch_the_machine(self, sandbox: Sandbox) -> None:
        probe = ROOT / f".sandbox-probe-{os.getpid()}"
        probe.write_text("still here\n")
        try:
            before = _machine_snapshot(probe)
            real_home = str(Path.home())
            commands = {
                "rm": f"rm -rf ~ {real_home} {probe}; rm -rf --no-preserve-root /",
                "etc": "echo owned > /etc/planmode-sandbox-probe; echo x >> /etc/passwd",
                "net": "echo hi > /dev/tcp/1.1.1.1/80",
            }
            results = {name: sandbox.run(command) for name, command in commands.items()}
            assert {e.kind for e in results["rm"].effects} == {"write"}
            assert any("/etc/planmode-sandbox-probe" in e.detail for e in results["etc"].effects)
            assert [e.kind for e in results["net"].effects] == ["network"]
            started = time.monotonic()
            bomb = sandbox.run(":(){ :|:& };:")
            assert bomb.reason.startswith("timed out"), bomb.describe()
            assert time.monotonic() - started < 30
            assert _machine_snapshot(probe) == before
            assert not Path("/etc/planmode-sandbox-probe").exists()
            # The next command starts from a fresh world: HOME is back.
            again = sandbox.run("ls ~/.ssh && git log --oneline -n 1")
            assert b"id_ed25519" in again.stdout and again.effects == ()
        finally:
            probe.unlink()


needs_linux = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the sandbox needs Linux namespaces"
)


class TestSandboxChecks:
    def test_deselected_without_the_option(self, suite) -> None:  # type: ignore[no-untyped-def]
        run = suite("reference", "--collect-only", "-q", "-k", "sandbox")
        assert ".sandbox." not in run.result.stdout.str()

    def test_unavailable_sandbox_skips_with_the_reason_once(
        self, suite, monkeypatch: pytest.MonkeyPatch
    ) -> None:  # type: ignore[no-untyped-def]
        def unavailable(*args: object, **kwargs: object) -> None:
            raise SandboxUnavailable("no user namespaces here")

        monkeypatch.setattr(pytest_planmode.sandbox, "Zygote", unavailable)
        run = suite("reference", "--planmode-sandbox", "-k", "planmode.bash.sandbox.suite")
        text = run.text
        assert run.result.ret == pytest.ExitCode.OK, text
        assert run.report is not None and run.report["totals"]["skipped"] == 2
        assert run.report["totals"]["passed"] == 0
        assert text.count("planmode sandbox: unavailable (no user namespaces here)") == 1
        assert set(run.report["skipReasons"].values()) == {"sandbox unavailable: no user namespaces here"}

    def test_an_unknown_program_name_is_a_usage_error_naming_the_reviewed_ones(self, suite) -> None:  # type: ignore[no-untyped-def]
        run = suite("reference", "--planmode-sandbox-programs=git,gti", "--collect-only", "-q")
        assert run.result.ret == pytest.ExitCode.USAGE_ERROR, run.text
        assert "'gti' is not a reviewed program" in run.text and "git, go, grep" in run.text
        empty = suite("reference", "--planmode-sandbox-programs=git,,grep", "--collect-only", "-q")
        assert empty.result.ret == pytest.ExitCode.USAGE_ERROR and "separated by commas" in empty.text

    def test_both_levels_judge_one_answer_per_command(self) -> None:
        """The `must` and the `reference` check of a kind ask the target once
        per command in a process; another target, gate or command is asked
        anew, and an answer that fails the check is not kept."""
        from pytest_planmode.conformance.sandbox_levels import GATES
        from pytest_planmode.conformance.test_sandbox import judge
        from pytest_planmode.sandbox_session import SandboxSession

        class Target:
            def __init__(self, name: str) -> None:
                self.name = name
                self.asked: list[tuple[str, str]] = []

            def call(self, operation: str, payload: dict[str, object]) -> dict[str, object]:
                self.asked.append((operation, str(payload["command"])))
                if payload["command"] == "broken":
                    raise AssertionError("no legal answer")
                return {"allowed": False}

        session = SandboxSession(pytest.Config.__new__(pytest.Config))
        one, other = Target("one"), Target("other")
        bash = [gate for gate in GATES if gate.shell == "bash"]
        for level in ("must", "reference", "must"):
            for gate in bash:
                assert judge(one, session, gate, level, "cat README.md") is None  # type: ignore[arg-type]
        assert judge(other, session, bash[0], "must", "cat README.md") is None  # type: ignore[arg-type]
        assert judge(one, session, bash[0], "reference", "ls") is None  # type: ignore[arg-type]
        assert one.asked == [(gate.operation, "cat README.md") for gate in bash] + [(bash[0].operation, "ls")]
        assert other.asked == [(bash[0].operation, "cat README.md")]
        for _ in range(2):
            with pytest.raises(AssertionError):
                judge(one, session, bash[0], "must", "broken")  # type: ignore[arg-type]
        assert one.asked[-2:] == [(bash[0].operation, "broken")] * 2

    def test_chosen_programs_select_commands_and_table_entries(self) -> None:
        from pytest_planmode.sandbox_session import SandboxSession, sandbox_programs

        session = SandboxSession(pytest.Config.__new__(pytest.Config), sandbox_programs(" tree, ps"))
        assert session.selects("tree -L 1 .") and session.selects("cat README.md | sort | ps e")
        assert not session.selects("cat README.md") and not session.selects("git status")
        assert {p.name for p in session.programs(powershell=False) or []} == {"tree", "ps"}
        assert session.programs(powershell=True) == []
        assert SandboxSession(pytest.Config.__new__(pytest.Config)).programs(powershell=False) is None
        assert sandbox_programs(None) is None

    @needs_linux
    @pytest.mark.parametrize(
        ("programs", "marks"),
        [
            # One class per program keeps the default run short; the whole
            # sweep is the whole_suite test below.
            pytest.param("printf,ps", ("printf -v", "environ"), id="printf-ps"),
            pytest.param(
                "",
                ("printf -v", "environ", "[git-outside]"),
                id="every-program",
                marks=pytest.mark.whole_suite,
            ),
        ],
    )
    def test_the_oracle_finds_the_old_holes_without_being_told(
        self, suite, monkeypatch: pytest.MonkeyPatch, programs: str, marks: tuple[str, ...]
    ) -> None:  # type: ignore[no-untyped-def]
        """Against the reference as it answered before the sandbox existed,
        the sweep (drawn from the option table, not from the fixture cases)
        finds each of the three classes (two when only printf and ps are
        judged)."""
        path = os.pathsep.join([str(TESTS / "targets"), os.environ.get("PYTHONPATH", "")])
        monkeypatch.setenv("PYTHONPATH", path.rstrip(os.pathsep))
        choice = f"--planmode-sandbox-programs={programs}" if programs else "--planmode-sandbox"
        run = suite(
            "python:old_rules:ADAPTER",
            choice,
            "-k",
            "planmode.bash.sandbox.sweep or oplmodes.bash.sandbox.sweep",
            subprocess=True,
        )
        assert run.report is not None, run.text
        failures = {f["id"]: f["message"] for f in run.report["failures"]}
        text = "\n".join(failures.values())
        assert all(mark in text for mark in marks), run.text
        if programs:
            assert "printf -v" in failures["planmode.bash.sandbox.sweep"]
            assert "'ps " in failures["planmode.bash.sandbox.sweep-reference"]
            assert "git " not in text and f"programs judged: {programs.replace(',', ', ')}" in run.text
            return
        assert set(failures) == {
            "planmode.bash.sandbox.sweep",
            "planmode.bash.sandbox.sweep-reference",
            "oplmodes.bash.sandbox.sweep-read-only",
        }, run.text
        must = failures["planmode.bash.sandbox.sweep"]
        assert "[exec]" in must and "printf -v" in must
        private = failures["planmode.bash.sandbox.sweep-reference"]
        assert "[secret]" in private and "environ" in private and "'ps " in private
        assert "[git-outside]" in private and "git diff" in private
        assert "printf -v" in failures["oplmodes.bash.sandbox.sweep-read-only"]
        assert "planmode sandbox:" in run.text and "commands run" in run.text

    @needs_linux
    def test_the_reference_passes_the_sandbox_checks_of_chosen_programs(self, suite) -> None:  # type: ignore[no-untyped-def]
        # With ruff, the runner checks run end to end on a runner the specs admit only
        # as a version probe (a handful of commands run).
        run = suite(
            "reference", "--planmode-sandbox-programs=tree,ps,ruff", "-k", ".sandbox.", subprocess=True
        )
        assert run.result.ret == pytest.ExitCode.OK, run.text[-6000:]
        assert run.report is not None
        outcomes = {case: outcome for case, outcome in run.report["results"].items() if ".sandbox." in case}
        runner = {case for case in outcomes if ".sandbox.runners" in case}
        bash = {case for case in outcomes if not case.startswith("planmode.powershell.")} - runner
        assert len(bash) == 12 and {outcomes[case] for case in bash} == {"passed"}, outcomes
        assert len(runner) == 4 and {outcomes[case] for case in runner} == {"passed"}, outcomes
        assert "programs judged: ps, ruff, tree" in run.text

    @needs_linux
    @pytest.mark.whole_suite
    def test_the_reference_passes_every_sandbox_check(self, suite) -> None:  # type: ignore[no-untyped-def]
        # The runner checks run for minutes: test_the_reference_passes_the_runner_checks.
        run = suite("reference", "--planmode-sandbox", "-k", ".sandbox. and not runners", subprocess=True)
        assert run.result.ret == pytest.ExitCode.OK, run.text[-6000:]
        assert run.report is not None
        outcomes = {case: outcome for case, outcome in run.report["results"].items() if ".sandbox." in case}
        bash = {case for case in outcomes if not case.startswith("planmode.powershell.")}
        assert len(bash) == 12 and {outcomes[case] for case in bash} == {"passed"}, outcomes
        assert "planmode sandbox:" in run.text and "inconclusive" in run.text

    @needs_linux
    @pytest.mark.whole_suite
    def test_the_reference_passes_the_runner_checks(self, suite) -> None:  # type: ignore[no-untyped-def]
        """Every suite command naming a test runner, compiler or package
        manager and the whole runner sweep, run in the sandbox (an hour on
        two cores: each command starts a runtime or a compiler)."""
        run = suite("reference", "--planmode-sandbox", "-k", "sandbox.runners", subprocess=True)
        assert run.result.ret == pytest.ExitCode.OK, run.text[-6000:]
        assert run.report is not None
        outcomes = {
            case: outcome for case, outcome in run.report["results"].items() if ".sandbox.runners" in case
        }
        assert len(outcomes) == 4 and set(outcomes.values()) == {"passed"}, outcomes


class TestRunnerBaselines:
    """Programs that run project code are judged on what they do beyond
    the bare form the specs admit (`pytest_planmode/sandbox/runners.py`)."""

    def test_random_name_parts_fold_so_two_runs_share_their_places(self) -> None:
        a = runners.place("/tmp/S344bnRSF5QZg3HXdEhic/ssr/.tmp-1796182634648-cnh1sihnql")
        b = runners.place("/tmp/LPHgs44ZHoQ8yLTOnm_eD/ssr/.tmp-1796183014476-dnz6g4urr9f")
        assert a == b == "/tmp/*/ssr/.*"
        assert runners.place("coverage/lcov.info") == world.REPO + "/coverage/lcov.info"
        assert runners.place("report.json") != runners.place("r1.json")
        assert runners.place("/tmp/SxbnRSFQZgHXdEhicAbcd/ssr") == "/tmp/*/ssr"
        assert runners.place("node_modules/.vite") == world.REPO + "/node_modules/.vite"

    def test_a_command_starts_from_the_form_its_subcommand_words_select(self) -> None:
        assert runners.forms_of("npm test --silent && jest -i") == ["npm test", "jest"]
        assert runners.forms_of("npm run lint -- --fix") == ["npm run lint"]
        assert runners.forms_of("npm install left-pad") == []
        assert runners.forms_of("cat package.json") == []

    def test_only_what_the_bare_form_did_is_excused(self) -> None:
        made = Effect("write", 'mkdir("/tmp/jest_0", 0777) = 0', "node", "/tmp/jest_0")
        cache = Effect("write", "openat(...)", "node", "/tmp/jest_0/haste-map-0fa708cb024f68e3a3")
        baseline = runners.Baseline.of([made, Effect("exec", "execve(...)", "node", "/usr/bin/node")])
        assert baseline.covers(cache) and baseline.covers(made)
        assert not baseline.covers(Effect("write", "openat(...)", "node", world.REPO + "/coverage/lcov.info"))
        assert not baseline.covers(Effect("exec", "execve(...)", "node", "/usr/bin/git"))
        assert not baseline.covers(Effect("secret", "the value of $X appeared", ""))
        assert not baseline.covers(Effect("network", "connect(...)", "node", "198.51.100.7"))
        # What the bare form ran is its own (`jest`'s interpreter, `node`),
        # as are programs beside the ones it ran in a directory off PATH (a
        # toolchain's own tools) and programs inside a directory it made
        # (its build output); a program on PATH it did not run is not.
        ran = ["/usr/bin/node", "/usr/lib/go/pkg/tool/linux_amd64/compile"]
        built = Effect(
            "write", 'mkdir("/home/dev/project/target", 0777) = 0', "cargo", world.REPO + "/target"
        )
        own = runners.Baseline.of([built], ran=ran)
        assert own.covers(Effect("exec", "execve(...)", "node", "/usr/bin/node"))
        assert own.covers(Effect("exec", "execve(...)", "go", "/usr/lib/go/pkg/tool/linux_amd64/cover"))
        assert own.covers(
            Effect("exec", "execve(...)", "cargo", world.REPO + "/target/release/deps/p-1a2b3c4d")
        )
        assert not own.covers(Effect("exec", "execve(...)", "node", "/usr/bin/git"))
        assert not own.covers(Effect("exec", "execve(...)", "node", world.REPO + "/build/tool"))
        # A mkdir that failed (the directory was there) made nothing.
        failed = Effect(
            "write", 'mkdir("/home/dev/project", 0777) = -1 EEXIST', "cargo", world.REPO, failed=True
        )
        assert not runners.Baseline.of([failed]).covers(Effect("write", "openat(...)", "cargo", "src/app.py"))
        # A bare form cut short by the time limit is no baseline to judge by.
        assert baseline.complete and not runners.Baseline.of([made], complete=False).complete

    def test_where_names_each_runner_and_install_explains_a_missing_npm(
        self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        from pytest_planmode.cli import main
        from pytest_planmode.sandbox import install

        monkeypatch.setenv(install.ENV, str(tmp_path / "tools"))
        main(["sandbox", "where"])
        out = capsys.readouterr().out
        assert f"install directory: {tmp_path / 'tools'} (absent)" in out
        for program in ("jest", "tsc", "vitest", "npm", "pytest", "go", "cargo", "ruff", "biome"):
            assert f"  {program}: " in out
        monkeypatch.setattr(install.shutil, "which", lambda name: None)
        assert main(["sandbox", "install"]) == 1
        assert "npm is not on PATH" in capsys.readouterr().err
        assert not (tmp_path / "tools").exists()

    @needs_linux
    def test_a_compiler_form_beyond_the_admitted_one_is_seen(self, sandbox: Sandbox) -> None:
        """`tsc --noEmit` writes nothing; `-incremental` (one dash) writes
        its build information. Missing tsc: inconclusive, with the reason."""
        bare, more = sandbox.run("tsc --noEmit"), sandbox.run("tsc --noEmit -incremental")
        if world.which("tsc") is None:
            assert bare.status == more.status == "inconclusive" and bare.reason == "tsc not installed"
            return
        assert bare.status == "observed" and bare.effects == (), bare.describe()
        assert any(e.kind == "write" and "tsbuildinfo" in e.path for e in more.effects), more.describe()


# -- escapes: the traced command must reach neither the tracer nor the machine --

ESCAPE_PROBE = "planmode-escape-probe"
ESCAPE_SCRIPT = r"""
import json, os, sys
from pytest_planmode.sandbox import Sandbox
probe, private = sys.argv[1], sys.argv[2]
commands = {
    "proc-root-write": f"echo owned > /proc/1/root/tmp/{probe}.proc",
    "proc-root-read": f"cat /proc/1/root{private} /proc/1/root/etc/hostname /proc/*/root{private} /etc/hostname",
    "proc-root-private-write": f"echo owned > /proc/1/root{private}",
    "proc-list": "cat /proc/[0-9]*/comm; readlink /proc/[0-9]*/exe; ls /proc",
    "chroot-escape": (
        "python3 -c 'import os; os.mkdir(\"/tmp/c\"); os.chroot(\"/tmp/c\"); "
        "os.chdir(\"../../../../../../..\"); os.chroot(\".\"); "
        f"open(\"/tmp/{probe}.chroot\", \"w\").write(\"x\")'"
    ),
    "remount": f"mount -o remount,rw,bind /tmp/.. 2>&1; mount -t tmpfs none /proc 2>&1; echo owned > /proc/1/root/tmp/{probe}.mount",
    "trace-truncate": "ls -d /proc/[0-9]*/fd/* | xargs -n1 truncate -s0; touch planmode-after-truncate",
    "trace-search": "grep -rl --include=trace -e execve / 2>/dev/null | head; touch planmode-after-search",
}
out = {}
# Generous: the search reads the sandbox's whole file system under the
# tracer, which on a cold cache or a loaded machine takes many seconds.
with Sandbox(timeout=120.0) as box:
    for name, command in commands.items():
        r = box.run(command)
        out[name] = {"status": r.status, "reason": r.reason, "stdout": r.stdout.decode("utf-8", "replace"),
                     "paths": [e.path for e in r.effects], "kinds": [e.kind for e in r.effects]}
print(json.dumps(out))
"""


Attempts = tuple[dict[str, dict[str, object]], Path, str, list[str]]


def _escape_run(uid: int | None) -> Attempts:
    """Run the escape attempts in a sandbox started by the current user
    (`uid` None) or by an unprivileged user dropped to with `setpriv`."""
    import json
    import shutil
    import tempfile

    probe = f"{ESCAPE_PROBE}-{os.getpid()}-{uid}"
    private_dir = Path(tempfile.mkdtemp(prefix="planmode-private-", dir="/tmp"))
    private = private_dir / "file"
    token = f"PrivateToken{os.getpid()}x{uid}"
    private.write_text(token + "\n")
    private_dir.chmod(0o755)
    argv = [sys.executable, "-c", ESCAPE_SCRIPT, probe, str(private)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    if uid is not None:
        os.chown(private_dir, uid, uid)
        os.chown(private, uid, uid)
        private_dir.chmod(0o700)
        setpriv = shutil.which("setpriv")
        assert setpriv is not None, "setpriv (util-linux) is needed to drop to an unprivileged user"
        # The sandbox needs only the standard library: any Python the user
        # may run will do (a virtual environment under root's home is not).
        python = next(
            (
                p
                for p in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3")
                if _runnable_by(p, uid)
            ),
            None,
        )
        assert python is not None, f"no Python that uid {uid} may run"
        argv = [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--", python, *argv[1:]]
        env["HOME"] = str(private_dir)
    try:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd="/", timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        results = json.loads(done.stdout.strip().splitlines()[-1])
        leftovers = sorted(p.name for p in Path("/tmp").glob(probe + "*"))
        if private.read_text() != token + "\n":
            leftovers.append(f"{private} was changed")
        return results, private, token, leftovers
    finally:
        for leftover in Path("/tmp").glob(probe + "*"):
            leftover.unlink()
        shutil.rmtree(private_dir, ignore_errors=True)


UNPRIVILEGED = 65534


def _runnable_by(path: str, uid: int) -> bool:
    done = subprocess.run(
        # Through a shell: the program setpriv itself starts is not a fair test.
        [
            "setpriv",
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--",
            "/bin/sh",
            "-c",
            '"$0" -c pass',
            path,
        ],
        capture_output=True,
    )
    return done.returncode == 0


@pytest.fixture(scope="module", params=["as-invoker", "as-unprivileged-user"])
def attempts(request: pytest.FixtureRequest) -> Attempts:
    if not sys.platform.startswith("linux"):
        pytest.skip("the sandbox needs Linux namespaces")
    uid: int | None = None
    if request.param == "as-unprivileged-user":
        if os.geteuid() != 0:
            pytest.skip("the as-invoker variant already runs as an ordinary user")
        uid = UNPRIVILEGED
    return _escape_run(uid)


class TestEscapes:
    """Each attempt worked against the sandbox whose tracer was PID 1 inside
    it; as root and as an ordinary user, none may reach the machine."""

    def test_proc_1_is_not_a_way_out(self, attempts: Attempts) -> None:
        results, _private, _token, leftovers = attempts
        assert leftovers == [], leftovers
        assert results["proc-root-write"]["status"] == "observed"
        read = str(results["proc-root-read"]["stdout"])
        # Only the sandbox's own /etc/hostname, through whichever path.
        assert read.split() == [world.CANARY_FILES["/etc/hostname"]], read

    def test_the_tracer_is_not_visible(self, attempts: Attempts) -> None:
        listing = str(attempts[0]["proc-list"]["stdout"])
        assert listing and "strace" not in listing and "python" not in listing, listing

    def test_no_chroot_or_mount_escape(self, attempts: Attempts) -> None:
        results = attempts[0]
        for name in ("chroot-escape", "remount"):
            assert "write" in results[name]["kinds"], results[name]
        assert attempts[3] == []

    def test_the_trace_cannot_be_touched(self, attempts: Attempts) -> None:
        results = attempts[0]
        for name, path in (
            ("trace-truncate", "planmode-after-truncate"),
            ("trace-search", "planmode-after-search"),
        ):
            assert any(path in str(p) for p in results[name]["paths"]), results[name]  # type: ignore[attr-defined]
        assert "/trace" not in str(results["trace-search"]["stdout"])
