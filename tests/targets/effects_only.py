"""A black-box target for the harness's own tests: the reference seen from
outside.

    python effects_only.py

It serves the reference over JSON Lines, except that it declares
``"observes": "effects"`` in its handshake and leaves every explanation
field (reason, cause, code, basis, internal state) out of every answer, as
an adapter driving an existing extension through a Pi host would. Every
`must` case and every effect-only `reference` case must pass through it;
the cases that need an explanation are skipped with the reason
``explanation: <field>``.
"""

from __future__ import annotations

import sys
from typing import Any

from pytest_planmode import PROTOCOL_VERSION
from pytest_planmode.contract import operations
from pytest_planmode.observability import effects_only
from pytest_planmode.serve import serve
from pytest_planmode.targets.reference.adapter import REFERENCE


class EffectsOnly:
    def hello(self, suite: str) -> dict[str, Any]:
        answer = REFERENCE.hello(suite)
        return {
            **answer,
            "protocol": PROTOCOL_VERSION,
            "implementation": {**answer["implementation"], "name": "reference, effects only"},
            "observes": "effects",
        }

    def call(self, op: str, request: dict[str, Any]) -> dict[str, Any]:
        answer = REFERENCE.call(op, request)
        if "output" not in answer:
            return answer
        return {"output": effects_only(operations()[op].output, answer["output"])}


if __name__ == "__main__":
    sys.exit(serve(EffectsOnly(), sys.stdin, sys.stdout))
