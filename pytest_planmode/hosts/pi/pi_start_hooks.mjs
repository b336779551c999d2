// Module resolution hooks of the real-Pi host: each run is a Pi start.
//
// A run of the host stands for one start of Pi (a user configures, starts
// Pi, works, quits). Node caches an ES module per URL for the life of the
// process, so an `.mjs` extension the host's process loaded for an earlier
// run would keep the module state, and the configuration read when it was
// loaded, of that run. These hooks give every file module outside
// `node_modules` and outside the host's own directory a URL of the current
// Pi start (`?pi-start=N`), so the first import of a run evaluates the
// extension's own modules again, as a new Pi process would; within a run
// (a `/reload`, a new session) the URL stays and Pi's own caching holds.
// Packages under `node_modules` (Pi itself among them) stay shared.
//
// `start` is an Int32Array over a SharedArrayBuffer whose first element the
// host bumps at every run, and `hostDir` the URL of the host's directory.
// Where Node has in-thread hooks (module.registerHooks, Node 22.15 and
// newer) the host registers `ofThisStart` with them; elsewhere this file is
// registered with module.register() and `resolve` runs on the loader thread.

let start = null;
let hostDir = "";

export function initialize(data) {
  start = data.start;
  hostDir = data.hostDir;
}

// The resolved module under the current start's URL (packages and the
// host's own files unchanged).
export function ofThisStart(resolved, counter = start, host = hostDir) {
  const url = resolved.url;
  if (!counter || !url.startsWith("file:") || url.includes("/node_modules/") || url.startsWith(host)) return resolved;
  const fresh = new URL(url);
  fresh.searchParams.set("pi-start", String(Atomics.load(counter, 0)));
  return { ...resolved, url: fresh.href };
}

export async function resolve(specifier, context, nextResolve) {
  return ofThisStart(await nextResolve(specifier, context));
}
