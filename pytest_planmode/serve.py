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
import sys
import traceback
from typing import IO, Any


def _answer(adapter: Any, message: Any) -> dict[str, Any]:
    if not isinstance(message, dict):
        return {"id": None, "error": {"message": "a request must be a JSON object"}}
    rid = message.get("id")
    op = message.get("op")
    if op == "hello" and "id" not in message:
        return dict(adapter.hello(str(message.get("suite", ""))))
    if not isinstance(op, str) or not isinstance(message.get("input"), dict):
        return {"id": rid, "error": {"message": 'a request needs "op" (string) and "input" (object)'}}
    try:
        roots = message.get("roots")
        if isinstance(roots, dict) and "roots" in inspect.signature(adapter.call).parameters:
            answer = dict(adapter.call(op, message["input"], roots=roots))
        else:
            answer = dict(adapter.call(op, message["input"]))
    except Exception as exc:
        traceback.print_exc(file=sys.stderr)
        answer = {"error": {"message": f"{type(exc).__name__}: {exc}"}}
    answer["id"] = rid
    return answer


def serve(adapter: Any, stdin: IO[str], stdout: IO[str]) -> int:
    for line in stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError as exc:
            answer: dict[str, Any] = {"id": None, "error": {"message": f"not JSON: {exc}"}}
        else:
            answer = _answer(adapter, message)
        stdout.write(json.dumps(answer, ensure_ascii=True, separators=(",", ":")) + "\n")
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
    sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape")  # type: ignore[union-attr]
    sys.stdout.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    return serve(adapter, sys.stdin, sys.stdout)


if __name__ == "__main__":
    raise SystemExit(main())
