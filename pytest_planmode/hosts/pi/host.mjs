// A mock Pi host: loads one Pi extension and runs host scripts against it.
//
// Plain Node.js ES module, standard library only. The kit starts it and speaks
// JSON Lines on stdio:
//
//   {"id": 1, "op": "hello"}
//     -> {"id": 1, "ok": {"host": ..., "pi": "0.84.2", "api": API}}
//   {"id": 2, "op": "run", "extension": PATH, "sandbox": {...}, "script": [STEP, ...]}
//     -> {"id": 2, "ok": {"results": [...], "trace": [...], "state": {...}, "files": {...}}}
//   any failure of the request itself -> {"id": N, "error": "what went wrong"}
//
// Each run is a fresh runtime: the extension module is evaluated again, a new
// session, a new virtual clock, globalThis restored to what it was at start.
// Its timers (setTimeout, setInterval, node:timers, node:timers/promises) and
// Date run on the virtual clock: nothing sleeps in real time. The extension
// sees cwd, HOME and PI_CODING_AGENT_DIR inside the sandbox the kit created;
// writes through node:fs outside the sandbox root are refused and traced.
//
// What Pi does at this boundary (event payloads, how handler results are
// combined, gating of tool calls, stale contexts) follows Pi 0.84.2; the API
// surface emulated is listed once, in API below, and sent in the handshake.
// PLANMODE_PI_HOST_DEBUG=1 prints one line per script step to stderr.

import { EventEmitter } from "node:events";
import fs from "node:fs";
import module from "node:module";
import path from "node:path";
import { createInterface } from "node:readline";
import timers from "node:timers";
import timersPromises from "node:timers/promises";
import { pathToFileURL } from "node:url";
import worker_threads from "node:worker_threads";

import { selectItem } from "./ui_select.mjs";

// Pi 0.84's undici calls markAsUncloneable (Node >= 22.10); on older Node an
// extension importing Pi itself fails to load without this no-op.
if (typeof worker_threads.markAsUncloneable !== "function") {
  worker_threads.markAsUncloneable = () => {};
}

// Pi loads an extension with jiti and `moduleCache: false`: every load
// (start, /reload, a new or resumed session) evaluates the extension's own
// modules again, not only its entry. The host loads the entry with a query
// naming the load, and this resolve hook hands that query on to every local
// module the entry imports, so each load gets a fresh module graph. A query
// alone is not enough: Node keeps the entry's imports cached, and TypeScript
// loaders such as tsx drop it while resolving; the hook runs before them and
// puts it back. Packages under node_modules are shared between loads.
export const LOAD_TAG = "planmode-load";
const FRESH_LOADS = `
const TAG = ${JSON.stringify(LOAD_TAG)};
const tagOf = (url) => { try { return new URL(url).searchParams.get(TAG); } catch { return null; } };
export async function resolve(specifier, context, next) {
  const found = await next(specifier, context);
  const tag = tagOf(specifier) ?? (context.parentURL ? tagOf(context.parentURL) : null);
  if (!tag || !found.url.startsWith("file:") || found.url.includes("/node_modules/")) return found;
  const url = new URL(found.url);
  url.searchParams.set(TAG, tag);
  return { ...found, url: url.href };
}`;
export const FRESH_LOADS_HOOKED = typeof module.register === "function";
if (FRESH_LOADS_HOOKED) module.register(`data:text/javascript,${encodeURIComponent(FRESH_LOADS)}`);

export const PI_VERSION = "0.84.2";
export const HOST_VERSION = "1";

// The Pi API surface this host emulates, in one place.
export const NO_ANNOTATIONS = "the mock host's getAllTools() carries no tool annotations (Pi 1.x's does; run real Pi 1.6.0 with --planmode-pi=1.6.0)";
const API = {
  pi: [
    "on", "registerTool", "registerCommand", "registerShortcut", "registerFlag", "getFlag",
    "registerMessageRenderer", "registerEntryRenderer", "registerMarkdownTransformer",
    "registerProvider", "unregisterProvider", "getActiveTools", "setActiveTools", "getAllTools",
    "getThinkingLevel", "setThinkingLevel", "sendUserMessage", "sendMessage", "appendEntry",
    "setSessionName", "getSessionName", "setLabel", "exec", "getCommands", "setModel", "events",
  ],
  ctx: [
    "ui", "mode", "hasUI", "cwd", "sessionManager", "modelRegistry", "model", "scopedModels",
    "thinkingLevel", "isIdle", "hasPendingMessages", "signal", "abort", "shutdown", "compact",
    "isProjectTrusted", "getContextUsage", "getSystemPrompt",
  ],
  commandCtx: ["waitForIdle", "newSession", "fork", "navigateTree", "switchSession", "reload", "getSystemPromptOptions"],
  ui: [
    "select", "confirm", "input", "editor", "notify", "setStatus", "setWidget", "custom",
    "setEditorText", "getEditorText", "pasteToEditor", "setWorkingMessage", "setWorkingVisible",
    "setWorkingIndicator", "setHiddenThinkingLabel", "setTitle", "setFooter", "setHeader",
    "setEditorComponent", "getEditorComponent", "addAutocompleteProvider", "onTerminalInput",
    "getAllThemes", "getTheme", "setTheme", "getToolsExpanded", "setToolsExpanded",
  ],
  sessionManager: [
    "getCwd", "getSessionDir", "getSessionId", "getSessionFile", "getLeafId", "getLeafEntry",
    "getEntry", "getLabel", "getBranch", "buildContextEntries", "getHeader", "getEntries", "getTree",
    "getSessionName",
  ],
  events: [
    "session_start", "resources_discover", "session_before_switch", "session_before_fork",
    "session_shutdown", "session_before_compact", "session_compact", "session_before_tree",
    "session_tree", "session_info_changed", "input", "before_agent_start", "agent_start",
    "turn_start", "turn_end", "context", "message_start", "message_update", "message_end",
    "tool_call", "tool_execution_start", "tool_execution_update", "tool_execution_end",
    "tool_result", "agent_end", "agent_settled", "user_bash", "model_select", "thinking_level_select",
    // Pi >= 0.87.0 (not in 0.84.2): emitted by the agent_end step unless it says beforeSettle: false.
    "agent_before_settle",
  ],
  steps: [
    "start", "emit", "command", "ui", "tool_call", "registry", "set_registry", "register_tool", "unregister_tool",
    "set_active", "activate", "deactivate", "expose", "declare", "pi_settings", "model_tools", "models", "set_model", "thinking", "advance",
    "write_file", "edit_file", "delete_file", "shortcut", "agent_run", "agent_start", "context",
    "agent_end", "reload", "resume", "new_session", "label", "navigate_tree", "settle", "state",
    "stale_call", "dismiss", "queue", "compact", "restart", "set_cwd", "fail_next", "unreadable_file",
  ],
  // Beyond Pi 0.84.2, stated here so an extension can rely on it: a tool
  // registered by a step with an `exposure` carries it in getAllTools()
  // (the public exposure of later Pi releases; absent means direct).
  toolInfoExtras: ["exposure"],
  // theme.fg/bg wrap text in this SGR-style marker, so a colour chosen by the
  // extension survives into the trace: ESC "[38;pi:" TOKEN "m" TEXT ESC "[39m".
  themeMarker: "\u001b[38;pi:TOKENm...\u001b[39m",
};

export const STALE_ERROR =
  "This extension ctx is stale after session replacement or reload. Use the ctx passed to the current handler instead.";
const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];
const BUILTIN_TOOLS = {
  read: { path: "string" },
  bash: { command: "string" },
  edit: { path: "string", oldText: "string", newText: "string" },
  write: { path: "string", content: "string" },
  grep: { pattern: "string" },
  find: { pattern: "string" },
  ls: {},
};
const DEFAULT_ACTIVE = ["read", "bash", "edit", "write"];
const EPOCH = Date.UTC(2026, 0, 1);

// ---------------------------------------------------------------- real APIs

const real = {
  Date,
  setTimeout: globalThis.setTimeout,
  clearTimeout: globalThis.clearTimeout,
  setImmediate: globalThis.setImmediate,
  fs: { ...fs },
  fsp: { ...fs.promises },
};
const realTick = () => new Promise((resolve) => real.setImmediate(resolve));
const ioInFlight = () => process.getActiveResourcesInfo().some((r) => !IDLE_RESOURCES.has(r));
// Handles that are always there (stdio) or are the host's own ticks.
// Real timers are only the host's own watchdog: extension timers are virtual.
const IDLE_RESOURCES = new Set(["PipeWrap", "TTYWrap", "TCPWrap", "Immediate", "Timeout", "FSEventWrap", "StatWatcher"]);
const QUIET_TICKS = 3;
const REAL_LIMIT_MS = 20000;

// ---------------------------------------------------------------- virtual clock

class Clock {
  constructor() {
    this.now = 0;
    this.seq = 0;
    this.timers = new Map();
  }
  // `io`: an answer of Pi itself (an authentication, a model change)
  // rather than an extension timer. In Node's event loop the timers due at
  // an instant run before the I/O callbacks of that turn, so at one instant
  // every timer fires before any such answer.
  add(fn, delay, args, repeat, io = false) {
    const id = ++this.seq;
    const ms = Math.max(0, Number(delay) || 0);
    this.timers.set(id, { id, due: this.now + ms, ms, fn, args, repeat, io });
    return new VirtualTimer(this, id);
  }
  clear(handle) {
    if (handle instanceof VirtualTimer) this.timers.delete(handle.id);
    else if (typeof handle === "number") this.timers.delete(handle);
  }
  next(limit) {
    let best = null;
    for (const timer of this.timers.values()) {
      const before = !best || timer.due < best.due
        || (timer.due === best.due && (timer.io === best.io ? timer.id < best.id : !timer.io));
      if (timer.due <= limit && before) {
        best = timer;
      }
    }
    return best;
  }
}

class VirtualTimer {
  constructor(clock, id) {
    this.clock = clock;
    this.id = id;
  }
  ref() { return this; }
  unref() { return this; }
  hasRef() { return true; }
  refresh() {
    const timer = this.clock.timers.get(this.id);
    if (timer) timer.due = this.clock.now + timer.ms;
    return this;
  }
  close() { this.clock.clear(this); return this; }
  [Symbol.toPrimitive]() { return this.id; }
}

let clock = new Clock();
let host = null; // the run in progress

function virtualDate() {
  const RealDate = real.Date;
  class VDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(EPOCH + clock.now);
      else super(...args);
    }
    static now() { return EPOCH + clock.now; }
  }
  return VDate;
}

const fakeTimers = {
  setTimeout: (fn, delay, ...args) => clock.add(fn, delay, args, false),
  setInterval: (fn, delay, ...args) => clock.add(fn, delay, args, true),
  clearTimeout: (handle) => clock.clear(handle),
  clearInterval: (handle) => clock.clear(handle),
};

function installVirtualTime() {
  globalThis.Date = virtualDate();
  Object.assign(globalThis, fakeTimers);
  Object.assign(timers, fakeTimers);
  timersPromises.setTimeout = (delay, value) => new Promise((resolve) => clock.add(resolve, delay, [value], false));
}

// ---------------------------------------------------------------- sandbox containment

function inside(root, target) {
  const rel = path.relative(root, path.resolve(String(target instanceof URL ? target.pathname : target)));
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

function refuse(what, target) {
  if (host) host.trace.push({ t: clock.now, escape: what, path: String(target) });
  const error = new Error(`EACCES: permission denied, ${what} '${target}' (outside the sandbox)`);
  error.code = "EACCES";
  return error;
}

const WRITERS = {
  writeFile: [0], appendFile: [0], mkdir: [0], rm: [0], rmdir: [0], unlink: [0], rename: [0, 1],
  copyFile: [1], symlink: [1], link: [1], truncate: [0], cp: [1], chmod: [0], utimes: [0],
};
const OPENERS = { open: 0 };

function writesFlags(flags) {
  return typeof flags === "string" ? /[wax+]/.test(flags) : typeof flags === "number" && (flags & 3) !== 0;
}

// Writes traced with options.traceWrites (the file a step created or
// replaced), by path relative to the sandbox root: where an export went.
const TRACED_WRITES = { writeFile: 0, writeFileSync: 0, rename: 1, renameSync: 1, copyFile: 1, copyFileSync: 1, link: 1, linkSync: 1 };

function traceWrite(name, args) {
  const index = TRACED_WRITES[name];
  if (index === undefined || !host?.options.traceWrites || typeof args[index] !== "string") return;
  const target = path.resolve(String(args[index]));
  if (!inside(host.sandbox.root, target)) return;
  const rel = (p) => path.relative(host.sandbox.root, p).split(path.sep).join("/");
  // Where the bytes land when a parent is a symbolic link.
  let landed = target;
  try { landed = path.join(real.fs.realpathSync(path.dirname(target)), path.basename(target)); } catch { landed = target; }
  host.trace.push({ t: clock.now, write: name, path: rel(target), ...(landed !== target ? { real: rel(landed) } : {}) });
}

function guard(name, positions, fn, kind) {
  return function guarded(...args) {
    const root = host?.sandbox.root;
    traceWrite(name, args);
    if (root) {
      for (const index of positions) {
        if (args[index] !== undefined && typeof args[index] !== "number" && !inside(root, args[index])) {
          const error = refuse(name, args[index]);
          if (kind === "promise") return Promise.reject(error);
          if (kind === "callback" && typeof args[args.length - 1] === "function") {
            const cb = args[args.length - 1];
            real.setImmediate(() => cb(error));
            return undefined;
          }
          throw error;
        }
      }
    }
    return fn.apply(this, args);
  };
}

function guardOpen(name, fn, kind) {
  return function guarded(file, flags, ...rest) {
    const root = host?.sandbox.root;
    if (writesFlags(flags)) traceWrite("writeFile", [file]);
    if (root && writesFlags(flags) && !inside(root, file)) {
      const error = refuse(name, file);
      if (kind === "promise") return Promise.reject(error);
      const cb = [flags, ...rest].find((a) => typeof a === "function");
      if (kind === "callback" && cb) { real.setImmediate(() => cb(error)); return undefined; }
      throw error;
    }
    return fn.call(this, file, flags, ...rest);
  };
}

function installContainment() {
  for (const [name, positions] of Object.entries(WRITERS)) {
    if (typeof real.fs[name] === "function") fs[name] = guard(name, positions, real.fs[name], "callback");
    if (typeof real.fs[`${name}Sync`] === "function") fs[`${name}Sync`] = guard(`${name}Sync`, positions, real.fs[`${name}Sync`], "sync");
    if (typeof real.fsp[name] === "function") fs.promises[name] = guard(name, positions, real.fsp[name], "promise");
  }
  for (const name of Object.keys(OPENERS)) {
    fs[name] = guardOpen(name, real.fs[name], "callback");
    fs[`${name}Sync`] = guardOpen(`${name}Sync`, real.fs[`${name}Sync`], "sync");
    fs.promises[name] = guardOpen(name, real.fsp[name], "promise");
  }
  // Reads under the project directory are traced when the run asks for it
  // (options.traceReads): a plan file loaded is an effect of some specs.
  const traced = (name, fn) => function tracedRead(file, ...rest) {
    if (host?.options.traceReads && typeof file !== "number" && inside(host.sandbox.cwd, file)) {
      host.trace.push({ t: clock.now, call: `fs.${name}`, args: [host.virtual(path.resolve(String(file)))] });
    }
    return fn.call(this, file, ...rest);
  };
  fs.readFileSync = traced("readFileSync", real.fs.readFileSync);
  fs.readFile = traced("readFile", real.fs.readFile);
  fs.promises.readFile = traced("readFile", real.fsp.readFile);
  fs.createWriteStream = function createWriteStream(file, options) {
    const root = host?.sandbox.root;
    if (root && !inside(root, file)) throw refuse("createWriteStream", file);
    return real.fs.createWriteStream.call(this, file, options);
  };
  // Watchers on sandbox paths are the host's: a write_file step fires them.
  fs.watch = function watch(target, options, listener) {
    if (!host || !inside(host.sandbox.root, target)) return real.fs.watch.call(this, target, options, listener);
    const cb = typeof options === "function" ? options : listener;
    const watcher = new EventEmitter();
    watcher.path = path.resolve(String(target));
    watcher.close = () => { host?.watchers.delete(watcher); watcher.emit("close"); };
    watcher.ref = () => watcher;
    watcher.unref = () => watcher;
    if (cb) watcher.on("change", cb);
    host.watchers.add(watcher);
    host.trace.push({ t: clock.now, call: "fs.watch", args: [host.virtual(watcher.path)] });
    return watcher;
  };
  module.syncBuiltinESMExports();
}

// ---------------------------------------------------------------- helpers

function json(value) {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === "function" ? "[function]" : v)));
  } catch {
    return String(value);
  }
}

function errorText(error) {
  return error instanceof Error ? error.message : String(error);
}

function validate(schema, input) {
  // Pi validates arguments before tool_call; this covers what a TypeBox or
  // JSON schema states at top level (type object, required, property types).
  if (!schema || typeof schema !== "object") return null;
  if (input === null || typeof input !== "object" || Array.isArray(input)) return "arguments must be an object";
  for (const name of schema.required ?? []) {
    if (!(name in input)) return `missing required property "${name}"`;
  }
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (!(name in input) || !prop || typeof prop.type !== "string") continue;
    const value = input[name];
    const ok =
      prop.type === "string" ? typeof value === "string"
      : prop.type === "number" ? typeof value === "number"
      : prop.type === "integer" ? Number.isInteger(value)
      : prop.type === "boolean" ? typeof value === "boolean"
      : prop.type === "array" ? Array.isArray(value)
      : prop.type === "object" ? value !== null && typeof value === "object" && !Array.isArray(value)
      : true;
    if (!ok) return `property "${name}" must be ${prop.type}`;
  }
  return null;
}

function builtinSchema(props) {
  const properties = Object.fromEntries(Object.entries(props).map(([k, type]) => [k, { type }]));
  return { type: "object", properties, required: Object.keys(props) };
}

// ---------------------------------------------------------------- sessions

class Session {
  constructor(sandbox, number, entries) {
    this.id = `session-${number}`;
    this.file = path.join(sandbox.sessionDir, `${this.id}.jsonl`);
    this.sandbox = sandbox;
    this.entries = [];
    this.leafId = null;
    this.name = undefined;
    this.seq = 0;
    for (const entry of entries ?? []) this.append(entry);
  }
  append(entry) {
    const full = {
      ...entry,
      id: entry.id ?? `${this.id}-e${++this.seq}`,
      parentId: this.leafId,
      timestamp: new real.Date(EPOCH + clock.now).toISOString(),
    };
    this.entries.push(full);
    this.leafId = full.id;
    return full;
  }
  branch(fromId) {
    const byId = new Map(this.entries.map((e) => [e.id, e]));
    const out = [];
    for (let e = byId.get(fromId ?? this.leafId); e; e = byId.get(e.parentId)) out.unshift(e);
    return out;
  }
  manager(runtime) {
    const s = this;
    const check = (fn) => (...args) => { runtime.assertActive(); return fn(...args); };
    return {
      getCwd: check(() => s.sandbox.cwd),
      getSessionDir: check(() => s.sandbox.sessionDir),
      getSessionId: check(() => s.id),
      getSessionFile: check(() => s.file),
      getLeafId: check(() => s.leafId),
      getLeafEntry: check(() => s.entries.find((e) => e.id === s.leafId)),
      getEntry: check((id) => s.entries.find((e) => e.id === id)),
      getLabel: check((id) => s.entries.filter((e) => e.type === "label" && e.targetId === id).at(-1)?.label),
      getBranch: check((fromId) => s.branch(fromId).map((e) => ({ ...e }))),
      buildContextEntries: check(() => s.branch().filter((e) => ["message", "custom_message", "compaction", "branch_summary"].includes(e.type))),
      getHeader: check(() => ({ type: "session", id: s.id, cwd: s.sandbox.cwd, timestamp: new real.Date(EPOCH).toISOString() })),
      getEntries: check(() => s.entries.slice()),
      getTree: check(() => tree(s.entries)),
      getSessionName: check(() => s.name),
    };
  }
  // The writable SessionManager Pi hands to ctx.newSession's setup callback
  // (session-manager.d.ts: the append* methods return the new entry's id).
  writable(runtime) {
    const s = this;
    const add = (entry) => s.append(entry).id;
    return {
      ...s.manager(runtime),
      appendMessage: (message) => add({ type: "message", message: json(message) }),
      appendThinkingLevelChange: (thinkingLevel) => add({ type: "thinking_level_change", thinkingLevel }),
      appendModelChange: (provider, modelId) => add({ type: "model_change", provider, modelId }),
      appendCustomEntry: (customType, data) => add({ type: "custom", customType, data: json(data) }),
      appendSessionInfo: (name) => { s.name = name; return add({ type: "session_info", name }); },
      appendCustomMessageEntry: (customType, content, display, details) => add({ type: "custom_message", customType, content, display, details: json(details) }),
      appendLabelChange: (targetId, label) => add({ type: "label", targetId, label }),
    };
  }
}

function tree(entries) {
  const nodes = new Map(entries.map((e) => [e.id, { entry: e, children: [] }]));
  const roots = [];
  for (const e of entries) (e.parentId && nodes.get(e.parentId) ? nodes.get(e.parentId).children : roots).push(nodes.get(e.id));
  return roots;
}

// ---------------------------------------------------------------- one extension runtime

class Runtime {
  constructor(run, session, generation, carried) {
    this.run = run;
    this.session = session;
    this.generation = generation;
    this.active = true;
    this.handlers = new Map();
    this.commands = new Map();
    this.shortcuts = new Map();
    this.flags = new Map();
    this.registeredFlags = new Set();
    this.bus = new EventEmitter();
    this.sourceInfo = { path: run.extensionPath, source: "local", scope: "user", origin: "top-level" };
    this.carried = carried;
    this.manager = session.manager(this);
    this.systemPrompt = run.systemPrompt;
    this.pi = this.makePi();
  }

  assertActive() {
    if (!this.active) throw new Error(STALE_ERROR);
  }

  record(call, args) {
    this.run.trace.push({ t: clock.now, call, args: json(args), runtime: this.generation, session: this.run.switches + 1 });
  }

  makePi() {
    const rt = this;
    const run = this.run;
    const api = (name, fn) => (...args) => {
      rt.assertActive();
      rt.record(`pi.${name}`, args);
      return fn(...args);
    };
    const events = {
      emit: (channel, data) => { rt.assertActive(); rt.bus.emit(channel, data); },
      on: (channel, handler) => {
        rt.assertActive();
        // EventEmitter calls listeners synchronously; a handler runs up to its
        // first await before emit returns, as in Pi's bus.
        const direct = (data) => { try { const r = handler(data); if (r && typeof r.catch === "function") r.catch((e) => run.error(`events ${channel}`, e)); } catch (e) { run.error(`events ${channel}`, e); } };
        rt.bus.on(channel, direct);
        return () => rt.bus.off(channel, direct);
      },
    };
    return {
      on: api("on", (event, handler) => {
        if (!rt.handlers.has(event)) rt.handlers.set(event, []);
        rt.handlers.get(event).push(handler);
      }),
      registerTool: api("registerTool", (def) => run.registerTool(def, rt.sourceInfo, rt)),
      registerCommand: api("registerCommand", (name, opts) => rt.commands.set(name, opts)),
      registerShortcut: api("registerShortcut", (key, opts) => rt.shortcuts.set(key, opts)),
      registerFlag: api("registerFlag", (name, opts) => {
        rt.registeredFlags.add(name);
        if (!rt.flags.has(name) && opts && "default" in opts) rt.flags.set(name, opts.default);
      }),
      getFlag: api("getFlag", (name) => (rt.registeredFlags.has(name) ? rt.flags.get(name) : undefined)),
      registerMessageRenderer: api("registerMessageRenderer", () => {}),
      registerEntryRenderer: api("registerEntryRenderer", () => {}),
      registerMarkdownTransformer: api("registerMarkdownTransformer", () => {}),
      registerProvider: api("registerProvider", () => {}),
      unregisterProvider: api("unregisterProvider", () => {}),
      getActiveTools: api("getActiveTools", () => run.active.slice()),
      setActiveTools: api("setActiveTools", (names) => run.setActive(names)),
      getAllTools: api("getAllTools", () => [...run.tools.values()].map((t) => ({
        name: t.name, description: t.description, parameters: t.parameters,
        promptGuidelines: t.promptGuidelines, sourceInfo: { ...t.sourceInfo },
        ...(t.exposure !== undefined ? { exposure: t.exposure } : {}),
      }))),
      getThinkingLevel: api("getThinkingLevel", () => run.thinkingLevel),
      setThinkingLevel: api("setThinkingLevel", (level) => run.setThinking(level, rt)),
      sendUserMessage: api("sendUserMessage", (content, opts) => run.sendUserMessage(content, opts)),
      sendMessage: api("sendMessage", (msg, opts) => {
        run.session.append({ type: "custom_message", customType: msg?.customType, content: msg?.content, display: msg?.display, details: msg?.details });
        void opts;
      }),
      appendEntry: api("appendEntry", (customType, data) => {
        if (run.failing.delete("appendEntry")) throw new Error("the session could not be written (the host failed this call)");
        run.session.append({ type: "custom", customType, data: json(data) });
      }),
      setSessionName: api("setSessionName", (name) => { run.session.name = name; run.session.append({ type: "session_info", name }); }),
      getSessionName: api("getSessionName", () => run.session.name),
      setLabel: api("setLabel", (targetId, label) => { run.session.append({ type: "label", targetId, label }); }),
      exec: api("exec", async () => ({ stdout: "", stderr: "exec is not available in the mock host", code: 127, killed: false })),
      getCommands: api("getCommands", () => [...rt.commands.entries()].map(([name, o]) => ({ name, description: o?.description, source: "extension" }))),
      setModel: api("setModel", (model) => run.setModel(model, "set", rt)),
      events,
    };
  }

  ctx(kind) {
    const rt = this;
    const run = this.run;
    const guard = (fn) => (...args) => { rt.assertActive(); return fn(...args); };
    const base = {
      ui: run.ui(rt),
      get mode() { return run.options.mode; },
      get hasUI() { return run.options.hasUI; },
      get cwd() { rt.assertActive(); return run.sandbox.cwd; },
      get sessionManager() { rt.assertActive(); return rt.manager; },
      get modelRegistry() { rt.assertActive(); return run.registry(rt); },
      get model() { rt.assertActive(); return run.model ? { ...run.model } : undefined; },
      get scopedModels() { return run.scoped.map((key) => run.findKey(key)).filter(Boolean).map((model) => ({ model: { ...model } })); },
      get thinkingLevel() { return run.thinkingLevel; },
      isIdle: guard(() => run.idle),
      hasPendingMessages: guard(() => run.queued.length > 0),
      signal: undefined,
      abort: guard(() => rt.record("ctx.abort", [])),
      shutdown: guard(() => rt.record("ctx.shutdown", [])),
      compact: guard(() => rt.record("ctx.compact", [])),
      isProjectTrusted: guard(() => true),
      getContextUsage: guard(() => undefined),
      getSystemPrompt: guard(() => rt.systemPrompt),
    };
    if (kind !== "command") return base;
    return Object.assign(base, {
      waitForIdle: guard(async () => {}),
      newSession: guard(async (opts) => {
        rt.record("ctx.newSession", [opts?.parentSession ? run.virtual(String(opts.parentSession)) : null]);
        if (run.failing.delete("newSession")) return { cancelled: true };
        return run.replaceSession("new", opts);
      }),
      fork: guard(async () => ({ cancelled: true })),
      navigateTree: guard(async (targetId) => run.navigate(targetId)),
      switchSession: guard(async (file, opts) => run.replaceSession("resume", { ...opts, file })),
      reload: guard(async () => run.reload()),
      getSystemPromptOptions: guard(() => ({ cwd: run.sandbox.cwd })),
    });
  }

  async emit(event, payload, ctxKind) {
    this.assertActive();
    const handlers = this.handlers.get(event) ?? [];
    const ctx = this.ctx(ctxKind);
    return combine(this, event, { type: event, ...payload }, handlers, ctx);
  }
}

// Pi's result-combination rules (fact sheet § 3; Pi's extensions/runner.js).
async function combine(rt, event, payload, handlers, ctx) {
  const run = rt.run;
  const returned = [];
  const call = async (handler, ev) => {
    const value = await handler(ev, ctx);
    returned.push(json(value));
    run.trace.push({ t: clock.now, hook: event, result: json(value), runtime: rt.generation });
    return value;
  };
  const safe = async (handler, ev) => {
    try { return await call(handler, ev); } catch (error) { run.error(event, error); return undefined; }
  };
  switch (event) {
    case "tool_call": {
      for (const handler of handlers) {
        let value;
        try { value = await call(handler, payload); } catch (error) {
          run.trace.push({ t: clock.now, hook: event, threw: errorText(error), runtime: rt.generation });
          return { blocked: true, thrown: errorText(error), input: json(payload.input) };
        }
        if (value && value.block === true) return { blocked: true, reason: value.reason ?? null, terminate: value.terminate ?? false, input: json(payload.input) };
      }
      return { blocked: false, input: json(payload.input) };
    }
    case "input": {
      let ev = payload;
      for (const handler of handlers) {
        const value = await safe(handler, ev);
        if (value?.action === "handled") return { action: "handled" };
        if (value?.action === "transform") ev = { ...ev, text: value.text, images: value.images ?? ev.images };
      }
      return ev === payload ? { action: "continue" } : { action: "transform", text: ev.text };
    }
    case "before_agent_start": {
      let ev = payload;
      const messages = [];
      for (const handler of handlers) {
        const value = await safe(handler, ev);
        if (typeof value?.systemPrompt === "string") { ev = { ...ev, systemPrompt: value.systemPrompt }; rt.systemPrompt = value.systemPrompt; }
        if (value?.message) messages.push(json(value.message));
      }
      return { systemPrompt: ev.systemPrompt, messages };
    }
    case "context": {
      let messages = payload.messages;
      for (const handler of handlers) {
        const value = await safe(handler, { ...payload, messages: structuredClone(messages) });
        if (Array.isArray(value?.messages)) messages = value.messages;
      }
      return { messages: json(messages) };
    }
    case "message_end": {
      let message = payload.message;
      for (const handler of handlers) {
        const value = await safe(handler, { ...payload, message });
        if (value?.message && value.message.role === message?.role) message = value.message;
      }
      return { message: json(message) };
    }
    case "tool_result": {
      const merged = { content: payload.content, details: payload.details, isError: payload.isError };
      for (const handler of handlers) {
        const value = await safe(handler, { ...payload, ...merged });
        if (value && typeof value === "object") for (const key of ["content", "details", "isError", "usage"]) if (key in value) merged[key] = value[key];
      }
      return json(merged);
    }
    case "user_bash": {
      for (const handler of handlers) {
        const value = await safe(handler, payload);
        if (value && (value.operations || value.result)) return json(value);
      }
      return null;
    }
    default: {
      if (event.startsWith("session_before_")) {
        for (const handler of handlers) {
          const value = await safe(handler, payload);
          if (value?.cancel === true) return { cancel: true, result: json(value) };
        }
        return { cancel: false };
      }
      for (const handler of handlers) await safe(handler, payload);
      return { returned };
    }
  }
}

// ---------------------------------------------------------------- a run (one script)

class Run {
  constructor(request) {
    this.extensionPath = path.resolve(String(request.extension));
    this.sandbox = request.sandbox;
    this.options = { mode: "rpc", hasUI: true, ...(request.options ?? {}) };
    this.trace = [];
    this.errors = [];
    this.pending = new Set();
    this.watchers = new Set();
    this.answers = [];
    this.openPrompts = [];
    this.rootLabels = new Set();
    this.tools = new Map();
    for (const [name, props] of Object.entries(BUILTIN_TOOLS)) this.addBuiltin(name, props);
    this.active = DEFAULT_ACTIVE.slice();
    this.thinkingLevel = this.options.thinkingLevel ?? "off";
    this.models = [];
    this.auth = {};
    this.behaviour = {};
    this.available = null;
    this.scoped = [];
    // fail_next steps waiting for the next accepted pi.setModel.
    this.failingAfterModelChange = new Set();
    this.model = undefined;
    this.idle = true;
    this.systemPrompt = this.options.systemPrompt ?? "You are Pi, a coding agent.";
    this.sessions = [];
    this.session = this.newSessionObject(request.entries);
    this.runtime = null;
    this.generation = 0;
    this.loads = 0;
    this.cachedLoads = 0;
    this.restart = null;
    // Prompts queued as follow-ups while a run streams (agent.queue, or a
    // sendUserMessage with deliverAs "followUp").
    this.queued = [];
    // Pi APIs whose next call the script makes fail (fail_next).
    this.failing = new Set();
    // Session replacements that took place (new, resume): the session count.
    this.switches = 0;
  }

  // pi.sendUserMessage: Pi delivers the text as a user prompt; when idle it
  // starts a run (input with source "extension", before_agent_start,
  // agent_start), while streaming it is queued (deliverAs followUp or steer).
  sendUserMessage(content, opts) {
    if (this.failing.delete("sendUserMessage")) throw new Error("the agent could not accept the message (the host failed this call)");
    const text = typeof content === "string" ? content : (Array.isArray(content) ? content.map((c) => c?.text ?? "").join("") : String(content));
    if (this.openRun || !this.idle) { this.queued.push(text); return; }
    this.idle = false;
    this.track(this.agentStart({ prompt: text, source: "extension" }));
  }

  virtual(p) {
    // Trace paths are relative to the sandbox's named roots, never machine paths.
    for (const [name, base] of [["agent", this.sandbox.agentDir], ["home", this.sandbox.home], ["cwd", this.sandbox.cwd], ["root", this.sandbox.root]]) {
      if (inside(base, p)) return `<${name}>/${path.relative(base, path.resolve(p)).split(path.sep).join("/")}`.replace(/\/$/, "");
    }
    return p;
  }

  error(where, error) {
    this.errors.push({ t: clock.now, where, message: errorText(error) });
  }

  addBuiltin(name, props, source = "builtin") {
    this.tools.set(name, {
      name, description: `${name} (built-in)`, parameters: builtinSchema(props ?? {}),
      sourceInfo: { path: `<${source}:${name}>`, source, scope: "temporary", origin: "top-level" },
    });
  }

  hostTool(t) {
    // A tool the host (or another extension) provides: Pi's sourceInfo for
    // its source; built-ins carry Pi's built-in schema when they have one.
    const name = String(t.name);
    const source = t.source ?? "builtin";
    if (source === "builtin" || source === "built-in" || source === "sdk") {
      this.addBuiltin(name, t.properties ?? BUILTIN_TOOLS[name] ?? {}, source === "sdk" ? "sdk" : "builtin");
    } else {
      const scope = source === "project-extension" ? "project" : "user";
      this.tools.set(name, {
        name, description: t.description ?? `${name} (extension tool)`, parameters: t.parameters ?? { type: "object", properties: {} },
        sourceInfo: { path: `<${scope}-extension>/${name}`, source: "local", scope, origin: "top-level" },
      });
    }
    const tool = this.tools.get(name);
    if (t.exposure !== undefined && t.exposure !== null) tool.exposure = String(t.exposure);
    if (t.active === false) this.active = this.active.filter((n) => n !== name);
    else if (!this.active.includes(name)) this.active.push(name);
  }

  newSessionObject(entries) {
    const session = new Session(this.sandbox, this.sessions.length + 1, entries);
    this.sessions.push(session);
    return session;
  }

  registerTool(def, sourceInfo, rt) {
    if (!def || typeof def.name !== "string") throw new Error("registerTool needs a definition with a name");
    const isNew = !this.tools.has(def.name);
    this.tools.set(def.name, { ...def, sourceInfo: { ...sourceInfo }, runtime: rt });
    if (isNew && !this.active.includes(def.name)) this.active.push(def.name);
  }

  setActive(names) {
    const list = Array.isArray(names) ? names : [];
    this.active = [...new Set(list.filter((n) => this.tools.has(n)))];
  }

  setThinking(level, rt) {
    const previous = this.thinkingLevel;
    let next = THINKING_LEVELS.includes(level) ? level : previous;
    const model = this.model;
    if (model && model.reasoning === false) next = "off";
    else if (model && Array.isArray(model.thinkingLevels) && model.thinkingLevels.length) {
      const allowed = model.thinkingLevels.filter((l) => THINKING_LEVELS.includes(l));
      if (!allowed.includes(next)) {
        const rank = THINKING_LEVELS.indexOf(next);
        next = allowed.filter((l) => THINKING_LEVELS.indexOf(l) <= rank).at(-1) ?? allowed[0];
      }
    }
    if (next === previous) return;
    this.thinkingLevel = next;
    this.session.append({ type: "thinking_level_change", thinkingLevel: next });
    // Every effective change, whoever made it (the extension or the user).
    this.trace.push({ t: clock.now, thinking: next, previous });
    // Pi emits this without awaiting it; the host settles it before the next step.
    const target = rt ?? this.runtime;
    if (target?.active) this.track(target.emit("thinking_level_select", { level: next, previousLevel: previous }));
  }

  // How Pi answers for one model: the step's behaviour, else the older
  // `auth` form ({ok, delay}), else a model without credentials.
  behaviourOf(key) {
    const b = this.behaviour[key];
    if (b) return { resolves: true, auth: "ok", authDelay: 0, credentials: true, change: "accept", changeDelay: 0, ...b };
    const a = this.auth[key];
    if (a) return { resolves: true, auth: a.ok === false ? "fail" : "ok", authDelay: Number(a.delay ?? 0), credentials: a.ok !== false, change: "accept", changeDelay: 0, error: a.error, apiKey: a.apiKey };
    return { resolves: true, auth: "fail", authDelay: 0, credentials: false, change: "accept", changeDelay: 0 };
  }

  findKey(key) {
    return this.models.find((m) => `${m.provider}/${m.id}` === key);
  }

  // A Pi answer after `ms` of virtual time (settled after the extension's
  // timers due at the same instant); `hang` never settles.
  later(ms, settle) {
    return new Promise((resolve, reject) => {
      const deliver = () => { try { resolve(settle()); } catch (error) { reject(error); } };
      if (ms > 0) clock.add(deliver, ms, [], false, true);
      else deliver();
    });
  }

  // Pi's setModel (agent-session.js): false without configured auth;
  // otherwise switches, appends a model_change entry and emits
  // model_select when the model differs. The step's behaviour adds a
  // latency, a refusal, a throw or a change that never settles.
  async setModel(model, source, rt) {
    const key = `${model?.provider}/${model?.id}`;
    const found = this.models.find((m) => m.provider === model?.provider && m.id === model?.id);
    const b = this.behaviourOf(key);
    if (b.change === "hang") return new Promise(() => {});
    const answer = (entry) => this.trace.push({ t: clock.now, answer: "pi.setModel", model: key, ...entry });
    let value;
    try {
      value = await this.later(Number(b.changeDelay ?? 0), () => {
        if (b.change === "throw") throw new Error(`model change to ${key} failed`);
        // A model the registry no longer resolves has no auth to switch with.
        if (!found || b.resolves === false || !b.credentials || b.change === "refuse") return false;
        return true;
      });
    } catch (error) {
      answer({ threw: errorText(error) });
      throw error;
    }
    if (!value) { answer({ value: false }); return false; }
    const previous = this.model;
    answer({ value: true });
    for (const call of this.failingAfterModelChange) this.failing.add(call);
    this.failingAfterModelChange.clear();
    if (previous && previous.provider === found.provider && previous.id === found.id) return true;
    this.model = found;
    this.session.append({ type: "model_change", provider: found.provider, modelId: found.id });
    await (rt ?? this.runtime).emit("model_select", { model: { ...found }, previousModel: previous, source });
    return true;
  }

  registry(rt) {
    const run = this;
    const keyOf = (model) => `${model?.provider}/${model?.id}`;
    return {
      find: (provider, id) => {
        const found = run.models.find((m) => m.provider === provider && m.id === id);
        return found && run.behaviourOf(keyOf(found)).resolves !== false ? { ...found } : undefined;
      },
      getAll: () => run.models.map((m) => ({ ...m })),
      getAvailable: () => (run.available
        ? run.available.map((key) => run.findKey(key)).filter(Boolean)
        : run.models.filter((m) => run.behaviourOf(keyOf(m)).credentials)).map((m) => ({ ...m })),
      hasConfiguredAuth: (model) => Boolean(run.findKey(keyOf(model)) && run.behaviourOf(keyOf(model)).credentials),
      getApiKeyAndHeaders: (model) => {
        const key = keyOf(model);
        rt.record("modelRegistry.getApiKeyAndHeaders", [model?.provider, model?.id]);
        const b = run.behaviourOf(key);
        if (b.auth === "hang") return new Promise(() => {});
        const answer = (outcome) => run.trace.push({ t: clock.now, answer: "modelRegistry.getApiKeyAndHeaders", model: key, outcome });
        return run.later(Number(b.authDelay ?? 0), () => {
          answer(b.auth);
          if (b.auth === "throw") throw new Error(`authentication for ${key} failed`);
          if (b.auth === "fail") return { ok: false, error: b.error ?? `No API key for ${model?.provider}` };
          return { ok: true, apiKey: b.apiKey ?? "test-key" };
        });
      },
      getProviderAuthStatus: (provider) => ({ provider, configured: run.models.some((m) => m.provider === provider && run.behaviourOf(keyOf(m)).credentials) }),
      isUsingOAuth: () => false,
      getProviderDisplayName: (provider) => provider,
      refresh: () => {},
      getError: () => undefined,
    };
  }

  ui(rt) {
    const run = this;
    const rec = (name) => (...args) => { rt.assertActive(); rt.record(`ui.${name}`, args); };
    const ask = (name, kind) => async (...args) => {
      rt.assertActive();
      // With options.holdPrompts a prompt with no answer queued stays open
      // until a later ui step answers it; otherwise it is dismissed.
      let answer = run.answers.shift();
      const entry = { t: clock.now, call: `ui.${name}`, args: json(args), answer: answer ?? null, runtime: rt.generation };
      run.trace.push(entry);
      if (answer === undefined && run.options.holdPrompts) {
        answer = await new Promise((resolve) => { run.openPrompts.push(resolve); run.promptOpened?.(); });
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
      // none pressed it stays open. The step that opened it ends (as for a
      // held prompt); the dialog is never answered, so an extension that
      // reopens a dismissed dialog cannot spin the host.
      custom: (...args) => {
        rt.assertActive();
        rt.record("ui.custom", args.slice(1));
        return new Promise(() => { run.promptOpened?.(); });
      },
      getEditorText: () => run.editorText ?? "",
      getEditorComponent: () => undefined,
      getAllThemes: () => [],
      getTheme: () => undefined,
      getToolsExpanded: () => false,
      theme: {
        fg: (c, t) => `\u001b[38;pi:${c}m${t}\u001b[39m`,
        bg: (c, t) => `\u001b[48;pi:${c}m${t}\u001b[49m`,
        bold: (t) => t, italic: (t) => t, underline: (t) => t, dim: (t) => t,
      },
    };
    for (const name of API.ui) if (!(name in ui)) ui[name] = rec(name);
    const setEditorText = ui.setEditorText;
    ui.setEditorText = (text) => { run.editorText = text; setEditorText(text); };
    return ui;
  }

  track(promise) {
    const p = Promise.resolve(promise).catch((e) => this.error("background", e));
    this.pending.add(p);
    p.finally(() => this.pending.delete(p));
    return p;
  }

  // Settles background work (un-awaited events, watcher callbacks, timer
  // callbacks): waits until every tracked promise has settled, or, when
  // `quiet` is set, until no real I/O has been in flight for a few ticks (what
  // is left then waits on the virtual clock and stays pending).
  async settle({ quiet = false, limitMs = REAL_LIMIT_MS } = {}) {
    // Nothing tracked and no I/O in flight: no tick can change anything
    // (microtasks have already run). options.baseline keeps the tick, for
    // the benchmark's before/after figures.
    if (this.pending.size === 0 && !this.options.baseline && !ioInFlight()) return;
    const started = performance.now();
    let idleTicks = 0;
    while (this.pending.size > 0 && performance.now() - started < limitMs) {
      await realTick();
      if (!quiet) continue;
      idleTicks = ioInFlight() ? 0 : idleTicks + 1;
      if (idleTicks >= QUIET_TICKS) break;
    }
    await realTick();
  }

  async load(reason, extra) {
    const previous = this.runtime;
    const carried = previous ? { flags: previous.flags } : null;
    if (previous) { previous.active = false; this.stale = previous; }
    const rt = new Runtime(this, this.session, ++this.generation, carried);
    this.runtime = rt;
    this.loads += 1;
    // The load's tag makes Node evaluate the extension's modules again (see
    // FRESH_LOADS): a fresh top level, as Pi's loader gives every load.
    const url = `${pathToFileURL(this.extensionPath).href}?${LOAD_TAG}=${runCounter}-${this.loads}`;
    const importStart = performance.now();
    const mod = await import(url);
    this.timing.loadMs += performance.now() - importStart;
    // A loader that still hands back a module evaluated before (Node
    // without module.register, or a loader hook that drops the tag): the
    // first load of a run then needs a fresh process (the client starts
    // one); a later load in the run (reload, new session) keeps the
    // module's state, and the answer says so.
    if (evaluatedModules.has(mod)) {
      const why = "the module loader served the extension from its cache (it dropped the load tag that makes Node evaluate the module again)";
      if (this.loads === 1) { this.restart = why; throw new Error(why); }
      this.cachedLoads += 1;
      this.error("load", new Error(`${why}: module-level state carried over into the ${reason} runtime`));
    }
    evaluatedModules.add(mod);
    const factory = typeof mod.default === "function" ? mod.default : mod.default?.factory;
    if (typeof factory !== "function") throw new Error(`${this.extensionPath}: the default export is not a function (pi) => void`);
    await factory(rt.pi);
    if (carried) for (const [k, v] of carried.flags) rt.flags.set(k, v);
    for (const [k, v] of Object.entries(extra?.flags ?? {})) rt.flags.set(k, v);
    if (reason === "reload") for (const t of this.tools.values()) if (t.runtime && !this.active.includes(t.name)) this.active.push(t.name);
    // Tools registered by the stale runtime keep their definitions until re-registered.
    await rt.emit("session_start", { reason, ...(extra?.previousSessionFile ? { previousSessionFile: extra.previousSessionFile } : {}) });
    await rt.emit("resources_discover", { cwd: this.sandbox.cwd, reason: reason === "reload" ? "reload" : "startup" });
    return rt;
  }

  async reload() {
    const old = this.runtime;
    await old.emit("session_shutdown", { reason: "reload" });
    await this.load("reload");
    return undefined;
  }

  async replaceSession(reason, opts = {}) {
    const old = this.runtime;
    const before = await old.emit("session_before_switch", { reason, ...(opts.file ? { targetSessionFile: opts.file } : {}) });
    if (before.cancel) return { cancelled: true };
    const previousSessionFile = this.session.file;
    let next;
    if (reason === "new") next = this.newSessionObject(opts.entries);
    else next = this.sessions.find((s) => s.file === opts.file) ?? this.session;
    await old.emit("session_shutdown", { reason, targetSessionFile: next.file });
    // Pi aborts the open run of the session it leaves.
    this.openRun = null;
    this.queued = [];
    this.idle = true;
    this.switches += 1;
    this.session = next;
    if (reason === "new" && typeof opts.setup === "function") await opts.setup(next.writable({ assertActive() {} }));
    const rt = await this.load(reason, { previousSessionFile });
    if (typeof opts.withSession === "function") {
      const replaced = rt.ctx("command");
      replaced.sendUserMessage = async (content, o) => rt.pi.sendUserMessage(content, o);
      replaced.sendMessage = async (m, o) => rt.pi.sendMessage(m, o);
      await opts.withSession(replaced);
    }
    return { cancelled: false };
  }

  // The SessionManager newSession's setup callback gets: the read-only
  // surface plus Pi's append methods, before the new runtime binds.
  async navigate(targetId) {
    const rt = this.runtime;
    const oldLeafId = this.session.leafId;
    const before = await rt.emit("session_before_tree", { preparation: { targetId, oldLeafId } });
    if (before.cancel) return { cancelled: true };
    if (targetId !== null && !this.session.entries.some((e) => e.id === targetId)) throw new Error(`no entry ${targetId} in the session`);
    this.session.leafId = targetId;
    await rt.emit("session_tree", { newLeafId: targetId, oldLeafId });
    return { cancelled: false };
  }

  requireRuntime() {
    if (!this.runtime) throw new Error('no extension runtime yet: the script needs a "start" step first');
    return this.runtime;
  }

  rootFor(step) {
    const root = step.root ?? "agent";
    const base = { agent: this.sandbox.agentDir, cwd: this.sandbox.cwd, home: this.sandbox.home }[root];
    if (!base) throw new Error(`unknown root ${JSON.stringify(root)} (agent, cwd or home)`);
    const target = path.resolve(base, String(step.path ?? ""));
    if (!inside(this.sandbox.root, target)) throw new Error(`${step.path} is outside the sandbox`);
    return target;
  }

  async toolCall(step) {
    const rt = this.requireRuntime();
    const name = String(step.tool);
    const tool = this.tools.get(name);
    const toolCallId = step.toolCallId ?? `call-${this.trace.length + 1}`;
    // Pi's own gating: an unregistered or inactive tool never reaches tool_call.
    if (!tool || !this.active.includes(name)) return { reached: false, allowed: false, error: `Tool ${name} not found` };
    const input = step.input === undefined ? {} : structuredClone(step.input);
    // validate: false is for scripts that give a call without its
    // arguments: it reaches the hooks as if they had passed Pi's check.
    const problem = step.validate === false ? null : validate(tool.parameters, input);
    if (problem) return { reached: false, allowed: false, error: `Validation failed for tool "${name}": ${problem}` };
    let verdict = { blocked: false, input };
    if ((rt.handlers.get("tool_call") ?? []).length) verdict = await rt.emit("tool_call", { toolCallId, toolName: name, input });
    const result = { tool: name, reached: true, allowed: !verdict.blocked, ...verdict };
    this.openRun?.toolResults.push({ toolCallId, toolName: name });
    // Inside a run the model's call and its result are conversation history.
    const inRun = Boolean(this.openRun);
    if (inRun) this.session.append({ type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: toolCallId, name, arguments: json(input) }], timestamp: EPOCH + clock.now } });
    if (!verdict.blocked && step.execute && typeof tool.execute === "function") {
      try {
        const out = await tool.execute(toolCallId, verdict.input, undefined, () => {}, (tool.runtime ?? rt).ctx("event"));
        result.result = json(out);
      } catch (error) {
        result.result = { isError: true, content: [{ type: "text", text: errorText(error) }] };
      }
    }
    if (inRun) {
      const out = result.result ?? (verdict.blocked ? { isError: true, content: [{ type: "text", text: String(verdict.reason ?? verdict.thrown ?? "blocked") }] } : { content: [] });
      this.session.append({ type: "message", message: { role: "toolResult", toolCallId, toolName: name, content: out.content ?? [], isError: Boolean(out.isError), timestamp: EPOCH + clock.now } });
    }
    return result;
  }

  // An agent run in parts, for scripts that interleave other steps:
  // agent_start (input, before_agent_start, agent_start, turn_start),
  // context (before an LLM call), tool_call, agent_end (turn_end, agent_end,
  // agent_before_settle with the outcome, agent_settled).
  async agentStart(step) {
    const rt = this.requireRuntime();
    if (this.openRun) return { error: "an agent run is already open" };
    const text = String(step.prompt ?? "");
    const input = await rt.emit("input", { text, source: step.source ?? "interactive" });
    if (input.action === "handled") { this.idle = true; return { input }; }
    const prompt = input.action === "transform" ? input.text : text;
    this.idle = false;
    this.openRun = { turn: 0, toolResults: [] };
    this.session.append({ type: "message", message: { role: "user", content: prompt, timestamp: EPOCH + clock.now } });
    const before = await rt.emit("before_agent_start", { prompt, systemPrompt: rt.systemPrompt, systemPromptOptions: { cwd: this.sandbox.cwd } });
    // Pi stores each returned message as a custom message: it enters the context.
    for (const m of before.messages ?? []) this.session.append({ type: "custom_message", customType: m?.customType, content: m?.content, display: m?.display, details: m?.details });
    await this.requireRuntime().emit("agent_start", {});
    await this.requireRuntime().emit("turn_start", { turnIndex: 0, timestamp: EPOCH + clock.now });
    return { input, before };
  }

  // The LLM context Pi builds from the branch: messages, custom messages
  // (role custom), and after a compaction its summary plus what follows it.
  history() {
    const branch = this.session.branch();
    const cut = branch.map((e) => e.type).lastIndexOf("compaction");
    const out = [];
    for (const e of cut >= 0 ? branch.slice(cut) : branch) {
      if (e.type === "message") out.push(e.message);
      else if (e.type === "custom_message") out.push({ role: "custom", customType: e.customType, content: e.content, display: e.display, details: e.details, timestamp: Date.parse(e.timestamp) });
      else if (e.type === "compaction") out.push({ role: "compactionSummary", summary: e.summary, tokensBefore: e.tokensBefore, timestamp: Date.parse(e.timestamp) });
    }
    return out;
  }

  async context() {
    const rt = this.requireRuntime();
    const messages = this.history();
    const context = await rt.emit("context", { messages });
    return { context, history: json(messages), session: this.switches + 1 };
  }

  async agentEnd(step) {
    const rt = this.requireRuntime();
    const reply = { role: "assistant", content: [{ type: "text", text: String(step.reply ?? "") }], timestamp: EPOCH + clock.now };
    this.session.append({ type: "message", message: reply });
    await rt.emit("turn_end", { turnIndex: 0, message: reply, toolResults: this.openRun?.toolResults ?? [] });
    await rt.emit("agent_end", { messages: [reply] });
    if (this.queued.length) {
      // A queued follow-up continues the same run: no agent_settled yet.
      const prompt = this.queued.shift();
      this.session.append({ type: "message", message: { role: "user", content: prompt, timestamp: EPOCH + clock.now } });
      this.openRun = { turn: (this.openRun?.turn ?? 0) + 1, toolResults: [] };
      await rt.emit("turn_start", { turnIndex: this.openRun.turn, timestamp: EPOCH + clock.now });
      return { continued: true };
    }
    this.openRun = null;
    // Pi >= 0.87.0 only (fact sheet § 3.2); the kit's payload shape.
    if (step.beforeSettle !== false) await rt.emit("agent_before_settle", { outcome: String(step.outcome ?? "completed") });
    this.idle = true;
    await this.requireRuntime().emit("agent_settled", {});
    return {};
  }

  async agentRun(step) {
    const rt = this.requireRuntime();
    const text = String(step.prompt ?? "");
    const input = await rt.emit("input", { text, source: "interactive" });
    if (input.action === "handled") return { input };
    const prompt = input.action === "transform" ? input.text : text;
    this.idle = false;
    this.session.append({ type: "message", message: { role: "user", content: prompt, timestamp: EPOCH + clock.now } });
    const before = await rt.emit("before_agent_start", { prompt, systemPrompt: rt.systemPrompt, systemPromptOptions: { cwd: this.sandbox.cwd } });
    // Pi stores each returned message as a custom message: it enters the context.
    for (const m of before.messages ?? []) this.session.append({ type: "custom_message", customType: m?.customType, content: m?.content, display: m?.display, details: m?.details });
    await rt.emit("agent_start", {});
    await rt.emit("turn_start", { turnIndex: 0, timestamp: EPOCH + clock.now });
    const context = await rt.emit("context", { messages: this.history() });
    const toolResults = [];
    for (const call of step.toolCalls ?? []) toolResults.push(await this.toolCall(call));
    const reply = { role: "assistant", content: [{ type: "text", text: String(step.reply ?? "") }], timestamp: EPOCH + clock.now };
    this.session.append({ type: "message", message: reply });
    await rt.emit("turn_end", { turnIndex: 0, message: reply, toolResults });
    await rt.emit("agent_end", { messages: [reply] });
    this.idle = true;
    await rt.emit("agent_settled", {});
    return { input, before, context, toolResults };
  }

  async step(step) {
    switch (step.do) {
      case "start":
        if (step.thinkingLevel) this.thinkingLevel = step.thinkingLevel;
        // The stored entries of the session Pi starts on.
        for (const entry of step.entries ?? []) this.session.append(entry);
        await this.load("startup", { flags: step.flags });
        return {};
      case "emit":
        return { result: await this.requireRuntime().emit(String(step.event), step.payload ?? {}, "event") };
      case "command": {
        const rt = this.requireRuntime();
        const cmd = rt.commands.get(String(step.name));
        if (!cmd || typeof cmd.handler !== "function") return { error: `unknown command /${step.name}` };
        await cmd.handler(String(step.args ?? ""), rt.ctx("command"));
        return {};
      }
      case "shortcut": {
        // A key press fires every binding of the key: the extension's
        // shortcut and, when the script says the key is also bound to Pi's
        // app.thinking.cycle, Pi's thinking-level cycle.
        // Pi matches key ids case-insensitively (it lowercases a shortcut's
        // key and the key pressed).
        const rt = this.requireRuntime();
        const pressed = String(step.key).toLowerCase();
        const sc = [...rt.shortcuts].find(([key]) => String(key).toLowerCase() === pressed)?.[1];
        let thinkingCycled = false;
        if (step.thinkingCycle) {
          const levels = THINKING_LEVELS.slice(0, 6);
          const next = levels[(levels.indexOf(this.thinkingLevel) + 1) % levels.length];
          rt.record("pi.app.thinking.cycle", [next]);
          this.setThinking(next, rt);
          thinkingCycled = true;
        }
        if (!sc) return { error: `no shortcut ${step.key}`, thinkingCycled };
        await sc.handler(rt.ctx("event"));
        return { thinkingCycled };
      }
      case "ui": {
        // Answers go to prompts already open (oldest first), then wait for
        // the next prompts.
        const answers = [...(step.answers ?? [])];
        while (answers.length && this.openPrompts.length) this.openPrompts.shift()(answers.shift());
        this.answers.push(...answers);
        return {};
      }
      case "tool_call":
        if (step.via) return { refused: "a nested call (Pi 1.x's ctx.executeTool) is not modelled by the mock host; run real Pi 1.6.0 (--planmode-pi=1.6.0)" };
        return this.toolCall(step);
      case "registry":
        // Replaces Pi's registry (built-ins included) before the extension
        // loads; the extension's own tools are added when it registers them.
        if ((step.tools ?? []).some((t) => t?.annotations && Object.keys(t.annotations).length)) return { refused: NO_ANNOTATIONS };
        this.tools = new Map();
        this.active = [];
        for (const t of step.tools ?? []) this.hostTool(t);
        return { active: this.active.slice() };
      case "register_tool":
        if (step.annotations && Object.keys(step.annotations).length) return { refused: NO_ANNOTATIONS };
        this.hostTool(step);
        return {};
      case "set_registry": {
        // Pi's registry from now on: tools of the host (or other extensions)
        // not listed are gone, new ones are registered; the extension's own
        // registrations stay.
        const names = new Set((step.tools ?? []).map((t) => String(t.name)));
        for (const [name, tool] of [...this.tools]) {
          if (!tool.runtime && !names.has(name)) { this.tools.delete(name); this.active = this.active.filter((n) => n !== name); }
        }
        for (const t of step.tools ?? []) if (!this.tools.has(String(t.name))) this.hostTool(t);
        return { active: this.active.slice() };
      }
      case "unregister_tool":
        this.tools.delete(String(step.name));
        this.active = this.active.filter((n) => n !== step.name);
        return {};
      case "set_active":
        this.setActive(step.tools);
        return { active: this.active.slice() };
      case "activate":
        this.setActive([...this.active, ...(step.names ?? [])]);
        return { active: this.active.slice() };
      case "deactivate":
        this.setActive(this.active.filter((n) => !(step.names ?? []).includes(n)));
        return { active: this.active.slice() };
      case "model_tools":
        return { refused: "the mock host sends no LLM requests; run real Pi (--planmode-pi=1.6.0)" };
      case "pi_settings":
        return { refused: "Pi's own settings (defaultTools) are not modelled by the mock host; run real Pi (--planmode-pi=1.6.0)" };
      case "declare":
        // tool_search's declaration, modelled as activation.
        this.setActive([...this.active, String(step.name)]);
        return { active: this.active.slice() };
      case "expose": {
        const tool = this.tools.get(String(step.name));
        if (!tool) return { error: `no tool ${step.name}` };
        if (step.exposure === null || step.exposure === undefined) delete tool.exposure;
        else tool.exposure = String(step.exposure);
        return {};
      }
      case "models": {
        // Pi's model registry (ctx.modelRegistry: find, getAll, getAvailable,
        // hasConfiguredAuth, getApiKeyAndHeaders), the --models scope
        // (ctx.scopedModels) and how pi.setModel answers, per model
        // "provider/id". `merge` changes only what the step names (a
        // provider recovering, /login, a refreshed models.json).
        if (!step.merge) {
          this.models = [];
          this.auth = {};
          this.behaviour = {};
          this.available = null;
          this.scoped = [];
        }
        for (const m of step.catalogue ?? []) {
          const model = { name: m.id, reasoning: true, contextWindow: 200000, ...m };
          const at = this.models.findIndex((x) => x.provider === model.provider && x.id === model.id);
          if (at >= 0) this.models[at] = model;
          else this.models.push(model);
        }
        Object.assign(this.auth, step.auth ?? {});
        for (const [key, b] of Object.entries(step.behaviour ?? {})) this.behaviour[key] = { ...(this.behaviour[key] ?? {}), ...b };
        if (Array.isArray(step.available)) this.available = step.available.map(String);
        if (Array.isArray(step.scoped)) this.scoped = step.scoped.map(String);
        if (step.current) this.model = this.models.find((m) => `${m.provider}/${m.id}` === step.current);
        return {};
      }
      case "unreadable_file": {
        // Reading the file fails from now on (EISDIR, as a permission
        // problem would, whoever runs the host), until a step writes it.
        const target = this.rootFor(step);
        real.fs.rmSync(target, { force: true, recursive: true });
        real.fs.mkdirSync(target, { recursive: true });
        this.fireWatchers(target, "change");
        return {};
      }
      case "set_model": {
        const [provider, ...rest] = String(step.model).split("/");
        return { ok: await this.setModel({ provider, id: rest.join("/") }, step.source ?? "set") };
      }
      case "thinking":
        this.setThinking(String(step.level));
        return { level: this.thinkingLevel };
      case "advance":
        await this.advance(Number(step.ms ?? 0));
        return { now: clock.now };
      case "write_file": {
        const target = this.rootFor(step);
        if (real.fs.statSync(target, { throwIfNoEntry: false })?.isDirectory()) real.fs.rmSync(target, { recursive: true });
        real.fs.mkdirSync(path.dirname(target), { recursive: true });
        const content = typeof step.content === "string" ? step.content : JSON.stringify(step.content, null, 2);
        const existed = real.fs.existsSync(target);
        real.fs.writeFileSync(target, content);
        this.fireWatchers(target, existed ? "change" : "rename");
        return {};
      }
      case "edit_file": {
        // A manual edit of a JSON document: top-level keys set (null deletes).
        const target = this.rootFor(step);
        let doc = {};
        try { doc = JSON.parse(real.fs.readFileSync(target, "utf8")); } catch { doc = {}; }
        for (const [key, value] of Object.entries(step.set ?? {})) {
          if (value === null) delete doc[key];
          else doc[key] = value;
        }
        const existed = real.fs.existsSync(target);
        if (real.fs.statSync(target, { throwIfNoEntry: false })?.isDirectory()) real.fs.rmSync(target, { recursive: true });
        real.fs.mkdirSync(path.dirname(target), { recursive: true });
        real.fs.writeFileSync(target, JSON.stringify(doc, null, 2));
        this.fireWatchers(target, existed ? "change" : "rename");
        return {};
      }
      case "delete_file": {
        const target = this.rootFor(step);
        real.fs.rmSync(target, { force: true });
        this.fireWatchers(target, "rename");
        return {};
      }
      case "agent_run":
        return this.agentRun(step);
      case "agent_start":
        return this.agentStart(step);
      case "context":
        return this.context();
      case "agent_end":
        return this.agentEnd(step);
      case "reload":
        this.requireRuntime();
        await this.reload();
        return {};
      case "resume":
        this.requireRuntime();
        if (Array.isArray(step.entries)) {
          // Another stored session, with these entries.
          const stored = this.newSessionObject(step.entries);
          return this.replaceSession("resume", { file: stored.file });
        }
        return this.replaceSession("resume", { file: step.file ?? this.session.file });
      case "new_session":
        this.requireRuntime();
        return this.replaceSession("new", { entries: step.entries });
      case "label": {
        // The user labels the current leaf in /tree (a label entry).
        this.requireRuntime();
        // An empty session's label names its root (navigating there leaves
        // an empty branch); the host keeps it aside, as no entry exists to
        // carry it.
        const targetId = this.session.leafId;
        if (!targetId) { this.rootLabels.add(String(step.label)); return { targetId: null }; }
        this.session.append({ type: "label", targetId, label: String(step.label) });
        return { targetId };
      }
      case "navigate_tree": {
        this.requireRuntime();
        if (Array.isArray(step.entries)) {
          // A branch with these entries, forked from the root.
          const saved = this.session.leafId;
          this.session.leafId = null;
          for (const entry of step.entries) this.session.append(entry);
          const target = this.session.leafId;
          this.session.leafId = saved;
          return this.navigate(target);
        }
        if (step.label !== undefined) {
          const entry = this.session.entries.filter((e) => e.type === "label" && e.label === step.label).at(-1);
          if (!entry && this.rootLabels.has(String(step.label))) return this.navigate(null);
          if (!entry) return { error: `no entry labelled ${JSON.stringify(step.label)}` };
          return this.navigate(entry.targetId);
        }
        return this.navigate(step.target ?? this.session.branch().at(Number(step.back ? -1 - step.back : -1))?.id);
      }
      case "settle":
        return {};
      case "dismiss": {
        // The user leaves whatever prompt is open (Escape); nothing is queued.
        const open = this.openPrompts.splice(0);
        for (const resolve of open) resolve({ cancel: true });
        return { dismissed: open.length };
      }
      case "queue": {
        // The user submits a prompt while the run streams (input with
        // streamingBehavior followUp): Pi queues it.
        const rt = this.requireRuntime();
        const text = String(step.prompt ?? "");
        const input = await rt.emit("input", { text, source: "interactive", streamingBehavior: "followUp" });
        if (input.action !== "handled") this.queued.push(input.action === "transform" ? input.text : text);
        return { input };
      }
      case "compact": {
        // /compact or automatic compaction: session_before_compact (an
        // extension may cancel or supply the summary), a compaction entry,
        // session_compact. Earlier messages leave the context.
        const rt = this.requireRuntime();
        const branch = this.session.branch();
        const before = await rt.emit("session_before_compact", { preparation: { firstKeptEntryId: null }, branchEntries: json(branch), reason: "manual", willRetry: false });
        if (before.cancel && !before.result?.compaction) return { cancelled: true };
        const supplied = before.result?.compaction;
        const entry = this.session.append({ type: "compaction", summary: String(supplied?.summary ?? step.summary ?? "Summary of the conversation so far."), firstKeptEntryId: null, tokensBefore: 1000, ...(supplied ? { fromHook: true } : {}) });
        await this.requireRuntime().emit("session_compact", { compactionEntry: json(entry), fromExtension: Boolean(supplied), reason: "manual", willRetry: false });
        return { cancelled: false };
      }
      case "restart": {
        // Pi quits (session_shutdown{quit}) and is started again on the same
        // session: a fresh extension runtime, session_start{startup}.
        const old = this.requireRuntime();
        await old.emit("session_shutdown", { reason: "quit" });
        this.openRun = null;
        this.queued = [];
        this.idle = true;
        await this.load("startup");
        return {};
      }
      case "set_cwd": {
        // Pi's working directory from now on (ctx.cwd, sessionManager.getCwd()).
        const target = path.resolve(String(step.path ?? ""));
        if (!inside(this.sandbox.root, target)) return { error: `${step.path} is outside the sandbox` };
        real.fs.mkdirSync(target, { recursive: true });
        this.sandbox.cwd = target;
        process.chdir(target);
        return {};
      }
      case "fail_next": {
        // The extension's next call of this Pi API fails: sendUserMessage
        // throws (not delivered, no run starts), newSession answers
        // {cancelled: true}, appendEntry throws (the session file cannot be
        // written). `afterModelChange`: only from the next accepted
        // pi.setModel on. `clear`: no failure is pending any more.
        if (step.clear) { this.failing.clear(); this.failingAfterModelChange.clear(); return {}; }
        const call = String(step.call);
        if (!["sendUserMessage", "newSession", "appendEntry"].includes(call)) return { error: `fail_next: unknown call ${JSON.stringify(call)}` };
        (step.afterModelChange ? this.failingAfterModelChange : this.failing).add(call);
        return {};
      }
      case "state":
        return { state: this.state() };
      case "stale_call": {
        // Calls a method on a stale runtime's pi object (tests the stale error).
        const rt = this.stale;
        if (!rt) return { error: "no stale runtime yet (reload or replace the session first)" };
        try { rt.pi[String(step.method ?? "getActiveTools")](); return { threw: null }; } catch (error) { return { threw: errorText(error) }; }
      }
      default:
        throw new Error(`unknown step ${JSON.stringify(step.do)}; steps: ${API.steps.join(", ")}`);
    }
  }

  fireWatchers(target, eventType) {
    for (const watcher of [...this.watchers]) {
      const dir = watcher.path;
      if (target === dir || path.dirname(target) === dir) {
        const name = target === dir ? path.basename(target) : path.relative(dir, target);
        this.trace.push({ t: clock.now, watcherFired: this.virtual(dir), event: eventType, name });
        try {
          watcher.emit("change", eventType, name);
        } catch (error) {
          this.error("fs.watch listener", error);
        }
      }
    }
  }

  async advance(ms) {
    const target = clock.now + Math.max(0, ms);
    for (;;) {
      const timer = clock.next(target);
      if (!timer) break;
      clock.now = timer.due;
      if (timer.repeat) timer.due += Math.max(1, timer.ms);
      else clock.timers.delete(timer.id);
      try {
        const value = timer.fn(...(timer.args ?? []));
        if (value && typeof value.then === "function") this.track(value);
      } catch (error) {
        this.error("timer", error);
      }
      // What the timer set off (promise continuations, however long the
      // chain) runs at the timer's instant, before the clock moves on.
      await realTick();
      await this.settle({ quiet: true });
    }
    clock.now = target;
  }

  // What a step left behind, for scripts that read effects step by step:
  // the active tools, the globals named in options.globals, the files under
  // the directories named in options.dirs (relative to cwd).
  observe() {
    const globals = {};
    for (const name of this.options.globals ?? []) globals[name] = json(globalThis[name]) ?? null;
    const files = {};
    for (const dir of this.options.dirs ?? []) {
      const base = path.resolve(this.sandbox.cwd, String(dir));
      if (!inside(this.sandbox.cwd, base)) continue;
      let names = [];
      try { names = real.fs.readdirSync(base, { withFileTypes: true }); } catch { names = []; }
      for (const d of names) {
        if (d.isFile()) files[`${dir}/${d.name}`] = real.fs.readFileSync(path.join(base, d.name), "utf8");
      }
    }
    return { activeTools: this.active.slice(), thinkingLevel: this.thinkingLevel, globals, files };
  }

  state() {
    const rt = this.runtime;
    return {
      now: clock.now,
      activeTools: this.active.slice(),
      tools: [...this.tools.values()].map((t) => ({ name: t.name, source: t.sourceInfo.source })),
      thinkingLevel: this.thinkingLevel,
      model: this.model ? `${this.model.provider}/${this.model.id}` : null,
      commands: rt ? [...rt.commands.keys()] : [],
      shortcuts: rt ? [...rt.shortcuts.keys()] : [],
      flags: rt ? Object.fromEntries(rt.flags) : {},
      hooks: rt ? Object.fromEntries([...rt.handlers].map(([k, v]) => [k, v.length])) : {},
      session: this.session.id,
      sessions: this.switches + 1,
      // Answers no prompt took (the extension showed none, or a custom
      // component the host cannot answer).
      unusedAnswers: this.answers.length,
      root: this.sandbox.root,
      cwd: this.sandbox.cwd,
      branch: json(this.session.branch()),
      history: json(this.history()),
      editorText: this.editorText ?? null,
      systemPrompt: rt?.systemPrompt ?? this.systemPrompt,
    };
  }
}

// ---------------------------------------------------------------- files under the sandbox

function snapshot(root) {
  const out = new Map();
  const walk = (dir) => {
    let names;
    try { names = real.fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const d of names) {
      const full = path.join(dir, d.name);
      if (d.isDirectory()) walk(full);
      else if (d.isFile()) out.set(full, real.fs.readFileSync(full));
    }
  };
  walk(root);
  return out;
}

function directories(root) {
  const out = new Set();
  const walk = (dir) => {
    let names;
    try { names = real.fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const d of names) if (d.isDirectory()) { out.add(path.join(dir, d.name)); walk(path.join(dir, d.name)); }
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

const baselineGlobals = new Set(Object.getOwnPropertyNames(globalThis));
const evaluatedModules = new WeakSet();

class CachedModule extends Error {}
let runCounter = 0;

async function runScript(request) {
  const began = performance.now();
  const sandbox = request.sandbox;
  for (const key of ["root", "cwd", "home", "agentDir", "sessionDir", "tmp"]) {
    if (typeof sandbox?.[key] !== "string" || !path.isAbsolute(sandbox[key])) throw new Error(`sandbox.${key} must be an absolute path`);
  }
  for (const key of ["cwd", "home", "agentDir", "sessionDir", "tmp"]) {
    if (!inside(sandbox.root, sandbox[key])) throw new Error(`sandbox.${key} is outside sandbox.root`);
  }
  // The session directory holds nothing (sessions live in memory): it is
  // made only for options.baseline. Each directory costs its removal too.
  const made = request.options?.baseline ? ["cwd", "home", "agentDir", "sessionDir", "tmp"] : ["cwd", "agentDir", "tmp"];
  for (const key of made) real.fs.mkdirSync(sandbox[key], { recursive: true });
  runCounter += 1;
  clock = new Clock();
  process.env.HOME = sandbox.home;
  process.env.USERPROFILE = sandbox.home;
  process.env.PI_CODING_AGENT_DIR = sandbox.agentDir;
  process.env.TMPDIR = sandbox.tmp;
  process.chdir(sandbox.cwd);
  const setupDone = performance.now();
  const before = snapshot(sandbox.root);
  const dirsBefore = directories(sandbox.root);
  const run = new Run(request);
  run.timing = { setupMs: setupDone - began, filesMs: performance.now() - setupDone, loadMs: 0, stepsMs: 0, totalMs: 0 };
  host = run;
  const results = [];
  try {
    for (const [index, step] of (request.script ?? []).entries()) {
      const record = { do: step?.do, t: clock.now, traceFrom: run.trace.length };
      results.push(record);
      // A step that leaves a prompt open waits for a later ui step.
      const prompted = new Promise((resolve) => { run.promptOpened = resolve; });
      const promise = run.step(step ?? {}).then(
        // doneAt: the virtual instant the step's work finished.
        (value) => Object.assign(record, value ?? {}, { pending: false, doneAt: clock.now }),
        (error) => Object.assign(record, { pending: false, threw: errorText(error), doneAt: clock.now }),
      );
      run.track(promise);
      // A step runs to completion unless the script says it waits on the
      // virtual clock ("wait": false): then the script goes on once only
      // virtual time can move it, and a later advance step completes it.
      if (step?.wait === false) await run.settle({ quiet: true });
      else {
        let watchdog;
        await Promise.race([promise, prompted, new Promise((resolve) => { watchdog = real.setTimeout(resolve, REAL_LIMIT_MS); })]);
        run.promptOpened = null;
        real.clearTimeout(watchdog);
        await run.settle({ quiet: true });
      }
      if (run.restart) throw new CachedModule(run.restart);
      if (process.env.PLANMODE_PI_HOST_DEBUG) process.stderr.write(`step ${index} ${step?.do} settled=${"pending" in record} now=${clock.now}\n`);
      if (!("pending" in record)) record.pending = true;
      record.traceTo = run.trace.length;
      if (run.options.observe) record.after = run.observe();
      void index;
    }
    await run.settle({ quiet: true });
    const stepsDone = performance.now();
    const state = run.state();
    const files = changedFiles(sandbox.root, before, snapshot(sandbox.root));
    const createdDirs = [...directories(sandbox.root)].filter((d) => !dirsBefore.has(d)).map((d) => path.relative(sandbox.root, d).split(path.sep).join("/")).sort();
    const end = performance.now();
    // Where the run's time went (the loads are part of the steps).
    Object.assign(run.timing, { stepsMs: stepsDone - began - run.timing.setupMs - run.timing.filesMs, totalMs: end - began });
    run.timing.filesMs += end - stepsDone;
    return { results, trace: run.trace, errors: run.errors, state, files, createdDirs, timing: run.timing };
  } finally {
    if (run.runtime) run.runtime.active = false;
    for (const w of run.watchers) w.removeAllListeners();
    host = null;
    clock.timers.clear();
    for (const name of Object.getOwnPropertyNames(globalThis)) {
      if (!baselineGlobals.has(name)) delete globalThis[name];
    }
  }
}

function hello() {
  return { host: "pytest-planmode mock Pi host", hostVersion: HOST_VERSION, pi: PI_VERSION, node: process.version, freshLoads: FRESH_LOADS_HOOKED, api: API };
}

async function main() {
  installVirtualTime();
  installContainment();
  const out = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
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
      if (error instanceof CachedModule) { out({ id, restart: error.message }); continue; }
      out({ id, error: error instanceof Error ? `${error.message}` : String(error) });
    }
  }
}

process.on("unhandledRejection", (error) => {
  if (host) host.error("unhandled rejection", error);
});

main();
