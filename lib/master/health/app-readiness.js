// Whether an app serves at full strength, for GET /readyz on the metrics listener (load
// balancers and orchestrator probes that cannot exec `super ping`). Pure: a registry
// snapshot's app in, a verdict out.
import { WORKER_STATES as S } from '../states.js';

/**
 * @param {{name: string, config: {instances: number}, workers: {status: string, not_ready?: boolean}[]}} app
 *   an app of registry-reader.js snapshot()
 * @returns {{app: string, desired: number, ready: number, ok: boolean}}  ok: at least the
 *   desired number of workers are online and ready (a rolling reload keeps them so)
 */
export function appReadiness(app) {
  const desired = app.config.instances;
  const ready = app.workers.filter((w) => w.status === S.ONLINE && !w.not_ready).length;
  return { app: app.name, desired, ready, ok: ready >= desired };
}
