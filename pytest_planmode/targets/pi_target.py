"""`pi:<extension entry module>`: run a Pi extension itself through a Pi host.

No code from the extension's author: each case is translated once, in the
kit (`pytest_planmode/targets/pi/`), into a host script; the host loads the
extension into a fresh runtime with its own sandbox and answers with what the
extension did; the translation reads the operation's effect fields from that.
The target declares ``"observes": "effects"``: it never reports the
reference's explanations (reasons, codes, internal state).

The host is the real Pi runtime (`hosts/pi/real_host.mjs`), a pinned release
chosen per run with `--planmode-pi=VERSION` (ini `planmode_pi`): `1.6.0` (the
default) or `0.84.2`. A release not yet in the cache is installed on first
use (`planmode pi install VERSION` does it ahead of time). A step Pi cannot
take answers the case `unsupported` with the host's reason.

One host process serves the session (so one per xdist worker), on the Node
its install chose unless `--planmode-pi-node=CMD` (ini `planmode_pi_node`)
names another. Pi loads TypeScript itself.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_planmode import PROTOCOL_VERSION
from pytest_planmode.hosts.pi import install, steps
from pytest_planmode.hosts.pi.client import REAL_HOST_SCRIPT, HostError, PiHost, Sandbox
from pytest_planmode.targets.base import Handshake, KitError, Outcome, TargetError, parse_handshake
from pytest_planmode.targets.pi import TRANSLATIONS, UNSUPPORTED, HostRun, Unsupported
from pytest_planmode.targets.pi.translation import ExtensionError

#: Spent sandboxes are removed in batches of this many.
SWEEP_EVERY = 200
EXTENSIONS = (".mjs", ".js", ".cjs", ".ts", ".mts", ".cts")
#: A memory-backed directory for the sandboxes when the system has one:
#: creating and removing a sandbox's few directories there costs a small
#: fraction of what it costs on disk (see benchmarks/pi_host.py).
MEMORY_SCRATCH = "/dev/shm"
#: The Pi release that hosts pi: targets when `--planmode-pi` is not given:
#: the newest the kit pins, the Pi the specs are written against.
DEFAULT_PI = install.VERSIONS[-1]
#: `--planmode-pi` values that named a host the kit no longer has.
RETIRED = {
    "mock": "the kit's model of Pi (the mock host) was retired in suite 0.9.0; "
    "extensions run inside the real Pi runtime",
}
#: Runs per real-host process before it is replaced (each run leaves about
#: 0.14 MB behind in Pi's runtime).
RECYCLE_EVERY = 400


def scratch_parent() -> str | None:
    """Where sandboxes go: the memory-backed directory if usable, else the
    system's temporary directory (None)."""
    if os.path.isdir(MEMORY_SCRATCH) and os.access(MEMORY_SCRATCH, os.W_OK | os.X_OK):
        return MEMORY_SCRATCH
    return None


def _package(entry: Path) -> dict[str, Any]:
    """The nearest package.json above the entry module, if any."""
    for directory in entry.parents:
        candidate = directory / "package.json"
        if candidate.is_file():
            try:
                data = json.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return {}
            return data if isinstance(data, dict) else {}
    return {}


class PiTarget:
    """`pi:` on one extension. `host`: a running host process of the same Pi
    release to share (each run is a start of Pi, whichever extension the
    process ran before); the target then leaves it running when it closes."""

    def __init__(
        self,
        entry: str,
        *,
        node: str | None = None,
        timeout: float = 5.0,
        pi: str | None = None,
        host: PiHost | None = None,
    ) -> None:
        self.description = f"pi:{entry}"
        which = (pi or DEFAULT_PI).strip()
        if not entry:
            raise TargetError("pi: needs the path of the extension's entry module, e.g. pi:src/index.mjs")
        path = Path(entry).expanduser().resolve()
        if not path.is_file():
            raise TargetError(f"pi:{entry}: no such file ({path.name} not found)")
        if path.suffix not in EXTENSIONS:
            raise TargetError(
                f"pi:{entry}: expected a JavaScript or TypeScript module ({', '.join(EXTENSIONS)})"
            )
        self.entry = path
        if which in RETIRED:
            raise TargetError(
                f"--planmode-pi={which}: {RETIRED[which]}; choose a Pi release, "
                f"{' or '.join(install.VERSIONS)} (default {DEFAULT_PI})"
            )
        try:
            found = install.ensure(install.check_version(which))
        except install.InstallError as exc:
            raise TargetError(f"--planmode-pi={which}: {exc}") from None
        #: The Pi release hosting the extension.
        self.pi_version = found.version
        self._owns_host = host is None
        if host is not None and host.script_args != (str(found.root),):
            raise TargetError(f"{self.description}: the shared host runs another Pi than {found.version}")
        # Importing Pi takes seconds; a run may wait on its 20 s watchdog.
        self.host = host or PiHost(
            node or found.node,
            timeout=max(timeout, 60.0),
            script=REAL_HOST_SCRIPT,
            script_args=(str(found.root),),
            recycle_every=RECYCLE_EVERY,
        )
        self._scratch: Path | None = None
        self.commands: frozenset[str] = frozenset()
        self.hello_answer: dict[str, Any] = {}
        self._spent: list[Sandbox] = []

    @property
    def host_name(self) -> str:
        """The host as messages name it: the Pi release."""
        return f"Pi {self.pi_version}"

    def handshake(self) -> Handshake:
        try:
            hello = self.host.start()
        except HostError as exc:
            raise TargetError(f"{self.description}: {exc}") from None
        # One probe run: which commands the extension registers once started.
        sandbox = self._sandbox()
        try:
            probe = HostRun.from_answer(self.host.run(self.entry, sandbox, [steps.Start()]))
            probe.result(0)
        except (HostError, ExtensionError) as exc:
            raise TargetError(f"{self.description}: the extension does not start: {exc}") from None
        finally:
            sandbox.remove()
        self.commands = frozenset(probe.state.get("commands", []))
        package = _package(self.entry)
        language = "typescript" if self.entry.suffix.endswith("ts") else "javascript"
        answer = {
            "protocol": PROTOCOL_VERSION,
            "implementation": {
                "name": str(package.get("name") or self.entry.stem),
                "version": str(package.get("version") or ""),
                "language": language,
                "host": f"Pi {hello.get('pi')} (real; host {hello.get('hostVersion')}) "
                f"on Node {hello.get('node')}",
            },
            "observes": "effects",
            "operations": sorted({*TRANSLATIONS, *UNSUPPORTED}),
        }
        self.hello_answer = answer
        return parse_handshake(answer, self.description)

    def _sandbox(self) -> Sandbox:
        if self._scratch is None or not self._scratch.is_dir():
            self._scratch = Path(tempfile.mkdtemp(prefix="planmode-pi-", dir=scratch_parent()))
        return Sandbox.create(self._scratch)

    def request(
        self, operation: str, payload: Mapping[str, Any], roots: Mapping[str, str] | None = None
    ) -> Outcome:
        # The sandbox roots are not used yet: the host keeps its own temporary
        # directories per session.
        translation = TRANSLATIONS.get(operation)
        if translation is None:
            reason = UNSUPPORTED.get(operation, "no translation for this operation")
            return Outcome("unsupported", message=f"{operation}: {reason}")
        if translation.command not in self.commands:
            return Outcome(
                "unsupported",
                message=f"the extension registers no /{translation.command} command, "
                f"so it does not implement {translation.spec}",
            )
        other = sorted(self.commands & translation.unless)
        if other:
            return Outcome(
                "unsupported",
                message=f"the extension registers /{other[0]}, so it implements another spec "
                f"than {translation.spec} (whose commands share names with it)",
            )
        sandbox = self._sandbox()
        module = translation.script.__module__
        try:
            try:
                script = steps.wire_script(translation.script(payload, sandbox))
            except (Unsupported, KitError):
                raise
            except Exception as exc:  # the translation's own fault, whatever it is
                raise self._kit_error(operation, module, "built no host script", exc) from exc
            answer = self.host.run(self.entry, sandbox, script, dict(translation.options))
            run = HostRun.from_answer(answer)
            refused = [(r.get("do"), r["refused"]) for r in run.results if r.get("refused")]
            if refused:
                step, why = refused[0]
                return Outcome(
                    "unsupported",
                    message=f"{self.host_name} cannot take the case's {step} step: {why}",
                )
            escapes = [entry for entry in run.trace if "escape" in entry]
            if escapes:
                first = escapes[0]
                return Outcome(
                    "error",
                    message="the extension tried to write outside its sandbox "
                    f"({first['escape']} {first['path']})",
                )
            try:
                output = translation.effects(payload, run)
            except (Unsupported, ExtensionError, RuntimeError):
                raise
            except Exception as exc:  # the translation's own fault, whatever it is
                raise self._kit_error(operation, module, "could not read the host's answer", exc) from exc
            return Outcome("output", output=output, details={"trace": run.trace})
        except Unsupported as exc:
            return Outcome("unsupported", message=str(exc))
        except HostError as exc:
            return Outcome("failure", message=f"{self.description}: {exc}")
        except (ExtensionError, RuntimeError) as exc:
            return Outcome("error", message=f"{self.description}: {exc}")
        finally:
            self._spent.append(sandbox)
            if len(self._spent) >= SWEEP_EVERY:
                self._sweep()

    @staticmethod
    def _kit_error(operation: str, module: str, what: str, exc: BaseException) -> KitError:
        return KitError(
            f"the pi: translation of {operation} ({module}) {what}: "
            f"{type(exc).__name__}: {exc} (a fault of the kit, not of the extension)"
        )

    def _sweep(self) -> None:
        # Removing a sandbox costs about as much as a small case; batch it.
        for spent in self._spent:
            spent.remove()
        self._spent.clear()

    def close(self) -> int | None:
        status = self.host.close() if self._owns_host else None
        self._sweep()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
        return status
