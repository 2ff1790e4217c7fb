// Where a superd reload's time went, read back from the daemon's own log (daemon.log, one
// JSON line per reload step and worker state change, each with its ISO `time`): for the
// last reload of `app`, when the first and the last slot reached each step, in ms after
// the reload began in the daemon. Read after the run, so it costs the measured reload nothing.
import fs from 'node:fs';
import path from 'node:path';

// The steps in the order a slot goes through them (the reload executor's vocabulary, lib/master/reload/executor.js).
const STEPS = [
  ['forked', 'fork'],
  ['probation', 'ready (probation begins)'],
  ['ready', 'probation end'],
  ['retire', 'retire asked'],
  ['retired', 'old worker exited'],
];

/**
 * @param {string} home  the daemon's SUPER_HOME
 * @param {string} app
 * @returns {{total: number, steps: Record<string, [number, number]>}|null}  steps: name ->
 *   [first, last] ms after the reload began; null when the log holds no whole reload of app
 */
export function lastReloadTimeline(home, app) {
  let lines;
  try {
    lines = fs.readFileSync(path.join(home, 'daemon.log'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const entries = lines.flatMap((l) => {
    try {
      const e = JSON.parse(l);
      return e.app === app ? [{ ...e, time: Date.parse(e.time) }] : []; // ISO time (pino's isoTime)
    } catch {
      return [];
    }
  });
  const begin = entries.findLastIndex((e) => e.msg === `${app}: reload begins`);
  const end = entries.findLastIndex((e) => e.step === 'done');
  if (begin < 0 || end < begin) return null;
  const t0 = entries[begin].time;
  const of = (name, field) => entries.slice(begin, end).filter((e) => e.step === name).map((e) => e[field] - t0);
  /** @type {Record<string, [number, number]>} */
  const steps = {};
  for (const [name] of STEPS) {
    const at = name === 'retire' ? of('retired', 'asked_at') : of(name, 'time');
    if (at.length) steps[name] = [Math.min(...at), Math.max(...at)];
  }
  return { total: entries[end].time - t0, steps };
}

/** One line: "fork 3-410 | ready (probation begins) 380-1900 | ... | done 3400" (ms). */
export function formatTimeline(t) {
  if (!t) return 'no timeline (daemon.log holds no whole reload)';
  const parts = STEPS.filter(([name]) => t.steps[name]).map(([name, label]) => `${label} ${t.steps[name].map(Math.round).join('-')}`);
  return [...parts, `done ${Math.round(t.total)}`].join(' | ');
}
