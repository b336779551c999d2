#!/usr/bin/env node
// A pytest-planmode target in JavaScript: the template a port copies.
//
//   pytest --planmode-target="exec:node examples/node-target/target.mjs"
//
// The harness starts this process once per session (once per xdist worker)
// and talks JSON Lines over stdin/stdout: one JSON object per line, UTF-8.
//
//   harness > {"op": "hello", "protocol": 2, "suite": "0.9.0"}
//   target  < {"protocol": 2, "implementation": {...}, "operations": ["oplmodes.plans.resolve"]}
//   harness > {"id": 1, "op": "oplmodes.plans.resolve", "input": {"source": "command", "value": "auth"}}
//   target  < {"id": 1, "output": {"accepted": true, "path": ".pi/plans/plan-auth.md", "reason": null}}
//   harness > {"id": 2, "op": "planmode.bash.check", "input": {...}}
//   target  < {"id": 2, "unsupported": true}
//   (end of stdin)  the target exits with status 0
//
// Every request gets exactly one answer line carrying the request's id:
// {"id", "output"} for a result, {"id", "error": {"message"}} when the
// implementation fails, {"id", "unsupported": true} for an operation it does
// not implement. Nothing else may go to stdout: write diagnostics to stderr
// (the harness shows the end of stderr when the process misbehaves).
//
// Only Node's standard library is used. To port a real implementation, keep
// the `serve` loop, replace the handlers in OPERATIONS with calls into your
// code (translating the contract's input to your functions' arguments and
// their results back to the contract's output), and list every operation you
// wire up. The contract of each operation is a pair of JSON Schemas shipped in
// the Python package: pytest_planmode/schemas/operations/<op>.input.schema.json
// and <op>.output.schema.json.

import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";

// ---------------------------------------------------------------------------
// Identity and protocol
// ---------------------------------------------------------------------------

// What the handshake answers; the report and the terminal summary show it.
export const IMPLEMENTATION = {
  name: "planmode-node-example",
  version: "0.1.0",
  language: "javascript",
};

// The wire protocol this file speaks (the harness accepts 2, and 1 as observing
// everything). A port that sees effects only adds `observes: "effects"` to its hello.
export const PROTOCOL = 2;

// The suite version this port was last checked against. The hello carries the
// suite version of the harness; a different major version may have changed
// operations, so we say so on stderr (the run goes on: skips and failures
// will show what moved). Pin the kit in CI to keep this stable.
export const SUITE_CHECKED = "0.9.0";

// An error whose message is meant for the harness as is (invalid input).
// Any other thrown error is reported too, with its class name in front.
export class InputError extends Error {}

// ---------------------------------------------------------------------------
// oplmodes.plans.resolve (opl-modes.md § Commands, flags, and shortcuts;
// § Tool inheritance warning)
//
// input:  {"source": "command" | "resume", "value": string}
// output: {"accepted": bool, "path": string | null, "reason": string | null}
// ---------------------------------------------------------------------------

const PLANS_DIR = ".pi/plans";
const PREFIX = "plan-";
const SUFFIX = ".md";

// "Letter or digit" is a Unicode letter (L*) or number (N*). The reference is
// Python, whose tables follow the Unicode version of its interpreter; Node's
// follow its ICU. Characters assigned in one version and not the other are
// the only place where a correct port can legitimately differ.
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
// Control characters a resumed filename may not contain (C0 and DEL).
const CONTROL = /[\u0000-\u001f\u007f]/;

// Reference choice (the spec does not fix the filename's form): lowercase
// the name, turn every run of characters that are not letters or digits into
// one hyphen and trim hyphens at both ends. The slug can therefore never carry
// a path separator, a dot or whitespace into the filename.
export function slug(name) {
  let out = "";
  // for...of walks code points, as Python walks the characters of a str.
  for (const ch of name.toLowerCase()) {
    if (LETTER_OR_DIGIT.test(ch)) {
      out += ch;
    } else if (out !== "" && !out.endsWith("-")) {
      out += "-";
    }
  }
  return out.replace(/^-+|-+$/g, "");
}

// A name typed after `/plan` or `/execute`: it must contain at least one
// letter or digit, so `/plan .` or `/plan --` is rejected instead of
// producing `plan-.md`.
export function resolveName(name) {
  const text = slug(name);
  if (text === "") {
    return rejected(
      `plan name ${pyRepr(name)} has no letter or digit; a plan name must contain at least one`,
    );
  }
  return accepted(`${PREFIX}${text}${SUFFIX}`);
}

// A plan filename read back from a session entry on resume: a filename with a
// path separator or `..` is dropped, so a stale or foreign branch cannot point
// plan reads outside `.pi/plans/`. Reference choice (fail closed): a filename
// that names no file ("" or ".") or holds a control character is dropped too,
// and so is one that is not a plan file (no `plan-` prefix or `.md` suffix).
// The order of the checks only decides which reason is given.
export function resolveResumed(filename) {
  const shown = pyRepr(filename);
  if (filename === "" || filename === ".") {
    return rejected(`plan filename ${shown} names no file: dropped`);
  }
  if (filename.includes("/") || filename.includes("\\")) {
    return rejected(`plan filename ${shown} has a path separator: dropped`);
  }
  if (filename.includes("..")) {
    return rejected(`plan filename ${shown} contains '..': dropped`);
  }
  if (CONTROL.test(filename)) {
    return rejected(`plan filename ${shown} has a control character: dropped`);
  }
  // Plans are Markdown files with the `plan-` filename prefix: anything else
  // is not a plan, and `plan-.md` names none.
  if (!filename.startsWith(PREFIX) || !filename.endsWith(SUFFIX) || filename.length <= (PREFIX + SUFFIX).length) {
    return rejected(`plan filename ${shown} lacks the plan- prefix or the .md suffix: dropped`);
  }
  return accepted(filename);
}

function accepted(filename) {
  return { accepted: true, path: `${PLANS_DIR}/${filename}`, reason: null };
}

function rejected(reason) {
  return { accepted: false, path: null, reason };
}

// The handler: check the input as strictly as the contract does (unknown
// fields are an error), then decide. Handlers return the output object (or a
// Promise of it) or throw; `serve` turns a throw into an error answer.
function plansResolve(input) {
  expectFields(input, { source: "string", value: "string" });
  switch (input.source) {
    case "command":
      return resolveName(input.value);
    case "resume":
      return resolveResumed(input.value);
    default:
      throw new InputError(`source: expected "command" or "resume", got ${JSON.stringify(input.source)}`);
  }
}

// ---------------------------------------------------------------------------
// Dispatch table: operation name -> handler(input) -> output.
// The handshake lists exactly these names; any other operation is answered
// with {"unsupported": true}, and the harness skips its cases with a reason
// starting "unsupported". Add an entry per operation you implement.
// ---------------------------------------------------------------------------

export const OPERATIONS = {
  "oplmodes.plans.resolve": plansResolve,
};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

// Inputs are JSON objects with exactly the contract's fields.
function expectFields(input, fields) {
  for (const [name, type] of Object.entries(fields)) {
    if (!(name in input)) throw new InputError(`${name}: field required`);
    if (typeof input[name] !== type) {
      throw new InputError(`${name}: expected a ${type}, got ${JSON.stringify(input[name])}`);
    }
  }
  const extra = Object.keys(input).filter((name) => !(name in fields));
  if (extra.length > 0) throw new InputError(`unknown field(s): ${extra.join(", ")}`);
}

// Python's repr() of a str, so that `reason` reads exactly as the reference's
// (the suite does not compare reasons, which are written for people, but a
// port that mirrors them makes diffs against the reference empty).
const NOT_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

export function pyRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (code < 0x20 || code === 0x7f) out += `\\x${hex(code, 2)}`;
    else if (code < 0x7f || !NOT_PRINTABLE.test(ch)) out += ch;
    else if (code <= 0xff) out += `\\x${hex(code, 2)}`;
    else if (code <= 0xffff) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return out + quote;
}

function hex(code, width) {
  return code.toString(16).padStart(width, "0");
}

// ---------------------------------------------------------------------------
// The protocol loop
// ---------------------------------------------------------------------------

// The answer object for one input line (null for a blank line). Handlers may
// be async (return a Promise): the answer waits for them. The harness sends
// the next request only after this answer, so requests never overlap.
export async function answer(line, operations = OPERATIONS, implementation = IMPLEMENTATION) {
  if (line.trim() === "") return null;
  let message;
  try {
    message = JSON.parse(line);
  } catch (err) {
    // No id can be recovered; the harness reports the broken exchange.
    return { id: null, error: { message: `not JSON: ${err.message}` } };
  }
  if (message === null || typeof message !== "object" || Array.isArray(message)) {
    return { id: null, error: { message: "a request must be a JSON object" } };
  }

  // The handshake: the first line the harness sends. It has no id. We answer
  // with the protocol we speak even if the hello names another one: the
  // harness then stops with a clear message.
  if (message.op === "hello" && !("id" in message)) {
    if (majorOf(message.suite) !== majorOf(SUITE_CHECKED)) {
      process.stderr.write(
        `note: harness runs suite ${message.suite}; this target was checked against ${SUITE_CHECKED}\n`,
      );
    }
    return {
      protocol: PROTOCOL,
      implementation,
      operations: Object.keys(operations).sort(),
    };
  }

  const id = message.id === undefined ? null : message.id;
  if (typeof message.op !== "string") {
    return { id, error: { message: "a request needs \"op\" (a string)" } };
  }
  // Own properties only: "constructor" or "toString" are not operations.
  if (!Object.prototype.hasOwnProperty.call(operations, message.op)) {
    return { id, unsupported: true };
  }
  const handler = operations[message.op];
  const input = message.input;
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    return { id, error: { message: "a request needs \"input\" (an object)" } };
  }
  try {
    const output = await handler(input);
    if (output === null || typeof output !== "object" || Array.isArray(output)) {
      throw new TypeError(`the ${message.op} handler returned ${JSON.stringify(output)}, not an object`);
    }
    return { id, output };
  } catch (err) {
    // A failing handler must never kill the process or go unanswered: the
    // error becomes this request's answer and the next request is served.
    const text = err instanceof InputError ? `invalid input for ${message.op}: ${err.message}` : describe(err);
    if (!(err instanceof InputError)) process.stderr.write(`${(err && err.stack) || text}\n`);
    return { id, error: { message: text } };
  }
}

function describe(err) {
  return err instanceof Error ? `${err.name}: ${err.message}` : `thrown: ${String(err)}`;
}

// SemVer major; for 0.x the minor counts as the major (0.1 -> 0.2 may break).
function majorOf(version) {
  const [major, minor] = String(version).split(".");
  return major === "0" ? `0.${minor}` : major;
}

// Read stdin line by line, answer each line, and return at end of input.
// Lines are split on "\n" only: JSON text never holds a raw newline, and the
// harness sends UTF-8 (setEncoding keeps multi-byte characters whole across
// chunk boundaries).
export async function serve({
  operations = OPERATIONS,
  implementation = IMPLEMENTATION,
  input = process.stdin,
  output = process.stdout,
} = {}) {
  input.setEncoding("utf8");
  let buffered = "";
  const reply = async (line) => {
    const result = await answer(line, operations, implementation);
    // JSON.stringify never emits a raw newline, so one answer is one line.
    if (result !== null) output.write(`${JSON.stringify(result)}\n`);
  };
  for await (const chunk of input) {
    buffered += chunk;
    let end;
    while ((end = buffered.indexOf("\n")) !== -1) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      await reply(line);
    }
  }
  if (buffered !== "") await reply(buffered); // a last line without its newline
}

// Run when executed (`node target.mjs`), not when imported (another module
// may import the handlers, as wrong-target.mjs does, or unit-test them).
function isMain() {
  if (!process.argv[1]) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  // End of input: let the loop return and Node exit on its own with status 0
  // once stdout is flushed (process.exit() here could cut pending output).
  serve().catch((err) => {
    process.stderr.write(`${(err && err.stack) || err}\n`);
    process.exitCode = 1;
  });
}
