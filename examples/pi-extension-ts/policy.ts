import type { Segment, Verdict } from "./types.ts";
import { opaque, segments } from "./words.ts";

const READ_ONLY = new Set(["ls", "cat", "head", "tail", "wc", "pwd", "grep", "rg", "tree", "stat", "file", "du", "which", "echo"]);
const GIT_READ = new Set(["status", "log", "diff", "show", "branch", "ls-files", "grep"]);

function segmentAllowed(words: Segment): boolean {
  const [program, sub] = words;
  if (program === "git") return sub !== undefined && GIT_READ.has(sub);
  return program !== undefined && READ_ONLY.has(program);
}

export function verdict(command: string): Verdict {
  if (opaque(command)) return { allowed: false, reason: "the command uses substitutions or redirections" };
  const parts = segments(command);
  if (parts.length === 0) return { allowed: false, reason: "empty command" };
  const bad = parts.find((words) => !segmentAllowed(words));
  return bad ? { allowed: false, reason: `bash segment not allowed: ${bad.join(" ")}` } : { allowed: true, reason: "" };
}
