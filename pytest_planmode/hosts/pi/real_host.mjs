// The real-Pi host: runs host scripts against one Pi extension loaded by the
// real Pi runtime (an installed @earendil-works/pi-coding-agent release).
//
//   node real_host.mjs PI_INSTALL_ROOT
//
// It speaks JSON Lines on stdio:
//
//   {"id": 1, "op": "hello"}
//     -> {"id": 1, "ok": {"host": ..., "pi": VERSION, "real": true, "api": {"steps": [...]}}}
//   {"id": 2, "op": "run", "extension": PATH, "sandbox": {...}, "script": [STEP, ...], "options": {...}}
//     -> {"id": 2, "ok": {"results": [...], "trace": [...], "errors": [...], "state": {...}, "files": {...}}}
//   a request that fails as a whole -> {"id": N, "error": "what went wrong"}
//
// Each run builds a new Pi session runtime with Pi's SDK, the way Pi's rpc
// mode does (on a model runtime kept between runs, as a Pi process keeps
// one): settings in memory (no compaction, no retry), no skills, prompt
// templates, themes or context files, a fixed system prompt, the extension
// loaded from its path and, loaded last, the host's own inline extension
// (the recorder). Assistant turns come from pi-ai's scripted faux provider:
// each LLM call waits for the script's next `tool_call` or `agent_end` step,
// so tool calls always come from a model turn. Allowed built-in tools never
// run: the recorder, last in the `tool_call` chain, records that the call
// passed every earlier handler and blocks it with a marker reason.
// Extension tools run only when the step says `execute: true`.
//
// Time is virtual: @sinonjs/fake-timers is installed before Pi is imported
// (setTimeout, setInterval, Date); `advance` steps move it. Every run is a
// start of Pi (see "Pi starts" below): within it Pi evaluates a `.mjs`
// extension once and a `.ts` one on every new runtime and `/reload`. The
// process is reused across runs and recycled by the client.
// A step Pi cannot express is refused with {refused: "why"}.

import { AsyncLocalStorage } from "node:async_hooks";
import events from "node:events";
import fs from "node:fs";
import module, { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import worker_threads from "node:worker_threads";

import { selectItem } from "./ui_select.mjs";

const EPOCH = Date.UTC(2026, 0, 1);
const HOST_VERSION = "1";
const MARKER = "planmode-host: allowed (not run)";
const BUILTIN = new Set(["read", "bash", "edit", "write", "grep", "find", "ls", "powershell"]);
const REAL_LIMIT_MS = 20000;
const QUIET_TICKS = 3;
const IDLE_RESOURCES = new Set(["PipeWrap", "TTYWrap", "TCPWrap", "Immediate", "Timeout", "FSEventWrap", "StatWatcher"]);
const STALE_PATTERN = /stale/i;
const ALL_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];
// How a scripted provider answers (a `models` step's behaviour). Pi
// authenticates per provider: the models of one provider share it.
const DEFAULT_BEHAVIOUR = { auth: "ok", authDelay: 0, credentials: true, change: "accept", changeDelay: 0 };
const BEHAVIOUR_FIELDS = Object.keys(DEFAULT_BEHAVIOUR);
const WRAPPED = Symbol("planmode-host");
// Who is asking a scripted provider: "registry" (an extension's
// ctx.modelRegistry.getApiKeyAndHeaders) or "setModel" (pi.setModel, or the
// user's model change: Pi re-checks the provider's key); nobody else (Pi's
// own availability refresh, its requests for the scripted turns) waits.
const asking = new AsyncLocalStorage();
// The extension call a failure injected by `fail_next` is for.
const failingCall = new AsyncLocalStorage();
const virtualDelay = (ms) => (Number(ms) > 0 ? new Promise((resolve) => { setTimeout(resolve, Number(ms)); }) : undefined);

// A run's abort signal collects a listener per LLM call.
events.defaultMaxListeners = 200;

// Pi 0.84's undici calls markAsUncloneable (Node >= 22.10).
if (typeof worker_threads.markAsUncloneable !== "function") worker_threads.markAsUncloneable = () => {};

const real = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout, setImmediate: globalThis.setImmediate };
const realTick = () => new Promise((resolve) => real.setImmediate(resolve));
const ioInFlight = () => process.getActiveResourcesInfo().some((r) => !IDLE_RESOURCES.has(r));

// The protocol owns stdout: whatever Pi or the extension prints goes to stderr.
const protocolWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (...args) => process.stderr.write(...args);
console.log = console.error;
console.info = console.error;

const piRoot = process.argv[2];
if (!piRoot || !fs.existsSync(path.join(piRoot, "node_modules", "@earendil-works", "pi-coding-agent"))) {
  process.stderr.write(`real_host.mjs: ${piRoot ?? "(no argument)"} is not a Pi install root\n`);
  process.exit(2);
}
const require = createRequire(path.join(piRoot, "package.json"));
const FakeTimers = require("@sinonjs/fake-timers");
const clock = FakeTimers.withGlobal(globalThis).install({
  now: EPOCH,
  toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
});

function entryOf(name) {
  const dir = path.join(piRoot, "node_modules", ...name.split("/"));
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  const dot = pkg.exports?.["."];
  const rel = (typeof dot === "string" ? dot : dot?.import ?? dot?.default) ?? pkg.main ?? "index.js";
  return { url: pathToFileURL(path.join(dir, typeof rel === "string" ? rel : rel.default)).href, version: pkg.version };
}

const codingAgent = entryOf("@earendil-works/pi-coding-agent");
const Pi = await import(codingAgent.url);
const Ai = await import(entryOf("@earendil-works/pi-ai").url);

// ---------------------------------------------------------------- Pi starts
// Every run is a start of Pi: the extension's own modules are evaluated
// again for it (pi_start_hooks.mjs gives them the URL of the current start)
// and what earlier runs left on globalThis is gone, as in a new process.
// Within a run Pi's own rules hold: an `.mjs` extension is evaluated once,
// a `.ts` one again by each runtime and `/reload` (Pi's loader, jiti).
const PI_START = new Int32Array(new SharedArrayBuffer(4));
const HOOKS = new URL("./pi_start_hooks.mjs", import.meta.url);
const HOST_DIR = new URL(".", import.meta.url).href;
if (typeof module.registerHooks === "function") {
  // In-thread hooks: no round trip to a loader thread per import.
  const { ofThisStart } = await import(HOOKS.href);
  module.registerHooks({ resolve: (specifier, context, next) => ofThisStart(next(specifier, context), PI_START, HOST_DIR) });
} else {
  module.register(HOOKS, { data: { start: PI_START, hostDir: HOST_DIR } });
}
const HOST_GLOBALS = [Symbol.for("planmode-host.companions")];
let processGlobals = null; // globalThis's own keys before the first run
function newPiStart() {
  Atomics.add(PI_START, 0, 1);
  if (!processGlobals) {
    processGlobals = new Set([...Reflect.ownKeys(globalThis), ...HOST_GLOBALS]);
    return;
  }
  for (const key of Reflect.ownKeys(globalThis)) {
    if (!processGlobals.has(key)) delete globalThis[key];
  }
}
const PI_VERSION = codingAgent.version;
const { AuthStorage } = await import(new URL("./core/auth-storage.js", codingAgent.url).href);

// Pi's TypeScript loader (jiti) keeps transpiled modules under
// $TMPDIR/jiti; each run's TMPDIR is its sandbox's, so every sandbox links
// jiti/ to one directory of this process: a module is transpiled once per
// process, not once per run (it is still evaluated by every new runtime).
// Pi's credentials are kept in memory (AuthStorage.inMemory(), empty at the
// start of every run): there is no credential file.
const HOST_TMP = fs.mkdtempSync(path.join(os.tmpdir(), "planmode-pi-host-"));
const JITI_CACHE = path.join(HOST_TMP, "jiti");
fs.mkdirSync(JITI_CACHE);
process.on("exit", () => fs.rmSync(HOST_TMP, { recursive: true, force: true }));

// ---------------------------------------------------------------- containment
// Writes through node:fs outside the run's sandbox root are refused and
// traced ({escape}); with options.traceWrites, files written inside it are
// traced ({write, path[, real]}) relative to the root: where an export went.

const realFs = { ...fs };
const realFsp = { ...fs.promises };
const WRITERS = {
  writeFile: [0], appendFile: [0], mkdir: [0], rm: [0], rmdir: [0], unlink: [0], rename: [0, 1],
  copyFile: [1], symlink: [1], link: [1], truncate: [0], cp: [1], chmod: [0], utimes: [0],
};
const TRACED_WRITES = { writeFile: 0, writeFileSync: 0, rename: 1, renameSync: 1, copyFile: 1, copyFileSync: 1, link: 1, linkSync: 1 };
const writesFlags = (flags) => (typeof flags === "string" ? /[wax+]/.test(flags) : typeof flags === "number" && (flags & 3) !== 0);
const pathArg = (target) => String(target instanceof URL ? target.pathname : target);

function traceWrite(name, args) {
  const run = current;
  const index = TRACED_WRITES[name];
  if (!run || index === undefined || !run.options.traceWrites || typeof args[index] !== "string") return;
  const target = path.resolve(args[index]);
  if (!inside(run.sandbox.root, target) || inside(run.sandbox.sessionDir, target)) return;
  const rel = (p) => path.relative(run.sandbox.root, p).split(path.sep).join("/");
  let landed = target;
  try { landed = path.join(realFs.realpathSync(path.dirname(target)), path.basename(target)); } catch { landed = target; }
  run.trace.push({ t: run.now(), write: name, path: rel(target), ...(landed !== target ? { real: rel(landed) } : {}) });
}

function refusal(run, name, target) {
  run.trace.push({ t: run.now(), escape: name, path: String(target) });
  const error = new Error(`EACCES: permission denied, ${name} '${target}' (outside the sandbox)`);
  error.code = "EACCES";
  return error;
}

function guarded(name, positions, fn, kind, opener = false) {
  return function guard(...args) {
    const run = current;
    if (opener && !writesFlags(args[1])) return fn.apply(this, args);
    traceWrite(opener ? "writeFile" : name, args);
    if (run && failingCall.getStore() === "appendEntry" && run.failing.has("appendEntry")) {
      const target = args[positions[0]];
      if (typeof target === "string" && inside(run.sandbox.sessionDir, target)) {
        run.failing.delete("appendEntry");
        run.trace.push({ t: run.now(), failed: "appendEntry", path: "<session file>" });
        const error = new Error(`EIO: i/o error, ${name} (the session file cannot be written)`);
        error.code = "EIO";
        if (kind === "promise") return Promise.reject(error);
        throw error;
      }
    }
    if (run) {
      for (const index of positions) {
        const target = args[index];
        if (target === undefined || typeof target === "number" || inside(run.sandbox.root, pathArg(target)) || inside(HOST_TMP, pathArg(target))) continue;
        const error = refusal(run, name, target);
        if (kind === "promise") return Promise.reject(error);
        const cb = args.findLast((a) => typeof a === "function");
        if (kind === "callback" && cb) { real.setImmediate(() => cb(error)); return undefined; }
        throw error;
      }
    }
    return fn.apply(this, args);
  };
}

for (const [name, positions] of Object.entries(WRITERS)) {
  if (typeof realFs[name] === "function") fs[name] = guarded(name, positions, realFs[name], "callback");
  if (typeof realFs[`${name}Sync`] === "function") fs[`${name}Sync`] = guarded(`${name}Sync`, positions, realFs[`${name}Sync`], "sync");
  if (typeof realFsp[name] === "function") fs.promises[name] = guarded(name, positions, realFsp[name], "promise");
}
fs.open = guarded("open", [0], realFs.open, "callback", true);
fs.openSync = guarded("openSync", [0], realFs.openSync, "sync", true);
fs.promises.open = guarded("open", [0], realFsp.open, "promise", true);
// Reads under the project directory are traced when the run asks for it
// (options.traceReads): a plan file loaded is an
// effect of some specs. Paths are relative to the named root, never the machine's.
const tracedRead = (name, fn) => function read(file, ...rest) {
  const run = current;
  if (run?.options.traceReads && (typeof file === "string" || file instanceof URL) && inside(run.sandbox.cwd, pathArg(file))) {
    const rel = path.relative(run.sandbox.cwd, path.resolve(pathArg(file))).split(path.sep).join("/");
    run.trace.push({ t: run.now(), call: `fs.${name}`, args: [`<cwd>/${rel}`.replace(/\/$/, "")] });
  }
  return fn.call(this, file, ...rest);
};
fs.readFileSync = tracedRead("readFileSync", realFs.readFileSync);
fs.readFile = tracedRead("readFile", realFs.readFile);
fs.promises.readFile = tracedRead("readFile", realFsp.readFile);
module.syncBuiltinESMExports();

function directories(root) {
  const out = new Set();
  const walk = (dir) => {
    let names;
    try { names = realFs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const d of names) if (d.isDirectory()) { out.add(path.join(dir, d.name)); walk(path.join(dir, d.name)); }
  };
  walk(root);
  return out;
}

const STEPS = {};
// The model runtime kept for the next run without a catalogue (Run.sharedModelRuntime()).
const MODEL_RUNTIMES = new Map();
const SCRIPTED = "scripted";
// The scripted model's turns: each LLM call waits for the running script.
// Pi's abort (ESC, leaving the session) ends the call at once, as it ends a
// provider's request: the turn ends aborted.
const abortedTurn = () => Ai.fauxAssistantMessage("", { stopReason: "aborted", errorMessage: "aborted" });
const scriptedTurn = (context, options) => {
  const run = current;
  if (!run) return Ai.fauxAssistantMessage("", { stopReason: "aborted", errorMessage: "aborted" });
  if (run.failTurn) {
    // fail_next sendUserMessage: the run the message started meets an API error.
    run.failTurn = false;
    run.llmCalls += 1;
    run.trace.push({ t: run.now(), failed: "sendUserMessage" });
    return Ai.fauxAssistantMessage("", { stopReason: "error", errorMessage: "the provider failed this request" });
  }
  return new Promise((respond) => {
    run.llmCalls += 1;
    const waiting = { context, respond };
    run.llm = waiting;
    const signal = options?.signal;
    const aborted = () => {
      if (run.llm === waiting) run.llm = null;
      respond(abortedTurn());
    };
    if (signal?.aborted) aborted();
    else signal?.addEventListener("abort", aborted, { once: true });
    run.llmWaiting?.();
  });
};
const MANY_TURNS = Array.from({ length: 10000 }, () => scriptedTurn);
// The tool a model turn calls to go on to the run's next LLM call: no
// extension registers it, so Pi answers the call itself.
const NEXT_TURN_TOOL = "planmode_host_next_turn";

// Whether a run left a kept model runtime as its first refresh left it:
// the same model snapshot (Pi replaces it whenever a provider, a model or
// the availability changes), no provider of an extension, no credential
// and the faux models untouched.
async function untouched(models) {
  const runtime = models.modelRuntime;
  return runtime.snapshot === models.snapshot && runtime.extensionProviders.size === 0
    && (runtime.virtualModels?.size ?? 0) === 0 && runtime.nativeExtensionProviders.size === models.handles.length
    && models.handles.every((faux) => runtime.nativeExtensionProviders.get(faux.provider.id) === faux.provider)
    && JSON.stringify(models.handles.map((faux) => faux.models)) === models.fauxModels
    && (await runtime.credentials.list()).length === 0;
}
const errorText = (error) => (error instanceof Error ? error.message : String(error));
const json = (value) => {
  try { return value === undefined ? undefined : JSON.parse(JSON.stringify(value)); } catch { return String(value); }
};
const inside = (root, target) => {
  const rel = path.relative(path.resolve(root), path.resolve(target));
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
};
const textOf = (content) => (typeof content === "string" ? content
  : Array.isArray(content) ? content.map((c) => (c?.type === "text" ? c.text : "")).join("") : "");

// ---------------------------------------------------------------- a run

class Run {
  constructor(request) {
    this.extensionPath = path.resolve(String(request.extension));
    this.sandbox = request.sandbox;
    this.options = { holdPrompts: false, ...(request.options ?? {}) };
    this.trace = [];
    this.errors = [];
    this.pending = new Set();
    this.answers = [];
    this.openPrompts = [];
    this.thinkingLevel = "off";
    this.calls = new Map(); // toolCallId -> what the recorder saw
    this.toolResults = new Map(); // toolCallId -> tool_execution_end
    this.llm = null; // the waiting LLM call: {context, respond}
    this.llmCalls = 0;
    this.contexts = []; // what the model saw, per LLM call (after every context handler)
    this.runtime = null;
    this.session = null;
    this.sessions = 1;
    this.callSeq = 0;
    this.compaction = null; // Pi's compaction under way or last ended: {reason, ended, aborted, error}
    this.execute = new Set();
    this.faux = null;
    this.running = null; // the prompt promise of the open agent run
    this.catalogue = null; // models of a `models` step (before start)
    this.current = null;
    this.extraTools = []; // Pi built-ins a `register_tool` step activates at start
    this.builtinsListed = false; // a `registry` step names the active built-ins
    this.companions = []; // extension files standing for other extensions' tools
    this.inactive = new Set(); // their tools listed inactive
    this.script = Array.isArray(request.script) ? request.script : [];
    this.piExtensionNames = new Set(); // Pi 1.x's own extensions loaded (codemode, tool_search)
    this.piSettings = {}; // Pi's own settings (a `pi_settings` step)
    this.behaviour = new Map(); // provider -> how it answers (DEFAULT_BEHAVIOUR's fields)
    this.unresolved = new Set(); // provider/id Pi's registry cannot resolve
    this.available = null; // provider/id getAvailable() lists (null: all of a configured provider)
    this.scoped = null; // provider/id of the --models scope
    this.scripted = new Map(); // provider -> its handle, once registered with Pi
    this.failing = new Set(); // injected failures armed (fail_next)
    this.failingAfterModelChange = new Set(); // armed by the next accepted pi.setModel
  }

  now() { return Date.now() - EPOCH; }
  error(where, error) { this.errors.push({ t: this.now(), where, message: errorText(error) }); }
  record(call, args) { this.trace.push({ t: this.now(), call, args: json(args) }); }

  track(promise) {
    const p = Promise.resolve(promise).catch((e) => this.error("background", e));
    this.pending.add(p);
    p.finally(() => this.pending.delete(p));
    return p;
  }

  // Until nothing but the virtual clock (or the script) can move the run.
  async settle() {
    let idle = 0;
    const started = performance.now();
    while (performance.now() - started < REAL_LIMIT_MS) {
      await realTick();
      idle = ioInFlight() ? 0 : idle + 1;
      if (idle >= QUIET_TICKS) break;
    }
  }

  // The scripted model: one faux provider per provider of the catalogue (a
  // `models` step), else one scripted model. Every LLM call waits for the
  // script of the run under way (MANY_TURNS), so the providers, and the
  // model runtime holding them, can serve many runs (sharedModelRuntime()).
  providers() {
    if (typeof Ai.fauxProvider !== "function") throw new Error(`pi-ai ${PI_VERSION} has no fauxProvider`);
    this.turns = MANY_TURNS;
    const byProvider = new Map();
    for (const m of this.catalogue ?? [{ provider: "planmode", id: "scripted" }]) {
      if (!byProvider.has(m.provider)) byProvider.set(m.provider, []);
      byProvider.get(m.provider).push({ id: String(m.id), name: m.name, reasoning: m.reasoning !== false });
    }
    const handles = [];
    for (const [provider, models] of byProvider) {
      const faux = Ai.fauxProvider({ provider, models });
      // A catalogue model supports the thinking levels it lists, else all
      // seven (Pi's map names the levels beyond high a model supports).
      for (const model of faux.models) {
        const entry = (this.catalogue ?? []).find((m) => m.provider === provider && String(m.id) === model.id);
        if (!entry || !model.reasoning) continue;
        const listed = Array.isArray(entry.thinkingLevels) ? entry.thinkingLevels.map(String) : null;
        model.thinkingLevelMap = Object.fromEntries(ALL_LEVELS.map((level) => [level, listed && !listed.includes(level) ? null : level]));
      }
      handles.push(this.catalogue ? this.scriptedProvider(provider, faux) : faux);
    }
    return handles;
  }

  // A provider of the catalogue as Pi sees it: the faux provider's models
  // and turns, an API-key authentication answering as the script says
  // (`check`: is a key configured, which Pi asks for availability and again
  // in setModel; `resolve`: the key, which getApiKeyAndHeaders asks), and
  // the models getAvailable() lists (Pi's `filterModels`).
  scriptedProvider(name, faux) {
    const run = this;
    const base = faux.provider;
    const extra = [];
    const provider = {
      ...base,
      getModels: () => [...base.getModels(), ...extra].filter((m) => !run.unresolved.has(`${name}/${m.id}`)),
      filterModels: (models) => (run.available ? models.filter((m) => run.available.has(`${name}/${m.id}`)) : models),
      auth: {
        apiKey: {
          name: `${name} (scripted)`,
          check: () => run.checkKey(name),
          resolve: () => run.resolveKey(name),
        },
      },
    };
    const handle = { provider, faux, extra, models: faux.models, getModel: (id) => provider.getModels().find((m) => m.id === id) };
    this.scripted.set(name, handle);
    return handle;
  }

  providerBehaviour(name) {
    return { ...DEFAULT_BEHAVIOUR, ...(this.behaviour.get(name) ?? {}) };
  }

  async checkKey(name) {
    const b = this.providerBehaviour(name);
    if (b.credentials === false || b.change === "refuse") return undefined;
    const configured = { source: "planmode host", type: "api_key" };
    if (asking.getStore() !== "setModel") return configured;
    if (b.change === "hang") return new Promise(() => {});
    await virtualDelay(b.changeDelay);
    if (b.change === "throw") throw new Error(`the key check for ${name} failed`);
    return configured;
  }

  async resolveKey(name) {
    const key = { auth: { apiKey: "planmode-host-key" } };
    if (asking.getStore() !== "registry") return key;
    const b = this.providerBehaviour(name);
    if (b.auth === "hang") return new Promise(() => {});
    await virtualDelay(b.authDelay);
    if (b.auth === "fail" || b.auth === "throw") throw new Error(`No API key for ${name}`);
    return key;
  }

  scopedModels() {
    if (!this.scoped || !this.modelRuntime) return [];
    return [...this.scoped].map((key) => {
      const [provider, ...rest] = key.split("/");
      return this.modelRuntime.getModel(provider, rest.join("/"));
    }).filter(Boolean).map((model) => ({ model }));
  }

  // pi.setModel, or the user's model change: Pi's answer, traced.
  async answerSetModel(model, change, record) {
    const key = `${model?.provider}/${model?.id}`;
    if (record) this.record("pi.setModel", [{ provider: model?.provider, id: model?.id }]);
    let value;
    try {
      value = await asking.run("setModel", change);
    } catch (error) {
      this.trace.push({ t: this.now(), answer: "pi.setModel", model: key, threw: errorText(error) });
      throw error;
    }
    this.trace.push({ t: this.now(), answer: "pi.setModel", model: key, value: value !== false });
    if (value !== false) {
      for (const call of this.failingAfterModelChange) this.failing.add(call);
      this.failingAfterModelChange.clear();
    }
    return value;
  }

  // The extension's model calls, traced with Pi's answers: what a model
  // switch is read from. Wrapped again whenever Pi binds the extension.
  instrument() {
    const run = this;
    const runner = this.session?.extensionRunner;
    const rt = runner?.runtime;
    if (rt && typeof rt.setModel === "function" && !rt.setModel[WRAPPED]) {
      const setModel = rt.setModel;
      rt.setModel = (model) => run.answerSetModel(model, () => setModel(model), true);
      rt.setModel[WRAPPED] = true;
    }
    if (rt && typeof rt.setThinkingLevel === "function" && !rt.setThinkingLevel[WRAPPED]) {
      const setThinkingLevel = rt.setThinkingLevel;
      rt.setThinkingLevel = (level) => { run.record("pi.setThinkingLevel", [level]); return setThinkingLevel(level); };
      rt.setThinkingLevel[WRAPPED] = true;
    }
    if (rt && typeof rt.appendEntry === "function" && !rt.appendEntry[WRAPPED]) {
      const appendEntry = rt.appendEntry;
      rt.appendEntry = (...args) => failingCall.run("appendEntry", () => appendEntry(...args));
      rt.appendEntry[WRAPPED] = true;
    }
    const registry = runner?.modelRegistry;
    if (registry && typeof registry.getApiKeyAndHeaders === "function" && !registry.getApiKeyAndHeaders[WRAPPED]) {
      const ask = registry.getApiKeyAndHeaders;
      registry.getApiKeyAndHeaders = (model) => {
        const key = `${model?.provider}/${model?.id}`;
        run.record("modelRegistry.getApiKeyAndHeaders", [model?.provider, model?.id]);
        const answer = (outcome) => run.trace.push({ t: run.now(), answer: "modelRegistry.getApiKeyAndHeaders", model: key, outcome });
        return Promise.resolve(asking.run("registry", () => ask.call(registry, model))).then(
          (value) => { answer(value?.ok === false ? "fail" : "ok"); return value; },
          (error) => { answer("throw"); throw error; },
        );
      };
      registry.getApiKeyAndHeaders[WRAPPED] = true;
    }
  }

  recorder() {
    const run = this;
    return {
      name: "planmode-host",
      hidden: true,
      factory: (pi) => {
        // The host extension's pi of a runtime Pi has replaced is stale.
        if (run.hostPi && run.hostPi !== pi) run.stalePi = run.hostPi;
        run.hostPi = pi;
        pi.on("tool_call", (event) => {
          run.calls.set(event.toolCallId, { toolName: event.toolName, input: json(event.input), ...(event.parentToolCallId ? { parentToolCallId: event.parentToolCallId } : {}) });
          if (BUILTIN.has(event.toolName) || !run.execute.has(event.toolCallId)) return { block: true, reason: MARKER };
          return undefined;
        });
        pi.on("context", (event) => {
          run.contexts.push(json(event.messages));
          return undefined;
        });
        pi.on("input", (event) => {
          if (event.source === "extension") {
            // The session it is sent in (a fresh session's kickoff is the new one's).
            run.trace.push({ t: run.now(), call: "pi.sendUserMessage", args: [event.text], session: run.sessions });
            if (run.failing.delete("sendUserMessage")) run.failTurn = true;
          }
          return undefined;
        });
        // fail_next newSession: the host's extension cancels the switch, as any extension may.
        pi.on("session_before_switch", (event) => {
          if (event.reason !== "new" || !run.failing.delete("newSession")) return undefined;
          run.trace.push({ t: run.now(), failed: "newSession" });
          return { cancel: true };
        });
        pi.on("thinking_level_select", (event) => {
          run.trace.push({ t: run.now(), thinking: event.level, previous: event.previousLevel });
        });
        recordBeforeSettle(run, pi);
      },
    };
  }

  ui() {
    const run = this;
    const rec = (name) => (...args) => run.record(`ui.${name}`, args);
    const ask = (name, kind) => async (...args) => {
      let answer = run.answers.shift();
      const entry = { t: run.now(), call: `ui.${name}`, args: json(args.filter((a) => typeof a !== "object" || Array.isArray(a))), answer: answer ?? null };
      run.trace.push(entry);
      if (answer === undefined && run.options.holdPrompts) {
        answer = await new Promise((resolve) => { run.openPrompts.push(resolve); run.heldOpened = true; run.promptOpened?.(); });
        entry.answer = answer ?? null;
      }
      if (!answer || answer.cancel) return kind === "confirm" ? false : undefined;
      if (kind === "select") {
        const options = Array.isArray(args[1]) ? args[1] : [];
        return selectItem(answer, options, (why) => run.error("ui.select", new Error(why)));
      }
      if (kind === "confirm") return Boolean(answer.confirm ?? answer.value);
      return answer.input ?? answer.value;
    };
    const ui = {
      select: ask("select", "select"),
      confirm: ask("confirm", "confirm"),
      input: ask("input", "input"),
      editor: ask("editor", "input"),
      // A custom component is drawn by a terminal and answered by keys: with
      // none pressed it stays open, as in Pi's interactive mode. The step that
      // opened it ends (as for a held prompt); the dialog is never answered, so
      // an extension that reopens a dismissed dialog cannot spin the host.
      custom: (...args) => {
        run.record("ui.custom", args.slice(1));
        run.customOpened = true;
        return new Promise(() => { run.promptOpened?.(); });
      },
      onTerminalInput: () => () => {},
      getEditorText: () => run.editorText ?? "",
      setEditorText: (text) => { run.editorText = text; run.record("ui.setEditorText", [text]); },
      pasteToEditor: (text) => { run.editorText = text; run.record("ui.pasteToEditor", [text]); },
      getEditorComponent: () => undefined,
      getAllThemes: () => [],
      getTheme: () => undefined,
      setTheme: () => ({ success: false, error: "themes are not available in this host" }),
      getToolsExpanded: () => false,
      theme: {
        fg: (c, t) => `\u001b[38;pi:${c}m${t}\u001b[39m`,
        bg: (c, t) => `\u001b[48;pi:${c}m${t}\u001b[49m`,
        bold: (t) => t, italic: (t) => t, underline: (t) => t, dim: (t) => t, strikethrough: (t) => t,
      },
    };
    for (const name of ["notify", "setStatus", "setWidget", "setWorkingMessage", "setWorkingVisible", "setWorkingIndicator",
      "setHiddenThinkingLabel", "setTitle", "setFooter", "setHeader", "setEditorComponent", "addAutocompleteProvider", "setToolsExpanded"]) {
      ui[name] = rec(name);
    }
    return ui;
  }

  async start(step) {
    const run = this;
    const sb = this.sandbox;
    const early = prepareStart(this);
    if (early) return early;
    const { modelRuntime, handles } = await this.sharedModelRuntime();
    this.modelRuntime = modelRuntime;
    for (const handle of handles) (handle.faux ?? handle).setResponses(MANY_TURNS);
    // Which providers have a key configured: Pi's availability snapshot.
    if (this.catalogue) await modelRuntime.getAvailable();
    const [provider, ...rest] = String(this.current ?? "").split("/");
    const model = handles.map((h) => h.getModel(rest.join("/"))).find((m) => m && m.provider === provider)
      ?? handles[0].getModel();
    const tools = !this.builtinsListed && this.extraTools.length ? ["read", "bash", "edit", "write", ...this.extraTools] : undefined;
    if (step.thinkingLevel) this.thinkingLevel = String(step.thinkingLevel);
    const flags = new Map(Object.entries(step.flags ?? {}));
    const createRuntime = async ({ cwd, agentDir, sessionManager, sessionStartEvent }) => {
      // Compaction only when a step asks; it then summarises everything
      // but the last message (a few tokens kept).
      const settingsManager = Pi.SettingsManager.inMemory({ compaction: { enabled: false, keepRecentTokens: 1 }, retry: { enabled: false }, ...run.piSettings });
      const services = await Pi.createAgentSessionServices({
        cwd, agentDir, modelRuntime, settingsManager, extensionFlagValues: flags,
        resourceLoaderOptions: {
          additionalExtensionPaths: [run.extensionPath],
          extensionFactories: [...piExtensions(run), run.recorder()],
          noSkills: true, noPromptTemplates: true, noThemes: true, noContextFiles: true,
          systemPrompt: "You are Pi, a coding agent.",
        },
      });
      // Pi reports an extension it could not load (a syntax error, a
      // factory that throws, no default export) and goes on without it; the
      // extension under test not loading ends the step instead, so no case
      // is judged on a Pi that lacks it.
      const failed = services.resourceLoader.getExtensions().errors ?? [];
      if (failed.length) throw new Error(`Pi could not load the extension: ${failed.map((f) => errorText(f.error)).join("; ")}`);
      const created = await Pi.createAgentSessionFromServices({
        services, sessionManager, sessionStartEvent, model: run.session?.model ?? model, thinkingLevel: run.thinkingLevel,
        ...(run.scoped ? { scopedModels: run.scopedModels() } : {}),
        ...(tools ? { tools } : {}),
      });
      return { ...created, services, diagnostics: services.diagnostics };
    };
    this.createRuntime = createRuntime;
    // A start on stored entries opens that session, as `pi --session FILE` does.
    let sessionManager = Pi.SessionManager.create(sb.cwd, sb.sessionDir);
    if (Array.isArray(step.entries) && step.entries.length) {
      const stored = storeSession(this, step.entries);
      if (stored.refused) return stored;
      sessionManager = Pi.SessionManager.open(stored.file, sb.sessionDir);
    }
    this.runtime = await Pi.createAgentSessionRuntime(createRuntime, { cwd: sb.cwd, agentDir: sb.agentDir, sessionManager });
    for (const d of this.runtime.diagnostics ?? []) if (d?.type === "error") this.error("load", new Error(d.message));
    this.runtime.setRebindSession(async () => { await run.bind(); });
    // The case's registry (its active set) is Pi's before session_start:
    // an extension's start-up handler then sets the tools it wants.
    await this.bind(() => {
      if (this.inactive.size || this.builtinsListed) {
        // The registry's active set: Pi's built-ins as listed, listed tools
        // not active left out, every other tool (the extension's) kept.
        const builtins = this.builtins();
        const listedActive = new Set(this.listedActive ?? []);
        let active = this.session.getActiveToolNames().filter((n) => !this.inactive.has(n));
        if (this.builtinsListed) active = active.filter((n) => !builtins.has(n) || listedActive.has(n));
        const all = new Set(this.session.getAllTools().map((t) => t.name));
        for (const name of [...this.extraTools, ...listedActive]) if (all.has(name) && !active.includes(name)) active.push(name);
        // In the registry's order, then the extension's own.
        const order = [...(this.listedActive ?? []), ...this.extraTools];
        const ranked = (n) => (order.includes(n) ? order.indexOf(n) : order.length);
        active = active.map((n, i) => [n, i]).sort((a, b) => ranked(a[0]) - ranked(b[0]) || a[1] - b[1]).map(([n]) => n);
        this.session.setActiveToolsByName(active);
      }
      finishStart(this);
    });
    return {};
  }

  // Pi's model runtime (credentials in memory, no models.json, no network)
  // with the run's providers. A catalogue's providers answer as the run's
  // script says (authentication, availability): that runtime is the run's
  // own. The one scripted model of a run without a catalogue answers alike
  // in every run, so, as in a Pi process, one runtime serves run after run:
  // it is kept while it is as its first refresh left it (untouched()), and
  // its availability pass is not repeated then, since nothing it reads has
  // changed (the credentials in memory and empty, the providers the same;
  // an extension that registers a provider gets Pi's own refresh, and the
  // runtime is not kept).
  async sharedModelRuntime() {
    if (!this.catalogue) {
      const kept = MODEL_RUNTIMES.get(SCRIPTED);
      MODEL_RUNTIMES.delete(SCRIPTED);
      if (kept) return (this.sharedModels = kept);
    }
    const handles = this.providers();
    handles.forEach((handle) => (handle.faux ?? handle).setResponses(MANY_TURNS));
    const modelRuntime = await Pi.ModelRuntime.create({
      credentials: AuthStorage.inMemory(), modelsPath: null, refreshOnCreate: false, allowModelNetwork: false,
    });
    if (this.catalogue) {
      for (const handle of handles) modelRuntime.registerNativeProvider(handle.provider);
      return { modelRuntime, handles };
    }
    const own = Object.getPrototypeOf(modelRuntime).refresh;
    const pristine = () => modelRuntime.extensionProviders.size === 0 && (modelRuntime.virtualModels?.size ?? 0) === 0
      && modelRuntime.nativeExtensionProviders.size === handles.length;
    let refreshed = false;
    modelRuntime.refresh = async function refresh(options) {
      if (refreshed && pristine()) return { aborted: false, errors: new Map() };
      const result = await own.call(this, options);
      refreshed = true;
      return result;
    };
    for (const faux of handles) modelRuntime.registerNativeProvider(faux.provider);
    await modelRuntime.refresh({ allowNetwork: false });
    const fauxModels = JSON.stringify(handles.map((faux) => faux.models));
    const models = { modelRuntime, handles, snapshot: modelRuntime.snapshot, fauxModels };
    return (this.sharedModels = models);
  }

  // After the run: keep its model runtime for the next run if the run left
  // it as it found it (no provider, model or credential added or changed).
  async releaseModelRuntime() {
    const models = this.sharedModels;
    this.sharedModels = null;
    if (!models) return;
    try {
      if (await untouched(models)) MODEL_RUNTIMES.set(SCRIPTED, models);
    } catch { /* not reusable */ }
  }

  // beforeStart: what the host sets in Pi before session_start is emitted.
  async bind(beforeStart) {
    const run = this;
    const runtime = this.runtime;
    const session = runtime.session;
    if (this.session && this.session !== session) this.sessions += 1;
    this.session = session;
    this.unsubscribe?.();
    this.unsubscribe = session.subscribe((event) => {
      if (event.type === "tool_execution_end") run.toolResults.set(event.toolCallId, { isError: Boolean(event.isError), text: textOf(event.result?.content), details: json(event.result?.details) });
      if (event.type === "compaction_start") run.compaction = { reason: event.reason, ended: false };
      if (event.type === "compaction_end" && run.compaction) Object.assign(run.compaction, { ended: true, aborted: Boolean(event.aborted), error: event.errorMessage ?? null, compacted: Boolean(event.result) });
      // An extension's pi.appendEntry, traced.
      if (event.type === "entry_appended" && event.entry?.type === "custom") run.record("pi.appendEntry", [event.entry.customType, event.entry.data]);
    });
    for (const file of this.companions) companionHandles().get(file)?.start?.();
    beforeStart?.();
    // The extension's model calls at session_start are traced too.
    this.instrument();
    await session.bindExtensions({
      uiContext: this.ui(),
      mode: "rpc",
      commandContextActions: {
        waitForIdle: () => session.waitForIdle(),
        newSession: async (options) => runtime.newSession(options),
        fork: async (entryId, options) => ({ cancelled: (await runtime.fork(entryId, options)).cancelled }),
        navigateTree: async (targetId, options) => ({ cancelled: (await session.navigateTree(targetId, options)).cancelled }),
        switchSession: async (file, options) => runtime.switchSession(file, options),
        // The extension's model calls at session_start after /reload are traced too.
        reload: async () => { await session.reload({ beforeSessionStart: () => run.instrument() }); },
      },
      onError: (err) => run.error(`extension ${err.event ?? ""}`.trim(), new Error(err.error ?? String(err))),
    });
    this.instrument();
    this.recordShortcuts();
    takeKeyTable(this);
  }

  // What each load of the extension registered (tools, shortcuts), as calls.
  recordShortcuts() {
    for (const tool of this.session?.getAllTools() ?? []) {
      if (tool.sourceInfo?.path === this.extensionPath) this.record("pi.registerTool", [{ name: tool.name }]);
    }
    for (const ext of this.session?.extensionRunner?.extensions ?? []) {
      for (const [key, shortcut] of ext.shortcuts ?? []) {
        if (!String(ext.path ?? "").startsWith("<inline:")) this.record("pi.registerShortcut", [key, { description: shortcut.description }]);
      }
    }
  }

  requireSession() {
    if (!this.session) throw new Error('no Pi session yet: the script needs a "start" step first');
    return this.session;
  }

  // Run `promise` until it settles, an LLM call waits for the script, or a
  // prompt opens with no answer; then let Pi's own I/O settle.
  async until(promise) {
    let watchdog;
    const calls = this.llmCalls;
    const waits = [promise, new Promise((resolve) => { watchdog = real.setTimeout(resolve, REAL_LIMIT_MS); })];
    // A prompt or custom dialog may open before this wait starts (the step
    // ran up to it at once).
    waits.push(new Promise((resolve) => { this.promptOpened = resolve; if (this.customOpened || this.heldOpened) resolve(); }));
    // A new LLM call (the run the step started, or the next turn) waits for the script.
    waits.push(new Promise((resolve) => { this.llmWaiting = resolve; if (this.llmCalls > calls) resolve(); }));
    await Promise.race(waits);
    real.clearTimeout(watchdog);
    this.promptOpened = null;
    this.llmWaiting = null;
    await this.settle();
  }

  // The open agent run's next assistant turn.
  respond(message) {
    const waiting = this.llm;
    if (!waiting) return false;
    this.llm = null;
    waiting.respond(message);
    return true;
  }

  // Pi aborts the open run of a session it leaves: the waiting LLM call
  // ends aborted, and the run with it. A message queued during the run
  // continues it (Pi runs the queue after the aborted turn), on the session
  // being left; leaving aborts that run too. The user's ESC (`esc`) first
  // puts the queued messages back into the editor, as Pi's editor does.
  async abortOpenRun(esc = false) {
    const session = this.session;
    if (!session || session.isIdle) return;
    if (esc) session.clearQueue();
    const aborting = this.track(session.abort());
    this.respond(Ai.fauxAssistantMessage("", { stopReason: "aborted", errorMessage: "aborted" }));
    await this.until(aborting);
    this.running = null;
  }

  // Pi's automatic compaction inside the open run, as Pi does it when the
  // provider rejects a request as too long for the context window: the
  // waiting LLM call fails with the provider's overflow error; Pi ends that
  // attempt (agent_end), compacts (compaction turned on for this one step),
  // drops the failed attempt and retries: the run's next LLM call waits for
  // the script, and the run settles fully only after it. Pi 0.84 and 1.x
  // recover from an overflow the same way.
  async compactInRun(step) {
    const session = this.session;
    if (!this.llm) return { refused: "the open run has no LLM call waiting: Pi compacts automatically before a run's next LLM call" };
    const settings = session.settingsManager;
    const enabled = settings.getCompactionEnabled();
    settings.setCompactionEnabled(true);
    this.compaction = null;
    const summary = String(step.summary ?? "Summary of the conversation so far.");
    try {
      this.respond(Ai.fauxAssistantMessage("", { stopReason: "error", errorMessage: "prompt is too long: 300000 tokens > 200000 maximum" }));
      for (let i = 0; i < 6; i++) {
        await this.until(this.running ?? session.waitForIdle());
        if (!this.compaction || this.compaction.ended || !this.llm) break;
        this.respond(Ai.fauxAssistantMessage(summary));
      }
    } finally {
      settings.setCompactionEnabled(enabled);
    }
    const outcome = this.compaction;
    // Nothing before the open turn to summarise: Pi ends the run with the error.
    if (!outcome) return { refused: "Pi found nothing to compact before the open run's next LLM call (the run holds only its first prompt)" };
    if (!outcome.ended) return { error: "Pi's compaction did not finish" };
    // The retry's LLM call (Pi continues the run after compacting).
    if (!this.llm && this.running) await this.until(this.running);
    if (outcome.compacted) return { cancelled: false, automatic: true, ...(this.llm ? {} : { runEnded: true }) };
    return /cancelled/i.test(outcome.error ?? "") || outcome.aborted ? { cancelled: true, automatic: true } : { error: outcome.error ?? "Pi's compaction failed" };
  }

  // The open agent run ends with the model's plain replies (what the user
  // waits for before Pi lets them navigate).
  async finishOpenRun() {
    for (let i = 0; i < 5 && this.llm; i++) {
      this.respond(Ai.fauxAssistantMessage("done"));
      await this.until(this.running ?? this.session.waitForIdle());
    }
  }

  async toolCall(step) {
    this.requireSession();
    // A tool call comes from a model turn: outside a run, the host opens one
    // (an empty prompt) whose first turn makes the call.
    let opened = false;
    if (!this.llm && !this.running && this.session.isIdle) {
      await this.agentStart({ prompt: "" });
      opened = true;
    }
    if (!this.llm) return { refused: "no LLM call is waiting: a tool call comes from a model turn" };
    const name = String(step.tool);
    const toolCallId = String(step.toolCallId ?? `call-${++this.callSeq}`);
    if (step.execute) this.execute.add(toolCallId);
    let input = step.input === undefined ? {} : json(step.input);
    // `validate: false`: the script gives only the arguments that matter to
    // it; Pi checks the tool's schema before tool_call, so the host supplies
    // placeholders for the required arguments it leaves out.
    if (step.validate === false) {
      const schema = this.session.getAllTools().find((t) => t.name === name)?.parameters;
      if (schema) input = { ...placeholder(schema), ...input };
    }
    this.respond(Ai.fauxAssistantMessage(Ai.fauxToolCall(name, input, { id: toolCallId }), { stopReason: "toolUse" }));
    await this.until(this.running ?? this.session.waitForIdle());
    const seen = this.calls.get(toolCallId);
    const out = this.toolResults.get(toolCallId);
    if (seen) {
      const ran = out && out.text !== MARKER;
      return { tool: name, reached: true, allowed: true, input: seen.input, ...(opened ? { openedRun: true } : {}), ...(ran ? { result: { isError: out.isError, content: [{ type: "text", text: out.text }], ...(out.details !== undefined ? { details: out.details } : {}) } } : {}) };
    }
    const text = out?.text ?? null;
    const refusedByPi = text !== null && (/^Tool \S+ not found/.test(text) || /^Validation failed/.test(text));
    return { tool: name, reached: !refusedByPi, allowed: false, blocked: !refusedByPi, reason: text, ...(refusedByPi ? { error: text } : {}) };
  }

  async agentStart(step) {
    const session = this.requireSession();
    if (this.running) return { error: "an agent run is already open" };
    const prompt = session.prompt(String(step.prompt ?? ""));
    this.running = this.track(prompt.finally(() => { this.running = null; }));
    await this.until(this.running);
    return {};
  }

  async agentEnd(step) {
    this.requireSession();
    if (!this.llm) return { refused: "no LLM call is waiting: agent_end answers a model turn (agent_start first)" };
    const outcome = String(step.outcome ?? "completed");
    if (outcome === "aborted") {
      const running = this.running;
      await this.session.abort();
      if (running) await this.until(running);
      return {};
    }
    const message = outcome === "error"
      ? Ai.fauxAssistantMessage("", { stopReason: "error", errorMessage: "the provider failed" })
      : Ai.fauxAssistantMessage(String(step.reply ?? "done"));
    this.respond(message);
    await this.until(this.running ?? this.session.waitForIdle());
    return {};
  }

  state() {
    const session = this.session;
    let commands = [];
    let shortcuts = [];
    let flags = {};
    try {
      const runner = session?.extensionRunner;
      commands = runner ? runner.getRegisteredCommands().map((c) => c.invocationName ?? c.name) : [];
      flags = runner ? Object.fromEntries([...runner.getFlags()].map(([k, f]) => [k, f.default ?? null])) : {};
    } catch (error) { this.error("state", error); }
    return {
      now: this.now(),
      pi: PI_VERSION,
      activeTools: session ? session.getActiveToolNames() : [],
      tools: session ? session.getAllTools().map((t) => ({ name: t.name, source: t.sourceInfo?.source ?? null, ...(t.exposure ? { exposure: t.exposure } : {}) })) : [],
      thinkingLevel: session?.thinkingLevel ?? this.thinkingLevel,
      model: session?.model ? `${session.model.provider}/${session.model.id}` : null,
      commands,
      shortcuts,
      flags,
      sessions: this.sessions,
      unusedAnswers: this.answers.length,
      root: this.sandbox.root,
      cwd: this.sandbox.cwd,
      history: json(session?.messages ?? []),
      // The session's entries on its current branch, as Pi stores them.
      branch: json(session?.sessionManager?.getBranch?.() ?? []),
      systemPrompt: session?.systemPrompt ?? null,
      llmCalls: this.llmCalls,
    };
  }

  hostTools(tools, replace) {
    const companions = { "user-extension": [], "project-extension": [] };
    const builtins = [];
    for (const t of tools) {
      const name = String(t.name);
      const source = t.source ?? "builtin";
      if ((source === "builtin" || source === "built-in") && PI_EXTENSION_TOOLS[name] && !this.builtins().has(name)) {
        const refused = piExtensionTool(this, t);
        if (refused) return refused;
      } else if (source === "builtin" || source === "built-in") {
        if (!this.builtins().has(name)) return { refused: `Pi ${PI_VERSION} has no built-in ${name} tool` };
        if (t.exposure !== undefined && t.exposure !== null && t.exposure !== "direct") return { refused: `Pi's built-in ${name} is direct; its exposure is Pi's own` };
        builtins.push({ name, active: t.active !== false });
      } else if (source in companions) {
        if (t.exposure !== undefined && t.exposure !== null && !this.hasExposure()) return { refused: `Pi ${PI_VERSION} has no tool exposure (1.x has)` };
        if (t.annotations && Object.keys(t.annotations).length && !this.hasExposure()) return { refused: `Pi ${PI_VERSION}'s getAllTools() carries no tool annotations (1.x does)` };
        // A tool the registry lists inactive stays so when its owner
        // registers it (at session_start, after the registry is applied).
        companions[source].push(companionTool(this, { ...t, defaultActive: t.active === false ? false : undefined }));
      } else {
        return { refused: `a tool from ${source} is not scripted in the real-Pi host` };
      }
    }
    if (replace) {
      // Pi always has its built-ins: those the registry does not list are inactive.
      this.extraTools = builtins.filter((b) => b.active).map((b) => b.name);
      this.listedActive = tools.filter((t) => t.active !== false).map((t) => String(t.name));
      this.builtinsListed = true;
    } else {
      for (const b of builtins) if (b.active) this.extraTools.push(b.name);
    }
    for (const [source, list] of Object.entries(companions)) {
      if (!list.length) continue;
      const dir = source === "user-extension" ? path.join(this.sandbox.agentDir, "extensions") : path.join(this.sandbox.cwd, ".pi", "extensions");
      realFs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `planmode-host-${source}-${fs.readdirSync(dir).length + 1}.js`);
      realFs.writeFileSync(file, companionSource(list, file));
      this.companionBySource ??= {};
      this.companionBySource[source] ??= file;
      this.companions.push(file);
      for (const t of tools) if (t.source === source && t.active === false) this.inactive.add(String(t.name));
    }
    return {};
  }

  hasExposure() {
    const [major] = PI_VERSION.split(".").map(Number);
    return major >= 1;
  }

  async setActive(change) {
    const session = this.requireSession();
    if (!this.hostPi) return { refused: "the host's own extension did not load" };
    this.hostPi.setActiveTools(change(session.getActiveToolNames()));
    await this.settle();
    return { active: session.getActiveToolNames() };
  }

  builtins() {
    if (!this.builtinNames) {
      const names = Object.keys(Pi).filter((k) => /^create[A-Za-z]+ToolDefinition$/.test(k)).map((k) => k.slice(6, -14).toLowerCase());
      this.builtinNames = new Set(names);
    }
    return this.builtinNames;
  }

  rootFor(step) {
    const root = step.root ?? "agent";
    const base = { agent: this.sandbox.agentDir, cwd: this.sandbox.cwd, home: this.sandbox.home }[root];
    if (!base) throw new Error(`unknown root ${JSON.stringify(root)} (agent, cwd or home)`);
    const target = path.resolve(base, String(step.path ?? ""));
    if (!inside(this.sandbox.root, target)) throw new Error(`${step.path} is outside the sandbox`);
    return target;
  }
}

// ---------------------------------------------------------------- steps: one handler each

const refuse = (why) => async () => ({ refused: why });

Object.assign(STEPS, {
  start: (run, step) => run.start(step),
  command: async (run, step) => {
    const session = run.requireSession();
    const name = String(step.name);
    if (!session.extensionRunner?.getCommand(name)) return { error: `unknown command /${name}` };
    const args = String(step.args ?? "");
    const done = run.track(session.prompt(args ? `/${name} ${args}` : `/${name}`));
    if (step.wait === false) { await run.settle(); return {}; }
    await run.until(done);
    return {};
  },
  ui: async (run, step) => {
    const answers = [...(step.answers ?? [])];
    while (answers.length && run.openPrompts.length) run.openPrompts.shift()(answers.shift());
    run.answers.push(...answers);
    await run.settle();
    return {};
  },
  dismiss: async (run) => {
    const open = run.openPrompts.splice(0);
    for (const resolve of open) resolve({ cancel: true });
    await run.settle();
    return { dismissed: open.length };
  },
  agent_start: (run, step) => run.agentStart(step),
  // A key press, dispatched as Pi's interactive mode does (keyPress below).
  shortcut: (run, step) => keyPress(run, step),
  // Pi emits context before every LLM call: the waiting call's context is
  // what the model sees after every extension's context handler.
  context: async (run) => {
    const session = run.requireSession();
    // Outside a run (an aborted or settled one), the next LLM call comes
    // with the next prompt: the host opens a run with an empty one.
    let opened = false;
    // A waiting LLM call whose context a step already read: the context is
    // the open run's next LLM call's. The model's turn calls a tool nobody
    // registered; Pi answers it itself ("Tool … not found", never reaching
    // an extension) and the run goes on to its next call.
    if (run.llm && run.contextRead === run.llmCalls) {
      run.respond(Ai.fauxAssistantMessage(Ai.fauxToolCall(NEXT_TURN_TOOL, {}, { id: `call-${++run.callSeq}` }), { stopReason: "toolUse" }));
      await run.until(run.running ?? session.waitForIdle());
    }
    if (!run.llm && !run.running && session.isIdle) {
      await run.agentStart({ prompt: "" });
      opened = true;
    }
    if (!run.llm) return { refused: "no LLM call is waiting: Pi emits context only before an LLM call" };
    const messages = run.contexts.at(-1) ?? [];
    run.contextRead = run.llmCalls;
    // The history: the session's messages, before context handlers.
    const history = json(session.messages ?? messages);
    return { context: { messages }, history, session: run.sessions, ...(opened ? { openedRun: true } : {}) };
  },
  tool_call: (run, step) => run.toolCall(step),
  agent_end: (run, step) => run.agentEnd(step),
  advance: async (run, step) => {
    await clock.tickAsync(Math.max(0, Number(step.ms) || 0));
    await run.settle();
    return {};
  },
  settle: async (run) => { await run.settle(); return {}; },
  state: async (run) => ({ state: run.state() }),
  write_file: async (run, step) => {
    const target = run.rootFor(step);
    if (realFs.statSync(target, { throwIfNoEntry: false })?.isDirectory()) realFs.rmSync(target, { recursive: true });
    realFs.mkdirSync(path.dirname(target), { recursive: true });
    const content = typeof step.content === "string" ? step.content : `${JSON.stringify(step.content, null, 2)}\n`;
    realFs.writeFileSync(target, content);
    return {};
  },
  edit_file: async (run, step) => {
    const target = run.rootFor(step);
    let doc = {};
    try { doc = JSON.parse(fs.readFileSync(target, "utf8")); } catch { doc = {}; }
    if (realFs.statSync(target, { throwIfNoEntry: false })?.isDirectory()) realFs.rmSync(target, { recursive: true });
    realFs.mkdirSync(path.dirname(target), { recursive: true });
    for (const [k, v] of Object.entries(step.set ?? {})) if (v === null) delete doc[k];
    realFs.writeFileSync(target, `${JSON.stringify({ ...doc, ...Object.fromEntries(Object.entries(step.set ?? {}).filter(([, v]) => v !== null)) }, null, 2)}\n`);
    await run.settle();
    return {};
  },
  delete_file: async (run, step) => { realFs.rmSync(run.rootFor(step), { force: true }); await run.settle(); return {}; },
  thinking: async (run, step) => {
    const session = run.requireSession();
    session.setThinkingLevel(String(step.level));
    await run.settle();
    return { thinkingLevel: session.thinkingLevel };
  },
  reload: async (run) => {
    const session = run.requireSession();
    await run.until(run.track(session.reload({ beforeSessionStart: () => run.instrument() })));
    run.instrument();
    run.recordShortcuts();
    run.keybindings?.reload();
    takeKeyTable(run);
    return {};
  },
  new_session: async (run) => {
    run.requireSession();
    await run.abortOpenRun();
    let answer;
    await run.until(run.track(run.runtime.newSession().then((a) => { answer = a; })));
    return answer ?? {};
  },
  set_cwd: async (run, step) => {
    // Pi has no command or API that moves its working directory within a
    // session (no /cd; the bash tool's cd is its own shell's): Pi takes a
    // new one only with another session, resuming one recorded in another
    // directory (switchSession builds the runtime on that session's cwd).
    if (run.session) return { refused: "Pi changes its working directory only by switching to a session recorded in another directory (a new session runtime); within a session it stays where Pi started" };
    const target = path.resolve(String(step.path ?? ""));
    if (!inside(run.sandbox.root, target)) return { error: `${step.path} is outside the sandbox` };
    realFs.mkdirSync(target, { recursive: true });
    run.sandbox = { ...run.sandbox, cwd: target };
    process.chdir(target);
    return {};
  },
  // Pi's model registry: the catalogue (scripted providers), how each
  // provider answers, which models resolve, getAvailable() and the scope.
  // Before start it is set; after, `merge` changes what the step names (a
  // provider recovering, a new scope) through Pi's own registration.
  models: async (run, step) => {
    if (run.session && !step.merge) return { refused: "Pi's model registry cannot be replaced once its session starts (a `merge` step changes it)" };
    if (!step.merge) {
      run.catalogue = null;
      run.behaviour.clear();
      run.unresolved.clear();
      run.available = null;
      run.scoped = null;
    }
    const answers = {};
    for (const [key, a] of Object.entries(step.auth ?? {})) {
      answers[key] = { auth: a?.ok === false ? "fail" : "ok", authDelay: Number(a?.delay ?? 0), credentials: a?.ok !== false };
    }
    for (const [key, b] of Object.entries(step.behaviour ?? {})) answers[key] = { ...(answers[key] ?? {}), ...(b ?? {}) };
    const given = Array.isArray(step.given) ? new Set(step.given.map(String)) : null;
    const byProvider = new Map();
    for (const [key, b] of Object.entries(answers)) {
      if (b.resolves === false) run.unresolved.add(key);
      else if (b.resolves === true) run.unresolved.delete(key);
      if (given && !given.has(key)) continue;
      const fields = Object.fromEntries(BEHAVIOUR_FIELDS.filter((f) => b[f] !== undefined && b[f] !== null).map((f) => [f, b[f]]));
      if (!Object.keys(fields).length) continue;
      const provider = key.split("/")[0];
      if (!byProvider.has(provider)) byProvider.set(provider, []);
      byProvider.get(provider).push([key, fields]);
    }
    for (const [provider, list] of byProvider) {
      if (!step.merge) {
        const full = list.map(([key, f]) => [key, JSON.stringify({ ...DEFAULT_BEHAVIOUR, ...f })]);
        const other = full.find(([, text]) => text !== full[0][1]);
        if (other) {
          return { refused: `Pi authenticates per provider: ${full[0][0]} and ${other[0]} (provider ${provider}) are given different authentication or model-change answers` };
        }
      }
      run.behaviour.set(provider, Object.assign({ ...(run.behaviour.get(provider) ?? {}) }, ...list.map(([, f]) => f)));
    }
    if (Array.isArray(step.available)) run.available = new Set(step.available.map(String));
    if (Array.isArray(step.scoped)) run.scoped = step.scoped.map(String);
    const added = (step.catalogue ?? []).map((m) => ({ ...m }));
    if (!run.session) {
      run.catalogue = [...(run.catalogue ?? []), ...added];
      if (step.current) run.current = String(step.current);
      return {};
    }
    if (!run.catalogue) return { refused: "the session runs on the host's one scripted model: a registry change needs a catalogue before start" };
    const touched = new Set(byProvider.keys());
    for (const m of added) {
      const provider = String(m.provider);
      const id = String(m.id);
      touched.add(provider);
      let handle = run.scripted.get(provider);
      if (!handle) {
        const faux = Ai.fauxProvider({ provider, models: [{ id, name: m.name, reasoning: m.reasoning !== false }] });
        faux.setResponses(run.turns);
        handle = run.scriptedProvider(provider, faux);
      } else if (![...handle.faux.models, ...handle.extra].some((x) => x.id === id)) {
        handle.extra.push({ ...handle.faux.models[0], id, name: m.name ?? id });
      }
      run.catalogue.push(m);
    }
    for (const provider of touched) {
      const handle = run.scripted.get(provider);
      if (handle) run.modelRuntime.registerNativeProvider(handle.provider);
    }
    await run.modelRuntime.getAvailable();
    if (Array.isArray(step.scoped)) run.session.setScopedModels(run.scopedModels());
    await run.settle();
    return {};
  },
  // Pi's tools before it starts: its own built-ins (those listed active are
  // enabled) and tools of other extensions, written as extension files where
  // Pi discovers them (user: the agent directory, project: .pi/ in cwd).
  registry: async (run, step) => {
    if (run.session) return { refused: "Pi's registry is its own once its session starts" };
    return run.hostTools(step.tools ?? [], true);
  },
  set_registry: (run, step) => setRegistry(run, step),
  // Another extension changes the active set (the host's inline extension
  // calls pi.setActiveTools, as any extension may).
  set_active: async (run, step) => run.setActive(() => (step.tools ?? []).map(String)),
  activate: async (run, step) => run.setActive((active) => [...active, ...(step.names ?? []).map(String)]),
  deactivate: async (run, step) => run.setActive((active) => active.filter((n) => !(step.names ?? []).includes(n))),
  // The user's follow-up (Alt+Enter in Pi's interactive mode): while a run
  // streams (whoever started it: a prompt, or an extension's
  // sendUserMessage) Pi queues it for that run; with none streaming Pi takes
  // it as a plain prompt, which opens a run (`queued: false`).
  queue: async (run, step) => {
    const session = run.requireSession();
    if (!session.isStreaming) return { ...(await run.agentStart({ prompt: step.prompt })), queued: false };
    run.track(session.prompt(String(step.prompt ?? ""), { streamingBehavior: "followUp" }));
    await run.settle();
    return { queued: true };
  },
  resume: async (run, step) => {
    run.requireSession();
    if (Array.isArray(step.entries)) {
      // Another stored session: a session file written by Pi's session
      // manager (its header, then the entries), resumed as /resume does.
      const stored = storeSession(run, step.entries);
      if (stored.refused) return stored;
      await run.abortOpenRun();
      let answer;
      await run.until(run.track(run.runtime.switchSession(stored.file).then((a) => { answer = a; })));
      return answer ?? {};
    }
    const file = run.session.sessionFile;
    if (!file || !fs.existsSync(file)) return { refused: "Pi has not written this session to a file yet (it does after the first assistant reply): there is nothing to resume" };
    await run.abortOpenRun();
    let answer;
    await run.until(run.track(run.runtime.switchSession(file).then((a) => { answer = a; })));
    return answer ?? {};
  },
  restart: async (run) => {
    run.requireSession();
    const sessionManager = run.session.sessionManager;
    const file = run.session.sessionFile;
    await run.abortOpenRun();
    run.unsubscribe?.();
    await run.runtime.dispose();
    const reopened = file && fs.existsSync(file) ? Pi.SessionManager.open(file, run.sandbox.sessionDir) : sessionManager;
    run.session = null;
    run.runtime = await Pi.createAgentSessionRuntime(run.createRuntime, { cwd: run.sandbox.cwd, agentDir: run.sandbox.agentDir, sessionManager: reopened });
    run.runtime.setRebindSession(async () => { await run.bind(); });
    await run.bind();
    return {};
  },
  label: async (run, step) => {
    const session = run.requireSession();
    const targetId = session.sessionManager.getLeafId();
    if (!targetId) return { refused: "an empty session has no entry to label" };
    session.sessionManager.appendLabelChange(targetId, String(step.label));
    return { targetId };
  },
  navigate_tree: async (run, step) => {
    const session = run.requireSession();
    const manager = session.sessionManager;
    if (Array.isArray(step.entries)) {
      // A branch holding these entries, from the root: appended through
      // Pi's session manager, then /tree goes there. With no entries, /tree
      // goes to the session's first entry.
      // Pi navigates only when idle: an open run first ends with a reply.
      await run.finishOpenRun();
      let targetId;
      if (step.entries.length) {
        const saved = manager.getLeafId();
        manager.resetLeaf();
        const problem = appendEntries(manager, step.entries);
        targetId = manager.getLeafId();
        if (saved) manager.branch(saved);
        if (problem) return { refused: problem };
      } else {
        // The session's first entry: Pi's own (its model), or a first
        // prompt, which leaves no entry at all.
        targetId = manager.getEntries()[0]?.id;
        if (!targetId) return { refused: "the session has no entry yet: /tree has no earlier point to go to" };
      }
      await run.until(run.track(session.navigateTree(targetId, {})));
      return {};
    }
    if (step.label === undefined) return { refused: "a tree navigation names a label or the entries of a branch" };
    const entry = manager.getEntries().filter((e) => e.type === "label" && e.label === step.label).at(-1);
    if (!entry) return { error: `no entry labelled ${JSON.stringify(step.label)}` };
    const done = run.track(session.navigateTree(entry.targetId, {}));
    await run.until(done);
    return {};
  },
  // The user changes the model (/model): Pi's own setModel, which re-checks
  // the provider's key.
  set_model: async (run, step) => {
    const session = run.requireSession();
    const [provider, ...rest] = String(step.model ?? "").split("/");
    const model = run.modelRuntime.getModel(provider, rest.join("/"));
    if (!model) return { error: `Pi's registry has no model ${step.model}` };
    let ok = null;
    const done = run.track(run.answerSetModel(model, () => session.setModel(model), false).then(() => { ok = true; }, () => { ok = false; }));
    if (step.wait === false) { await run.settle(); return {}; }
    await run.until(done);
    return { ok };
  },
  // A file the process cannot read: a directory in its place (reading it
  // fails with EISDIR whoever runs the host), until a step writes it.
  unreadable_file: async (run, step) => {
    const target = run.rootFor(step);
    realFs.rmSync(target, { force: true, recursive: true });
    realFs.mkdirSync(target, { recursive: true });
    await run.settle();
    return {};
  },
  // The extension's next call of a Pi API fails, as it can in Pi:
  // sendUserMessage's run meets an API error from the provider, newSession
  // is cancelled (by the host's extension, in session_before_switch),
  // appendEntry cannot write the session file. `afterModelChange`: from the
  // next accepted model change on; `clear`: nothing stays armed.
  fail_next: async (run, step) => {
    if (step.clear) { run.failing.clear(); run.failingAfterModelChange.clear(); run.failTurn = false; return {}; }
    const call = String(step.call);
    if (!["sendUserMessage", "newSession", "appendEntry"].includes(call)) return { error: `fail_next: unknown call ${JSON.stringify(call)}` };
    (step.afterModelChange ? run.failingAfterModelChange : run.failing).add(call);
    return {};
  },
  // Compaction. Between runs: the user's /compact. While a run is open:
  // Pi's automatic compaction before the run's next LLM call (below). Either
  // way Pi's summarising model call is answered with the step's summary;
  // extensions see session_before_compact (they may cancel or supply the
  // summary) and session_compact.
  compact: async (run, step) => {
    const session = run.requireSession();
    if (run.llm || run.running || !session.isIdle) return run.compactInRun(step);
    let outcome = null;
    const done = run.track(session.compact().then(
      () => { outcome = { cancelled: false }; },
      (error) => { outcome = /cancelled/i.test(errorText(error)) ? { cancelled: true } : { error: errorText(error) }; },
    ));
    for (let i = 0; i < 4 && !outcome; i++) {
      await run.until(done);
      if (!outcome && run.llm) run.respond(Ai.fauxAssistantMessage(String(step.summary ?? "Summary of the conversation so far.")));
    }
    return outcome ?? { error: "Pi's compaction did not finish" };
  },
  // A call on a pi object of a runtime Pi has replaced (reload, another
  // session): the host's own extension's, which Pi treats as any other's.
  stale_call: async (run, step) => {
    if (!run.stalePi) return { error: "no stale runtime yet (reload or replace the session first)" };
    try { run.stalePi[String(step.method ?? "getActiveTools")](); return { threw: null }; } catch (error) { return { threw: errorText(error) }; }
  },
});

// Stored entries appended to a session through Pi's session manager, each
// as Pi writes its kind: an extension's `custom` entry, a `message`, a
// `custom_message`. Another kind is refused (its text says which).
function appendEntries(manager, entries) {
  for (const entry of entries) {
    const type = entry?.type ?? "custom";
    if (type === "custom") manager.appendCustomEntry(String(entry.customType ?? ""), entry.data);
    else if (type === "message" && entry.message) manager.appendMessage(entry.message);
    else if (type === "custom_message") manager.appendCustomMessageEntry(String(entry.customType ?? ""), entry.content ?? "", entry.display ?? true, entry.details);
    else return `a stored ${JSON.stringify(type)} entry is not one the host writes (custom, message, custom_message)`;
  }
  return null;
}

// ---------------------------------------------------------------- the Pi 1.x tool surface
// Tool exposure, Pi's own codemode and tool_search extensions, nested calls
// (parentToolCallId), Pi's own settings (defaultTools) and the outcome of
// agent_before_settle. A Pi without them (0.84.2) refuses, naming itself.

// Pi 1.x's own extensions whose tools a registry may list as built-in,
// loaded as Pi's CLI loads them (`builtin:<name>`, replaceable).
const PI_EXTENSION_TOOLS = {
  codemode: { extension: "codemode", factory: "createCodemodeExtension" },
  tool_search: { extension: "tool-search", factory: "createToolSearchExtension" },
};
const EXPOSURES_SEARCHED = new Set(["codemode", "deferred"]);
const BEFORE_SETTLE_SINCE = [0, 87, 0];
const companionHandles = () => (globalThis[Symbol.for("planmode-host.companions")] ??= new Map());

function piAtLeast(wanted) {
  const have = PI_VERSION.split(/[.-]/).slice(0, 3).map(Number);
  for (let i = 0; i < 3; i++) if (have[i] !== wanted[i]) return have[i] > wanted[i];
  return true;
}

// The names the script's nested calls go through: those tools of other
// extensions are orchestrators.
function orchestrators(run) {
  return new Set(run.script.filter((s) => s?.do === "tool_call" && s.via).map((s) => String(s.via)));
}

// A tool of another extension as its companion file registers it.
function companionTool(run, t) {
  const name = String(t.name);
  const orchestrator = orchestrators(run).has(name);
  const properties = orchestrator ? { code: "string" } : (t.properties ?? {});
  const props = Object.fromEntries(Object.entries(properties).map(([k, type]) => [k, { type: String(type) }]));
  return {
    name, label: name, description: `${name} (extension tool)`,
    parameters: { type: "object", properties: props, required: Object.keys(props) },
    ...(t.exposure && t.exposure !== "direct" ? { exposure: String(t.exposure) } : {}),
    ...(t.annotations && Object.keys(t.annotations).length ? { annotations: json(t.annotations) } : {}),
    ...(t.defaultActive === false ? { defaultActive: false } : {}),
    ...(orchestrator ? { orchestrator: true } : {}),
  };
}

// A registry entry naming one of Pi 1.x's own extension tools.
function piExtensionTool(run, t) {
  const name = String(t.name);
  if (!run.hasExposure()) return { refused: `Pi ${PI_VERSION} has no built-in ${name} tool (Pi 1.x's own extensions have)` };
  if (t.exposure !== undefined && t.exposure !== null && t.exposure !== "model-only") {
    return { refused: `Pi's ${name} is model-only; its exposure is Pi's own` };
  }
  run.piExtensionNames.add(name);
  if (t.active !== false) (run.piActive ??= []).push(name);
  return undefined;
}

function piExtensions(run) {
  return [...run.piExtensionNames].map((name) => {
    const { extension, factory } = PI_EXTENSION_TOOLS[name];
    return { name: extension, factory: Pi[factory](), replaceable: true, builtin: true };
  });
}

// Before Pi starts: an extension of each source the script registers tools
// from later (the tools' owner must be loaded when Pi starts), and Pi's
// tool_search when the script declares a tool.
// A stored session: a session file written by Pi's session manager (its
// header, then the entries), as Pi leaves one for /resume or `--session`.
function storeSession(run, entries) {
  const stored = Pi.SessionManager.create(run.sandbox.cwd, run.sandbox.sessionDir);
  const problem = appendEntries(stored, entries);
  if (problem) return { refused: problem };
  const lines = [stored.getHeader(), ...stored.getEntries()].map((e) => `${JSON.stringify(e)}\n`).join("");
  realFs.mkdirSync(run.sandbox.sessionDir, { recursive: true });
  realFs.writeFileSync(stored.getSessionFile(), lines);
  return { file: stored.getSessionFile() };
}

function prepareStart(run) {
  const startAt = run.script.findIndex((s) => s?.do === "start");
  const later = run.script.slice(startAt + 1).flatMap((step) => (step?.do === "register_tool" ? [step] : step?.do === "set_registry" ? step.tools ?? [] : []));
  for (const tool of later) {
    const source = ["user-extension", "project-extension"].includes(tool?.source) ? tool.source : null;
    if (source && !run.companionBySource?.[source]) writeEmptyCompanion(run, source);
  }
  if (run.hasExposure() && run.script.some((s) => s?.do === "declare")) run.piExtensionNames.add("tool_search");
  return undefined;
}

function writeEmptyCompanion(run, source) {
  const dir = source === "user-extension" ? path.join(run.sandbox.agentDir, "extensions") : path.join(run.sandbox.cwd, ".pi", "extensions");
  realFs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `planmode-host-${source}-${realFs.readdirSync(dir).length + 1}.js`);
  realFs.writeFileSync(file, companionSource([], file));
  run.companions.push(file);
  run.companionBySource ??= {};
  run.companionBySource[source] = file;
}

// Before session_start: Pi's own extension tools the registry lists active.
function finishStart(run) {
  if (!run.piActive?.length || !run.session) return;
  const active = run.session.getActiveToolNames();
  run.session.setActiveToolsByName([...active, ...run.piActive.filter((n) => !active.includes(n))]);
}

function recordBeforeSettle(run, pi) {
  if (!piAtLeast(BEFORE_SETTLE_SINCE)) return;
  pi.on("agent_before_settle", (event) => {
    run.trace.push({ t: run.now(), beforeSettle: event.outcome ?? null });
    return undefined;
  });
}

function ownerOf(run, name) {
  const handles = companionHandles();
  for (const file of run.companions) {
    const handle = handles.get(file);
    if (handle?.owns(name)) return handle;
  }
  return null;
}

// Another extension registers a tool mid-session (its companion file, the
// tool's owner, calls pi.registerTool; Pi activates a direct or model-only
// tool on registration unless it says defaultActive: false).
async function registerLater(run, step) {
  const session = run.requireSession();
  const source = String(step.source ?? "builtin");
  if (source === "builtin" || source === "built-in") return { refused: "Pi registers its built-in tools when it starts; none appears mid-session" };
  if (step.exposure !== undefined && step.exposure !== null && !run.hasExposure()) return { refused: `Pi ${PI_VERSION} has no tool exposure (1.x has)` };
  const handle = companionHandles().get(run.companionBySource?.[source]);
  if (!handle) return { refused: `no extension from ${source} was loaded when Pi started` };
  const name = String(step.name);
  const taken = session.getAllTools().find((t) => t.name === name);
  if (taken && taken.sourceInfo?.source !== "builtin" && !handle.owns(name)) {
    return { refused: `an extension already registered a tool named ${name}: the host does not replace it` };
  }
  handle.register(companionTool(run, { ...step, defaultActive: step.active === false ? false : undefined }));
  await run.settle();
  // Pi 0.84.2 has no defaultActive and activates every registered tool: an
  // extension (the host's own) then deactivates it, as any extension may.
  const active = session.getActiveToolNames();
  if (step.active === false && active.includes(name) && run.hostPi) {
    run.hostPi.setActiveTools(active.filter((n) => n !== name));
    await run.settle();
  }
  return { active: session.getActiveToolNames() };
}

// Pi's registry from now on, as other extensions change it mid-session: a
// listed tool Pi does not have is registered by its owner (as in
// register_tool). Pi cannot take a tool away: no API unregisters one (0.84.2
// and 1.6.0 alike); a tool leaves the registry only when the extensions load
// again (/reload, a new session), which reloads the extension under test
// too. A list leaving out another extension's tool, or an active built-in,
// is refused; a built-in left out while inactive stays so (as `registry`
// reads it).
async function setRegistry(run, step) {
  const session = run.requireSession();
  const tools = step.tools ?? [];
  const listed = new Set(tools.map((t) => String(t.name)));
  const active = new Set(session.getActiveToolNames());
  for (const tool of session.getAllTools()) {
    if (listed.has(tool.name) || tool.sourceInfo?.path === run.extensionPath || run.piExtensionNames.has(tool.name)) continue;
    const builtin = tool.sourceInfo?.source === "builtin";
    if (builtin && !active.has(tool.name)) continue;
    return { refused: `Pi has no API to unregister a tool: ${builtin ? `its built-in ${tool.name}, active,` : `${tool.name} (another extension's)`} stays in Pi's registry (a tool leaves it only when every extension loads again: /reload or a new session, which reload the extension under test too)` };
  }
  for (const tool of tools) {
    if (session.getAllTools().some((t) => t.name === String(tool.name))) continue;
    const answer = await registerLater(run, { ...tool, source: tool.source ?? "user-extension" });
    if (answer.refused) return answer;
  }
  return { active: session.getActiveToolNames() };
}

// The tool's owner registers it again with another exposure (Pi 1.x);
// null is direct.
async function expose(run, step) {
  const session = run.requireSession();
  const name = String(step.name);
  if (!run.hasExposure()) return { refused: `Pi ${PI_VERSION} has no tool exposure (1.x has)` };
  const owner = ownerOf(run, name);
  if (!owner) {
    if (run.builtins().has(name) || run.piExtensionNames.has(name)) return { refused: `Pi's built-in ${name} has an exposure of Pi's own: only an extension's tool changes exposure, by its owner registering it again` };
    const tool = session.getAllTools().find((t) => t.name === name);
    if (tool) return { refused: `${name} belongs to the extension under test, which alone can change its exposure` };
    return { refused: `no tool ${name} is registered: its exposure cannot change` };
  }
  const { exposure: _old, ...rest } = owner.get(name);
  const exposure = step.exposure === null || step.exposure === undefined || step.exposure === "direct" ? {} : { exposure: String(step.exposure) };
  owner.register({ ...rest, ...exposure });
  await run.settle();
  return { exposure: session.getAllTools().find((t) => t.name === name)?.exposure ?? null, active: session.getActiveToolNames() };
}

// Pi's tool_search declares a tool: its own code ranks the query (the
// tool's exact name) and activates the match for the next model call, as
// after a model's tool_search call that every tool_call handler let pass.
async function declare(run, step) {
  const session = run.requireSession();
  const name = String(step.name);
  if (!run.hasExposure()) return { refused: `Pi ${PI_VERSION} has no tool_search (1.x has)` };
  const search = session.getToolDefinition?.("tool_search");
  if (!search) return { refused: "Pi's tool_search is not loaded" };
  const tool = session.getAllTools().find((t) => t.name === name);
  if (!tool) return { refused: `no tool ${name} is registered: tool_search finds registered tools only` };
  if (!EXPOSURES_SEARCHED.has(tool.exposure)) return { refused: `Pi's tool_search loads codemode or deferred tools only; ${name} is ${tool.exposure}` };
  if (session.getActiveToolNames().includes(name)) return { loaded: [], active: session.getActiveToolNames() };
  const result = await search.execute(`planmode-declare-${++run.callSeq}`, { query: name, limit: 1 }, undefined, undefined, undefined);
  await run.settle();
  return { loaded: json(result?.details?.loaded ?? []), text: textOf(result?.content), active: session.getActiveToolNames() };
}

// A nested call: the model calls the orchestrator `via`, whose code makes
// the call through Pi's ctx.executeTool. The orchestrator runs; the nested
// call is recorded like a direct one (an allowed one does not run).
async function nestedCall(run, step) {
  run.requireSession();
  const via = String(step.via);
  const name = String(step.tool);
  if (!run.hasExposure()) return { refused: `Pi ${PI_VERSION} emits no tool_call for a call another tool makes (1.x does, with parentToolCallId)` };
  const owner = ownerOf(run, via);
  if (!owner?.get(via)?.orchestrator) {
    return { refused: `${via} is not a tool of another extension the host can drive as an orchestrator (Pi's ${BUILTIN.has(via) ? "built-in" : "tools"} ${via} makes no nested calls here)` };
  }
  let input = step.input === undefined ? {} : json(step.input);
  if (step.validate === false) {
    const schema = run.session.getAllTools().find((t) => t.name === name)?.parameters;
    if (schema) input = { ...placeholder(schema), ...input };
  }
  const toolCallId = `call-${++run.callSeq}`;
  const outer = await run.toolCall({ tool: via, toolCallId, input: { code: JSON.stringify([{ tool: name, input }]) }, execute: true });
  const result = { tool: name, via, orchestrator: { reached: outer.reached, allowed: outer.allowed, ...(outer.reason ? { reason: outer.reason } : {}) } };
  if (!outer.allowed) return { ...result, reached: outer.reached, allowed: false, nested: false, reason: outer.reason ?? null };
  const nestedId = `${toolCallId}/1`;
  const seen = run.calls.get(nestedId);
  if (seen) return { ...result, nested: true, reached: true, allowed: true, input: seen.input, parentToolCallId: seen.parentToolCallId ?? null };
  const text = run.toolResults.get(nestedId)?.text ?? null;
  const refusedByPi = text !== null && (/^Tool \S+ not found/.test(text) || /^Validation failed/.test(text));
  return { ...result, nested: true, reached: !refusedByPi, allowed: false, blocked: !refusedByPi, reason: text, ...(refusedByPi ? { error: text } : {}) };
}

// agent_end with its outcome. `beforeSettle` (boolean): whether the case's
// Pi emits agent_before_settle; a host whose Pi differs refuses. An
// `aborted` run is the user's abort (ESC) unless `by: "model"`: then the
// model's turn itself ends aborted, without an abort request.
//
// A run Pi already ended on its own (a tool result with `terminate: true`
// ends it with no further model call) is answered with how Pi ended it
// (`endedByPi`, the outcome, and what its settling showed), not refused.
// How far each session's messages were settled by an agent_end step:
const SETTLED = new WeakMap();

function endedByPi(run, since) {
  const session = run.session;
  // No LLM call waits; the run may still be settling (a prompt its
  // agent_end handler opened stays open for a later answer).
  if (!session || run.llm) return null;
  const messages = session.messages ?? [];
  if (messages.length <= (SETTLED.get(session) ?? 0)) return null;
  // The run stopped after a tool result, without the model's reply to it
  // (messages an extension added since may follow).
  const last = messages.findLast((m) => m?.role === "assistant");
  if (last?.stopReason !== "toolUse") return null;
  const seen = run.trace.slice(since).reverse().find((e) => "beforeSettle" in e);
  return { endedByPi: true, outcome: "completed", beforeSettle: seen ? seen.beforeSettle : null };
}

async function settleStep(run, step) {
  const emits = piAtLeast(BEFORE_SETTLE_SINCE);
  if (typeof step.beforeSettle === "boolean" && step.beforeSettle !== emits) {
    return { refused: `the case's Pi ${step.beforeSettle ? "emits" : "does not emit"} agent_before_settle; Pi ${PI_VERSION} ${emits ? "does" : "does not"}` };
  }
  const ended = endedByPi(run, run.settledTrace ?? 0);
  if (ended) {
    SETTLED.set(run.session, run.session.messages.length);
    run.settledTrace = run.trace.length;
    return ended;
  }
  const answer = await settleOpenRun(run, step);
  if (run.session) SETTLED.set(run.session, (run.session.messages ?? []).length);
  run.settledTrace = run.trace.length;
  return answer;
}

async function settleOpenRun(run, step) {
  const from = run.trace.length;
  let answer;
  if (step.outcome === "aborted" && step.by === "model") {
    run.requireSession();
    if (!run.llm) return { refused: "no LLM call is waiting: agent_end answers a model turn (agent_start first)" };
    run.respond(Ai.fauxAssistantMessage("", { stopReason: "aborted", errorMessage: "aborted" }));
    await run.until(run.running ?? run.session.waitForIdle());
    answer = {};
  } else if (step.outcome === "aborted") {
    // ESC: Pi aborts the run; the waiting LLM call ends aborted with it.
    run.requireSession();
    if (!run.llm && !run.running) return { refused: "no agent run is open: agent_end ends one (agent_start first)" };
    await run.abortOpenRun(true);
    answer = {};
  } else {
    answer = await run.agentEnd(step);
  }
  const seen = run.trace.slice(from).find((e) => "beforeSettle" in e);
  return { ...answer, beforeSettle: seen ? seen.beforeSettle : null };
}

Object.assign(STEPS, {
  register_tool: async (run, step) => (run.session ? registerLater(run, step) : run.hostTools([step], false)),
  expose,
  declare,
  tool_call: (run, step) => (step.via ? nestedCall(run, step) : run.toolCall(step)),
  agent_end: settleStep,
  // The tools Pi declares to the model with the waiting LLM call (its
  // active set, "the tools declared to the model"), each with the
  // description and parameter schema Pi holds for it, and the system prompt.
  model_tools: async (run) => {
    const session = run.requireSession();
    if (!run.llm) return { refused: "no LLM call is waiting: the model sees tools only with an LLM call" };
    const names = session.getActiveToolNames();
    const all = new Map(session.getAllTools().map((t) => [t.name, t]));
    return {
      tools: names,
      schemas: Object.fromEntries(names.map((n) => [n, json({ description: all.get(n)?.description, parameters: all.get(n)?.parameters })])),
      systemPrompt: session.systemPrompt ?? null,
    };
  },
  // Pi's own settings (settings.json's fields: `defaultTools`), before Pi starts.
  pi_settings: async (run, step) => {
    if (run.session) return { refused: "Pi reads its settings when it starts: restart Pi for a change" };
    const settings = json(step.settings ?? {});
    // `piVersion`: the Pi release the case's settings are written for; `+name`
    // and `-name` in defaultTools are modifiers from 0.99, exact names before.
    const modifiers = Array.isArray(settings.defaultTools) && settings.defaultTools.some((e) => /^[+-]/.test(String(e)));
    if (modifiers && step.piVersion) {
      const caseReads = String(step.piVersion).split(".").map(Number);
      const caseModifies = caseReads[0] > 0 || caseReads[1] >= 99;
      if (caseModifies !== piAtLeast([0, 99, 0])) {
        return { refused: `the case's Pi ${step.piVersion} reads +name/-name in defaultTools ${caseModifies ? "as modifiers" : "as exact names"}; Pi ${PI_VERSION} does not` };
      }
    }
    run.piSettings = { ...run.piSettings, ...settings };
    return {};
  },
});

// A value a JSON schema accepts, with every required property filled.
function placeholder(schema, depth = 0) {
  if (!schema || typeof schema !== "object" || depth > 5) return undefined;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema.anyOf ?? schema.oneOf) return placeholder((schema.anyOf ?? schema.oneOf)[0], depth + 1);
  if (type === "object" || schema.properties) {
    const out = {};
    for (const key of schema.required ?? []) out[key] = placeholder(schema.properties?.[key], depth + 1);
    return out;
  }
  if (type === "array") return Array.from({ length: Number(schema.minItems ?? 0) }, () => placeholder(schema.items, depth + 1));
  if (type === "number" || type === "integer") return Number(schema.minimum ?? 1);
  if (type === "boolean") return false;
  if (schema.enum) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  return "placeholder";
}

// An extension file registering tools that stand for another extension's.
// It is the tools' owner: the host registers more tools through it later
// and changes their exposure the way an owner does, by registering the
// tool again (Pi 1.x). An orchestrator tool runs the calls its `code` lists
// (JSON) through Pi's ctx.executeTool: nested calls, as codemode makes.
function companionSource(tools, file) {
  return `const TOOLS = ${JSON.stringify(tools)};
const FILE = ${JSON.stringify(file)};
// Registered once every extension has loaded, and only under names no
// extension registered (the extension under test owns its own tools).
// A tool named like one of Pi's built-ins overrides it at load, as an
// extension's does.
const BUILTIN = new Set(${JSON.stringify([...BUILTIN])});
const HANDLES = (globalThis[Symbol.for("planmode-host.companions")] ??= new Map());
// What this extension registers, as it stands (kept across /reload).
const CURRENT = new Map(TOOLS.map((tool) => [tool.name, tool]));
const text = (value) => ({ content: [{ type: "text", text: value }], details: {} });
async function orchestrate(code, ctx) {
  const calls = JSON.parse(code);
  const out = [];
  for (const call of calls) {
    const outcome = await ctx.executeTool(call.tool, call.input ?? {});
    out.push({ tool: call.tool, isError: Boolean(outcome?.isError) });
  }
  return text(JSON.stringify(out));
}
const definition = ({ orchestrator, ...tool }) => ({
  ...tool,
  execute: async (_id, params, _signal, _onUpdate, ctx) => (orchestrator ? orchestrate(String(params?.code ?? "[]"), ctx) : text("ok")),
});
export default function (pi) {
  const register = (tool) => { CURRENT.set(tool.name, tool); pi.registerTool(definition(tool)); };
  // The rest once every extension has loaded: the host calls start() before
  // session_start is emitted, so every extension's session_start sees them,
  // as it sees tools other extensions register when they load.
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    const taken = new Set(pi.getAllTools().filter((t) => t.sourceInfo?.source !== "builtin" && !String(t.sourceInfo?.path ?? "").endsWith(FILE)).map((t) => t.name));
    for (const tool of CURRENT.values()) {
      if (BUILTIN.has(tool.name) || taken.has(tool.name)) continue;
      register(tool);
      // Pi 0.84.2 has no defaultActive: the owner deactivates the tool.
      if (tool.defaultActive === false) pi.setActiveTools(pi.getActiveTools().filter((n) => n !== tool.name));
    }
  };
  HANDLES.set(FILE, { register, start, owns: (name) => CURRENT.has(name), get: (name) => CURRENT.get(name) });
  for (const tool of CURRENT.values()) if (BUILTIN.has(tool.name)) register(tool);
  pi.on("session_start", start);
}
`;
}

// ---------------------------------------------------------------- key presses
// A key press as Pi's interactive mode dispatches it. When it binds the
// extensions (start, a new or resumed session, /reload) it takes the table
// of extension shortcuts once, through Pi's own getShortcuts over its
// effective keybindings (keybindings.json in the agent directory, read at
// start and on /reload): a shortcut on a key of a reserved action, such as
// app.thinking.cycle, is skipped there ("… conflicts with built-in
// shortcut. Skipping."). Its editor then gives a press to that table first
// and otherwise to Pi's own actions, in the order it checks them; the
// thinking cycle is Pi's session.cycleThinkingLevel(). One press fires one
// of them, never both.

const { KeybindingsManager } = await import(new URL("./core/keybindings.js", codingAgent.url).href);
// The editor's order: before its action handlers, then those in the order
// interactive mode registers them (0.84.2 and 1.6.0 alike).
const KEY_ACTIONS = [
  "app.clipboard.pasteImage", "app.interrupt", "app.exit", "tui.editor.historyPrevious", "tui.editor.historyNext",
  "app.clear", "app.suspend", "app.thinking.cycle", "app.model.cycleForward", "app.model.cycleBackward",
  "app.model.select", "app.tools.expand", "app.thinking.toggle", "app.editor.external", "app.message.copy",
  "app.message.followUp", "app.message.dequeue", "app.session.new", "app.session.tree", "app.session.fork",
  "app.session.resume",
];
// Actions that change only Pi's screen or editor: nothing an extension sees.
const SCREEN_ACTIONS = new Set([
  "app.clipboard.pasteImage", "tui.editor.historyPrevious", "tui.editor.historyNext", "app.tools.expand",
  "app.thinking.toggle", "app.message.copy",
]);
const KEY_MODIFIERS = ["ctrl", "alt", "shift", "super", "meta"];

// A key id in one spelling: lower case, modifiers in a fixed order.
function keyId(key) {
  const parts = String(key).toLowerCase().split("+").map((p) => p.trim()).filter(Boolean);
  return [...KEY_MODIFIERS.filter((m) => parts.includes(m)), ...parts.filter((p) => !KEY_MODIFIERS.includes(p))].join("+");
}

const keysOf = (bindings, action) => [bindings[action] ?? []].flat().map(keyId);

function takeKeyTable(run) {
  const runner = run.session?.extensionRunner;
  if (!runner) return;
  run.keybindings ??= KeybindingsManager.create(run.sandbox.agentDir);
  const bindings = run.keybindings.getEffectiveConfig();
  const shortcuts = new Map([...runner.getShortcuts(bindings)].map(([key, shortcut]) => [keyId(key), shortcut]));
  // Shortcuts Pi skipped: key -> the reserved action holding it.
  const skipped = new Map();
  for (const ext of runner.extensions ?? []) {
    for (const key of (ext.shortcuts ?? new Map()).keys()) {
      const id = keyId(key);
      if (shortcuts.has(id)) continue;
      skipped.set(id, KEY_ACTIONS.find((a) => keysOf(bindings, a).includes(id)) ?? Object.keys(bindings).find((a) => keysOf(bindings, a).includes(id)) ?? null);
    }
  }
  run.keyTable = { bindings, shortcuts, skipped };
}

async function keyPress(run, step) {
  const session = run.requireSession();
  if (!run.keyTable) takeKeyTable(run);
  const { bindings, shortcuts, skipped } = run.keyTable;
  const key = keyId(step.key);
  const shortcut = shortcuts.get(key);
  if (shortcut) {
    await run.until(run.track(Promise.resolve(shortcut.handler(session.extensionRunner.createContext()))));
    return { thinkingCycled: false };
  }
  const action = KEY_ACTIONS.find((a) => keysOf(bindings, a).includes(key)) ?? null;
  if (skipped.has(key) && step.thinkingCycle) {
    return { refused: `Pi skips an extension shortcut on ${step.key}, the key of its reserved ${skipped.get(key)} ("conflicts with built-in shortcut. Skipping."): a press runs ${action ?? "Pi's action"} alone, never both` };
  }
  const missing = skipped.has(key) ? `Pi skipped the extension's shortcut ${step.key}: it is the key of Pi's reserved ${skipped.get(key)}` : `no shortcut ${step.key}`;
  if (action === "app.thinking.cycle") {
    const level = session.cycleThinkingLevel();
    run.record("pi.app.thinking.cycle", [level ?? null]);
    await run.settle();
    return { thinkingCycled: level !== undefined, thinkingLevel: session.thinkingLevel, ...(skipped.has(key) ? { error: missing } : {}) };
  }
  if (action && !SCREEN_ACTIONS.has(action)) return { refused: `${step.key} is Pi's ${action}, which this host does not perform` };
  return { error: missing, thinkingCycled: false, ...(action ? { action } : {}) };
}

// ---------------------------------------------------------------- files under the sandbox

function snapshot(root) {
  const out = new Map();
  const walk = (dir) => {
    let names;
    try { names = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const d of names) {
      const full = path.join(dir, d.name);
      if (d.isDirectory()) walk(full);
      else if (d.isFile()) out.set(full, fs.readFileSync(full));
    }
  };
  walk(root);
  return out;
}

function changedFiles(root, before, after) {
  const files = {};
  for (const [full, bytes] of after) {
    const old = before.get(full);
    if (!old || !old.equals(bytes)) files[path.relative(root, full).split(path.sep).join("/")] = bytes.toString("utf8");
  }
  return files;
}

// ---------------------------------------------------------------- the loop

let current = null;

async function runScript(request) {
  const began = performance.now();
  const sandbox = request.sandbox;
  for (const key of ["root", "cwd", "home", "agentDir", "sessionDir", "tmp"]) {
    if (typeof sandbox?.[key] !== "string" || !path.isAbsolute(sandbox[key])) throw new Error(`sandbox.${key} must be an absolute path`);
    if (key !== "root" && !inside(sandbox.root, sandbox[key])) throw new Error(`sandbox.${key} is outside sandbox.root`);
  }
  for (const key of ["cwd", "home", "agentDir", "tmp"]) realFs.mkdirSync(sandbox[key], { recursive: true });
  try { realFs.symlinkSync(JITI_CACHE, path.join(sandbox.tmp, "jiti")); } catch { /* already linked */ }
  clock.reset();
  clock.setSystemTime(EPOCH);
  process.env.HOME = sandbox.home;
  process.env.USERPROFILE = sandbox.home;
  process.env.PI_CODING_AGENT_DIR = sandbox.agentDir;
  process.env.TMPDIR = sandbox.tmp;
  process.chdir(sandbox.cwd);
  newPiStart();
  const before = snapshot(sandbox.root);
  const dirsBefore = directories(sandbox.root);
  const run = new Run(request);
  current = run;
  const results = [];
  // Where the run's time went (wall ms), for benchmarks/pi_host.py.
  const timing = { setupMs: performance.now() - began, filesMs: 0, stepsMs: 0, closeMs: 0, totalMs: 0, steps: {} };
  try {
    for (const step of request.script ?? []) {
      const stepBegan = performance.now();
      const record = { do: step?.do, t: run.now(), traceFrom: run.trace.length };
      results.push(record);
      run.customOpened = false;
      run.heldOpened = false;
      const handler = STEPS[step?.do];
      if (!handler) throw new Error(`unknown step ${JSON.stringify(step?.do)}; steps: ${Object.keys(STEPS).join(", ")}`);
      try {
        Object.assign(record, (await handler(run, step)) ?? {}, { pending: false, doneAt: run.now() });
      } catch (error) {
        Object.assign(record, { pending: false, threw: errorText(error), doneAt: run.now() });
      }
      record.traceTo = run.trace.length;
      if (run.options.observe) record.after = observeRun(run);
      const spent = performance.now() - stepBegan;
      timing.stepsMs += spent;
      timing.steps[step?.do] = (timing.steps[step?.do] ?? 0) + spent;
      if (process.env.PLANMODE_PI_HOST_DEBUG) process.stderr.write(`step ${step?.do} ${JSON.stringify(record).slice(0, 300)}\n`);
    }
    const filesBegan = performance.now();
    const state = run.state();
    const files = changedFiles(sandbox.root, before, snapshot(sandbox.root));
    const createdDirs = [...directories(sandbox.root)].filter((d) => !dirsBefore.has(d) && !inside(sandbox.sessionDir, d))
      .map((d) => path.relative(sandbox.root, d).split(path.sep).join("/")).sort();
    timing.filesMs = performance.now() - filesBegan;
    // Copies: what Pi does while the host closes the run is not the run's.
    return { results, trace: run.trace.slice(), errors: run.errors.slice(), state, files, createdDirs, timing };
  } finally {
    const closing = performance.now();
    await close(run);
    current = null;
    timing.closeMs = performance.now() - closing;
    timing.totalMs = performance.now() - began;
  }
}

// What a step left behind, for scripts that read effects step by step
// (options.observe): the active tools, the globals named
// in options.globals, the files under the directories named in options.dirs
// (relative to cwd).
function observeRun(run) {
  const globals = {};
  for (const name of run.options.globals ?? []) globals[name] = json(globalThis[name]) ?? null;
  const files = {};
  for (const dir of run.options.dirs ?? []) {
    const base = path.resolve(run.sandbox.cwd, String(dir));
    if (!inside(run.sandbox.cwd, base)) continue;
    let names = [];
    try { names = realFs.readdirSync(base, { withFileTypes: true }); } catch { names = []; }
    for (const d of names) if (d.isFile()) files[`${dir}/${d.name}`] = realFs.readFileSync(path.join(base, d.name), "utf8");
  }
  let activeTools = [];
  try { activeTools = run.session ? run.session.getActiveToolNames() : []; } catch (error) { run.error("observe", error); }
  return { activeTools, thinkingLevel: run.session?.thinkingLevel ?? run.thinkingLevel, globals, files };
}

async function close(run) {
  for (const resolve of run.openPrompts.splice(0)) resolve({ cancel: true });
  // An open agent run ends with a plain reply, then the session goes.
  for (let i = 0; i < 5 && run.llm; i++) {
    run.respond(Ai.fauxAssistantMessage("done"));
    await run.settle();
  }
  try { if (run.session && !run.session.isIdle) await run.session.abort(); } catch (error) { run.error("close", error); }
  run.unsubscribe?.();
  try { await run.runtime?.dispose(); } catch (error) { run.error("close", error); }
  await run.releaseModelRuntime();
  clock.reset();
}

function hello() {
  return {
    host: "pytest-planmode real Pi host", hostVersion: HOST_VERSION, pi: PI_VERSION, real: true,
    node: process.version, api: { steps: Object.keys(STEPS) },
  };
}

async function main() {
  const out = (obj) => protocolWrite(`${JSON.stringify(obj)}\n`);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let request;
    try { request = JSON.parse(line); } catch (error) { out({ id: null, error: `not JSON: ${errorText(error)}` }); continue; }
    const id = request?.id ?? null;
    try {
      if (request.op === "hello") out({ id, ok: hello() });
      else if (request.op === "run") out({ id, ok: await runScript(request) });
      else out({ id, error: `unknown op ${JSON.stringify(request.op)} (hello or run)` });
    } catch (error) {
      out({ id, error: errorText(error) });
    }
  }
  // End of input: whatever an extension left open (watchers, sockets) ends too.
  process.exit(0);
}

process.on("unhandledRejection", (error) => { if (current) current.error("unhandled rejection", error); });
void STALE_PATTERN;
main();
