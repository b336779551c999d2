#!/usr/bin/env node
// A deliberately WRONG variant of target.mjs, to show what the suite reports
// when a port gets one rule wrong. Do not copy this file.
//
//   pytest --planmode-target="exec:node examples/node-target/wrong-target.mjs"
//
// The bug: a plan name without any letter or digit is accepted, so `/plan .`
// or `/plan --` would create an untitled `.pi/plans/plan-.md`. The spec
// (opl-modes.md § Commands, flags, and shortcuts) says such a name is
// rejected. Everything else is the correct implementation, so the suite fails
// exactly the cases that pin that rule (and the property check
// oplmodes.plans.property.no-alnum-rejected) and passes the rest.

import { IMPLEMENTATION, OPERATIONS, serve, slug } from "./target.mjs";

const OP = "oplmodes.plans.resolve";
const correct = OPERATIONS[OP];

function resolveWithoutTheCheck(input) {
  // The correct handler validates the input and answers resumed filenames.
  const output = correct(input);
  if (input.source !== "command") return output;
  // BUG (deliberate): the "at least one letter or digit" check is missing.
  return { accepted: true, path: `.pi/plans/plan-${slug(input.value)}.md`, reason: null };
}

serve({
  operations: { ...OPERATIONS, [OP]: resolveWithoutTheCheck },
  implementation: { ...IMPLEMENTATION, name: `${IMPLEMENTATION.name} (deliberately wrong)` },
}).catch((err) => {
  process.stderr.write(`${(err && err.stack) || err}\n`);
  process.exitCode = 1;
});
