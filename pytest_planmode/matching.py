"""How a target's output is compared with a case's `expect`."""

from __future__ import annotations

import json
from typing import Any


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 300 else text[:297] + "..."


UNORDERED = "$unordered"
#: `{"$anyText": true}` matches any string with a non-blank character: a
#: message the spec asks for whose wording it leaves open ("with a warning").
ANY_TEXT = "$anyText"


#: `{"$anyTextBut": ["Refine"]}` matches any string with a non-blank
#: character except the texts listed: an item the spec says changes (a
#: counter shown) whose new wording it leaves open.
ANY_TEXT_BUT = "$anyTextBut"


#: `{"$textWith": ["grep", "inactive in Pi"]}` matches a string holding
#: each text listed, ignoring case; `{"$textWithout": [...]}` one holding
#: none of them; both keys together, both conditions. For what a screen
#: shows: the spec names the words a row or a notice holds, not its wording.
TEXT_WITH = "$textWith"
TEXT_WITHOUT = "$textWithout"
_TEXT_KEYS = frozenset({TEXT_WITH, TEXT_WITHOUT})

#: `{"$has": [pattern, ...]}` matches a list holding, for each pattern, an
#: item that matches it (a different item for each, in any order; other
#: items allowed): what was shown among whatever else was shown.
HAS = "$has"


def is_text_with(expected: Any) -> bool:
    """True for a well-formed `$textWith` / `$textWithout` matcher."""
    return (
        isinstance(expected, dict)
        and bool(expected)
        and set(expected) <= _TEXT_KEYS
        and all(isinstance(v, list) and all(isinstance(t, str) for t in v) for v in expected.values())
    )


def is_has(expected: Any) -> bool:
    return isinstance(expected, dict) and len(expected) == 1 and isinstance(expected.get(HAS), list)


def _text_with(expected: dict[str, list[str]], actual: Any, path: str) -> list[str]:
    if not isinstance(actual, str):
        return [f"{path}: expected a text, got {_show(actual)}"]
    folded = actual.casefold()
    lacking = [t for t in expected.get(TEXT_WITH, []) if t.casefold() not in folded]
    holding = [t for t in expected.get(TEXT_WITHOUT, []) if t.casefold() in folded]
    found = []
    if lacking:
        found.append(f"{path}: expected a text holding {_show(lacking)}, got {_show(actual)}")
    if holding:
        found.append(f"{path}: expected a text without {_show(holding)}, got {_show(actual)}")
    return found


def _has(expected: list[Any], actual: Any, path: str) -> list[str]:
    if not isinstance(actual, list):
        return [f"{path}: expected a list, got {_show(actual)}"]
    unused = list(range(len(actual)))
    for want in expected:
        match = next((i for i in unused if not mismatches(want, actual[i], path)), None)
        if match is None:
            return [f"{path}: no item matches {_show(want)}; got {_show(actual)}"]
        unused.remove(match)
    return []


def is_any_text(expected: Any) -> bool:
    return isinstance(expected, dict) and len(expected) == 1 and expected.get(ANY_TEXT) is True


def is_any_text_but(expected: Any) -> bool:
    """True for a well-formed `{"$anyTextBut": [text, ...]}` (a list of strings)."""
    if not (isinstance(expected, dict) and len(expected) == 1):
        return False
    excluded = expected.get(ANY_TEXT_BUT)
    return isinstance(excluded, list) and all(isinstance(text, str) for text in excluded)


def _unordered(expected: list[Any], actual: Any, path: str) -> list[str]:
    if not isinstance(actual, list):
        return [f"{path}: expected a list (in any order), got {_show(actual)}"]
    if len(expected) != len(actual):
        return [
            f"{path}: expected {len(expected)} item(s) in any order, got {len(actual)}: "
            f"expected {_show(expected)}, got {_show(actual)}"
        ]
    unused = list(range(len(actual)))
    for want in expected:
        match = next((i for i in unused if not mismatches(want, actual[i], path)), None)
        if match is None:
            return [f"{path}: no item matches {_show(want)} (in any order); got {_show(actual)}"]
        unused.remove(match)
    return []


def mismatches(expected: Any, actual: Any, path: str = "output") -> list[str]:
    """Every place where `actual` does not match `expected`.

    Objects match partially: each key of `expected` must be present and
    match; keys it does not name are not checked (a target may add fields).
    Lists match element by element and must have the same length; an
    expected `{"$unordered": [...]}` matches a list holding the same items in
    any order (for outputs the spec defines as sets); an expected
    `{"$anyText": true}` matches any non-blank string (text whose wording is
    open); an expected `{"$anyTextBut": [...]}` matches any non-blank string
    other than those listed (text the spec says changes, wording open);
    an expected `{"$textWith": [...]}` / `{"$textWithout": [...]}` matches a
    string holding each / none of the texts listed, ignoring case; an
    expected `{"$has": [...]}` matches a list holding an item for each
    pattern listed, among others (what a screen showed among the rest).
    Scalars match by JSON equality: `1` is not `true`, `1` equals `1.0`.
    """
    if is_any_text(expected):
        if isinstance(actual, str) and actual.strip():
            return []
        return [f"{path}: expected some text (any wording), got {_show(actual)}"]
    if is_any_text_but(expected):
        excluded = expected[ANY_TEXT_BUT]
        if isinstance(actual, str) and actual.strip() and actual not in excluded:
            return []
        return [f"{path}: expected any text but {_show(excluded)}, got {_show(actual)}"]
    if isinstance(expected, dict) and len(expected) == 1 and isinstance(expected.get(UNORDERED), list):
        return _unordered(expected[UNORDERED], actual, path)
    if is_text_with(expected):
        return _text_with(expected, actual, path)
    if is_has(expected):
        return _has(expected[HAS], actual, path)
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {_show(actual)}"]
        found: list[str] = []
        for key, value in expected.items():
            if key not in actual:
                found.append(f"{path}.{key}: missing (expected {_show(value)})")
            else:
                found.extend(mismatches(value, actual[key], f"{path}.{key}"))
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{path}: expected a list, got {_show(actual)}"]
        if len(expected) != len(actual):
            return [
                f"{path}: expected {len(expected)} item(s), got {len(actual)}: "
                f"expected {_show(expected)}, got {_show(actual)}"
            ]
        found = []
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            found.extend(mismatches(want, got, f"{path}[{index}]"))
        return found
    if isinstance(expected, bool) or isinstance(actual, bool):
        same = type(expected) is type(actual) and expected == actual
    elif isinstance(expected, int | float) and isinstance(actual, int | float):
        same = expected == actual
    else:
        same = type(expected) is type(actual) and expected == actual
    return [] if same else [f"{path}: expected {_show(expected)}, got {_show(actual)}"]
