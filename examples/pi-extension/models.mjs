// The model-switching slice of the example (pi-plan-mode-settings.md
// § Auto model switch), for Pi 0.84.
//
//   /plan start switches to the settings' planModel, /plan exit (or off) to
//     normalModel, before the transition itself runs; each is one model
//     object or an ordered fallback chain
//   a candidate is skipped when Pi's registry cannot resolve it, it is
//     outside the catalogue (ctx.scopedModels when non-empty, else
//     modelRegistry.getAvailable()), its authentication does not answer
//     within 2 seconds, or pi.setModel refuses or throws; an answer, even
//     ok: false, hands it to pi.setModel
//   the thinking level is set back after a model change; one warning: a
//     fallback, or every candidate failed
//   a transition that fails after switching restores the model from before
//     it, with no authentication probe
//
// Left out on purpose (the expectations file says so): switching at the
// other Plan boundaries (Save for later, Implement here, /plan save,
// /plan implement, a fresh session) and the saved-plan preflight, the
// /plan menu's own start and exit items, queueing a /plan command given
// while another is switching, and an invalid field outside this slice
// disabling the switch.
//
// The settings are read from $PI_CODING_AGENT_DIR/pi-plan-mode.json at each
// transition, so a change applies to later transitions only.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const BUDGET_MS = 2000;
const MAX_ID = 512;
const LABELS = { planModel: "Plan enter model", normalModel: "Plan exit model" };

function readModelSettings() {
  const dir = process.env.PI_CODING_AGENT_DIR || path.join(os.homedir(), ".pi", "agent");
  let doc;
  try {
    doc = JSON.parse(fs.readFileSync(path.join(dir, "pi-plan-mode.json"), "utf8"));
  } catch (error) {
    // No file: nothing configured. Unreadable or not JSON: no switching.
    return error?.code === "ENOENT" ? { auto: false } : null;
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return null;
  if (doc.autoSwitchModel !== undefined && typeof doc.autoSwitchModel !== "boolean") return null;
  const out = { auto: doc.autoSwitchModel === true };
  for (const name of ["planModel", "normalModel"]) {
    if (doc[name] === undefined) continue;
    const chain = validChain(doc[name]);
    if (!chain) return null;
    out[name] = chain;
  }
  return out;
}

function validChain(value) {
  const list = Array.isArray(value) ? value : [value];
  if (!list.length) return null;
  const chain = [];
  for (const item of list) {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return null;
    const provider = typeof item.provider === "string" ? item.provider.trim() : "";
    const modelId = typeof item.modelId === "string" ? item.modelId.trim() : "";
    if (!provider || !modelId || provider.length > MAX_ID || modelId.length > MAX_ID) return null;
    // Duplicates collapse to their first position.
    if (!chain.some((c) => c.provider === provider && c.modelId === modelId)) chain.push({ provider, modelId });
  }
  return chain;
}

const same = (a, b) => Boolean(a && b) && a.provider === b.provider && (a.id ?? a.modelId) === (b.id ?? b.modelId);
const name = (m) => `${m.provider}/${m.id ?? m.modelId}`;

// true when Pi answered within the budget (whatever the answer), false on
// timeout; the late answer is left to settle on its own and is ignored.
async function answeredInTime(promise) {
  let timer;
  const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve(false), BUDGET_MS); });
  const answered = Promise.resolve(promise).then(() => true, () => true);
  try {
    return await Promise.race([answered, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function modelSwitching(pi, shared) {
  // One direction: the first candidate that applies, or none.
  const switchTo = async (direction, ctx) => {
    const settings = readModelSettings();
    const chain = settings?.auto ? settings[direction] : undefined;
    if (!chain) return null;
    const scoped = (ctx.scopedModels ?? []).map((s) => s.model).filter(Boolean);
    const catalogue = scoped.length ? scoped : ctx.modelRegistry.getAvailable();
    const current = ctx.model;
    const thinking = pi.getThinkingLevel();
    const label = LABELS[direction];
    for (const [index, candidate] of chain.entries()) {
      if (same(current, candidate)) {
        if (index > 0) ctx.ui.notify(`${label}: ${name(chain[0])} unavailable; keeping ${name(current)}`, "warning");
        return null;
      }
      const model = ctx.modelRegistry.find(candidate.provider, candidate.modelId);
      if (!model || !catalogue.some((m) => same(m, model))) continue;
      if (!(await answeredInTime(ctx.modelRegistry.getApiKeyAndHeaders(model)))) continue;
      let accepted = false;
      try {
        accepted = await pi.setModel(model);
      } catch {
        accepted = false;
      }
      if (!accepted) continue;
      pi.setThinkingLevel(thinking);
      if (index > 0) ctx.ui.notify(`${label}: ${name(chain[0])} unavailable; switched to ${name(model)}`, "warning");
      return { previous: current, thinking };
    }
    const tried = chain.map(name).join(", ");
    ctx.ui.notify(`${label}: no configured model could be applied (${tried}); keeping ${current ? name(current) : "the current model"}`, "warning");
    return null;
  };

  // The switch runs inside /plan start and /plan exit, before the
  // transition; if the transition then fails, the previous model comes back.
  const register = pi.registerCommand.bind(pi);
  pi.registerCommand = (command, opts) => {
    if (command !== "plan" || typeof opts?.handler !== "function") return register(command, opts);
    const handler = opts.handler;
    return register(command, {
      ...opts,
      handler: async (args, ctx) => {
        const sub = String(args).trim().split(/\s+/)[0];
        const planning = shared.planning();
        const direction = sub === "start" && !planning ? "planModel"
          : (sub === "exit" || sub === "off") && planning ? "normalModel" : null;
        const switched = direction ? await switchTo(direction, ctx) : null;
        try {
          return await handler(args, ctx);
        } catch (error) {
          if (!switched?.previous) throw error;
          try {
            await pi.setModel(switched.previous);
          } finally {
            pi.setThinkingLevel(switched.thinking);
          }
          ctx.ui.notify(`Plan mode transition failed (${error.message}); the model is back to ${name(switched.previous)}.`, "info");
          return undefined;
        }
      },
    });
  };
}
