"""What an extension visibly shows the user through Pi's UI: the `screen`
field of the operations whose spec sentences say what is shown (a picker's
rows, a Settings row, an input's preview, a screen's report).

One entry per thing shown, in the order shown. Both Pi hosts of the kit
record the extension's `ctx.ui` calls, so a `pi:` translation reads the
entries back; a reimplementation reports what it would show. A `must`
case pins the words the spec names (`$textWith`), never the wording.
"""

from __future__ import annotations

from pytest_planmode.contract.base import ContractOutput, effect


class ScreenEntry(ContractOutput):
    ui: str = effect(
        description=(
            "The `ctx.ui` call that showed it: `select`, `input`, `editor`, `confirm`, `notify`, "
            "`setStatus`, `setWidget`, `setEditorText`, or `custom` (a component, e.g. Settings)."
        )
    )
    title: str | None = effect(
        description="A prompt's title, a status or widget key, a component's name; null: none."
    )
    items: list[str] = effect(
        description=(
            "What it shows, in order: a select's entries, an input's or editor's prefill, a "
            "notification's message, a status text, a widget's lines, the editor's text, a "
            "component's rows."
        )
    )
    text: str = effect(description="The title (when there is one) and the items, one per line.")


def entry(ui: str, title: str | None, items: list[str]) -> ScreenEntry:
    """A screen entry, its `text` made from its title and items."""
    lines = ([title] if title else []) + items
    return ScreenEntry(ui=ui, title=title, items=items, text="\n".join(lines))


SCREEN_DESCRIPTION = (
    "What the extension showed the user through Pi's UI, in order (pi-plan-mode-settings.md "
    "names what some screens show); optional: an implementation without a screen leaves it "
    "out, and a case that pins it then fails."
)
