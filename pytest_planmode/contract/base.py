"""Base classes for operation inputs and outputs.

Every operation's wire shape is a pydantic model; the JSON Schemas a port
reads are generated from these models. JSON field names are camelCase.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class ContractInput(BaseModel):
    """An operation's input: unknown fields are an error, so a typo in a
    fixture is caught by `planmode fixtures lint` rather than ignored."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)


class ContractOutput(BaseModel):
    """An operation's output: a target may add fields beyond the contract.
    An output can be read from any object carrying its fields as attributes
    (`from_attributes`), which is how the reference's adapter builds one."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", frozen=True, from_attributes=True
    )
