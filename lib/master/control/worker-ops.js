// PM2's per-worker commands: send a signal (`super signal`), show a worker's environment
// (`super env`). (`super reset` is the registry's: it writes the slots' counters.)
import os from 'node:os';
import { readFile } from 'node:fs/promises';
import { SuperError } from '../../errors.js';
import { maskEnv } from '../../mask-secrets.js';

const MAX_ENVIRON = 4 * 1024 * 1024; // /proc/<pid>/environ is at most ARG_MAX (2 MiB on Linux)

/** `USR2`, `sigusr2`, `SIGUSR2` -> `SIGUSR2`; E_USAGE for a name the OS does not have. */
function signalName(name) {
  const sig = `SIG${name.toUpperCase().replace(/^SIG/, '')}`;
  if (!Object.hasOwn(os.constants.signals, sig)) {
    throw new SuperError('E_USAGE', `unknown signal "${name}"; give a name like SIGUSR2, SIGHUP or SIGINT`);
  }
  return sig;
}

/** The slots of `app` a `#slot` suffix names (all of them without one). */
export function slotsOf(app, slot) {
  if (slot === undefined) return app.slots;
  const s = app.slots[slot];
  if (!s) throw new SuperError('E_USAGE', `${app.name} has no slot ${slot}; its slots are 0 to ${app.slots.length - 1} (\`super ls\`)`);
  return [s];
}

/** The running workers of `apps` (one slot with `slot`, which needs one app): `super pid`. */
export function workerPids(apps, slot) {
  if (slot !== undefined && apps.length !== 1) throw new SuperError('E_USAGE', 'a #slot names a worker of one app; give one app with it');
  return apps.flatMap((app) => slotsOf(app, slot).filter((s) => s.pid).map((s) => ({ app: app.name, slot: s.index, pid: s.pid })));
}

/** Sends `signal` to the running workers of `apps` (one slot with `slot`); returns who got it. */
export function signalWorkers(apps, signal, slot) {
  const sig = signalName(signal);
  const sent = workerPids(apps, slot).filter((w) => {
    try {
      process.kill(w.pid, sig);
      return true;
    } catch (err) {
      if (err.code !== 'ESRCH') throw err;
      return false; // exited meanwhile: nothing to signal
    }
  });
  return { signal: sig, sent };
}

/**
 * The environment slot `slot` of `app` runs with, secrets masked: what its process really
 * got (/proc/<pid>/environ) when it runs and that is readable, else what the daemon gives
 * its next worker.
 */
export async function workerEnvironment(app, slot = 0) {
  const s = slotsOf(app, slot)[0];
  let env = null;
  let from = 'config';
  if (s.pid) {
    try {
      const raw = await readFile(`/proc/${s.pid}/environ`);
      if (raw.length <= MAX_ENVIRON) {
        env = Object.fromEntries(raw.toString('utf8').split('\0').filter(Boolean).map((kv) => {
          const eq = kv.indexOf('=');
          return eq < 0 ? [kv, ''] : [kv.slice(0, eq), kv.slice(eq + 1)];
        }));
        from = 'process';
      }
    } catch {} // not Linux, or the worker just exited: fall back to the computed environment
  }
  env ??= app.workerEnv(s.index, s.config ?? app.config);
  const sorted = Object.fromEntries(Object.entries(maskEnv(env)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { app: app.name, slot: s.index, pid: s.pid, from, env: sorted };
}
