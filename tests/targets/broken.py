"""A deliberately broken exec: target, for the harness's own tests.

    python broken.py MODE [N]

It serves the reference correctly, except that on the request with id N
(default 3; ids keep counting across restarts, so it misbehaves once) it misbehaves as MODE says: `crash` exits with status 3, `hang` never
answers, `garbage` prints a line that is not JSON, `wrong-id` answers with
another id, `two-answers` puts two answer keys in one line. Handshake
modes: `handshake-exit` exits before answering the hello, `handshake-garbage`
answers it with text, `handshake-protocol` claims protocol 99,
`handshake-hang` never answers it, `slow-start` answers it after 2 s.
`exit-1` behaves but exits 1 at end of input. `twice` answers request N
twice in one write; `hang-every` never answers a request whose id is a
multiple of N. `runaway` starts, at every start, a grandchild that ignores
SIGTERM and lives on after the target exits, and another on request N
before it hangs; their process ids go to the file named by the third
argument.
Modes against the harness itself: `fork` starts a child that holds stdout
for an hour and then exits 3; `fork-hang` starts that child and never
answers; `flood` writes 100 MB without a newline; `deep` answers with an
output nested 100,000 levels deep.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

from pytest_planmode.targets.reference.adapter import REFERENCE

RUNAWAY = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(3600)\n"


def runaway(pids: str) -> None:
    """A grandchild that outlives this process and ignores SIGTERM."""
    child = subprocess.Popen(
        [sys.executable, "-c", RUNAWAY], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    with open(pids, "a", encoding="utf-8") as file:
        file.write(f"{child.pid}\n")


def main() -> int:
    mode = sys.argv[1]
    nth = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    out = sys.stdout
    if mode == "runaway":
        runaway(sys.argv[3])
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("op") == "hello" and "id" not in message:
            if mode == "handshake-exit":
                print("cannot start: missing configuration", file=sys.stderr)
                return 2
            if mode == "handshake-garbage":
                out.write("hello there\n")
            elif mode == "handshake-protocol":
                out.write(
                    json.dumps({"protocol": 99, "implementation": {"name": "x"}, "operations": []}) + "\n"
                )
            elif mode == "handshake-hang":
                time.sleep(3600)
            else:
                if mode == "slow-start":
                    time.sleep(2)
                out.write(json.dumps(REFERENCE.hello(message.get("suite", ""))) + "\n")
            out.flush()
            continue
        answer = REFERENCE.call(message["op"], message["input"])
        answer["id"] = message["id"]
        if mode == "hang-every" and message["id"] % nth == 0:
            time.sleep(3600)
        if message["id"] == nth:
            if mode == "runaway":
                runaway(sys.argv[3])
                time.sleep(3600)
            if mode == "twice":
                out.write((json.dumps(answer) + "\n") * 2)
                out.flush()
                continue
            if mode == "crash":
                print("fatal: simulated crash", file=sys.stderr)
                sys.stderr.flush()
                return 3
            if mode == "hang":
                time.sleep(3600)
            if mode in ("fork", "fork-hang"):
                # The child inherits stdout: the pipe stays open after we go.
                subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
                if mode == "fork":
                    return 3
                time.sleep(3600)
            if mode == "flood":
                block = b"x" * (1 << 20)
                for _ in range(100):
                    sys.stdout.buffer.write(block)
                sys.stdout.buffer.flush()
                time.sleep(3600)
            if mode == "deep":
                out.write(
                    f'{{"id": {message["id"]}, "output": {{"accepted": '
                    + "[" * 100_000
                    + "]" * 100_000
                    + "}}\n"
                )
                out.flush()
                continue
            if mode == "garbage":
                out.write("Segmentation fault (core dumped)\n")
                out.flush()
                continue
            if mode == "wrong-id":
                answer["id"] = message["id"] + 1000
            if mode == "two-answers":
                answer["error"] = {"message": "both"}
        out.write(json.dumps(answer) + "\n")
        out.flush()
    return 1 if mode == "exit-1" else 0


if __name__ == "__main__":
    raise SystemExit(main())
