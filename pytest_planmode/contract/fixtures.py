"""The fixture file format (`fixtures/<extension>/<area>.toml`).

A file is a list of groups; a group names one operation, the spec section it
comes from and its level, and holds cases. The JSON Schema of this model is
shipped as `schemas/fixture-file.schema.json`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

CASE_ID_PATTERN = r"^[a-z0-9][a-z0-9._-]*[a-z0-9]$"
SPEC_PATTERN = r"^\S+\.md § .+$"

Level = Literal["must", "reference"]
#: How a group's cases were found (`FixtureGroup.found`).
Found = Literal["mutation", "sandbox", "review"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FixtureCase(_Strict):
    id: str = Field(
        pattern=CASE_ID_PATTERN,
        description="Stable, unique across the suite; a changed meaning gets a new id.",
    )
    description: str | None = None
    input: dict[str, Any] = Field(description="The operation's input (merged over the group's defaults).")
    expect: dict[str, Any] = Field(
        description=(
            "The expected output, matched partially: every key given must match, "
            "keys not given are not checked; lists match element by element."
        )
    )
    level: Level | None = Field(default=None, description="Overrides the group's level.")
    spec: str | None = Field(default=None, pattern=SPEC_PATTERN, description="Overrides the group's spec.")


class FixtureGroup(_Strict):
    description: str
    operation: str = Field(pattern=r"^[a-z]+(\.[a-z0-9-]+)+$")
    spec: str = Field(
        pattern=SPEC_PATTERN,
        description="'<document> § <section heading>', e.g. 'opl-modes.md § Mode behavior'.",
    )
    level: Level = Field(
        description=(
            "'must': the spec states it. 'reference': the spec leaves it open and the "
            "case pins the reference's choice."
        )
    )
    defaults: dict[str, Any] = Field(
        default_factory=dict, description="Input fields shared by every case of the group."
    )
    found: Found | None = Field(
        default=None,
        description=(
            "How the group's cases were found, where that is worth keeping: `mutation`, by mutants "
            "of the reference that no case killed; `sandbox`, by running commands for real in the "
            "sandbox (`--planmode-sandbox`); `review`, by a review of rules no case pinned. A file "
            "is named by the area its cases pin, never by how they were found."
        ),
    )
    case: list[FixtureCase] = Field(min_length=1)


class FixtureFile(_Strict):
    group: list[FixtureGroup] = Field(min_length=1)


SCHEMAS = {"fixture-file.schema.json": FixtureFile}
