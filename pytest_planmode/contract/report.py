"""The JSON report written by `--planmode-report` and the wire messages of
the JSON Lines protocol; published as schemas for ports and CI tooling."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Outcome = Literal["passed", "failed", "skipped", "xfailed", "error"]


class _Doc(BaseModel):
    model_config = ConfigDict(extra="allow")


class Counts(_Doc):
    passed: int
    failed: int
    skipped: int
    xfailed: int
    error: int


class CaseResult(_Doc):
    id: str
    operation: str
    level: Literal["must", "reference"] | None
    nodeid: str
    outcome: Outcome
    message: str | None = None
    summary: str | None = Field(default=None, description="One line saying why it failed.")


class Implementation(_Doc):
    name: str
    version: str | None = None
    language: str | None = None


class Report(_Doc):
    suite: str = Field(description="Suite version (SemVer).")
    target: str = Field(description="The --planmode-target string.")
    implementation: Implementation = Field(description="As the target's handshake named it.")
    level: Literal["all", "must"]
    targetExitStatus: int | None = Field(
        description="The exec: target's exit status at end of input (0 expected; null if it hung)."
    )
    totals: Counts
    operations: dict[str, Counts]
    failures: list[CaseResult] = Field(description="Every failed or erroring case, with its message.")
    results: dict[str, Outcome] = Field(description="Every case id that ran, with its outcome.")
    skipReasons: dict[str, str] = Field(description="Every skipped case id, with the reason.")
    expectedFailures: list[str] = Field(description="Case ids that failed as the expectations file says.")


class Hello(_Doc):
    op: Literal["hello"]
    protocol: Literal[1]
    suite: str


class HelloAnswer(_Doc):
    protocol: Literal[1]
    implementation: Implementation
    operations: list[str]


class Request(_Doc):
    id: int
    op: str
    input: dict[str, Any]
    roots: dict[str, str] | None = Field(
        default=None,
        description=(
            "For an operation whose inputs name files: the real directory of each root token "
            "(`$CWD`, `$HOME`, `$AGENT`, `$TMP`) of a fresh sandbox for this request."
        ),
    )


class ErrorBody(_Doc):
    message: str


class OutputAnswer(_Doc):
    id: int
    output: dict[str, Any]


class ErrorAnswer(_Doc):
    id: int
    error: ErrorBody


class UnsupportedAnswer(_Doc):
    id: int
    unsupported: Literal[True]


SCHEMAS: dict[str, type[BaseModel]] = {
    "report.schema.json": Report,
    "protocol/hello.schema.json": Hello,
    "protocol/hello-answer.schema.json": HelloAnswer,
    "protocol/request.schema.json": Request,
    "protocol/answer-output.schema.json": OutputAnswer,
    "protocol/answer-error.schema.json": ErrorAnswer,
    "protocol/answer-unsupported.schema.json": UnsupportedAnswer,
}
