"""The JSON report written by `--planmode-report` and the wire messages of
the JSON Lines protocol; published as schemas for ports and CI tooling."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

#: `explained`: skipped because the target observes effects only and the
#: case needs an explanation field; counted apart from other skips.
Outcome = Literal["passed", "failed", "skipped", "explained", "xfailed", "error"]


class _Doc(BaseModel):
    model_config = ConfigDict(extra="allow")


class Counts(_Doc):
    passed: int
    failed: int
    skipped: int = Field(description="Skipped for a reason other than an explanation field.")
    explained: int = Field(
        description=(
            "Skipped because the target observes effects only and the case needs an "
            "explanation field (never failed, never passed)."
        )
    )
    xfailed: int
    error: int


class CaseResult(_Doc):
    id: str
    operation: str
    level: Literal["must", "reference"] | None
    nodeid: str
    outcome: Outcome
    spec: str | None = Field(default=None, description="The spec section the case cites.")
    message: str | None = None
    summary: str | None = Field(default=None, description="One line saying why it failed.")
    rule: str | None = Field(default=None, description="The rule the case's group pins.")
    description: str | None = Field(default=None, description="The case's own words, when it has them.")
    input: Any = Field(default=None, description="The case's input (shortened text when very large).")
    expected: Any = Field(default=None, description="The case's expect: what the output must match.")
    got: Any = Field(default=None, description="The target's output, when it answered one.")
    answer: str | None = Field(default=None, description="The target's answer when it was no output.")


class Implementation(_Doc):
    name: str
    version: str | None = None
    language: str | None = None


class Selection(_Doc):
    level: Literal["all", "must"]
    spec: str | None = Field(description="--planmode-spec: cases whose spec contains this text.")
    keyword: str | None = Field(description="pytest -k expression, if any.")
    markers: str | None = Field(description="pytest -m expression, if any.")


class TargetReport(_Doc):
    name: str = Field(description="The target's name in this run (item names, summaries).")
    target: str = Field(description="The --planmode-target string.")
    implementation: Implementation = Field(description="As the target's handshake named it.")
    operationsListed: list[str] = Field(description="The operations the handshake lists.")
    observes: Literal["everything", "effects"] = Field(description="As the target's handshake declared it.")
    expectationsFiles: list[str] = Field(description="The expectations files read for this target.")
    targetExitStatus: int | None = Field(
        description="The exec: target's exit status at end of input (0 expected; null if it hung)."
    )
    totals: Counts
    operations: dict[str, Counts]
    levels: dict[Literal["must", "reference"], dict[str, Counts]] = Field(
        description="Per level, per operation: the counts of that level's cases."
    )
    failures: list[CaseResult] = Field(description="Every failed or erroring case, with its message.")
    results: dict[str, Outcome] = Field(description="Every case id that ran, with its outcome.")
    skipReasons: dict[str, str] = Field(
        description="Every skipped or explained case id, with the reason (`explanation: <field>`)."
    )
    expectedFailures: list[str] = Field(description="Case ids that failed as the expectations file says.")


class Report(_Doc):
    suite: str = Field(description="Suite version (SemVer).")
    level: Literal["all", "must"]
    selection: Selection = Field(description="Which cases were selected to run.")
    targets: list[TargetReport] = Field(min_length=1, description="Every target judged, in the order given.")


class Hello(_Doc):
    op: Literal["hello"]
    protocol: Literal[2] = Field(description="The protocol the harness speaks.")
    suite: str = Field(description="The suite version (SemVer): what case ids and expectations mean.")


class HelloAnswer(_Doc):
    protocol: Literal[1, 2] = Field(description="2 (1 is still accepted: it observes everything).")
    implementation: Implementation
    operations: list[str]
    observes: Literal["everything", "effects"] = Field(
        default="everything",
        description=(
            "`effects`: the target answers effect fields only (an existing extension seen from "
            "outside); cases whose expectations need an explanation field are skipped with the "
            "reason `explanation: <field>`. Protocol 2 only."
        ),
    )


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


# The three legal answers to a request. The harness parses an answer with
# the `…Body` model (a Python adapter's answer has no `id`; a process's `id`
# is matched to its request first); the published schemas add the `id`.


class OutputBody(_Doc):
    output: dict[str, Any]


class ErrorAnswerBody(_Doc):
    error: ErrorBody


class UnsupportedBody(_Doc):
    unsupported: Literal[True]


class OutputAnswer(OutputBody):
    id: int


class ErrorAnswer(ErrorAnswerBody):
    id: int


class UnsupportedAnswer(UnsupportedBody):
    id: int


SCHEMAS: dict[str, type[BaseModel]] = {
    "report.schema.json": Report,
    "protocol/hello.schema.json": Hello,
    "protocol/hello-answer.schema.json": HelloAnswer,
    "protocol/request.schema.json": Request,
    "protocol/answer-output.schema.json": OutputAnswer,
    "protocol/answer-error.schema.json": ErrorAnswer,
    "protocol/answer-unsupported.schema.json": UnsupportedAnswer,
}
