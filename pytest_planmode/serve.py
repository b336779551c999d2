"""Serve a Python adapter over the JSON Lines protocol on stdin/stdout.

    python -m pytest_planmode.serve                    # the reference
    python -m pytest_planmode.serve python:pkg.mod:ADAPTER

This is the protocol's own test (the suite runs through it in CI) and the
template a port copies: read the hello, answer it, then answer each request
with exactly one line carrying the same id, and exit 0 at end of input.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
import traceback
from typing import IO, Any

_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


def _readable_id(line: bytes) -> Any:
    """The request's id from a line that could not be decoded, if one shows."""
    match = _ID.search(line)
    if match is None:
        return None
    try:
        return json.loads(match.group(1))
    except ValueError:
        return None


class _Session:
    """One connection: the hello first, then requests, each answered by
    exactly one line; no input line ends the session."""

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter
        self.greeted = False

    def answer(self, line: bytes) -> dict[str, Any]:
        try:
            message = json.loads(line)
        except (ValueError, RecursionError) as exc:
            what = "nested too deeply" if isinstance(exc, RecursionError) else f"not JSON: {exc}"
            return {"id": _readable_id(line), "error": {"message": f"the request is {what}"}}
        if not isinstance(message, dict):
            return {"id": None, "error": {"message": "a request must be a JSON object"}}
        rid = message.get("id")
        op = message.get("op")
        if op == "hello" and "id" not in message:
            if self.greeted:
                return {"id": None, "error": {"message": "the handshake was already answered"}}
            self.greeted = True
            return dict(self.adapter.hello(str(message.get("suite", ""))))
        if not isinstance(op, str) or not isinstance(message.get("input"), dict):
            return {"id": rid, "error": {"message": 'a request needs "op" (string) and "input" (object)'}}
        try:
            roots = message.get("roots")
            if isinstance(roots, dict) and "roots" in inspect.signature(self.adapter.call).parameters:
                answer = dict(self.adapter.call(op, message["input"], roots=roots))
            else:
                answer = dict(self.adapter.call(op, message["input"]))
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            answer = {"error": {"message": f"{type(exc).__name__}: {str(exc)[:2000]}"}}
        answer["id"] = rid
        return answer


def _encode(answer: dict[str, Any]) -> str:
    try:
        return json.dumps(answer, ensure_ascii=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as exc:
        fallback = {"id": answer.get("id"), "error": {"message": f"the answer cannot be encoded: {exc}"}}
        return json.dumps(fallback, ensure_ascii=True, default=str)


def serve(adapter: Any, stdin: IO[bytes], stdout: IO[str]) -> int:
    session = _Session(adapter)
    for line in stdin:
        if not line.strip():
            continue
        try:
            answer = session.answer(line)
        except Exception as exc:  # the session outlives any one line
            answer = {"id": _readable_id(line), "error": {"message": f"{type(exc).__name__}: {exc}"}}
        stdout.write(_encode(answer) + "\n")
        stdout.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if args:
        from pytest_planmode.targets.base import TargetError
        from pytest_planmode.targets.python_target import load_object

        spec = args[0]
        if not spec.startswith("python:"):
            print(f"serve: expected python:package.module:attribute, got {spec!r}", file=sys.stderr)
            return 2
        try:
            adapter = load_object(spec[len("python:") :])
        except TargetError as exc:
            print(f"serve: {exc}", file=sys.stderr)
            return 2
    else:
        from pytest_planmode.targets.reference.adapter import REFERENCE

        adapter = REFERENCE
    sys.stdout.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    # Bytes in: json.loads reads UTF-8 itself and says so when it is not.
    return serve(adapter, sys.stdin.buffer, sys.stdout)


if __name__ == "__main__":
    raise SystemExit(main())
