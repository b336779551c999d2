"""What pi-plan-mode says to the user where the text is the reference's
own rather than a setting rule's (pi-plan-mode-settings.md § Export
destination, § Thinking level). Setting rules word their own messages in
`settings_values` and `settings` (they are part of the document's rules);
this module holds the rest, each written once."""

from __future__ import annotations

#: An export with no ready, active or saved plan (its code: `nothing-to-export`).
NOTHING_TO_EXPORT = "there is no ready, active or saved plan to export"
