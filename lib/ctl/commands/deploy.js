// super deploy --host H:P --server S [--host H2:P2 --server S2 ...] --haproxy SOCKET
//   --backend B [--app TARGET] [--min-healthy-time 2s] [--drain-timeout 30s] [--json]
// A rolling reload across hosts through HAProxy, one host at a time: drain it at the
// balancer (runtime API `set server B/S state drain`), wait until its sessions there reach
// 0 (bounded by --drain-timeout), `reload` its apps over its control channel (each host's
// own zero-downtime reload), wait until they have stayed online and ready, with the same
// workers, for --min-healthy-time, set it ready again and wait until HAProxy has it UP;
// then the next host. A host whose reload fails (its old workers keep serving) is set
// ready again and the rollout stops there: exit 1 (E_DEPLOY_FAILED), the hosts after it
// untouched. No agent on the hosts beyond superd; the balancer and the daemons are the parts.
import { SuperError, EXIT } from '../../errors.js';
import { connect } from '../../ipc/client.js';
import { superHome } from '../../home.js';
import { parseDuration } from '../../config/units.js';
import { remoteTarget } from '../remote-target.js';
import { haproxyRuntime } from '../haproxy-runtime.js';
import { toTargets } from '../targets.js';

const POLL_MS = 100;
const UP_TIMEOUT_MS = 30000; // HAProxy's checks to see a host ready again

/**
 * @param {{hosts: string[], server?: string[], haproxy?: string, backend?: string, app?: string,
 *   minHealthyTime?: string, drainTimeout?: string, json?: boolean}} opts
 */
export default async function deploy(opts) {
  const plan = deployPlan(opts);
  const lb = haproxyRuntime(plan.haproxy);
  const say = opts.json
    ? (host, step, extra = {}) => process.stdout.write(`${JSON.stringify({ host: host.host, server: host.server, step, ...extra })}\n`)
    : (host, step, extra = {}) => process.stdout.write(`${host.server} (${host.host}): ${describe(step, extra)}\n`);
  // Every server is known to HAProxy before anything changes.
  for (const h of plan.hosts) await lb.server(plan.backend, h.server);
  for (const [i, h] of plan.hosts.entries()) {
    const t0 = Date.now();
    await lb.setState(plan.backend, h.server, 'drain');
    say(h, 'drain');
    const left = await until(async () => (await lb.server(plan.backend, h.server)).sessions === 0, plan.drainTimeout);
    say(h, 'drained', { sessions_left: left ? 0 : (await lb.server(plan.backend, h.server)).sessions });
    let failure = null;
    try {
      failure = await reloadHost(h.host, plan, (step, extra) => say(h, step, extra));
    } catch (err) {
      failure = err.message;
    }
    await lb.setState(plan.backend, h.server, 'ready');
    if (failure) {
      say(h, 'failed', { reason: failure });
      throw new SuperError('E_DEPLOY_FAILED', `${h.server} (${h.host}): ${failure}; it was set ready again with the workers it kept, and the rollout stopped: ${plan.hosts.slice(i + 1).map((x) => x.server).join(', ') || 'no host'} left untouched`);
    }
    const up = await until(async () => (await lb.server(plan.backend, h.server)).op === 2, UP_TIMEOUT_MS);
    if (!up) throw new SuperError('E_DEPLOY_FAILED', `${h.server} (${h.host}): reloaded, but HAProxy did not mark it UP within ${UP_TIMEOUT_MS / 1000} s; the rollout stopped`);
    say(h, 'ready', { ms: Date.now() - t0 });
  }
  return EXIT.OK;
}

/**
 * The options, checked: hosts paired with their HAProxy server names, durations in ms.
 * @param {{hosts?: string[], server?: string[], haproxy?: string, backend?: string, app?: string, minHealthyTime?: string, drainTimeout?: string}} opts
 */
function deployPlan({ hosts = [], server = [], haproxy, backend, app = 'all', minHealthyTime = '2s', drainTimeout = '30s' }) {
  if (!hosts.length) throw new SuperError('E_USAGE', 'super deploy needs the hosts: --host H:P --server NAME for each (its control listener, and its server name in HAProxy)');
  if (hosts.length !== server.length) throw new SuperError('E_USAGE', `super deploy: ${hosts.length} --host and ${server.length} --server; give one --server (the host's name in HAProxy's backend) per --host, in the same order`);
  if (!haproxy || !backend) throw new SuperError('E_USAGE', 'super deploy needs --haproxy (HAProxy\'s runtime API: its stats socket with level admin) and --backend (the backend of the servers)');
  const ms = (flag, v) => {
    const n = parseDuration(v);
    if (n === null || n === undefined || !Number.isFinite(n)) throw new SuperError('E_USAGE', `--${flag} ${v}: give a duration like 2s or 500ms`);
    return n;
  };
  return {
    hosts: hosts.map((host, i) => ({ host, server: server[i] })),
    haproxy,
    backend,
    target: toTargets([app]),
    minHealthy: ms('min-healthy-time', minHealthyTime),
    drainTimeout: ms('drain-timeout', drainTimeout),
  };
}

/** Reloads one host's apps and waits until they stay healthy; resolves with why it failed, or null. */
async function reloadHost(host, plan, say) {
  const remote = await remoteTarget({ ...process.env, SUPER_HOST: host });
  const client = await connect(superHome(), { remote: remote ?? undefined });
  try {
    const { apps } = await client.request('reload', { target: plan.target }, { timeout: 0 });
    const bad = apps.find((r) => !r.ok);
    if (bad) return `the reload of ${bad.app} failed (${bad.failed?.reason ?? bad.skipped ?? 'not ok'})`;
    say('reloaded', { apps: apps.map((r) => r.app) });
    return await healthyFor(client, apps.map((r) => r.app), plan.minHealthy);
  } finally {
    client.close();
  }
}

/**
 * Whether the apps stay online and ready, with the same workers, for `ms` (bounded: ms + 30 s).
 * @returns {Promise<string|null>}  why not, or null
 */
async function healthyFor(client, names, ms) {
  const deadline = Date.now() + ms + 30000;
  let since = null;
  let seen = '';
  while (Date.now() < deadline) {
    const { apps } = await client.request('ls');
    const ours = apps.filter((a) => names.includes(a.name));
    const healthy = ours.every((a) => a.workers.length && a.workers.every((w) => w.status === 'online' && !w.not_ready));
    const pids = ours.flatMap((a) => a.workers.map((w) => w.pid)).join(',');
    if (!healthy || pids !== seen) since = healthy ? Date.now() : null;
    seen = pids;
    if (since !== null && Date.now() - since >= ms) return null;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return `its apps did not stay online and ready for ${ms} ms`;
}

/** Polls `check` until it is true or `ms` pass; resolves whether it became true. */
async function until(check, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function describe(step, extra) {
  switch (step) {
    case 'drain': return 'draining at the balancer';
    case 'drained': return extra.sessions_left ? `drain timeout, ${extra.sessions_left} session(s) left; reloading anyway` : 'no session left';
    case 'reloaded': return `reloaded ${extra.apps.join(', ')}; waiting until healthy`;
    case 'failed': return `FAILED: ${extra.reason}`;
    case 'ready': return `ready again, UP at the balancer (${(extra.ms / 1000).toFixed(1)} s)`;
    default: return step;
  }
}
