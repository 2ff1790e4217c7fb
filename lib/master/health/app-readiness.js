// Whether an app serves at full strength, for GET /readyz on the metrics listener (load
// balancers and orchestrator probes that cannot exec `super ping`). Pure: a registry
// snapshot's app in, a verdict out.
import { WORKER_STATES as S } from '../states.js';

/** A worker that takes traffic: online, ready, and not a lame duck (shutdown_delay before its drain: it still serves, but is on its way out). */
export const servesTraffic = (w) => w.status === S.ONLINE && !w.not_ready && !w.lame_duck;

/**
 * @param {{name: string, config: {instances: number, overload?: object|null}, workers: {status: string, pid?: number|null, not_ready?: boolean, lame_duck?: boolean}[]}} app
 *   an app of registry-reader.js snapshot()
 * @param {(pid: number) => boolean} [isShedding]  whether a worker sheds requests now (overload:)
 * @returns {{app: string, desired: number, ready: number, shedding?: number, ok: boolean}}  ok: at
 *   least the desired number of workers are online and ready (a rolling reload keeps them
 *   so), and not every one of them sheds requests (an overloaded app sends traffic
 *   elsewhere); `shedding` only for an app with `overload:`
 */
export function appReadiness(app, isShedding = () => false) {
  const desired = app.config.instances;
  const ready = app.workers.filter(servesTraffic);
  const shedding = ready.filter((w) => w.pid && isShedding(w.pid)).length;
  const ok = ready.length >= desired && !(shedding > 0 && shedding === ready.length);
  return app.config.overload ? { app: app.name, desired, ready: ready.length, shedding, ok } : { app: app.name, desired, ready: ready.length, ok };
}
