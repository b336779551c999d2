"""Badges of a report, one per target: a shields.io endpoint document
(https://shields.io/badges/endpoint-badge) and a self-contained SVG of the
same badge, both saying the target's must-level conformance."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

from pytest_planmode.reports import level_counts, percent, show_percent

LABEL = "planmode must"

#: shields.io's named colours and the hex values the SVG uses for them.
COLOURS = {
    "brightgreen": "#4c1",
    "green": "#97ca00",
    "yellow": "#dfb317",
    "orange": "#fe7d37",
    "red": "#e05d44",
    "lightgrey": "#9f9f9f",
}


def colour(value: float | None) -> str:
    if value is None:
        return "lightgrey"
    if value >= 100:
        return "brightgreen"
    if value >= 95:
        return "green"
    if value >= 80:
        return "yellow"
    if value >= 50:
        return "orange"
    return "red"


def endpoint(target: dict[str, Any]) -> dict[str, Any]:
    value = percent(level_counts(target, "must"))
    message = show_percent(value) if value is not None else "no must case judged"
    return {"schemaVersion": 1, "label": LABEL, "message": message, "color": colour(value)}


def _text_width(text: str) -> int:
    """Approximate width in pixels of `text` in 11px Verdana (the badge font)."""
    narrow, wide = set("iljtfI.,:;' |!()[]"), set("mwMW%@")
    return sum(4 if ch in narrow else 10 if ch in wide else 7 for ch in text) + 10


def svg(document: dict[str, Any]) -> str:
    label, message = str(document["label"]), str(document["message"])
    fill = COLOURS.get(str(document["color"]), COLOURS["lightgrey"])
    left, right = _text_width(label), _text_width(message)
    total = left + right
    title = escape(f"{label}: {message}")
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" '
        f'aria-label="{title}"><title>{title}</title>'
        f'<rect width="{left}" height="20" fill="#555"/>'
        f'<rect x="{left}" width="{right}" height="20" fill="{fill}"/>'
        '<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">'
        f'<text x="{left / 2}" y="14">{escape(label)}</text>'
        f'<text x="{left + right / 2}" y="14">{escape(message)}</text></g></svg>\n'
    )


def write(report: dict[str, Any], out: Path) -> list[Path]:
    """`<name>.json` (endpoint) and `<name>.svg` per target, in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for target in report["targets"]:
        document = endpoint(target)
        stem = "".join(ch if ch.isalnum() or ch in "._-" else "-" for ch in target["name"])
        json_path, svg_path = out / f"{stem}.json", out / f"{stem}.svg"
        json_path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        svg_path.write_text(svg(document), encoding="utf-8")
        written += [json_path, svg_path]
    return written
