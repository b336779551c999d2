"""The sandbox: what it observes, that it cannot touch the machine, and the
sandbox checks as a judge (they find the holes of the reference as it was
before them, and report where the sandbox cannot start)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import pytest_planmode.sandbox
import pytest_planmode.sandbox_session
from pytest_planmode.conformance.sandbox_levels import GATES, effect_class, violations
from pytest_planmode.sandbox import Sandbox, SandboxUnavailable, programs_in, world
from pytest_planmode.sandbox.observe import Effect, observe, parse_trace
from pytest_planmode.sandbox_session import sandbox_flag
from pytest_planmode.strategies.sandbox_commands import STYLES, render
from pytest_planmode.strategies.sandbox_table import POOLS

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

    @pytest.mark.parametrize("encode", ["raw", "od", "hex", "base64"])
    def test_a_secret_is_found_in_any_common_encoding(self, encode: str) -> None:
        import base64

        name, value = next(iter(world.SECRETS.items()))
        raw = f"{name}={value}\0PATH=/bin".encode()
        printed = {
            "raw": raw,
            "od": b"\n".join(
                b"%07o " % i + b"   ".join(bytes([c]) for c in raw[i : i + 16])
                for i in range(0, len(raw), 16)
            ),
            "hex": raw.hex().encode(),
            "base64": base64.b64encode(b"xy" + raw),
        }[encode]
        found = kinds("", output=printed)
        assert len(found) == 1 and found[0].startswith("secret") and name in found[0]

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
        assert [e.kind for e in violations(opl, "must", result)] == ["secret", "write"]
        assert [e.kind for e in violations(opl, "reference", result)] == ["network"]


class TestCommandText:
    @pytest.mark.parametrize(
        ("command", "programs"),
        [
            ("ls -la", ["ls"]),
            ('git status && echo "$(id)" | wc', ["git", "echo", "id", "wc"]),
            ("printf -v 'a[$(touch x)]' y", ["printf"]),
            ("FOO=1 cat x; time ls", ["cat", "time", "ls"]),
            ("cat <(ls) > /dev/null 2>&1 && env X=1 rm", ["cat", "ls", "env", "rm"]),
            ("echo 'a | b' \\; c", ["echo"]),
        ],
    )
    def test_programs_in_command_position(self, command: str, programs: list[str]) -> None:
        assert programs_in(command) == programs

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
        assert result.status == "inconclusive" and "not installed" in result.reason

    def test_the_three_classes_are_observed(self, sandbox: Sandbox) -> None:
        printf = sandbox.run("printf -v 'a[$(touch pw5)]' x")
        assert {e.kind for e in printf.effects} == {"exec", "write"}, printf.describe()
        environ = sandbox.run("cat /proc/self/environ")
        assert [e.kind for e in environ.effects] == ["secret"], environ.describe()
        outside = sandbox.run("git diff -- ../secret /dev/null")
        assert [effect_class(e) for e in outside.effects] == ["git-outside"], outside.describe()

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

    @needs_linux
    def test_the_oracle_finds_the_old_holes_without_being_told(
        self, suite, monkeypatch: pytest.MonkeyPatch
    ) -> None:  # type: ignore[no-untyped-def]
        """Against the reference as it answered before the sandbox existed,
        the sweep (drawn from the option table, not from the fixture cases)
        finds each of the three classes."""
        path = os.pathsep.join([str(TESTS / "targets"), os.environ.get("PYTHONPATH", "")])
        monkeypatch.setenv("PYTHONPATH", path.rstrip(os.pathsep))
        run = suite(
            "python:old_rules:ADAPTER",
            "--planmode-sandbox",
            "-k",
            "planmode.bash.sandbox.sweep or oplmodes.bash.sandbox.sweep",
            subprocess=True,
        )
        assert run.report is not None, run.text
        failures = {f["id"]: f["message"] for f in run.report["failures"]}
        assert set(failures) == {
            "planmode.bash.sandbox.sweep",
            "planmode.bash.sandbox.sweep-reference",
            "oplmodes.bash.sandbox.sweep",
        }, run.text
        must = failures["planmode.bash.sandbox.sweep"]
        assert "[exec]" in must and "printf -v" in must
        private = failures["planmode.bash.sandbox.sweep-reference"]
        assert "[secret]" in private and "environ" in private and "'ps " in private
        assert "[git-outside]" in private and "git diff" in private
        assert "printf -v" in failures["oplmodes.bash.sandbox.sweep"]
        assert "planmode sandbox:" in run.text and "commands run" in run.text

    @needs_linux
    def test_the_reference_passes_every_sandbox_check(self, suite) -> None:  # type: ignore[no-untyped-def]
        run = suite("reference", "--planmode-sandbox", "-k", ".sandbox.", subprocess=True)
        assert run.result.ret == pytest.ExitCode.OK, run.text[-6000:]
        assert run.report is not None
        outcomes = {case: outcome for case, outcome in run.report["results"].items() if ".sandbox." in case}
        bash = {case for case in outcomes if not case.startswith("planmode.powershell.")}
        assert len(bash) == 12 and {outcomes[case] for case in bash} == {"passed"}, outcomes
        assert "planmode sandbox:" in run.text and "inconclusive" in run.text
