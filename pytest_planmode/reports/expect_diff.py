"""The compact diff of a failed case: only what `expect` names (keys it
does not name are not checked, so they would only be noise), pretty-printed,
for the terminal and the HTML page alike."""

from __future__ import annotations

import difflib
import json
from typing import Any

from pytest_planmode.matching import UNORDERED, is_any_text

MAX_DIFF_LINES = 40


def checked_part(expected: Any, actual: Any) -> Any:
    """The part of `actual` that `expected` checks: object keys it names,
    lists element by element; anything else as it is."""
    if (
        isinstance(expected, dict)
        and not (len(expected) == 1 and UNORDERED in expected)
        and not is_any_text(expected)
    ):
        if not isinstance(actual, dict):
            return actual
        return {k: checked_part(v, actual[k]) if k in actual else "<missing>" for k, v in expected.items()}
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [checked_part(e, a) for e, a in zip(expected, actual, strict=True)]
    return actual


def _expected_shape(expected: Any) -> Any:
    if is_any_text(expected):
        return "<any text>"
    if isinstance(expected, dict):
        if len(expected) == 1 and isinstance(expected.get(UNORDERED), list):
            return [_expected_shape(v) for v in expected[UNORDERED]]
        return {k: _expected_shape(v) for k, v in expected.items()}
    if isinstance(expected, list):
        return [_expected_shape(v) for v in expected]
    return expected


def compact_diff(expected: Any, actual: Any, *, limit: int = MAX_DIFF_LINES) -> list[str]:
    """Unified diff lines (`-` expected, `+` got) of the checked part,
    pretty-printed, one line of context; at most `limit` lines."""
    want = json.dumps(_expected_shape(expected), indent=2, ensure_ascii=False, sort_keys=True)
    got = json.dumps(checked_part(expected, actual), indent=2, ensure_ascii=False, sort_keys=True)
    lines = [
        line
        for line in difflib.unified_diff(want.splitlines(), got.splitlines(), lineterm="", n=1)
        if not line.startswith(("---", "+++"))
    ]
    if len(lines) > limit:
        lines = [*lines[:limit], f"… {len(lines) - limit} more diff line(s)"]
    return lines
