// `super deploy`: a rolling reload across hosts through a real HAProxy (its runtime API).
// Two daemons stand in for two hosts, each with its TCP control listener (one token for
// both, as --token-file gives every --host). Under load through HAProxy without retries:
// every host drained, reloaded (new workers), ready again, 0 failed requests. A host whose
// reload fails: exit 1, it is set ready again with its old workers, the next host untouched.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { eventually } from '../helpers/wait.js';
import { needHaproxy, load, serversState } from '../helpers/haproxy.js';
import { fleet, drainWatch } from '../helpers/deploy-fleet.js';

test('super deploy: each host drained, reloaded and ready again in turn; 0 failed requests through HAProxy without retries', needHaproxy, async (t) => {
  const f = await fleet(t, 2, { instances: 2 });
  const { lb, front } = f;
  const traffic = load(t, front);
  await eventually(() => traffic.results.length > 50, { timeout: 20000, what: 'load through HAProxy' });
  // What HAProxy's admin state says during the deploy, every 50 ms: which server was drained.
  const watch = drainWatch(lb, ['host-a', 'host-b']);
  const r = await f.cli(f.reloadArgs());
  const drained = await watch.stop();
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual(drained, { most: 1, seen: ['host-a', 'host-b'] }, 'one host drained at a time (HAProxy\'s forced drain, 0x08)');
  const lines = r.stdout.trim().split('\n');
  assert.deepEqual(lines.map((l) => l.replace(/ \(\d+\.\d s\)$/, '').replace(/\(127\.0\.0\.1:\d+\)/, '(H)')), [
    'host-a (H): draining at the balancer', 'host-a (H): no session left', 'host-a (H): reloaded web; waiting until healthy', 'host-a (H): ready again, UP at the balancer',
    'host-b (H): draining at the balancer', 'host-b (H): no session left', 'host-b (H): reloaded web; waiting until healthy', 'host-b (H): ready again, UP at the balancer',
  ]);
  const atEnd = traffic.results.length;
  await eventually(() => traffic.results.length > atEnd + 50, { timeout: 20000, what: '50 more requests' });
  const results = await traffic.stop();
  const failed = results.filter((x) => x.error || x.status !== 200);
  t.diagnostic(`${results.length} requests during and after the deploy, ${failed.length} failed`);
  assert.deepEqual(failed, [], `no request failed; HAProxy said:\n${f.lb.log.slice(-4000)}`);
  const replaced = new Set();
  for (const h of f.hosts) {
    const now = await h.pids();
    assert.equal(now.filter((p) => h.before.includes(p)).length, 0, 'every worker of every host replaced');
    for (const p of now) replaced.add(p);
  }
  const state = await serversState(lb, 'apps');
  assert.deepEqual([state['host-a'], state['host-b']].map((s) => [s.op, s.admin]), [[2, 0], [2, 0]], 'both UP and ready at the balancer');
  assert.ok(results.slice(atEnd).every((x) => replaced.has(x.pid)), 'after the deploy, only new workers answer');
});

test('super deploy: a host whose reload fails is set ready again with its old workers, the rollout stops, the next host untouched', needHaproxy, async (t) => {
  const f = await fleet(t, 2, { instances: 2 });
  const [a, b] = f.hosts;
  // A bad release on host A: its app refuses to start on it (the running workers serve v1).
  fs.writeFileSync(path.join(a.box.dir, 'broken'), '');
  fs.writeFileSync(path.join(a.box.dir, 'release'), 'v2');
  const r = await f.cli(f.reloadArgs());
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /^super: E_DEPLOY_FAILED: host-a \(127\.0\.0\.1:\d+\): the reload of web failed \(.*\); it was set ready again with the workers it kept, and the rollout stopped: host-b left untouched/m);
  assert.deepEqual(await a.pids(), a.before, 'host A kept its workers');
  assert.deepEqual(await b.pids(), b.before, 'host B never changed');
  const state = await serversState(f.lb, 'apps');
  assert.deepEqual([state['host-a'].admin, state['host-b'].admin], [0, 0], 'no server left drained');
});
