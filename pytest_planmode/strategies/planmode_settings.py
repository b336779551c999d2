"""Strategies for pi-plan-mode settings documents and agent directories.

They produce the wire shapes of `planmode.settings.load` and
`planmode.settings.save` (file entries as JSON objects), so a port can reuse
them against its own implementation.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from hypothesis import strategies as st

CANONICAL = "pi-plan-mode.json"
LEGACY = "plan-mode.json"

THINKING_LEVELS = ["inherit", "off", "minimal", "low", "medium", "high", "xhigh", "max"]
RETENTION = ["clear-on-start", "clear-after-first-run", "keep"]
KNOWN_FIELDS = [
    "thinkingLevel",
    "defaultPlanTools",
    "implementationPlanRetention",
    "autoSwitchModel",
    "planModel",
    "normalModel",
    "defaultPlanExportPath",
    "safeSubcommands",
    "toggleShortcut",
]
#: Fields a Settings save may edit (`safeSubcommands` is JSON-only).
EDITABLE_FIELDS = [name for name in KNOWN_FIELDS if name != "safeSubcommands"]

#: Any JSON value (finite numbers only: JSON has no NaN or Infinity).
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)

_WORD_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+.:/ "
#: A word with at least one character that is not a space (built so, not
#: filtered): blanks around a visible character.
_word = st.builds(
    lambda before, visible, after: before + visible + after,
    st.text(alphabet=_WORD_ALPHABET, max_size=11),
    st.sampled_from(_WORD_ALPHABET.replace(" ", "")),
    st.text(alphabet=_WORD_ALPHABET, max_size=12),
)

_model = st.fixed_dictionaries({"provider": _word, "modelId": _word})

#: A valid value for each known field.
VALID_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "thinkingLevel": st.sampled_from(THINKING_LEVELS),
    "defaultPlanTools": st.lists(_word, max_size=5),
    "implementationPlanRetention": st.sampled_from(RETENTION),
    "autoSwitchModel": st.booleans(),
    "planModel": _model | st.lists(_model, min_size=1, max_size=3),
    "normalModel": _model | st.lists(_model, min_size=1, max_size=3),
    "defaultPlanExportPath": _word,
    "safeSubcommands": st.dictionaries(_word, st.lists(_word, max_size=3), max_size=3),
    "toggleShortcut": st.builds(
        lambda mods, key: "+".join([*mods, key]),
        st.lists(st.sampled_from(["ctrl", "shift", "alt"]), unique=True, max_size=3),
        st.sampled_from(["p", "m", "1", "tab", "f5", "space", "/"]),
    ),
}

#: Unknown top-level field names (never a known or retired one: built so,
#: not filtered, by marking a drawn known name).
unknown_keys = st.text(min_size=1, max_size=12).map(
    lambda k: k + "~" if k in KNOWN_FIELDS or k == "toolVisibility" else k
)


# Built once, not inside each draw (a strategy built in a draw is built and
# validated again for every example).
_KNOWN_FIELD_SETS = st.lists(st.sampled_from(KNOWN_FIELDS), unique=True, max_size=len(KNOWN_FIELDS))
_UNKNOWN_FIELDS = st.dictionaries(unknown_keys, json_values, max_size=3)
_BOOLEANS = st.booleans()


@st.composite
def valid_documents(draw: st.DrawFn) -> dict[str, Any]:
    """A valid settings document: some known fields with valid values,
    unknown fields, sometimes the retired `toolVisibility`."""
    doc: dict[str, Any] = {}
    keys = draw(_KNOWN_FIELD_SETS)
    unknown = draw(_UNKNOWN_FIELDS)
    for key in keys:
        doc[key] = draw(VALID_VALUES[key])
    for key, value in unknown.items():
        doc[key] = value
    if draw(_BOOLEANS):
        doc["toolVisibility"] = draw(json_values)
    order = draw(st.permutations(list(doc)))
    return {key: doc[key] for key in order}


#: A marker that never occurs in a valid value: warnings must not echo it.
MARKER = "Zq7MarkerXv"

#: A value that is invalid for the field, holding MARKER where it can.
INVALID_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "thinkingLevel": st.just(MARKER),
    "defaultPlanTools": st.just([MARKER, ""]),
    "implementationPlanRetention": st.just(MARKER),
    "autoSwitchModel": st.just(MARKER),
    "planModel": st.just({"provider": MARKER, "modelId": ""}),
    "normalModel": st.just([{"provider": MARKER}]),
    "defaultPlanExportPath": st.just(MARKER + "\u0000"),
    "safeSubcommands": st.just({MARKER: [MARKER, 1]}),
    "toggleShortcut": st.just({MARKER: MARKER}),
}


_VALID_DOCUMENTS = valid_documents()
_ANY_KNOWN_FIELD = st.sampled_from(KNOWN_FIELDS)


@st.composite
def documents_with_one_invalid_field(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    """A valid document plus one invalid known field; returns (document, field)."""
    doc = draw(_VALID_DOCUMENTS)
    field = draw(_ANY_KNOWN_FIELD)
    doc[field] = draw(INVALID_VALUES[field])
    return doc, field


def text_entry(text: str) -> dict[str, Any]:
    return {"kind": "file", "text": text}


def bytes_entry(data: bytes) -> dict[str, Any]:
    return {"kind": "file", "base64": base64.b64encode(data).decode("ascii")}


def document_entry(document: Any) -> dict[str, Any]:
    return text_entry(json.dumps(document, ensure_ascii=False))


#: Any entry kind at the canonical name.
other_entries = st.sampled_from(
    [
        {"kind": "directory"},
        {"kind": "fifo"},
        {"kind": "unreadable"},
        {"kind": "symlink", "to": "file"},
        {"kind": "symlink", "to": "directory"},
        {"kind": "symlink", "to": "missing"},
    ]
)

#: Arbitrary bytes, biased towards almost-JSON.
arbitrary_bytes = (
    st.binary(max_size=300)
    | json_values.map(lambda v: json.dumps(v).encode("utf-8"))
    | st.builds(
        lambda doc, cut: json.dumps(doc).encode("utf-8")[:cut],
        valid_documents(),
        st.integers(min_value=0, max_value=200),
    )
)

#: One Settings save: a field and a value (valid or not), or a reset.
edits = st.one_of(
    st.sampled_from(EDITABLE_FIELDS).flatmap(
        lambda f: VALID_VALUES[f].map(lambda v: {"field": f, "value": v})
    ),
    st.sampled_from(KNOWN_FIELDS).flatmap(
        lambda f: INVALID_VALUES[f].map(lambda v: {"field": f, "value": v})
    ),
    st.sampled_from(KNOWN_FIELDS).map(lambda f: {"field": f, "reset": True}),
)

#: Steps where a failure can be injected into a save.
save_steps = st.sampled_from(["read", "create-temp", "write", "fsync", "rename"])
