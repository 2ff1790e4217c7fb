// `api#2` -> {target: 'api', slot: 2}; `api` -> {target: 'api'}.
import { SuperError } from '../errors.js';
import { toTargets } from './targets.js';

/**
 * @param {string} arg
 * @returns {{target: string, slot?: number}}
 */
export function workerTarget(arg) {
  const m = /^(.+)#(\d{1,4})$/.exec(arg);
  if (!m) {
    if (arg.includes('#')) throw new SuperError('E_USAGE', `"${arg}": name a worker as app#slot, like api#0`);
    return { target: arg };
  }
  return { target: m[1], slot: Number(m[2]) };
}

/**
 * The targets of a per-worker command (`signal`, `pid`) as the daemon takes them: app
 * names, ids, namespaces, files, or one app#slot alone.
 * @param {string[]} targets
 * @returns {{target: string[], slot?: number}}
 */
export function workerTargets(targets) {
  const parsed = targets.map(workerTarget);
  const withSlot = parsed.filter((p) => p.slot !== undefined);
  if (withSlot.length && parsed.length > 1) throw new SuperError('E_USAGE', 'app#slot names one worker: give it alone');
  const args = { target: toTargets(parsed.map((p) => p.target)) };
  if (withSlot.length) args.slot = withSlot[0].slot;
  return args;
}
