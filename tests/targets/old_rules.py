"""A `python:` target that answers as the reference did before the sandbox
oracle existed, for the three classes of hole it was first run against:
`printf -v` with an arithmetic subscript, process environment files and
`ps e`-style dumps, and `git diff` reading outside the working tree. Every
other answer is the reference's own."""

from __future__ import annotations

from typing import Any

from pytest_planmode.targets.reference.adapter import ReferenceAdapter

#: planmode rules that did not exist then (and the programs whose shape
#: checks were added for these classes).
NEW_RULES = frozenset(["argument.environment-file", "git.diff.outside"])
NEW_SHAPES = frozenset(["printf", "ps"])
NEW_PATTERNS = frozenset(["printf variable"])


class OldRules:
    def __init__(self) -> None:
        self.reference = ReferenceAdapter()

    def hello(self, suite: str) -> dict[str, Any]:
        answer = self.reference.hello(suite)
        answer["implementation"] = {"name": "reference-before-the-sandbox", "version": "0"}
        return answer

    def call(self, op: str, payload: dict[str, Any]) -> dict[str, Any]:
        answer = self.reference.call(op, payload)
        output = answer.get("output")
        if not isinstance(output, dict) or output.get("allowed") is not False:
            return answer
        if op in ("planmode.bash.check", "planmode.powershell.check") and self._old_allows(
            op, payload, output
        ):
            return {"output": {**output, "allowed": True, "blocked": None, "rule": None, "reason": None}}
        if op == "oplmodes.bash.check" and output.get("pattern") in NEW_PATTERNS:
            return {
                "output": {**output, "allowed": True, "reason": None, "blockedSegment": None, "pattern": None}
            }
        return answer

    def _old_allows(self, op: str, payload: dict[str, Any], output: dict[str, Any]) -> bool:
        segments = output.get("segments") or []
        if not segments or payload.get("safeSubcommands") is not None:
            return False
        for segment in segments:
            alone = self.reference.call(op, {"command": segment, "cwd": payload["cwd"]})["output"]
            if alone["allowed"]:
                continue
            rule = alone.get("rule")
            if rule == "argument.environment-file":
                # Checked before every program rule: the segment is old-allowed
                # only if it passes once the file name no longer says environ.
                renamed = segment.replace("environ", "environment-file")
                again = self.reference.call(op, {"command": renamed, "cwd": payload["cwd"]})["output"]
                if again["allowed"]:
                    continue
                rule = again.get("rule")
            if rule in NEW_RULES or (rule == "program.shape" and segment.split()[0] in NEW_SHAPES):
                continue
            return False
        return True


ADAPTER = OldRules
