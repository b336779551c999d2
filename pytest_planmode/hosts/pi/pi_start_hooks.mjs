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
// Registered with module.register(); `data.start` is an Int32Array over a
// SharedArrayBuffer whose first element the host bumps at every run, and
// `data.hostDir` the URL of the host's directory.

let start = null;
let hostDir = "";

export function initialize(data) {
  start = data.start;
  hostDir = data.hostDir;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const url = resolved.url;
  if (!start || !url.startsWith("file:") || url.includes("/node_modules/") || url.startsWith(hostDir)) return resolved;
  const fresh = new URL(url);
  fresh.searchParams.set("pi-start", String(Atomics.load(start, 0)));
  return { ...resolved, url: fresh.href };
}
