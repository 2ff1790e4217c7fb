// One host of `super deploy`: rolled to the release (drain at the balancer, sessions
// waited out, the user's step, `reload`, healthy for min_healthy_time, ready and UP, the
// error-rate gate), or reverted to the release it ran before. Each step is recorded on the
// host's daemon (op deploy-state) before it starts, so a re-run after a crash of the CLI,
// and the dashboard, know where the host is.
import { connect } from '../../ipc/client.js';
import { superHome } from '../../home.js';
import { remoteTarget } from '../remote-target.js';
import { runStep } from './step-command.js';
import { errorGate } from './error-gate.js';

const POLL_MS = 100;
const BUSY_WAIT_MS = 120000; // a reload a crashed run left going on the host
const DRAIN_BIT = 0x08; // srv_admin_state: drained through the runtime API (SRV_ADMF_FDRAIN)

/** A control connection to the daemon at `host` (host:port, the token of --token-file). */
export async function hostClient(host) {
  const remote = await remoteTarget({ ...process.env, SUPER_HOST: host });
  return connect(superHome(), { remote: remote ?? undefined });
}

/**
 * @typedef {{host: string, server: string}} Host
 * @typedef {(step: string, extra?: object) => void} Say
 * @typedef {{phase: string, reason: string}} Failure
 */

/**
 * Rolls `h` to plan.release. Resolves null, or the failure (the host not yet reverted nor
 * set ready: revertOrRelease() does that).
 * @param {import('./plan.js').DeployPlan} plan
 * @param {ReturnType<typeof import('../haproxy-runtime.js').haproxyRuntime>} lb
 * @param {Host} h
 * @param {string|null} previous  the release the host runs now, if known
 * @param {Say} say
 * @returns {Promise<Failure|null>}
 */
export async function rollHost(plan, lb, h, previous, say) {
  const client = await hostClient(h.host);
  const record = (step, state = 'rolling', reason) => client.request('deploy-state', {
    set: { id: plan.id, version: plan.release, ...(previous && { previous }), state, step, ...(reason && { reason: reason.slice(0, 1024) }) },
  });
  try {
    const failure = await roll(plan, lb, h, previous, say, record, client);
    await record(failure ? 'failed' : 'done', failure ? 'failed' : 'done', failure?.reason);
    return failure;
  } catch (err) {
    return { phase: 'error', reason: err.message };
  } finally {
    client.close();
  }
}

async function roll(plan, lb, h, previous, say, record, client) {
  await record('drain');
  await lb.setState(plan.backend, h.server, 'drain');
  say('drain');
  const left = await until(async () => (await lb.server(plan.backend, h.server)).sessions === 0, plan.drainTimeout);
  say('drained', { sessions_left: left ? 0 : (await lb.server(plan.backend, h.server)).sessions });
  if (plan.step) {
    await record('step');
    const failed = await runStep(plan.step, { release: plan.release, previous, server: h.server, host: h.host, revert: false }, plan.stepTimeout);
    if (failed) return { phase: 'step', reason: failed };
    say('step');
  }
  await record('reload');
  const reloaded = await reload(client, plan);
  if (reloaded.failure) return { phase: 'reload', reason: reloaded.failure };
  say('reloaded', { apps: reloaded.apps });
  await record('healthy');
  const deadline = Date.now() + plan.healthyDeadline;
  const unhealthy = await healthyFor(client, reloaded.apps, plan.minHealthy, deadline);
  if (unhealthy) return { phase: 'healthy', reason: unhealthy };
  await record('ready');
  await lb.setState(plan.backend, h.server, 'ready');
  if (!(await until(async () => (await lb.server(plan.backend, h.server)).op === 2, deadline - Date.now()))) {
    return { phase: 'up', reason: `reloaded, but HAProxy did not mark it UP within --healthy-deadline (${plan.healthyDeadline / 1000} s)` };
  }
  if (plan.maxErrorRate !== null) {
    await record('gate');
    say('gate');
    const gate = await errorGate(lb, { ...plan, maxErrorRate: plan.maxErrorRate }, h.server);
    if (gate.failure) return { phase: 'gate', reason: gate.failure };
    say('gated', { failed: gate.failed, requests: gate.requests });
  }
  return null;
}

/**
 * After a failure: with --auto-revert (and a release to go back to), the host is drained,
 * the step run with the previous release, reloaded, healthy and set ready again. Otherwise
 * a host whose new workers never replaced the old ones (the step or the reload failed) is
 * set ready again as it was, and one that serves the new release badly is left drained.
 * Resolves what became of it, for the error.
 * @param {import('./plan.js').DeployPlan} plan
 * @param {ReturnType<typeof import('../haproxy-runtime.js').haproxyRuntime>} lb
 * @param {Host} h
 * @param {Failure} failure
 * @param {string|null} previous
 * @param {Say} say
 * @returns {Promise<string>}
 */
export async function revertOrRelease(plan, lb, h, failure, previous, say) {
  const oldWorkers = failure.phase === 'step' || failure.phase === 'reload';
  if (!plan.autoRevert || !previous) {
    if (oldWorkers) {
      await lb.setState(plan.backend, h.server, 'ready');
      const noRevert = plan.autoRevert ? 'no earlier release is recorded on it to revert to (--from names one); ' : '';
      return `${noRevert}it was set ready again with the workers it kept`;
    }
    await lb.setState(plan.backend, h.server, 'drain');
    say('left-drained');
    return plan.autoRevert ? 'no earlier release is recorded on it to revert to (--from names one): it was left drained' : 'it was left drained (--auto-revert would have put its previous release back)';
  }
  const client = await hostClient(h.host);
  const record = (step, state, reason) => client.request('deploy-state', {
    set: { id: plan.id, version: previous, previous: plan.release, state, step, ...(reason && { reason: reason.slice(0, 1024) }) },
  });
  try {
    await record('revert', 'reverting');
    await lb.setState(plan.backend, h.server, 'drain');
    say('reverting', { to: previous });
    const why = await (async () => {
      const failed = await runStep(/** @type {string} */ (plan.step), { release: previous, previous: plan.release, server: h.server, host: h.host, revert: true }, plan.stepTimeout);
      if (failed) return failed;
      const reloaded = await reload(client, plan);
      if (reloaded.failure) return reloaded.failure;
      return healthyFor(client, reloaded.apps, plan.minHealthy, Date.now() + plan.healthyDeadline);
    })();
    if (why) {
      await record('failed', 'failed', `the revert to ${previous} failed too: ${why}`);
      say('left-drained');
      return `the revert to ${previous} failed too (${why}): it was left drained`;
    }
    await lb.setState(plan.backend, h.server, 'ready');
    await until(async () => (await lb.server(plan.backend, h.server)).op === 2, plan.healthyDeadline);
    await record('reverted', 'reverted', failure.reason);
    say('reverted', { to: previous });
    return `it was reverted to ${previous} and set ready again`;
  } finally {
    client.close();
  }
}

/** The host's drained state at the balancer (a rollout that crashed may have left it so). */
export async function isDrained(lb, plan, h) {
  return ((await lb.server(plan.backend, h.server)).admin & DRAIN_BIT) !== 0;
}

/**
 * The host's reload; one still running there (started by a run of the CLI that crashed)
 * is waited out first (E_BUSY, retried for at most BUSY_WAIT_MS).
 * @returns {Promise<{apps: string[], failure: string|null}>}
 */
async function reload(client, plan) {
  const deadline = Date.now() + BUSY_WAIT_MS;
  let answer;
  while (!answer) {
    try {
      answer = await client.request('reload', { target: plan.target }, { timeout: 0 });
    } catch (err) {
      if (err.code !== 'E_BUSY' || Date.now() >= deadline) throw err;
      await new Promise((r) => setTimeout(r, POLL_MS * 2));
    }
  }
  const { apps } = answer;
  const bad = apps.find((r) => !r.ok);
  if (bad) return { apps: [], failure: `the reload of ${bad.app} failed (${bad.failed?.reason ?? bad.skipped ?? 'not ok'})` };
  return { apps: apps.map((r) => r.app), failure: null };
}

/**
 * Whether the apps stay online and ready, with the same workers, for `ms`, before `deadline`.
 * @returns {Promise<string|null>}  why not, or null
 */
async function healthyFor(client, names, ms, deadline) {
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
  return `its apps did not stay online and ready for ${ms} ms within --healthy-deadline`;
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
