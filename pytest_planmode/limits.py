"""How long the kit waits for a target, how much it accepts from it, and
which Pi releases host `pi:` targets.

The plugin module states these defaults in `--help` and the clients apply
them; both read them here, so neither imports the other.
"""

from __future__ import annotations

#: Seconds a target may take to answer one request.
DEFAULT_TIMEOUT = 5.0
#: Seconds a target may take to start and answer the handshake: its imports,
#: a JIT or a TypeScript loader on a loaded machine, not one request.
DEFAULT_STARTUP_TIMEOUT = 60.0
#: Longest answer line, in bytes.
DEFAULT_MAX_LINE = 16 * 1024 * 1024
#: Seconds a stopped target's process group has between SIGTERM and SIGKILL.
STOP_GRACE = 1.0
#: The Pi releases the kit pins and hosts pi: targets in; the last is the
#: default (the Pi the specs are written against).
PI_VERSIONS = ("0.84.2", "1.6.0")
