// A small Pi extension implementing a slice of pi-plan-mode, for Pi 0.84.
//
// Plain JavaScript, no dependencies: copy it as the starting point of an
// extension tested through the kit's mock Pi host (`pi:` targets). The slice:
//
//   /plan start | exit | off | export [path] | (no argument: a menu in RPC/TUI mode)
//   the `tool_call` gate while planning: edit, write and update_plan blocked,
//     bash and powershell limited to a small read-only policy plus the
//     settings' safeSubcommands (pi-plan-mode-settings.md § Safe shell subcommands)
//   the Plan tool set (active safe built-ins plus plan_mode_complete)
//   the thinking level while planning (§ Thinking level)
//   settings read from $PI_CODING_AGENT_DIR/pi-plan-mode.json at session start
//     and on change (a 75 ms debounced watcher)
//   export of the latest plan to PLAN.md or the settings' defaultPlanExportPath
//   state kept in "plan-mode-state" session entries and restored at session start
//
// Everything else of pi-plan-mode (model switching, implementation handoff,
// tool pickers, reinjection policies, the full reviewed Git policy) is left
// out; the checked-in planmode-expectations.json lists what that fails.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const STATE = "plan-mode-state";
const SETTINGS_FILE = "pi-plan-mode.json";
const LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];
const SAFE_BUILTINS = ["read", "bash", "grep", "find", "ls"];
const HELPER = "plan_mode_complete";
const BLOCKED = new Set(["edit", "write", "update_plan"]);
const PLAN_PROMPT =
  "Plan mode is active: explore and plan, do not modify files. " +
  "When the plan is ready, call plan_mode_complete with the complete plan.";

// Read-only programs a Plan segment may start with (the rest needs safeSubcommands).
const BASH_SAFE = new Set(["ls", "cat", "head", "tail", "wc", "pwd", "grep", "rg", "tree", "stat", "file", "du", "which"]);
const GIT_SAFE = new Set(["status", "log", "diff", "show", "branch", "ls-files", "grep"]);
const PS_SAFE = new Set(
  ["get-childitem", "get-location", "get-content", "select-string", "sort-object", "measure-object", "select-object", "get-item"],
);

function agentDir() {
  return process.env.PI_CODING_AGENT_DIR || path.join(os.homedir(), ".pi", "agent");
}

// ------------------------------------------------------------------ settings

function validSafeSubcommands(value) {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const out = {};
  for (const [rawKey, entries] of Object.entries(value)) {
    const key = rawKey.trim();
    if (!key || !Array.isArray(entries)) return null;
    for (const entry of entries) {
      if (typeof entry !== "string" || !entry.trim()) return null;
      out[key] ??= [];
      if (!out[key].includes(entry.trim())) out[key].push(entry.trim());
    }
  }
  return out;
}

function readSettings() {
  const file = path.join(agentDir(), SETTINGS_FILE);
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return { settings: defaults(), warning: null };
  }
  try {
    const doc = JSON.parse(text);
    if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw new Error("not an object");
    const safeSubcommands = validSafeSubcommands(doc.safeSubcommands);
    if (safeSubcommands === null) throw new Error("safeSubcommands is invalid");
    const thinking = doc.thinkingLevel ?? "inherit";
    if (thinking !== "inherit" && !LEVELS.includes(thinking)) throw new Error("thinkingLevel is invalid");
    const exportPath = doc.defaultPlanExportPath ?? "PLAN.md";
    if (typeof exportPath !== "string" || !exportPath || exportPath.length > 4096 || /[\u0000-\u001f\u007f]/.test(exportPath)) {
      throw new Error("defaultPlanExportPath is invalid");
    }
    return { settings: { safeSubcommands, thinkingLevel: thinking, exportPath }, warning: null };
  } catch (error) {
    return { settings: defaults(), warning: `${SETTINGS_FILE} ignored (${error.message}); using defaults` };
  }
}

function defaults() {
  return { safeSubcommands: {}, thinkingLevel: "inherit", exportPath: "PLAN.md" };
}

// ------------------------------------------------------------------ shell policy

// Splits a submission into segments at the given separators, outside quotes.
// Returns null for syntax this policy does not accept (redirects,
// substitutions, multiline input, unbalanced quotes, a separator it refuses).
function segments(command, { separators, refused }) {
  if (/[\n\r\u0000\u2018-\u201e]/.test(command)) return null;
  const out = [];
  let current = "";
  let quote = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (quote === '"' && (c === "`" || (c === "$" && command[i + 1] === "("))) return null;
      current += c;
      continue;
    }
    if (c === "'" || c === '"') { quote = c; current += c; continue; }
    if (c === "`" || c === "<" || c === ">" || (c === "$" && command[i + 1] === "(")) return null;
    const two = command.slice(i, i + 2);
    if (refused.includes(two)) return null;
    const sep = separators.find((s) => command.startsWith(s, i));
    if (sep) {
      out.push(current.trim());
      current = "";
      i += sep.length - 1;
      continue;
    }
    if (c === "&") return null;
    current += c;
  }
  if (quote) return null;
  out.push(current.trim());
  return out.some((s) => !s) ? null : out;
}

function trusted(segment, safe) {
  for (const [cmd, subs] of Object.entries(safe)) {
    for (const sub of subs) {
      const prefix = `${cmd} ${sub}`;
      if (segment === prefix || (segment.startsWith(prefix) && /\s/.test(segment[prefix.length]))) return true;
    }
  }
  return false;
}

function words(segment) {
  return segment.split(/\s+/).filter(Boolean);
}

// Git options this policy accepts; any other option blocks the segment.
const GIT_OPTIONS = new Set([
  "--oneline", "--stat", "--short", "--name-only", "--name-status", "--cached", "--staged",
  "--porcelain", "--graph", "--no-color", "--no-textconv", "--no-ext-diff", "-n", "-s", "-a", "-r", "-v", "-l", "-i",
]);

function bashSegmentOk(segment) {
  // No expansion, globbing or escapes outside a trusted segment.
  if (/[$*?[\]{}~\\]/.test(segment)) return false;
  const [program, ...args] = words(segment);
  if (program === "git") {
    const [sub, ...rest] = args;
    if (!GIT_SAFE.has(sub)) return false;
    if (!rest.every((a) => !a.startsWith("-") || GIT_OPTIONS.has(a) || /^-\d+$/.test(a))) return false;
    return !(sub === "branch" && rest.some((a) => !a.startsWith("-")));
  }
  if (args.some((a) => /^--?(in-place|fix|write|delete|output|exec|execdir|ok|okdir|fprint\w*|fls|pre|pager)(=|$)/.test(a))) return false;
  if (program === "find") return true;
  if ((program === "sort" || program === "tree") && args.some((a) => /^-\w*o/.test(a))) return false;
  return BASH_SAFE.has(program);
}

function checkShell(tool, command, safe) {
  const bash = tool === "bash";
  const parts = bash
    ? segments(command, { separators: ["&&", "||", ";", "|"], refused: [] })
    : segments(command, { separators: [";", "|"], refused: ["&&", "||"] });
  if (!command.trim()) return "(empty command)";
  if (!parts) return `${command.trim()} (unsupported syntax)`;
  for (const part of parts) {
    if (trusted(part, safe)) continue;
    const ok = bash ? bashSegmentOk(part) : !/[$@{}[\]&`<>]/.test(part) && PS_SAFE.has(words(part)[0]?.toLowerCase());
    if (!ok) return part;
  }
  return null;
}

// ------------------------------------------------------------------ the extension

export default function planMode(pi) {
  let state = { enabled: false };
  let settings = defaults();
  let watcher = null;
  let debounce = null;

  const persist = () => pi.appendEntry(STATE, { ...state });

  const loadSettings = (ctx) => {
    const read = readSettings();
    settings = read.settings;
    if (read.warning && ctx?.hasUI) ctx.ui.notify(read.warning, "warning");
  };

  const planTools = () => {
    const active = pi.getActiveTools();
    const registered = new Set(pi.getAllTools().map((t) => t.name));
    const tools = SAFE_BUILTINS.filter((t) => active.includes(t));
    if (active.includes("powershell")) tools.push("powershell");
    if (registered.has(HELPER)) tools.push(HELPER);
    return tools;
  };

  const enter = (ctx) => {
    if (state.enabled) { ctx.ui.notify("Plan mode is already active.", "info"); return; }
    const previousTools = pi.getActiveTools();
    const previousThinking = pi.getThinkingLevel();
    pi.setActiveTools(planTools());
    let applied;
    if (settings.thinkingLevel !== "inherit") {
      pi.setThinkingLevel(settings.thinkingLevel);
      applied = pi.getThinkingLevel();
    }
    state = { enabled: true, previousTools, previousThinking, appliedThinking: applied, latestPlan: state.latestPlan };
    persist();
    ctx.ui.setStatus("plan-mode", "plan");
    ctx.ui.notify("Plan mode enabled. I will explore and plan, but not modify files.", "info");
  };

  const exit = (ctx) => {
    if (!state.enabled) { ctx.ui.notify("Plan mode is not active.", "info"); return; }
    restore();
    state = { enabled: false, latestPlan: state.latestPlan };
    persist();
    ctx.ui.setStatus("plan-mode", undefined);
    ctx.ui.notify("Plan mode disabled. Normal tools are active again.", "info");
  };

  const restore = () => {
    if (Array.isArray(state.previousTools)) pi.setActiveTools(state.previousTools);
    // A manual change made while planning is kept (§ Thinking level).
    if (state.appliedThinking !== undefined && pi.getThinkingLevel() === state.appliedThinking) {
      pi.setThinkingLevel(state.previousThinking);
    }
  };

  const exportPlan = async (args, ctx) => {
    if (!state.latestPlan) { ctx.ui.notify("No plan to export yet.", "warning"); return; }
    const target = path.resolve(ctx.cwd, args.trim() || settings.exportPath);
    try {
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await fs.promises.writeFile(target, `${state.latestPlan.trimEnd()}\n`, { flag: "wx" });
      ctx.ui.notify(`Plan exported to ${target}`, "info");
    } catch (error) {
      ctx.ui.notify(`Plan export failed: ${error.code === "EEXIST" ? "the file already exists" : error.message}`, "error");
    }
  };

  pi.registerFlag("plan", { description: "Start in Plan mode", type: "boolean", default: false });

  pi.registerTool({
    name: HELPER,
    label: "Complete plan",
    description: "Submit the complete proposed plan while Plan mode is active.",
    parameters: { type: "object", properties: { plan: { type: "string" } }, required: ["plan"] },
    async execute(_id, params) {
      if (!state.enabled) throw new Error("Plan mode is not active.");
      state = { ...state, latestPlan: String(params.plan) };
      persist();
      return { content: [{ type: "text", text: "Plan recorded." }], details: {} };
    },
  });

  pi.registerCommand("plan", {
    description: "Plan mode: start, exit, export [path]",
    getArgumentCompletions: (prefix) =>
      ["start", "exit", "off", "export"].filter((c) => c.startsWith(prefix)).map((value) => ({ value, label: value })),
    handler: async (args, ctx) => {
      const [sub, ...rest] = args.trim().split(/\s+/);
      if (sub === "start") return enter(ctx);
      if (sub === "exit" || sub === "off") return exit(ctx);
      if (sub === "export") return exportPlan(rest.join(" "), ctx);
      if (sub) { ctx.ui.notify(`Unknown /plan argument: ${sub}`, "warning"); return; }
      if (!ctx.hasUI) throw new Error("/plan without an argument needs the interactive UI");
      const items = state.enabled ? ["Exit Plan mode", "Stay in Plan mode"] : ["Start Plan mode", "Cancel"];
      const choice = await ctx.ui.select(state.enabled ? "Plan mode (active)" : "Plan mode", items);
      if (choice === "Start Plan mode") enter(ctx);
      else if (choice === "Exit Plan mode") exit(ctx);
    },
  });

  pi.on("session_start", (event, ctx) => {
    loadSettings(ctx);
    const last = ctx.sessionManager.getBranch().filter((e) => e.type === "custom" && e.customType === STATE).at(-1);
    state = last?.data && typeof last.data === "object" ? { ...last.data } : { enabled: false };
    if (state.enabled) pi.setActiveTools(planTools());
    else if (pi.getFlag("plan") === true) enter(ctx);
    try {
      watcher = fs.watch(agentDir(), (_type, name) => {
        if (name && String(name) !== SETTINGS_FILE) return;
        clearTimeout(debounce);
        debounce = setTimeout(() => loadSettings(ctx), 75);
      });
    } catch {
      watcher = null; // no agent directory yet: settings are read at the next start
    }
    void event;
  });

  pi.on("session_shutdown", () => {
    clearTimeout(debounce);
    watcher?.close();
    watcher = null;
    if (state.enabled) restore();
  });

  pi.on("before_agent_start", (event) => {
    if (!state.enabled) return undefined;
    pi.setActiveTools(planTools());
    return { systemPrompt: `${event.systemPrompt}\n\n${PLAN_PROMPT}` };
  });

  pi.on("tool_call", (event) => {
    if (!state.enabled) return undefined;
    if (BLOCKED.has(event.toolName)) {
      return { block: true, reason: `Plan mode: ${event.toolName} is blocked while planning.` };
    }
    if (event.toolName === "bash" || event.toolName === "powershell") {
      const command = event.input?.command;
      const blocked = typeof command === "string" ? checkShell(event.toolName, command, settings.safeSubcommands) : "(not a string)";
      if (blocked !== null) return { block: true, reason: `Plan mode: ${event.toolName} segment not allowed: ${blocked}` };
    }
    return undefined;
  });
}
