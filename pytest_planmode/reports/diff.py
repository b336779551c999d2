"""What changed between two reports: per target, the regressions (passed
before, failing now), the fixes (failing before, passing now), the case
ids that are new or gone, and a change of suite version. Targets pair by
name; two reports of one target each pair whatever their names."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pytest_planmode.reports import FAILING
from pytest_planmode.reports.summary import md_escape


@dataclass
class TargetChange:
    name: str
    old_name: str
    regressions: list[tuple[str, str, str]] = field(default_factory=list)
    """(case id, outcome now, why) for each case that passed and now fails."""
    fixes: list[tuple[str, str]] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unjudged: list[tuple[str, str]] = field(default_factory=list)
    """(case id, reason) for cases that passed and are now skipped."""


@dataclass
class Comparison:
    old_suite: str
    new_suite: str
    targets: list[TargetChange]
    only_old: list[str]
    only_new: list[str]

    @property
    def regressed(self) -> bool:
        return any(t.regressions for t in self.targets)


def _why(target: dict[str, Any], case_id: str, outcome: str) -> str:
    for failure in target["failures"]:
        if failure["id"] == case_id:
            return str(failure.get("summary") or outcome)
    if outcome == "xfailed":
        return "now listed as a known failure"
    return outcome


def compare_targets(old: dict[str, Any], new: dict[str, Any]) -> TargetChange:
    change = TargetChange(new["name"], old["name"])
    before, after = old["results"], new["results"]
    for case_id in sorted(set(before) | set(after)):
        was, now = before.get(case_id), after.get(case_id)
        if was is None:
            change.added.append(case_id)
        elif now is None:
            change.removed.append(case_id)
        elif was == "passed" and now in FAILING:
            change.regressions.append((case_id, now, _why(new, case_id, now)))
        elif was in FAILING and now == "passed":
            change.fixes.append((case_id, was))
        elif was == "passed" and now == "skipped":
            change.unjudged.append((case_id, new.get("skipReasons", {}).get(case_id, "skipped")))
    return change


def compare(old: dict[str, Any], new: dict[str, Any]) -> Comparison:
    old_targets = {t["name"]: t for t in old["targets"]}
    new_targets = {t["name"]: t for t in new["targets"]}
    if len(old_targets) == 1 and len(new_targets) == 1:
        pairs = [(old["targets"][0], new["targets"][0])]
    else:
        pairs = [(old_targets[n], new_targets[n]) for n in new_targets if n in old_targets]
    return Comparison(
        old["suite"],
        new["suite"],
        [compare_targets(o, n) for o, n in pairs],
        sorted(set(old_targets) - {o["name"] for o, _ in pairs}),
        sorted(set(new_targets) - {n["name"] for _, n in pairs}),
    )


def _heading(change: TargetChange) -> str:
    if change.name == change.old_name:
        return change.name
    return f"{change.old_name} -> {change.name}"


def text(comparison: Comparison, limit: int = 200) -> str:
    out = []
    if comparison.old_suite != comparison.new_suite:
        out.append(f"suite version changed: {comparison.old_suite} -> {comparison.new_suite}")
    else:
        out.append(f"suite {comparison.new_suite} (unchanged)")
    for name in comparison.only_old:
        out.append(f"target {name}: only in the old report")
    for name in comparison.only_new:
        out.append(f"target {name}: only in the new report")
    for change in comparison.targets:
        out.append("")
        out.append(
            f"{_heading(change)}: {len(change.regressions)} regression(s), {len(change.fixes)} fix(es), "
            f"{len(change.added)} new, {len(change.removed)} removed, "
            f"{len(change.unjudged)} no longer judged"
        )
        sections: list[tuple[str, list[str]]] = [
            ("regressed (passed, now failing)", [f"{i}  [{o}] {w}" for i, o, w in change.regressions]),
            ("fixed (failing, now passing)", [f"{i}  [was {o}]" for i, o in change.fixes]),
            ("no longer judged (passed, now skipped)", [f"{i}  {r}" for i, r in change.unjudged]),
            ("new case ids", change.added),
            ("removed case ids", change.removed),
        ]
        for title, lines in sections:
            if not lines:
                continue
            out.append(f"  {title}:")
            out.extend(f"    {line}" for line in lines[:limit])
            if len(lines) > limit:
                out.append(f"    … {len(lines) - limit} more")
    out.append("")
    out.append("REGRESSED" if comparison.regressed else "no regression")
    return "\n".join(out) + "\n"


def markdown(comparison: Comparison, limit: int = 100) -> str:
    verdict = "❌ regressions" if comparison.regressed else "✅ no regression"
    out = [f"### planmode report diff: {verdict}", ""]
    if comparison.old_suite != comparison.new_suite:
        out.append(f"Suite version changed: **{comparison.old_suite} → {comparison.new_suite}**.")
    else:
        out.append(f"Suite {comparison.new_suite} (unchanged).")
    for name in comparison.only_old:
        out.append(f"- target `{md_escape(name)}` is only in the old report")
    for name in comparison.only_new:
        out.append(f"- target `{md_escape(name)}` is only in the new report")
    out.append("")
    out.append("| target | regressed | fixed | new | removed | no longer judged |")
    out.append("|---|---:|---:|---:|---:|---:|")
    for c in comparison.targets:
        out.append(
            f"| `{md_escape(_heading(c))}` | {len(c.regressions)} | {len(c.fixes)} | {len(c.added)} "
            f"| {len(c.removed)} | {len(c.unjudged)} |"
        )
    for c in comparison.targets:
        if c.regressions:
            out.append("")
            out.append(f"**{md_escape(_heading(c))}: regressed**")
            out.append("")
            out.extend(f"- `{md_escape(i)}` ({o}): {md_escape(w)}" for i, o, w in c.regressions[:limit])
            if len(c.regressions) > limit:
                out.append(f"- … {len(c.regressions) - limit} more")
        if c.fixes:
            out.append("")
            out.append(f"**{md_escape(_heading(c))}: fixed**")
            out.append("")
            out.extend(f"- `{md_escape(i)}` (was {o})" for i, o in c.fixes[:limit])
            if len(c.fixes) > limit:
                out.append(f"- … {len(c.fixes) - limit} more")
    return "\n".join(out) + "\n"
