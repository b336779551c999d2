// A small Pi extension implementing a slice of opl-modes, for Pi 0.84 and later.
//
// Plain JavaScript, no dependencies, written from the opl-modes
// specification. The slice:
//
//   modes normal (off), chat, plan, execute and custom modes from the config
//     (`tools`, `enabled`, `visible`, `prompt`, `unrestrictedBash`, `labels`,
//     `appearance`, `allowExecute`)
//   /mode [name] (a picker without a name), /chat [off], /plan [off | <name>],
//     /execute [name], --chat / --plan, the cycle shortcut (shortcuts.cycleMode,
//     default shift+tab) over the enabled visible modes
//   active tools per mode: chat and plan get their read-only lists, execute
//     and custom modes without `tools` inherit the resting set (the snapshot
//     taken when the first mode was entered, or modes.off.tools when pinned),
//     off restores it
//   lazyTools withheld from every computed set, and load_tools (registered
//     when first needed, active while a lazy tool is withheld) enabling only
//     what the current mode permits
//   model overrides (modes.<name>.model) resolved through Pi's registry on
//     entry, the previous model captured once and restored on exit, the
//     restore point persisted in the mode entry; changes serialized; a
//     pinned modes.off.model applied at session start and on every exit
//   the Bash gate in chat, plan and custom modes: every shell segment must
//     match a safe pattern and no destructive pattern may match
//   plan files under <cwd>/.pi/plans/plan-<name>.md; plan_complete (execute
//     mode) deletes the plan with cleanup.cleanupOnComplete; a completed run
//     leaves execute mode at agent_before_settle
//   state in "mode-switcher" entries, restored at session start, resume and
//     branch change; globalThis.__agentMode published on every change
//
// Left out: the plan action menu and refine cycles, the restore point's
// failure count across /reload, configurable Bash
// pattern arrays, notify templates, config validation messages, control
// characters in resumed plan filenames, non-ASCII plan names; the expectations
// file lists what that fails.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const ENTRY = "mode-switcher";
const PLANS = path.join(".pi", "plans");
const READ_ONLY = ["read", "bash", "grep", "find", "ls"];
const COMPLETE = "plan_complete";
const LOAD = "load_tools";
// Never withheld, even when listed in lazyTools.
const PROTECTED = new Set(["read", "edit", "write", "bash", "powershell", "grep", "find", "ls", COMPLETE, LOAD]);
const BUILTIN = ["off", "chat", "plan", "execute"];
const SAFE = [
  /^(cat|head|tail|less|more|grep|egrep|fgrep|rg|ls|tree|find|fd|wc|pwd|echo|printf|stat|file|du|df|which|type|sort|uniq|cut|tr|diff|cmp|jq|date|uname|whoami|basename|dirname|realpath|readlink|column|nl|od|hexdump|md5sum|sha1sum|sha256sum|true|false|test)(\s|$)/,
  /^git\s+(status|log|diff|show|branch|ls-files|grep|blame|rev-parse|remote\s+-v|describe|shortlog|tag\s+-l)(\s|$)/,
];
const DESTRUCTIVE = [
  /(^|[;&|(]\s*)(rm|rmdir|mv|cp|mkdir|touch|chmod|chown|tee|dd|shred|truncate|sudo|su|kill|pkill|killall|bash|sh|zsh|fish|vi|vim|nvim|nano|emacs)(\s|$)/,
  /\sfind\b.*\s-(delete|exec|execdir|ok|okdir|fprint0?|fprintf|fls)\b|^find\b.*\s-(delete|exec|execdir|ok|okdir|fprint0?|fprintf|fls)\b|--exec-batch/,
  /--output\b|^(sort|tree)\b.*\s-\w*o\b|^(fd|fdfind)\b.*\s-\w*[xX]\b|^rg\b.*--pre\b/,
  /^jq\b.*(\benv\b|\$ENV)/,
  /^(npm|yarn|pnpm|pip|pip3)\s+(install|i|add|update|upgrade|uninstall|remove|audit\s+fix)\b/,
  /^git\s+(add|commit|push|pull|fetch|merge|rebase|reset|checkout|switch|restore|stash|clean|rm|mv|tag\s+-d|cherry-pick|revert|am|apply|init|clone|config|gc|prune)\b/,
  /^git\s+branch\b.*\s(-[dDmMcC]|--delete|--unset-upstream|--move|--copy)\b/,
  /^git\s+remote\s+(add|remove|rm|rename|set-url|set-head|prune|update)\b/,
  /^uniq\b(\s+-\S+)*\s+[^-\s]\S*\s+[^-\s]\S*/,
];

// ------------------------------------------------------------------ configuration
// Read each time Pi loads the extension: at start and on /reload (Pi calls
// the factory again then, without evaluating this module again).

function agentDir() {
  return process.env.PI_CODING_AGENT_DIR || path.join(os.homedir(), ".pi", "agent");
}

function readConfig() {
  try {
    const doc = JSON.parse(fs.readFileSync(path.join(agentDir(), "configs", "opl-modes.json"), "utf8"));
    return doc && typeof doc === "object" && !Array.isArray(doc) ? doc : {};
  } catch {
    return {};
  }
}

let CONFIG = {};

function object(value) {
  return value && typeof value === "object" && !Array.isArray(value) ? value : {};
}

function names(value) {
  return Array.isArray(value) && value.every((n) => typeof n === "string") ? value : undefined;
}

function buildModes(config) {
  const overrides = object(config.modes);
  const modes = new Map();
  const base = (name) => ({
    name,
    enabled: true,
    visible: name !== "execute",
    tools: name === "chat" ? names(config.chatAllowedTools) ?? READ_ONLY : name === "plan" ? names(config.planAllowedTools) ?? READ_ONLY : undefined,
    gated: name === "chat" || name === "plan",
    allowExecute: true,
    prompt: name === "chat" ? "Chat mode: answer and inspect, do not modify files." : name === "plan" ? "Plan mode: explore and write the plan, do not modify files." : "",
  });
  for (const name of [...BUILTIN, ...Object.keys(overrides)]) {
    const own = object(overrides[name]);
    const mode = modes.get(name) ?? (BUILTIN.includes(name) ? base(name) : { ...base(name), gated: true });
    if (typeof own.enabled === "boolean") mode.enabled = own.enabled;
    if (typeof own.visible === "boolean") mode.visible = own.visible;
    if (names(own.tools)) mode.tools = names(own.tools);
    if (own.unrestrictedBash === true) mode.gated = false;
    if (typeof own.allowExecute === "boolean") mode.allowExecute = own.allowExecute;
    if (typeof own.prompt === "string") mode.prompt = own.prompt;
    mode.allowPlanComplete = name === "execute" || own.allowPlanComplete === true;
    mode.labels = object(own.labels);
    mode.appearance = object(own.appearance);
    modes.set(name, mode);
  }
  return modes;
}

let MODES, UI, CYCLE_KEY, CLEANUP, LAZY, PINNED_OFF;

function loadConfig() {
  CONFIG = readConfig();
  MODES = buildModes(CONFIG);
  UI = object(CONFIG.ui);
  CYCLE_KEY = typeof object(CONFIG.shortcuts).cycleMode === "string" ? CONFIG.shortcuts.cycleMode : "shift+tab";
  CLEANUP = object(CONFIG.cleanup).cleanupOnComplete === true;
  LAZY = (names(CONFIG.lazyTools) ?? []).filter((t) => !PROTECTED.has(t));
  PINNED_OFF = names(object(object(CONFIG.modes).off).tools);
}

// A mode's model override: a blank or partial one is no override (an empty
// or missing provider or id; whitespace is taken as written).
function override(name) {
  const model = object(object(object(CONFIG.modes)[name]).model);
  const provider = typeof model.provider === "string" ? model.provider : "";
  const id = typeof model.id === "string" ? model.id : "";
  return provider && id ? `${provider}/${id}` : null;
}

// ------------------------------------------------------------------ the Bash gate

// Segments begin at &&, ||, a lone &, |, ;, newlines, $(, backticks, <( and >(.
// Quote-aware: separators inside quotes do not split, but a $(...) or
// backtick payload inside double quotes is split out and checked.
function segments(command) {
  const out = [];
  let current = "";
  let quote = null;
  const cut = () => { if (current.trim()) out.push(current.trim()); current = ""; };
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote === "'") { if (c === "'") quote = null; current += c; continue; }
    if (c === "\\" && i + 1 < command.length) { current += c + command[i + 1]; i++; continue; }
    if (quote === '"' && c === '"') { quote = null; current += c; continue; }
    if (!quote && (c === "'" || c === '"')) { quote = c; current += c; continue; }
    if (c === "`" || (c === "$" && command[i + 1] === "(")) { cut(); if (c === "$") i++; continue; }
    if (quote) { if (c === ")") cut(); else current += c; continue; }
    if ((c === "<" || c === ">") && command[i + 1] === "(") { cut(); i++; continue; }
    if (c === ")") { cut(); continue; }
    if (c === "\n" || c === ";" || c === "|" || c === "&") {
      const pair = command.slice(i, i + 2);
      if (c === "&" && (command[i - 1] === ">" || command[i + 1] === ">")) { current += c; continue; }
      cut();
      if (pair === "&&" || pair === "||") i++;
      continue;
    }
    current += c;
  }
  cut();
  return out;
}

function unquoted(text) {
  return text.replace(/\\(.)/g, "$1").replace(/["']/g, "");
}

// Redirects that name a file; descriptor duplication and /dev/null are not writes.
function writesFile(segment) {
  const text = unquoted(segment);
  const re = /(\d*)(>>?|&>>?)\s*([^\s;&|]*)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const target = m[3];
    if (/^&(\d+|-)$/.test(target) || (m[2] === ">" && /^&/.test(target))) continue;
    if (target === "/dev/null") continue;
    return true;
  }
  return false;
}

function bashVerdict(command) {
  if (typeof command !== "string" || !command.trim()) return "empty command";
  const parts = segments(command);
  // The blocklist split ignores quotes: an operator in a string over-blocks.
  const loose = unquoted(command).split(/&&|\|\||[;&|\n`]|\$\(|[<>]\(/).map((s) => s.trim()).filter(Boolean);
  for (const candidate of [command, unquoted(command), ...parts, ...parts.map(unquoted), ...loose]) {
    const text = candidate.trim();
    if (DESTRUCTIVE.some((re) => re.test(text)) || writesFile(text)) return `'${text}' matches a destructive pattern`;
  }
  for (const part of parts) {
    const text = unquoted(part).replace(/^\(+/, "").trim();
    if (!SAFE.some((re) => re.test(text))) return `segment '${part}' is not in the safe list`;
  }
  return null;
}

// ------------------------------------------------------------------ plan files

function planName(raw) {
  const name = String(raw).trim().toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  return /[a-z0-9]/.test(name) ? name : null;
}

function planFiles(cwd) {
  try {
    return fs.readdirSync(path.join(cwd, PLANS)).filter((f) => /^plan-.+\.md$/.test(f)).sort();
  } catch {
    return [];
  }
}

// ------------------------------------------------------------------ the extension

export default function oplModes(pi) {
  loadConfig();
  let mode = "off";
  let planFile = null; // filename under .pi/plans/
  let snapshot = null; // active tools before the first mode
  const warned = new Set();

  const title = (name) => name.charAt(0).toUpperCase() + name.slice(1);
  const display = (name) => (name === "off" ? "normal" : name);
  const planPath = () => (planFile ? `${PLANS.split(path.sep).join("/")}/${planFile}` : null);

  const publish = (ctx) => {
    const spec = MODES.get(mode) ?? MODES.get("off");
    const look = spec.appearance;
    globalThis.__agentMode = {
      mode, name: display(mode), planFile: planPath(),
      prefix: look.prefix ?? null, prefixColor: look.prefixColor ?? null, borderColor: look.borderColor ?? null,
      modeColor: look.modeColor ?? "muted",
    };
    if (!ctx?.hasUI) return;
    if (mode === "off" || UI.hideWidget === true) { ctx.ui.setWidget("opl-modes", undefined); return; }
    const text = typeof spec.labels.widget === "string" ? spec.labels.widget : title(mode);
    const color = typeof spec.labels.widgetColor === "string" ? spec.labels.widgetColor : null;
    ctx.ui.setWidget("opl-modes", [color ? ctx.ui.theme.fg(color, text) : text]);
  };

  const notify = (ctx, message, level = "info") => {
    if (ctx?.hasUI && (UI.hideNotify !== true || level !== "info")) ctx.ui.notify(message, level);
  };

  // The resting set: what was active before the first mode (lazy tools the
  // extension withholds at rest count as part of it), or the pinned off list.
  let restWithheld = [];
  let withheld = [];
  const restingNow = () => [...new Set([...pi.getActiveTools().filter((t) => t !== COMPLETE && t !== LOAD), ...restWithheld])];
  const resting = () => PINNED_OFF ?? snapshot ?? restingNow();

  const permittedFor = (name) => {
    const spec = MODES.get(name);
    let tools = name === "off" ? resting().slice() : spec.tools ? spec.tools.slice() : resting().filter((t) => t !== COMPLETE);
    if (spec.allowPlanComplete && !tools.includes(COMPLETE)) tools.push(COMPLETE);
    if (!spec.allowPlanComplete) tools = tools.filter((t) => t !== COMPLETE);
    return [...new Set(tools.filter((t) => t !== LOAD))];
  };

  let loadRegistered = false;
  const toolsFor = (name) => {
    const all = pi.getAllTools().map((t) => t.name);
    const tools = permittedFor(name);
    for (const t of tools) {
      // Pi drops unknown names silently: warn once per name and session.
      if (!all.includes(t) && !warned.has(t)) { warned.add(t); lastUi?.notify(`Unknown tool "${t}" in modes.${name}.tools`, "warning"); }
    }
    const known = tools.filter((t) => all.includes(t));
    const held = known.filter((t) => LAZY.includes(t));
    const active = known.filter((t) => !held.includes(t));
    if (held.length) { registerLoadTools(); active.push(LOAD); }
    return { active, held };
  };

  const setTools = (name) => {
    const { active, held } = toolsFor(name);
    withheld = held;
    pi.setActiveTools(active);
    if (name === "off") restWithheld = held;
  };

  const registerLoadTools = () => {
    if (loadRegistered) return;
    loadRegistered = true;
    pi.registerTool({
      name: LOAD,
      label: "Load tools",
      description: "Enable lazy tools before using them: { tools: [names] }, or no argument for every one this mode allows.",
      parameters: { type: "object", properties: { tools: { type: "array", items: { type: "string" } } } },
      async execute(_id, params) {
        const all = pi.getAllTools().map((t) => t.name);
        const permitted = permittedFor(mode).filter((t) => all.includes(t));
        const active = pi.getActiveTools();
        if (params?.tools !== undefined && (!Array.isArray(params.tools) || !params.tools.every((t) => typeof t === "string"))) {
          throw new Error("load_tools: tools must be a list of tool names");
        }
        const wanted = Array.isArray(params?.tools) ? [...new Set(params.tools)] : withheld.filter((t) => !active.includes(t));
        const enabled = [];
        const ignored = [];
        for (const t of wanted) {
          if (!LAZY.includes(t)) ignored.push({ tool: t, reason: "not-lazy" });
          else if (!permitted.includes(t)) ignored.push({ tool: t, reason: "not-permitted" });
          else if (active.includes(t)) ignored.push({ tool: t, reason: "already-active" });
          else enabled.push(t);
        }
        if (enabled.length) pi.setActiveTools([...active, ...enabled]);
        let text = enabled.length ? `Enabled: ${enabled.join(", ")}` : "No tools enabled";
        if (ignored.length) text += `; ignored: ${ignored.map((i) => `${i.tool} (${i.reason})`).join(", ")}`;
        return { content: [{ type: "text", text }], details: { enabled, ignored } };
      },
    });
  };
  let lastUi = null;

  // ---------------------------------------------------------------- models
  // One queue: a change starts only when the one before it has settled.
  let restore = null; // { model: "provider/id", failures }
  let queue = Promise.resolve();
  let modelCtx = null;
  const modelKey = (m) => (m ? `${m.provider}/${m.id}` : null);
  const current = () => { try { return modelKey(modelCtx?.model); } catch { return null; } };
  const find = (key) => { const [provider, ...rest] = key.split("/"); return modelCtx?.modelRegistry.find(provider, rest.join("/")); };
  // The failure count is not persisted: after /reload a held point gets its retry again.
  const persist = () => pi.appendEntry(ENTRY, { mode, planFile, refineCycles: 0, restoreModel: restore?.model ?? null });
  const enqueue = (job) => { queue = queue.then(job).catch(() => {}); return queue; };

  // Entering `name`: its override, the pin for off, else the restore point.
  const changeModelFor = (name) => enqueue(async () => {
    const pin = name === "off" ? override("off") : null;
    const target = name === "off" ? pin : override(name);
    if (target) {
      const model = find(target);
      if (!model) { notify(modelCtx, `Model not found: ${target}`, "warning"); return; }
      const before = current();
      if (before === target) { if (pin && restore) { restore = null; persist(); } return; }
      if (!pin && !restore && before) { restore = { model: before, failures: 0 }; persist(); }
      const ok = await pi.setModel(model);
      if (!ok) notify(modelCtx, `No credentials for ${target}; keeping ${before}`, "warning");
      if (pin && restore) { restore = null; persist(); }
      return;
    }
    if (!restore) return;
    const model = find(restore.model);
    // Gone from the registry: dropped at once.
    if (!model) { restore = null; persist(); return; }
    if (current() === restore.model) { restore = null; persist(); return; }
    const ok = await pi.setModel(model);
    // Without credentials: retried once, then released.
    if (ok || restore.failures >= 1) restore = null;
    else restore = { ...restore, failures: restore.failures + 1 };
    persist();
  });

  const apply = (next, file, ctx, { persist: save = true, announce = true, model = true } = {}) => {
    if (ctx?.ui) lastUi = ctx.ui;
    if (ctx) modelCtx = ctx;
    if (mode === "off" && next !== "off") snapshot = restingNow();
    const leaving = mode;
    mode = next;
    planFile = file;
    setTools(next);
    if (next === "off") snapshot = null;
    if (save) persist();
    publish(ctx);
    if (model) changeModelFor(next);
    if (!announce) return;
    if (next === "off") notify(ctx, `${title(leaving === "off" ? "normal" : leaving)} mode OFF`);
    else if (planFile) notify(ctx, `${title(next)} mode ON: ${planPath()}`);
    else notify(ctx, `${title(next)} mode ON`);
  };

  const enter = (name, ctx) => {
    const spec = MODES.get(name);
    if (!spec) {
      const known = [...MODES.values()].filter((m) => m.name !== "execute").map((m) => display(m.name));
      notify(ctx, `Unknown mode '${name}'; available: ${known.join(", ")}`, "error");
      return;
    }
    if (!spec.enabled) { notify(ctx, `Mode '${name}' is disabled (modes.${name}.enabled is false)`, "error"); return; }
    if (mode === name) { notify(ctx, `Already in ${display(name)} mode`); return; }
    apply(name, name === "plan" ? planFile : null, ctx);
  };

  const execute = (name, ctx) => {
    const spec = MODES.get(mode);
    if (spec && spec.allowExecute === false) {
      notify(ctx, `Execution is unavailable from ${display(mode)} mode (modes.${mode}.allowExecute is false)`, "error");
      return;
    }
    const file = `plan-${name}.md`;
    if (mode === "execute" && planFile === file) { notify(ctx, `Already executing ${planPath()}`); return; }
    if (!planFiles(ctx.cwd).includes(file)) { notify(ctx, `No plan ${PLANS}/${file}; create it with /plan ${name}`, "error"); return; }
    fs.readFileSync(path.join(ctx.cwd, PLANS, file), "utf8");
    apply("execute", file, ctx);
  };

  // One predicate for the gate, the tool body and the result (§ Execute handoff).
  const completeAllowed = () => MODES.get(mode)?.allowPlanComplete === true;

  const visibleModes = () => [...MODES.values()].filter((m) => m.enabled && m.visible && m.name !== "execute");

  pi.registerFlag("chat", { description: "Start in chat mode", type: "boolean", default: false });
  pi.registerFlag("plan", { description: "Start in plan mode", type: "boolean", default: false });

  pi.registerTool({
    name: COMPLETE,
    label: "Plan complete",
    description: "Call when the plan being executed is fully implemented.",
    parameters: { type: "object", properties: {} },
    async execute(_id, _params, _signal, _update, ctx) {
      if (!completeAllowed()) throw new Error("plan_complete is only available while executing a plan");
      if (CLEANUP && planFile) fs.rmSync(path.join(ctx.cwd, PLANS, planFile), { force: true });
      apply("off", null, ctx, { announce: false });
      return { content: [{ type: "text", text: "Plan implemented. Plan mode OFF." }], details: {} };
    },
  });

  pi.registerCommand("mode", {
    description: "Switch mode: /mode [normal|chat|plan|<custom>]",
    handler: async (args, ctx) => {
      const name = args.trim();
      if (name === "execute") { notify(ctx, "/mode execute is not available: execute mode needs an active plan; use /execute", "error"); return; }
      if (name) return enter(name === "normal" ? "off" : name, ctx);
      const labels = visibleModes().map((m) => display(m.name));
      const spec = MODES.get(mode);
      if (spec?.allowExecute !== false) labels.push(...planFiles(ctx.cwd).map((f) => `Execute: ${f.slice(5, -3)}`));
      const choice = await ctx.ui.select("Mode", labels);
      if (!choice) return;
      if (choice.startsWith("Execute: ")) return execute(choice.slice(9), ctx);
      return enter(choice === "normal" ? "off" : choice, ctx);
    },
  });

  pi.registerCommand("chat", {
    description: "Toggle chat mode (/chat off exits)",
    handler: async (args, ctx) => {
      const arg = args.trim();
      if (arg && arg !== "off") { notify(ctx, `Usage: /chat or /chat off (got '${arg}')`, "error"); return; }
      if (mode === "chat") return apply("off", null, ctx);
      if (arg === "off") { notify(ctx, "Chat mode is not active"); return; }
      return enter("chat", ctx);
    },
  });

  pi.registerCommand("plan", {
    description: "Toggle plan mode, or /plan <name> to create or load a plan (/plan off exits)",
    handler: async (args, ctx) => {
      const arg = args.trim();
      if (arg === "off") {
        if (mode !== "plan") { notify(ctx, "Plan mode is not active"); return; }
        return apply("off", null, ctx);
      }
      if (!arg) return mode === "plan" ? apply("off", null, ctx) : enter("plan", ctx);
      const name = planName(arg);
      if (!name) { notify(ctx, `'${arg}' is not a plan name: it needs a letter or digit`, "error"); return; }
      const file = `plan-${name}.md`;
      const full = path.join(ctx.cwd, PLANS, file);
      if (fs.existsSync(full)) fs.readFileSync(full, "utf8");
      else {
        fs.mkdirSync(path.dirname(full), { recursive: true });
        fs.writeFileSync(full, `# Plan: ${name}\n`);
      }
      if (!MODES.get("plan").enabled) { notify(ctx, "Mode 'plan' is disabled (modes.plan.enabled is false)", "error"); return; }
      apply("plan", file, ctx);
    },
  });

  pi.registerCommand("execute", {
    description: "Execute a plan: /execute [name]",
    handler: async (args, ctx) => {
      const name = args.trim();
      if (name) return execute(name.replace(/^plan-/, "").replace(/\.md$/, ""), ctx);
      if (mode === "execute") { notify(ctx, `Already executing ${planPath()}`); return; }
      const plans = planFiles(ctx.cwd);
      if (!plans.length) { notify(ctx, "No plan to execute in .pi/plans/; create one with /plan <name>", "error"); return; }
      const choice = await ctx.ui.select("Execute plan", plans.map((f) => `Execute: ${f.slice(5, -3)}`));
      if (choice) execute(choice.slice(9), ctx);
    },
  });

  pi.registerShortcut(CYCLE_KEY, {
    description: "Cycle modes",
    handler: async (ctx) => {
      const order = visibleModes().map((m) => m.name);
      const next = order[(order.indexOf(mode) + 1) % order.length] ?? "off";
      apply(next, next === "plan" ? planFile : null, ctx);
    },
  });

  // The last mode entry of the branch wins; the legacy chat-mode and
  // plan-mode entries ({enabled, planFile?}) count as mode entries.
  const LEGACY = { "chat-mode": "chat", "plan-mode": "plan" };
  const restoreState = (ctx) => {
    const last = ctx.sessionManager.getBranch()
      .filter((e) => e.type === "custom" && (e.customType === ENTRY || e.customType in LEGACY)).at(-1);
    let data = last?.data;
    if (last && last.customType in LEGACY) {
      const legacy = object(data);
      data = { mode: legacy.enabled === true ? LEGACY[last.customType] : "off", planFile: legacy.planFile };
    }
    const warn = (message) => notify(ctx, `${message}; falling back to normal`, "warning");
    let next = "off";
    if (last && (!data || typeof data !== "object" || typeof data.mode !== "string")) warn(`session entry ${last.customType} has no usable data`);
    else if (last && !MODES.has(data.mode)) warn(`session entry names unknown mode '${data.mode}'`);
    else if (last && !MODES.get(data.mode).enabled) warn(`session entry names disabled mode '${data.mode}'`);
    else if (last) next = data.mode;
    let file = null;
    if (typeof data?.planFile === "string") {
      if (/[\\/]|\.\./.test(data.planFile)) notify(ctx, `session entry plan file '${data.planFile}' is outside .pi/plans/; dropped`, "warning");
      else if (!/^plan-.+\.md$/.test(data.planFile)) notify(ctx, `session entry plan file '${data.planFile}' is not a plan file (plan-<name>.md); dropped`, "warning");
      else file = data.planFile;
    }
    if (next === "execute" && (!file || !planFiles(ctx.cwd).includes(file))) {
      warn("session entry is in execute mode without a plan file that exists");
      next = "off";
      file = null;
    }
    if (next !== "plan" && next !== "execute") file = null;
    // The restored plan is loaded again, as /plan <name> loads an existing one.
    if (file && planFiles(ctx.cwd).includes(file)) fs.readFileSync(path.join(ctx.cwd, PLANS, file), "utf8");
    const point = last && data && typeof data.restoreModel === "string" ? data.restoreModel : null;
    restore = point ? { model: point, failures: 0 } : null;
    if (next === mode && file === planFile) { publish(ctx); return; }
    // The model already is the one the restored mode runs on.
    apply(next, file, ctx, { persist: false, announce: false, model: false });
  };

  pi.on("session_start", (_event, ctx) => {
    lastUi = ctx.ui;
    modelCtx = ctx;
    // plan_complete is registered once, active only where it is allowed;
    // lazy tools are withheld at rest too.
    if (mode === "off") setTools("off");
    restoreState(ctx);
    if (mode === "off") {
      if (pi.getFlag("plan") === true) enter("plan", ctx);
      else if (pi.getFlag("chat") === true) enter("chat", ctx);
    }
    // A pinned OFF model is applied at session start.
    if (mode === "off" && override("off")) changeModelFor("off");
    publish(ctx);
  });

  pi.on("session_tree", (_event, ctx) => restoreState(ctx));

  pi.on("before_agent_start", (event) => {
    // A tool registered since the mode was entered is active in Pi: keep
    // the mode's policy (lazy tools the mode permits may stay loaded).
    const permitted = new Set([...permittedFor(mode), LOAD]);
    const active = pi.getActiveTools();
    if (active.some((t) => !permitted.has(t))) pi.setActiveTools(active.filter((t) => permitted.has(t)));
    const prompt = MODES.get(mode)?.prompt;
    return prompt ? { systemPrompt: `${event.systemPrompt}\n\n${prompt}` } : undefined;
  });

  pi.on("tool_call", (event) => {
    if (event.toolName === COMPLETE && !completeAllowed()) return { block: true, reason: "plan_complete is only available while executing a plan" };
    if (event.toolName !== "bash" || !MODES.get(mode)?.gated) return undefined;
    const problem = bashVerdict(event.input?.command);
    return problem ? { block: true, reason: problem } : undefined;
  });

  // Pi >= 0.87.0: a completed run without plan_complete leaves execute mode.
  pi.on("agent_before_settle", (event, ctx) => {
    if (mode === "execute" && event?.outcome === "completed") apply("off", null, ctx);
  });
}
