// How much work one ecosystem file, dump or command may ask of the daemon: workers per app
// and apps per daemon. The defaults are far above what one host runs; a host that needs
// more raises them in the daemon's environment (and the CLI's, which checks a file first):
//   SUPER_MAX_INSTANCES (default 1024), SUPER_MAX_APPS (default 1000).
// A file cannot raise its own bound.

const DEFAULT_MAX_INSTANCES = 1024;
const DEFAULT_MAX_APPS = 1000;

/** @returns {{instances: number, apps: number}} the bounds `env` sets (a value that is not a positive integer is ignored) */
export function workLimits(env = process.env) {
  return {
    instances: positive(env.SUPER_MAX_INSTANCES) ?? DEFAULT_MAX_INSTANCES,
    apps: positive(env.SUPER_MAX_APPS) ?? DEFAULT_MAX_APPS,
  };
}

const positive = (text) => (/^\d+$/.test(text ?? '') && Number(text) > 0 ? Number(text) : undefined);

/** The problem with `n` instances, or null: one line naming the bound and how to raise it. */
export function instancesProblem(n, limits = workLimits()) {
  if (n <= limits.instances) return null;
  return `${n} instances is more than the limit of ${limits.instances}; use at most ${limits.instances}, or raise SUPER_MAX_INSTANCES in the daemon's environment`;
}
