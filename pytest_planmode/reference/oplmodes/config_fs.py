"""opl-modes.json read as bytes from a file (opl-modes.md § Configuration).

The conformance operations hand the document over as JSON or as text, so no
operation reaches this module; the project's own tests do.
"""

from __future__ import annotations

from pytest_planmode.reference.oplmodes.config import OplConfig, load_text, unreadable


def load_bytes(data: bytes) -> OplConfig:
    """Strict UTF-8, then :func:`~pytest_planmode.reference.oplmodes.config.load_text`;
    bytes that are not UTF-8 leave the built-in registry with a problem on
    `(document)`, never an exception."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return unreadable(
            f"opl-modes.json is not UTF-8 ({exc.reason} at byte {exc.start}); using the built-in defaults"
        )
    return load_text(text)
