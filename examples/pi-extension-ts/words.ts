import type { Segment } from "./types.ts";

const OPERATORS = ["&&", "||", ";", "|", "\n"] as const;

/** The command's segments (split at control operators), each as words. */
export function segments(command: string): Segment[] {
  let parts: string[] = [command];
  for (const op of OPERATORS) parts = parts.flatMap((part) => part.split(op));
  return parts.map((part) => part.trim().split(/\s+/).filter((word) => word.length > 0)).filter((words) => words.length > 0);
}

/** Whether the command uses a construct this small gate does not read. */
export function opaque(command: string): boolean {
  return /[`$<>()]/.test(command);
}
