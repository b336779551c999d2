"""How an implementation is named to people, from the handshake's
`implementation` object: the terminal summary, the reports and the
failure messages all say it the same way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def implementation_text(impl: Mapping[str, Any]) -> str:
    """An implementation as a handshake names it: `name version (language)`."""
    text = str(impl.get("name", "?"))
    if impl.get("version"):
        text += f" {impl['version']}"
    if impl.get("language"):
        text += f" ({impl['language']})"
    return text
