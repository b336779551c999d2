"""One self-contained static page of a report: the targets and their
implementations, per operation and level a bar per target, and a
filterable list of failures with spec section, rule, input and a diff of
expected and got. No external resource: styles and the small filter
script are inline, so the page can be archived as a CI artifact and
opened offline."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from pytest_planmode.reports import (
    LEVELS,
    add,
    implementation_label,
    level_counts,
    operations,
    percent,
    selection_text,
    show_percent,
)
from pytest_planmode.reports.expect_diff import compact_diff

STYLE = """
:root { --ok: #2e7d32; --bad: #c62828; --skip: #9e9e9e; --line: #ddd; font-family: system-ui, sans-serif; }
body { margin: 1.5rem auto; max-width: 80rem; padding: 0 1rem; color: #222; }
h1 { font-size: 1.5rem; margin-bottom: .2rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { border-bottom: 1px solid var(--line); padding: .3rem .5rem; text-align: left; }
td { vertical-align: middle; }
th { background: #f5f5f5; }
td.num { white-space: nowrap; text-align: right; font-variant-numeric: tabular-nums; }
.bar { display: inline-block; width: 8rem; height: .7rem; background: #f1f1f1; border: 1px solid #ccc;
       vertical-align: middle; position: relative; }
.bar .fill { display: block; height: 100%; background: var(--ok); }
.bar.failing .fill { background: #ef6c00; }
.pct { white-space: nowrap; display: inline-block; min-width: 4rem; text-align: right; }
.n { color: #666; font-size: .8rem; }
.level-reference td:first-child { color: #666; }
tr.total td { font-weight: 600; }
.filters { display: flex; gap: .5rem; margin: .5rem 0; }
.filters input { flex: 1; padding: .3rem; }
ol#failure-list { padding-left: 0; list-style: none; }
li.failure { border: 1px solid var(--line); border-radius: 4px; margin: .3rem 0; padding: .3rem .6rem; }
li.failure summary { cursor: pointer; }
.tag { display: inline-block; background: #eee; border-radius: 3px; padding: 0 .3rem; font-size: .8rem; }
.tag.must { background: #ffe0e0; } .tag.reference { background: #e8eefc; }
dl { display: grid; grid-template-columns: 7rem 1fr; gap: .2rem .8rem; }
dt { color: #666; } dd { margin: 0; }
pre { margin: 0; white-space: pre-wrap; word-break: break-all; background: #fafafa; padding: .3rem; }
pre .del { color: var(--bad); } pre .ins { color: var(--ok); }
code { font-size: .9em; }
"""

SCRIPT = """
(function () {
  var q = document.getElementById("filter");
  var byTarget = document.getElementById("filter-target");
  var byLevel = document.getElementById("filter-level");
  var shown = document.getElementById("shown");
  var items = Array.prototype.slice.call(document.querySelectorAll("#failure-list > li"));
  function apply() {
    var text = q.value.trim().toLowerCase();
    var n = 0;
    items.forEach(function (li) {
      var ok = (!text || li.getAttribute("data-text").indexOf(text) >= 0)
        && (!byTarget.value || li.getAttribute("data-target") === byTarget.value)
        && (!byLevel.value || li.getAttribute("data-level") === byLevel.value);
      li.hidden = !ok;
      if (ok) { n += 1; }
    });
    shown.textContent = n + " of " + items.length + " failure(s) shown";
  }
  var given = new URLSearchParams(location.hash.slice(1));
  if (given.get("q")) { q.value = given.get("q"); }
  if (given.get("target")) { byTarget.value = given.get("target"); }
  if (given.get("level")) { byLevel.value = given.get("level"); }
  q.addEventListener("input", apply);
  byTarget.addEventListener("change", apply);
  byLevel.addEventListener("change", apply);
  apply();
})();
"""


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def _json(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


def _bar_cell(name: str, counts: dict[str, int]) -> str:
    value = percent(counts)
    judged = counts["passed"] + counts["failed"] + counts["xfailed"] + counts["error"]
    width = 0 if value is None else value
    failing = " failing" if value is not None and value < 100 else ""
    extra = f" · {counts['skipped']} skipped" if counts["skipped"] else ""
    data = "" if value is None else f' data-percent="{value}"'
    return (
        f'<td class="cell" data-target="{_e(name)}"{data}>'
        f'<span class="bar{failing}"><span class="fill" style="width:{width}%"></span></span> '
        f'<span class="pct">{_e(show_percent(value))}</span> '
        f'<span class="n">{counts["passed"]}/{judged}{_e(extra)}</span></td>'
    )


def _targets_table(report: dict[str, Any]) -> str:
    rows = []
    for t in report["targets"]:
        impl = t.get("implementation", {})
        totals = t["totals"]
        status = t.get("targetExitStatus")
        rows.append(
            "<tr>"
            f"<td><code>{_e(t['name'])}</code></td>"
            f"<td>{_e(impl.get('name', '?'))}</td><td>{_e(impl.get('version') or '')}</td>"
            f"<td>{_e(impl.get('language') or '')}</td>"
            f"<td><code>{_e(t['target'])}</code></td>"
            f'<td class="num">{len(t.get("operationsListed", []))}</td>'
            f'<td class="num">{_e("hung" if status is None else status)}</td>'
            + "".join(
                f'<td class="num">{v}</td>'
                for v in (
                    totals["passed"],
                    totals["failed"] + totals["error"],
                    totals["xfailed"],
                    totals["skipped"],
                )
            )
            + f'<td class="num must">{_e(show_percent(percent(level_counts(t, "must"))))}</td>'
            "</tr>"
        )
    head = (
        "<tr><th>target</th><th>implementation</th><th>version</th><th>language</th><th>run as</th>"
        "<th>operations listed</th><th>exit status</th><th>passed</th><th>failed</th><th>xfail</th>"
        "<th>skipped</th><th>must</th></tr>"
    )
    return f'<table id="target-table"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def _operations_table(report: dict[str, Any]) -> str:
    targets = report["targets"]
    head = "<tr><th>operation</th><th>level</th>" + "".join(
        f"<th><code>{_e(t['name'])}</code></th>" for t in targets
    )
    rows = []
    for op in operations(report):
        for level in LEVELS:
            if not any(op in t.get("levels", {}).get(level, {}) for t in targets):
                continue
            cells = "".join(_bar_cell(t["name"], level_counts(t, level, op)) for t in targets)
            rows.append(
                f'<tr class="level-{level}" data-op="{_e(op)}" data-level="{level}">'
                f"<td><code>{_e(op)}</code></td><td>{level}</td>{cells}</tr>"
            )
    for level in LEVELS:
        if any(t.get("levels", {}).get(level) for t in targets):
            cells = "".join(_bar_cell(t["name"], level_counts(t, level)) for t in targets)
            rows.append(
                f'<tr class="total level-{level}" data-op="total" data-level="{level}">'
                f"<td>total</td><td>{level}</td>{cells}</tr>"
            )
    cells = "".join(_bar_cell(t["name"], add([t["totals"]])) for t in targets)
    rows.append(f'<tr class="total" data-op="total" data-level="all"><td>total</td><td>all</td>{cells}</tr>')
    return f'<table id="operation-table"><thead>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _diff_block(failure: dict[str, Any]) -> str:
    if "got" in failure and failure.get("expected") is not None:
        lines = []
        for line in compact_diff(failure["expected"], failure["got"], limit=200):
            kind = "del" if line.startswith("-") else "ins" if line.startswith("+") else ""
            lines.append(f'<span class="{kind}">{_e(line)}</span>' if kind else _e(line))
        return f'<pre class="diff">{chr(10).join(lines) or "(no difference in what expect checks)"}</pre>'
    parts = []
    if failure.get("expected") is not None:
        parts.append(f"<pre>expected: {_e(_json(failure['expected']))}</pre>")
    if failure.get("answer"):
        parts.append(f"<pre>answer: {_e(failure['answer'])}</pre>")
    return "".join(parts) or "<pre>(see the message)</pre>"


def _failure_item(target: str, failure: dict[str, Any]) -> str:
    level = str(failure.get("level") or "")
    searchable = " ".join(
        str(failure.get(k) or "") for k in ("id", "operation", "spec", "rule", "description", "summary")
    )
    fields = [
        ("spec", failure.get("spec")),
        ("rule", failure.get("rule")),
        ("case", failure.get("description")),
    ]
    rows = "".join(f"<dt>{k}</dt><dd>{_e(v)}</dd>" for k, v in fields if v)
    if failure.get("input") is not None:
        rows += f"<dt>input</dt><dd><pre>{_e(_json(failure['input']))}</pre></dd>"
    rows += f"<dt>expected / got</dt><dd>{_diff_block(failure)}</dd>"
    rows += f"<dt>message</dt><dd><pre>{_e(failure.get('message') or '')}</pre></dd>"
    return (
        f'<li class="failure" data-target="{_e(target)}" data-level="{_e(level)}" '
        f'data-operation="{_e(failure["operation"])}" data-text="{_e(searchable.lower())}">'
        f"<details><summary><code>{_e(failure['id'])}</code> "
        f'<span class="tag">{_e(target)}</span> <span class="tag {_e(level)}">{_e(level)}</span> '
        f"{_e(failure.get('summary') or failure['outcome'])}</summary><dl>{rows}</dl></details></li>"
    )


def render(report: dict[str, Any]) -> str:
    targets = report["targets"]
    failures = [(t["name"], f) for t in targets for f in t["failures"]]
    options = "".join(f'<option value="{_e(t["name"])}">{_e(t["name"])}</option>' for t in targets)
    title = f"planmode conformance: suite {report['suite']}"
    who = ", ".join(f"{t['name']} ({implementation_label(t)})" for t in targets)
    body = f"""<header><h1>{_e(title)}</h1>
<p>Suite <b id="suite">{_e(report["suite"])}</b> · selection: {_e(selection_text(report))} · {_e(who)}</p>
<p class="n">Percentages: passed share of the judged cases (passed, failed, xfail, error);
skipped cases are not judged and are counted beside.</p></header>
<section><h2>Targets</h2>{_targets_table(report)}</section>
<section><h2>Per operation and level</h2>{_operations_table(report)}</section>
<section><h2>Failures</h2>
<div class="filters"><input id="filter" type="search" aria-label="filter failures"
 placeholder="filter by id, operation, spec section, rule or reason">
<select id="filter-target" aria-label="target"><option value="">every target</option>{options}</select>
<select id="filter-level" aria-label="level"><option value="">every level</option>
<option value="must">must</option><option value="reference">reference</option></select></div>
<p id="shown">{len(failures)} failure(s)</p>
<ol id="failure-list">{"".join(_failure_item(name, f) for name, f in failures)}</ol></section>"""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{STYLE}</style></head>\n<body>\n{body}\n"
        f"<script>{SCRIPT}</script>\n</body></html>\n"
    )
