// A small Pi extension implementing a slice of pi-plan-mode, for Pi 0.84.
//
// Plain JavaScript, no dependencies: copy it as the starting point of an
// extension tested through the kit's mock Pi host (`pi:` targets). The slice:
//
//   /plan start | exit | off | implement | save | export [path]
//     | (no argument: the state's menu in RPC/TUI mode)
//   plan_mode_complete{plan}: the plan is ready; once the run has fully
//     settled the ready menu opens (Implement here, Export plan…, Save for
//     later, Stay in Plan mode, Discard plan and exit)
//   Plan reinjection (§ Plan reinjection): Implement here sends
//     "Implement the plan."; a saved plan's kickoff holds the plan; under
//     `keep` the context hook restores the exact plan, once, whenever the
//     context lost it, until /plan exit or the next Implement
//   the Plan status (ctx.ui.setStatus "plan-mode"): planning, plan ready,
//     plan saved, implementing
//   the toggle shortcut (§ Toggle shortcut), registered once per runtime
//   the `tool_call` gate while planning: edit, write and update_plan blocked,
//     bash and powershell limited to a small read-only policy plus the
//     settings' safeSubcommands (pi-plan-mode-settings.md § Safe shell subcommands)
//   the Plan allowlist (§ Default Plan policy tools): the settings'
//     defaultPlanTools, or the active safe built-ins, resolved against Pi's
//     registry at the workflow's first context and frozen there; kept with
//     the workflow across reload, resume and tree navigation. Plan mode never
//     calls setActiveTools (§ Plan helper tools): Pi's active set decides
//     what the model can call at all, the allowlist what Plan mode permits.
//   the thinking level while planning (§ Thinking level)
//   settings read from $PI_CODING_AGENT_DIR/pi-plan-mode.json at session start
//     and on change (a 75 ms debounced watcher)
//   export of the ready, saved or active plan to PLAN.md, the settings'
//     defaultPlanExportPath or a typed path (`@` and `~` resolved), never
//     overwriting; warnings name the destination refused
//   state kept in "plan-mode-state" session entries and restored at session start
//
// Everything else of pi-plan-mode (model switching beyond models.mjs, Start fresh and
// implement, tool pickers, the clear-after-first-run policy, the full
// reviewed Git policy) is left out; the checked-in
// planmode-expectations.json lists what that fails.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { modelSwitching } from "./models.mjs";

const STATE = "plan-mode-state";
const SETTINGS_FILE = "pi-plan-mode.json";
const LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];
const SAFE_BUILTINS = ["read", "bash", "grep", "find", "ls", "powershell"];
const HELPER = "plan_mode_complete";
const HELPERS = new Set([HELPER, "plan_mode_question"]);
// Exposures a tool keeps when it is not active (§ Default Plan policy tools).
const SELECTABLE_INACTIVE = new Set(["codemode", "deferred", "codemode-deferred"]);
const KNOWN_EXPOSURES = new Set(["direct", "model-only", ...SELECTABLE_INACTIVE]);
const BLOCKED = new Set(["edit", "write", "update_plan"]);
// § Plan reinjection: the three policies; this slice guarantees the plan for
// `keep` only (`clear-after-first-run` behaves as `clear-on-start` here).
const RETENTION = ["clear-on-start", "clear-after-first-run", "keep"];
const IMPLEMENT_HERE = "Implement the plan.";
const IMPLEMENT_WITH_PLAN = "Implement this approved plan:\n\n";
const ACTIVE_PLAN_MESSAGE = "plan-mode-active-plan";
const STATUS = "plan-mode";
// The menu shown when a run that handed in a plan has settled (fact sheet § 6.3).
const READY_TITLE = "Proposed plan ready. What next?";
const READY_ITEMS = [
  "Implement here", "Start fresh and implement", "Export plan…", "Save for later",
  "Stay in Plan mode", "Discard plan and exit",
];
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
    const planTools = validPlanTools(doc.defaultPlanTools);
    if (planTools === null) throw new Error("defaultPlanTools is invalid");
    // A field that is present must be valid (null included): one invalid
    // value invalidates the whole document (§ Thinking level).
    const field = (key, fallback) => (key in doc ? doc[key] : fallback);
    const thinking = field("thinkingLevel", "inherit");
    if (thinking !== "inherit" && !LEVELS.includes(thinking)) throw new Error("thinkingLevel is invalid");
    const exportPath = field("defaultPlanExportPath", "PLAN.md");
    if (typeof exportPath !== "string" || !exportPath || exportPath.length > 4096 || /[\u0000-\u001f\u007f]/.test(exportPath)) {
      throw new Error("defaultPlanExportPath is invalid");
    }
    const retention = field("implementationPlanRetention", "clear-on-start");
    if (!RETENTION.includes(retention)) throw new Error("implementationPlanRetention is invalid");
    if (typeof field("autoSwitchModel", false) !== "boolean") throw new Error("autoSwitchModel is invalid");
    for (const key of ["planModel", "normalModel"]) {
      if (key in doc && !validModels(doc[key])) throw new Error(`${key} is invalid`);
    }
    const shortcut = field("toggleShortcut", undefined);
    if (shortcut !== undefined && (typeof shortcut !== "string" || !shortcut.trim())) throw new Error("toggleShortcut is invalid");
    return {
      settings: { safeSubcommands, planTools, thinkingLevel: thinking, exportPath, retention, shortcut: shortcut?.trim() },
      warning: null,
    };
  } catch (error) {
    return { settings: defaults(), warning: `${SETTINGS_FILE} ignored (${error.message}); using defaults` };
  }
}

// § Implementation model and thinking: one model object or a non-empty
// array of them, each with non-empty provider and modelId of at most 512.
function validModels(value) {
  const list = Array.isArray(value) ? value : [value];
  const text = (v) => typeof v === "string" && v.length > 0 && v.length <= 512;
  return list.length > 0 && list.every((m) => m && typeof m === "object" && !Array.isArray(m) && text(m.provider) && text(m.modelId));
}

function defaults() {
  return {
    safeSubcommands: {}, planTools: undefined, thinkingLevel: "inherit", exportPath: "PLAN.md",
    retention: "clear-on-start", shortcut: undefined,
  };
}

// undefined: automatic safe built-ins; otherwise the names, deduplicated.
function validPlanTools(value) {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((n) => typeof n === "string" && n.trim())) return null;
  return [...new Set(value.map((n) => n.trim()))];
}

// The executable allowlist at the resolution boundary: each name against
// Pi's live registry, its exposure and the active set. Automatic defaults
// admit only built-ins (an override of a built-in name needs opt-in).
function resolveAllowlist(names, tools, active) {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const automatic = names === undefined;
  const out = [];
  for (const name of automatic ? SAFE_BUILTINS : names) {
    const tool = byName.get(name);
    if (!tool || HELPERS.has(name)) continue;
    if (automatic && tool.sourceInfo?.source !== "builtin") continue;
    const exposure = exposureOf(tool);
    if (!KNOWN_EXPOSURES.has(exposure)) continue;
    if (!active.includes(name) && !SELECTABLE_INACTIVE.has(exposure)) continue;
    out.push(name);
  }
  return out;
}

function exposureOf(tool) {
  return tool?.exposure === undefined || tool?.exposure === null ? "direct" : String(tool.exposure);
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
  // Set when plan_mode_complete accepted a plan in the open run: the ready
  // menu opens once that run has fully settled.
  let presentReady = false;
  modelSwitching(pi, { planning: () => state.enabled });

  const persist = () => pi.appendEntry(STATE, { ...state });

  const loadSettings = (ctx) => {
    const read = readSettings();
    settings = read.settings;
    if (read.warning && ctx?.hasUI) ctx.ui.notify(read.warning, "warning");
  };

  // What the status shows: planning, a ready plan, a saved plan, an active
  // implementation plan, or nothing.
  const updateUi = (ctx) => {
    const text = state.enabled
      ? (state.latestPlan ? "Plan mode: plan ready" : "Plan mode: planning")
      : state.savedPlan ? "Plan saved" : state.active ? "Implementing plan" : undefined;
    ctx.ui.setStatus(STATUS, text);
  };

  // A new workflow takes the names in force when it starts; they are
  // resolved and frozen at its first context.
  const enter = (ctx) => {
    if (state.enabled) {
      state = { ...state, names: settings.planTools ?? null, allowlist: null, latestPlan: undefined };
      persist();
      updateUi(ctx);
      ctx.ui.notify("Plan mode restarted: a new planning workflow begins.", "info");
      return;
    }
    const previousThinking = pi.getThinkingLevel();
    let applied;
    if (settings.thinkingLevel !== "inherit") {
      pi.setThinkingLevel(settings.thinkingLevel);
      applied = pi.getThinkingLevel();
    }
    state = {
      enabled: true, names: settings.planTools ?? null, allowlist: null,
      previousThinking, appliedThinking: applied, savedPlan: state.savedPlan, active: state.active,
    };
    persist();
    updateUi(ctx);
    ctx.ui.notify("Plan mode enabled. I will explore and plan, but not modify files.", "info");
  };

  // Leaves Plan mode keeping what `keep` says (a saved or active plan).
  const leave = (ctx, keep = {}) => {
    restore();
    state = { enabled: false, savedPlan: state.savedPlan, active: state.active, ...keep };
    presentReady = false;
    persist();
    updateUi(ctx);
  };

  const exit = (ctx) => {
    if (!state.enabled) {
      if (state.active) {
        // § Plan reinjection: `keep` lasts until /plan exit.
        state = { ...state, active: undefined };
        persist();
        updateUi(ctx);
        ctx.ui.notify("Active implementation plan cleared.", "info");
        return;
      }
      ctx.ui.notify("Plan mode is not active.", "warning");
      return;
    }
    leave(ctx);
    ctx.ui.notify("Plan mode disabled. Normal tools are active again.", "info");
  };

  const restore = () => {
    // A manual change made while planning is kept (§ Thinking level).
    if (state.enabled && state.appliedThinking !== undefined && pi.getThinkingLevel() === state.appliedThinking) {
      pi.setThinkingLevel(state.previousThinking);
    }
  };

  // § Plan reinjection: Implement sends the kickoff; a guaranteed policy
  // stores the plan with its policy. A failed delivery restores the ready
  // or saved plan (and the thinking level of that moment).
  const implement = (ctx, plan, kickoff) => {
    const before = { ...state };
    const level = pi.getThinkingLevel();
    const policy = settings.retention;
    const active = policy === "keep" ? { plan, policy } : undefined;
    leave(ctx, { savedPlan: undefined, active });
    try {
      pi.sendUserMessage(kickoff);
    } catch (error) {
      state = before;
      if (pi.getThinkingLevel() !== level) pi.setThinkingLevel(level);
      persist();
      updateUi(ctx);
      ctx.ui.notify(`The implementation could not be started: ${error.message}; the plan is kept.`, "error");
    }
  };

  const ready = () => (state.enabled ? state.latestPlan : undefined);

  const act = async (choice, ctx) => {
    const plan = ready();
    if (choice === "Implement here") {
      if (plan) return implement(ctx, plan, IMPLEMENT_HERE);
      if (state.savedPlan) return implement(ctx, state.savedPlan, IMPLEMENT_WITH_PLAN + state.savedPlan);
      ctx.ui.notify("There is no ready plan to implement.", "warning");
    } else if (choice === "Save for later") {
      if (!plan) return ctx.ui.notify("There is no ready plan to save.", "warning");
      leave(ctx, { savedPlan: plan });
      ctx.ui.notify("Plan saved for later.", "info");
    } else if (choice === "Discard plan and exit") {
      leave(ctx);
      ctx.ui.notify("Plan discarded. Normal tools are active again.", "info");
    } else if (choice === "Export plan…") {
      // § Export destination: the input previews the resolved destination.
      const typed = await ctx.ui.input(`Export plan (empty: ${destination("", ctx)})`, settings.exportPath);
      if (typed === undefined) return ctx.ui.notify("Export cancelled.", "info");
      return exportPlan(String(typed), ctx);
    } else if (choice === "Start Plan mode" || choice === "Start a new plan") {
      enter(ctx);
    } else if (choice === "Exit Plan mode" || choice === "Clear active implementation plan") {
      exit(ctx);
    } else if (choice === "Start fresh and implement") {
      ctx.ui.notify("Starting fresh is not part of this example.", "warning");
    }
    // "Stay in Plan mode", a dismissed menu: nothing changes.
    return undefined;
  };

  // `@path` names a file as Pi's editor does; `~` is the home directory;
  // a relative path resolves against the working directory at export time.
  const destination = (args, ctx) => {
    let typed = args.trim() || settings.exportPath;
    if (typed.startsWith("@")) typed = typed.slice(1);
    if (typed === "~" || typed.startsWith("~/")) typed = path.join(os.homedir(), typed.slice(1));
    return path.resolve(ctx.cwd, typed);
  };

  const exportPlan = async (args, ctx) => {
    const plan = ready() ?? state.savedPlan ?? state.active?.plan;
    if (!plan) { ctx.ui.notify("No plan to export yet.", "warning"); return; }
    const target = destination(args, ctx);
    try {
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await fs.promises.writeFile(target, `${plan}\n`, { flag: "wx" });
      ctx.ui.notify(`Plan exported to ${target}`, "info");
    } catch (error) {
      const why = error.code === "EEXIST" ? "it already exists" : error.message;
      ctx.ui.notify(`Plan not exported to ${target}: ${why}`, error.code === "EEXIST" ? "warning" : "error");
    }
  };

  pi.registerFlag("plan", { description: "Start in Plan mode", type: "boolean", default: false });

  // § Toggle shortcut: registered once per runtime, from the settings read
  // when the extension loads; a later change waits for /reload or a restart.
  const startup = readSettings().settings;
  if (startup.shortcut) {
    pi.registerShortcut(startup.shortcut, {
      description: "Toggle Plan mode",
      handler: async (ctx) => (state.enabled ? exit(ctx) : enter(ctx)),
    });
  }

  pi.registerTool({
    name: HELPER,
    label: "Complete plan",
    description: "Submit the complete proposed plan while Plan mode is active.",
    parameters: { type: "object", properties: { plan: { type: "string" } }, required: ["plan"] },
    async execute(_id, params, _signal, _update, ctx) {
      if (!state.enabled) throw new Error("Plan mode is not active.");
      const plan = String(params.plan);
      if (!plan.trim()) throw new Error("The plan is empty.");
      state = { ...state, latestPlan: plan };
      presentReady = true;
      persist();
      if (ctx?.ui) updateUi(ctx);
      return { content: [{ type: "text", text: "Plan recorded." }], details: {} };
    },
  });

  pi.registerCommand("plan", {
    description: "Plan mode: start, exit, implement, save, export [path]",
    getArgumentCompletions: (prefix) =>
      ["start", "exit", "off", "implement", "save", "export"].filter((c) => c.startsWith(prefix)).map((value) => ({ value, label: value })),
    handler: async (args, ctx) => {
      const [sub, ...rest] = args.trim().split(/\s+/);
      if (sub === "start") return enter(ctx);
      if (sub === "exit" || sub === "off") return exit(ctx);
      if (sub === "export") return exportPlan(rest.join(" "), ctx);
      if (sub === "implement") return act("Implement here", ctx);
      if (sub === "save") return act("Save for later", ctx);
      if (sub) { ctx.ui.notify(`Unknown /plan argument: ${sub}`, "warning"); return; }
      if (!ctx.hasUI) throw new Error("/plan without an argument needs the interactive UI");
      const items = ready()
        ? ["Show latest proposed plan", ...READY_ITEMS]
        : state.enabled ? ["Request final plan", "Stay in Plan mode", "Exit Plan mode"]
        : state.savedPlan ? ["Show saved plan", "Implement here", "Export plan…", "Clear saved plan"]
        : state.active ? ["Show active implementation plan", "Export plan…", "Start a new plan", "Clear active implementation plan"]
        : ["Start Plan mode", "Cancel"];
      const choice = await ctx.ui.select("Plan mode", items);
      if (choice === "Clear saved plan") {
        state = { ...state, savedPlan: undefined };
        persist();
        updateUi(ctx);
        return;
      }
      await act(choice, ctx);
    },
  });

  const restoreState = (ctx) => {
    const last = ctx.sessionManager.getBranch().filter((e) => e.type === "custom" && e.customType === STATE).at(-1);
    state = last?.data && typeof last.data === "object" ? { ...last.data } : { enabled: false };
    presentReady = false;
  };

  pi.on("session_start", (event, ctx) => {
    loadSettings(ctx);
    restoreState(ctx);
    if (!state.enabled && pi.getFlag("plan") === true) enter(ctx);
    else updateUi(ctx);
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

  // Tree navigation moves to another branch: its own state applies.
  // An active `keep` plan lasts until /plan exit or a new Implement, on
  // any branch (§ Plan reinjection), so the branch records it too: a resume
  // reads the state of the branch it lands on.
  pi.on("session_tree", (_event, ctx) => {
    const active = state.active;
    restoreState(ctx);
    if (!state.active && active) {
      state = { ...state, active };
      persist();
    }
    updateUi(ctx);
  });

  pi.on("before_agent_start", (event) => {
    if (!state.enabled) return undefined;
    return { systemPrompt: `${event.systemPrompt}\n\n${PLAN_PROMPT}` };
  });

  // § Plan reinjection: the ready menu opens once the run that handed in
  // the plan has fully settled (idle, nothing queued).
  pi.on("agent_settled", async (_event, ctx) => {
    if (!presentReady || !ready() || !ctx.hasUI || !ctx.isIdle() || ctx.hasPendingMessages()) return;
    presentReady = false;
    const choice = await ctx.ui.select(READY_TITLE, READY_ITEMS);
    await act(choice, ctx);
  });

  // Whether some text of the messages holds the plan as a whole: not as a
  // piece of a longer word (a plan "_" is not carried by "plan_mode_complete").
  const WORD = /[\p{L}\p{N}_]/u;
  const strings = (value) =>
    typeof value === "string"
      ? [value]
      : Array.isArray(value)
        ? value.flatMap(strings)
        : value && typeof value === "object"
          ? Object.entries(value).flatMap(([key, item]) => (["role", "type", "id", "customType"].includes(key) ? [] : strings(item)))
          : [];
  const carries = (messages, plan) =>
    strings(messages).some((text) => {
      for (let at = text.indexOf(plan); at !== -1; at = text.indexOf(plan, at + 1)) {
        const before = text[at - 1];
        const after = text[at + plan.length];
        if (!(before && WORD.test(before)) && !(after && WORD.test(after))) return true;
      }
      return false;
    });

  // § Plan reinjection, `keep`: the exact plan, once, when ordinary context
  // no longer holds it (placed after the summaries of a compaction).
  const reinject = (messages) => {
    const active = state.active;
    if (state.enabled || !active || active.policy !== "keep") return undefined;
    if (carries(messages, active.plan)) return undefined;
    let at = 0;
    while (at < messages.length && ["compactionSummary", "branchSummary"].includes(messages[at]?.role)) at += 1;
    const injected = { role: "custom", customType: ACTIVE_PLAN_MESSAGE, content: active.plan, display: false, timestamp: Date.now() };
    return { messages: [...messages.slice(0, at), injected, ...messages.slice(at)] };
  };

  // Pi emits context after every before_agent_start handler has settled.
  pi.on("context", (event) => {
    const reinjected = reinject(event.messages);
    if (reinjected) return reinjected;
    if (!state.enabled || Array.isArray(state.allowlist)) return undefined;
    const names = Array.isArray(state.names) ? state.names : undefined;
    state = { ...state, allowlist: resolveAllowlist(names, pi.getAllTools(), pi.getActiveTools()) };
    persist();
    return undefined;
  });

  pi.on("tool_call", (event) => {
    const name = event.toolName;
    // Only the latest workflow's resolved Plan contract authorizes the
    // helpers; being visible to the model is not enough (§ Plan helper tools).
    if (HELPERS.has(name)) {
      if (state.enabled && Array.isArray(state.allowlist)) return undefined;
      return { block: true, reason: `${name} needs an active Plan workflow.` };
    }
    if (!state.enabled) return undefined;
    if (BLOCKED.has(name)) {
      return { block: true, reason: `Plan mode: ${name} is blocked while planning.` };
    }
    if (!Array.isArray(state.allowlist)) {
      return { block: true, reason: "Plan mode: no tool runs before the Plan tools are resolved." };
    }
    if (!state.allowlist.includes(name)) {
      return { block: true, reason: `Plan mode: ${name} is not in this workflow's Plan tools.` };
    }
    const tool = pi.getAllTools().find((t) => t.name === name);
    if (!KNOWN_EXPOSURES.has(exposureOf(tool))) {
      return { block: true, reason: `Plan mode: ${name} is not exposed to the model.` };
    }
    if (event.toolName === "bash" || event.toolName === "powershell") {
      const command = event.input?.command;
      const blocked = typeof command === "string" ? checkShell(event.toolName, command, settings.safeSubcommands) : "(not a string)";
      if (blocked !== null) return { block: true, reason: `Plan mode: ${event.toolName} segment not allowed: ${blocked}` };
    }
    return undefined;
  });
}
