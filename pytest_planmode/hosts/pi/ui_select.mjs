// How the Pi host answers a select from the script: by position (`index`),
// by a pattern matching exactly one item's text (`pattern`, a role the
// translation spelled for the extension), or by the item's text (`select` or
// `label`, the first item it equals, else the first it starts). `fail(why)`
// records a scripted answer that names no item; the select then answers
// nothing, as a dismissed one does.
export function selectItem(answer, options, fail) {
  if (answer.index !== undefined) {
    const found = options[answer.index];
    if (found === undefined) fail(`no item at position ${answer.index} in ${JSON.stringify(options)}`);
    return found;
  }
  if (answer.pattern !== undefined) {
    const matching = options.filter((o) => new RegExp(answer.pattern).test(String(o)));
    if (matching.length !== 1) fail(`${matching.length} items match /${answer.pattern}/ in ${JSON.stringify(options)}`);
    return matching.length === 1 ? matching[0] : undefined;
  }
  const label = String(answer.select ?? answer.label ?? "");
  const found = options.find((o) => o === label) ?? options.find((o) => String(o).startsWith(label));
  if (found === undefined) fail(`no item labelled ${JSON.stringify(label)} in ${JSON.stringify(options)}`);
  return found;
}
