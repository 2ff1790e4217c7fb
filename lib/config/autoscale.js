// `instances: { min, max }` and `autoscale:` -> the app's autoscale settings, in ms. The
// schema checked their shapes; this resolves the bounds as `instances` takes a count and
// makes the checks a schema cannot: min <= max, a rule with a figure to watch, a down
// bound below the up bound of the same figure (or the app would scale down into its up
// bound and back, forever).
import { resolveInstances } from './instances.js';
import { instancesProblem } from './work-limits.js';
import { parseDuration, tooLongForTimer } from './units.js';
import { SCALE_FIGURES } from '../scale-figures.js';
import { deepFreeze } from './deep-freeze.js';

const DEFAULT_UP = { elu: 0.8, for: '10s' };
const DEFAULT_DOWN = { elu: 0.3, for: '2m' };
const DEFAULT_COOLDOWN = '30s';

/**
 * @typedef {{elu: number|null, loop_delay: number|null, inflight: number|null, for: number}} ScaleRule  ms
 * @typedef {{min: number, max: number, up: ScaleRule, down: ScaleRule, cooldown: number}} AutoscaleSettings
 */

/**
 * @param {object} o
 * @param {unknown} o.instances  `instances` as written
 * @param {object|undefined} o.autoscale  `autoscale` as written (schema-checked), or absent
 * @param {number} o.cpus  the CPUs the daemon may use, for min/max written as `max` or -N
 * @param {string} o.interpreter  the app's; the figures come from superd's agent, preloaded into Node workers only
 * @param {{instances: number, apps: number}} [o.limits]  lib/config/work-limits.js workLimits()
 * @param {(path: string[], message: string) => void} o.report  a problem at a path under the app
 * @returns {AutoscaleSettings|null}  null: a fixed count
 */
export function autoscaleSettings({ instances, autoscale, cpus, interpreter, limits, report }) {
  const bounded = instances !== null && typeof instances === 'object' && !Array.isArray(instances);
  if (!bounded) {
    if (autoscale) report(['autoscale'], `needs instances: { min, max }, the bounds it scales within (instances is ${JSON.stringify(instances ?? 1)}); e.g. instances: { min: 1, max: 4 }`);
    return null;
  }
  if (interpreter !== 'node') {
    report(['instances'], 'a { min, max } count autoscales on the figures superd\'s agent reports from inside each worker, and only Node workers have it (interpreter node); give a fixed count');
    return null;
  }
  const bound = (key) => {
    try {
      const n = resolveInstances(/** @type {any} */ (instances)[key], cpus);
      const tooMany = instancesProblem(n, limits);
      if (tooMany) report(['instances', key], tooMany);
      return n;
    } catch (err) {
      report(['instances', key], `${err.message}; use a positive number, or max`);
      return null;
    }
  };
  const min = bound('min');
  const max = bound('max');
  if (min !== null && max !== null && max < min) report(['instances', 'max'], `${max} is below min (${min}); give max >= min`);
  const rules = autoscale ?? {};
  const up = scaleRule(rules.up ?? DEFAULT_UP, DEFAULT_UP.for, (sub, m) => report(['autoscale', 'up', ...sub], m));
  const down = scaleRule(rules.down ?? DEFAULT_DOWN, DEFAULT_DOWN.for, (sub, m) => report(['autoscale', 'down', ...sub], m));
  for (const figure of SCALE_FIGURES) {
    if (up[figure] !== null && down[figure] !== null && down[figure] >= up[figure]) {
      report(['autoscale', 'down', figure], `${down[figure]} is not below up.${figure} (${up[figure]}): the app would retire a worker into its up bound and add it back; give a lower down bound`);
    }
  }
  const cooldown = duration(rules.cooldown ?? DEFAULT_COOLDOWN, (m) => report(['autoscale', 'cooldown'], m));
  return { min: min ?? 1, max: max ?? 1, up, down, cooldown };
}

/**
 * The count an autoscaled app runs with when it already had one (a reload, a start of its
 * file, a saved dump): that count within the bounds, not `min`.
 * @param {{min: number, max: number}} bounds  @param {number} count
 */
function countWithin(bounds, count) {
  return Math.min(bounds.max, Math.max(bounds.min, count));
}

/**
 * The config an app that already runs `count` workers goes on with when its file is read
 * again (a reload, a start of its file, a resurrect or an upgrade): an autoscaled app keeps
 * its count within the file's bounds; an app a command scaled (`super scale`, the
 * dashboard) keeps its count while the file's `instances` is still `scaledFrom`, what the
 * file said when the scale was made (as PM2 keeps a scale across reload); else the file's
 * count is the app's.
 * @param {object} config  normalized, frozen
 * @param {unknown} count  the workers it runs (or the dump saved)
 * @param {number|null} [scaledFrom]  the file's instances when a command scaled it; null: not scaled
 */
export function keptCount(config, count, scaledFrom = null) {
  if (!Number.isInteger(count) || /** @type {number} */ (count) < 1) return config;
  const n = /** @type {number} */ (count);
  const instances = config.autoscale ? countWithin(config.autoscale, n) : scaledFrom === config.instances ? n : config.instances;
  return instances === config.instances ? config : deepFreeze({ ...config, instances });
}

/** @returns {ScaleRule} */
function scaleRule(rule, defaultFor, report) {
  const out = {
    elu: rule.elu ?? null,
    loop_delay: rule.loop_delay === undefined ? null : duration(rule.loop_delay, (m) => report(['loop_delay'], m)),
    inflight: rule.inflight ?? null,
    for: duration(rule.for ?? defaultFor, (m) => report(['for'], m)),
  };
  if (SCALE_FIGURES.every((f) => out[f] === null)) report([], 'needs a figure to watch: elu (e.g. 0.8), loop_delay (e.g. 100ms) or inflight (e.g. 32)');
  return out;
}

function duration(v, report) {
  const ms = parseDuration(v);
  const tooLong = ms === undefined ? null : tooLongForTimer(v, ms);
  if (ms === undefined) report(`must be a duration like 500ms, 10s or 2m (got ${v})`);
  else if (tooLong) report(tooLong);
  return ms ?? 0;
}
