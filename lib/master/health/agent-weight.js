// What superd answers HAProxy's agent check (health/agent-check.js) for an app: its spare
// capacity as a weight, from figures the daemon already holds (pure: a registry snapshot's
// app and the workers' last reports in, one line out).
//   N%      N = 100 x the spare share of the desired workers: each worker that serves
//           (online, ready, not a lame duck) counts 1 - its event-loop utilization (at
//           least MIN_SHARE: a busy worker still serves), one that sheds (overload:)
//           MIN_SHARE; at least 1% while one serves, so a busy host keeps some traffic
//   0%      every online worker is a lame duck (shutdown_delay before a stop's drain) or
//           still starting: HAProxy sends it no new requests (`show stat`: weight 0)
//   down    no worker online (stopped, crashed, errored) or no such app; a `# ...`
//           description follows (HAProxy shows it in its check status)
// Never `up`: HAProxy's agent code resets the server's check health to its best on an `up`,
// which would hold off the server's own check (the app's /health) from taking it down.
// Never the admin words `drain`, `maint`, `ready`: they stick in HAProxy's admin state, and
// a `ready` would undo an operator's (or `super deploy`'s) drain. The weight is the agent's
// lever; `down` only when nothing can serve.
import { WORKER_STATES as S } from '../states.js';
import { servesTraffic } from './app-readiness.js';

/** The least a serving worker weighs: a worker at full load still takes its turn. */
export const MIN_SHARE = 0.1;

/**
 * @param {{name: string, status: string, config: {instances: number}, workers: {status: string, pid?: number|null, not_ready?: boolean, lame_duck?: boolean}[]}|null} app
 * @param {(pid: number) => {elu: number|null, shedding: boolean}|null} figuresOf  a worker's last report
 * @returns {{word: 'weight'|'down', weight: number, why: string}}
 */
export function appWeight(app, figuresOf) {
  if (!app) return { word: 'down', weight: 0, why: 'no such app' };
  const online = app.workers.filter((w) => w.status === S.ONLINE && w.pid);
  if (!online.length) return { word: 'down', weight: 0, why: `${app.name} ${app.status}` };
  const serving = online.filter(servesTraffic);
  const desired = Math.max(1, app.config.instances);
  if (!serving.length) {
    const why = online.some((w) => w.lame_duck) ? 'stopping (shutdown_delay)' : 'not ready';
    return { word: 'weight', weight: 0, why: `${app.name} ${why}` };
  }
  let spare = 0;
  let shedding = 0;
  for (const w of serving) {
    const f = figuresOf(/** @type {number} */ (w.pid));
    if (f?.shedding) shedding++;
    spare += f?.shedding ? MIN_SHARE : Math.max(MIN_SHARE, 1 - (f?.elu ?? 0));
  }
  const weight = Math.min(100, Math.max(1, Math.round((100 * spare) / desired)));
  return { word: 'weight', weight, why: `${app.name} ${serving.length}/${desired} ready${shedding ? `, ${shedding} shedding` : ''}` };
}

/**
 * The agent's answer line (without its newline) for app `name`, or for every app not stopped
 * (`name` null: the least of them, the host's bottleneck).
 * @param {object[]} apps  a registry snapshot's apps
 * @param {string|null} name
 * @param {(pid: number) => {elu: number|null, shedding: boolean}|null} figuresOf
 */
export function agentAnswer(apps, name, figuresOf) {
  let verdict;
  if (name !== null) verdict = appWeight(apps.find((a) => a.name === name) ?? null, figuresOf);
  else {
    const running = apps.filter((a) => a.status !== S.STOPPED);
    if (!running.length) verdict = { word: 'down', weight: 0, why: 'no app running' };
    else {
      const all = running.map((a) => appWeight(a, figuresOf));
      verdict = all.reduce((worst, v) => (rank(v) < rank(worst) ? v : worst));
    }
  }
  const why = verdict.why.replace(/[\r\n#]/g, ' ');
  return verdict.word === 'down' ? `down # ${why}` : `${verdict.weight}% # ${why}`;
}

/** down below any weight, then by weight. */
const rank = (v) => (v.word === 'down' ? -1 : v.weight);
