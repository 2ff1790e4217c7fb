// `api#2` -> {target: 'api', slot: 2}; `api` -> {target: 'api'}.
import { SuperError } from '../errors.js';

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
