// A small multi-module TypeScript Pi extension: `/plan start` enters Plan
// mode, where a bash call runs only when every segment of its command is a
// read-only program. Pi loads it with its own TypeScript loader; the kit uses
// it to measure what TypeScript costs through the real-Pi host
// (benchmarks/pi_host.py) and to check that a TypeScript extension runs there.
import { PlanState } from "./state.ts";
import { verdict } from "./policy.ts";
import type { Verdict } from "./types.ts";

interface ToolCallEvent {
  toolName: string;
  input: Record<string, unknown>;
}

interface Api {
  registerCommand(name: string, options: { description?: string; handler: (args: string, ctx: Ctx) => Promise<void> }): void;
  on(event: "tool_call", handler: (event: ToolCallEvent) => { block: true; reason: string } | undefined): void;
}

interface Ctx {
  ui: { notify(message: string, level: string): void; setStatus(key: string, text: string | undefined): void };
}

export default function planMode(pi: Api): void {
  const state = new PlanState();
  pi.registerCommand("plan", {
    description: "Plan mode: /plan start | /plan stop",
    handler: async (args, ctx) => {
      const word = args.trim();
      if (word === "start") state.enter();
      else if (word === "stop") state.leave();
      ctx.ui.setStatus("plan-mode", state.planning ? "Plan mode: planning" : undefined);
    },
  });
  pi.on("tool_call", (event) => {
    if (!state.planning) return undefined;
    if (event.toolName !== "bash") return { block: true, reason: `Plan mode: ${event.toolName} is blocked while planning.` };
    const found: Verdict = verdict(String(event.input.command ?? ""));
    return found.allowed ? undefined : { block: true, reason: `Plan mode: ${found.reason}` };
  });
}
