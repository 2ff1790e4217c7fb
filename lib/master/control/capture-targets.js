// The workers a `profile` or `heap` request names, as lib/master/captures/ takes them:
// every slot of the app, or the one of `#slot`. A heap snapshot names one worker: the
// slot may be left out only for an app of one worker.
import { SuperError } from '../../errors.js';
import { slotsOf } from './worker-ops.js';

/**
 * @param {import('../apps/registry.js').AppRegistry} registry
 * @param {{app: string, slot?: number}} a
 * @param {string} op
 * @returns {import('../captures/captures.js').WorkerTarget[]}
 */
export function captureTargets(registry, { app: name, slot }, op) {
  const app = registry.app(name, op); // E_APP_NOT_FOUND; ids resolved
  const slots = slotsOf(app, slot); // E_USAGE for a slot it does not have
  if (op === 'heap' && slots.length !== 1) {
    throw new SuperError('E_USAGE', `a heap snapshot is of one worker and ${app.name} has ${slots.length}; name it as ${app.name}#<slot> (\`super ls\`)`);
  }
  return slots.map((s) => ({ app: app.name, slot: s.index, state: s.state, proc: s.proc ?? null }));
}
