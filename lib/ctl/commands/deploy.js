// super deploy --host H:P --server S [--host H2:P2 --server S2 ...] --haproxy SOCKET --backend B
//   [--release R] [--step CMD] [--max-parallel N] [--canary N [--auto-promote | --promote]]
//   [--auto-revert] [--max-error-rate 1%] [--min-healthy-time 2s] [--drain-timeout 30s] [--json]
// A rolling reload across hosts through HAProxy, modelled on Nomad's `update` block: at most
// --max-parallel hosts out of the balancer at once, each drained (runtime API), its sessions
// waited out, the user's --step run, reloaded over its control channel, healthy for
// --min-healthy-time, set ready and UP, and, with --max-error-rate, its error rate at the
// balancer gated. The first --canary hosts go first; then the rollout pauses (a re-run with
// --promote continues) or, with --auto-promote, goes on once they passed. A failed host stops
// the rollout (the hosts not started untouched) and, with --auto-revert, gets the release
// it ran before back. Each host's daemon records the release and step it is at, so a re-run
// of the same command (same --release) continues from there. No agent on the hosts beyond
// superd; the balancer and the daemons are the parts.
import { SuperError, EXIT } from '../../errors.js';
import { haproxyRuntime } from '../haproxy-runtime.js';
import { deployPlan } from '../deploy/plan.js';
import { hostClient, rollHost, revertOrRelease, isDrained } from '../deploy/host-roll.js';
import { describeStep } from '../deploy/progress.js';

/** @param {import('../deploy/plan.js').DeployOptions} opts */
export default async function deploy(opts) {
  const plan = deployPlan(opts);
  const lb = haproxyRuntime(plan.haproxy);
  const say = (h, step, extra = {}) => process.stdout.write(opts.json
    ? `${JSON.stringify({ host: h.host, server: h.server, release: plan.release, step, ...extra })}\n`
    : `${h.server} (${h.host}): ${describeStep(step, extra)}\n`);
  // Every server is known to HAProxy, and every daemon answers, before anything changes.
  for (const h of plan.hosts) await lb.server(plan.backend, h.server);
  const records = await Promise.all(plan.hosts.map(hostRecord));
  /** @type {Map<typeof plan.hosts[0], string|null>} the release each host runs now, if known */
  const previous = new Map();
  const todo = [];
  for (const [i, h] of plan.hosts.entries()) {
    const rec = records[i];
    if (plan.resumable && rec?.version === plan.release && rec.state === 'done') {
      // Done in an earlier run that crashed before the end: only make sure it serves.
      if (await isDrained(lb, plan, h)) await lb.setState(plan.backend, h.server, 'ready');
      say(h, 'skipped');
      continue;
    }
    // Mid-way to a release (rolling, or failed there), it still runs the one before.
    const moving = rec?.state === 'rolling' || rec?.state === 'failed';
    previous.set(h, (moving ? rec?.previous : rec?.version) ?? plan.from);
    todo.push(h);
  }
  const canaries = todo.filter((h) => plan.hosts.indexOf(h) < plan.canary);
  const rest = todo.filter((h) => plan.hosts.indexOf(h) >= plan.canary);
  const roll = async (h) => {
    const t0 = Date.now();
    const before = previous.get(h) ?? null;
    const failure = await rollHost(plan, lb, h, before, (step, extra) => say(h, step, extra));
    if (!failure) {
      say(h, 'ready', { ms: Date.now() - t0 });
      return null;
    }
    say(h, 'failed', { reason: failure.reason });
    const after = await revertOrRelease(plan, lb, h, failure, before, (step, extra) => say(h, step, extra)).catch((err) => `putting it back failed (${err.message})`);
    return `${h.server} (${h.host}): ${failure.reason}; ${after}`;
  };
  const stopWith = (failures, untouched) => new SuperError('E_DEPLOY_FAILED', `${failures.join('; ')}, and the rollout stopped: ${untouched.map((x) => x.server).join(', ') || 'no host'} left untouched`);

  const first = await inLanes(canaries, plan.maxParallel, roll);
  if (first.failures.length) throw stopWith(first.failures, [...first.untouched, ...rest]);
  if (plan.canary && rest.length && !plan.promote) {
    for (const h of plan.hosts.slice(0, plan.canary)) say(h, 'paused', { left: rest.length });
    return EXIT.OK;
  }
  if (plan.canary && rest.length && canaries.length) for (const h of canaries) say(h, 'promoted');
  const second = await inLanes(rest, plan.maxParallel, roll);
  if (second.failures.length) throw stopWith(second.failures, second.untouched);
  return EXIT.OK;
}

/** What `super deploy` recorded on the daemon at h (null: nothing yet). */
async function hostRecord(h) {
  const client = await hostClient(h.host);
  try {
    return (await client.request('deploy-state', {})).deploy ?? null;
  } catch (err) {
    if (err.code === 'E_UNKNOWN_OP') throw new SuperError('E_USAGE', `${h.server} (${h.host}): its daemon is older than this super deploy (no deploy-state); upgrade it first (super upgrade)`);
    throw err;
  } finally {
    client.close();
  }
}

/**
 * Runs `fn` over `list` with at most `n` at a time, in order; after a failure no new one
 * starts (those running finish). Resolves the failures and the items never started.
 * @template T
 * @param {T[]} list
 * @param {number} n
 * @param {(item: T) => Promise<string|null>} fn  resolves why it failed, or null
 */
async function inLanes(list, n, fn) {
  const failures = [];
  let next = 0;
  const lane = async () => {
    while (!failures.length && next < list.length) {
      const failed = await fn(list[next++]);
      if (failed) failures.push(failed);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, list.length) }, lane));
  return { failures, untouched: list.slice(next) };
}
