// `super deploy` across 3 hosts (3 daemons behind a real HAProxy, its runtime API, no
// retries), when a host fails: a canary whose error rate at the balancer fails the gate is
// reverted and the others never change; --auto-revert on a host whose reload fails.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { eventually } from '../helpers/wait.js';
import { needHaproxy, load } from '../helpers/haproxy.js';
import { fleet, releases, admins } from '../helpers/deploy-fleet.js';

test('super deploy --canary 1 --max-error-rate: a canary that serves 5xx fails its gate, is reverted, and the other hosts never change', needHaproxy, async (t) => {
  const f = await fleet(t);
  const traffic = load(t, f.front);
  await eventually(() => traffic.results.length > 30, { timeout: 20000, what: 'load through HAProxy' });
  const [, b, c] = f.hosts;
  const r = await f.cli(f.args('--release', 'bad-2', '--from', 'v1', '--canary', '1', '--auto-promote', '--auto-revert', '--max-error-rate', '1%', '--min-healthy-time', '1s'));
  await traffic.stop();
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /^super: E_DEPLOY_FAILED: host-a \(127\.0\.0\.1:\d+\): \d+ of its \d+ requests at the balancer failed \(5xx or errors\): over --max-error-rate 1%; it was reverted to v1 and set ready again, and the rollout stopped: host-b, host-c left untouched/m);
  assert.match(r.stdout, /host-a \(.*\): reverting to v1\n/);
  assert.deepEqual(await releases(f), ['v1', 'v1', 'v1'], 'the canary serves v1 again');
  assert.deepEqual(f.steps(), ['host-a bad-2 revert=0', 'host-a v1 revert=1'], 'the step ran on the canary only, once to roll and once to revert');
  for (const h of [b, c]) assert.deepEqual(await h.pids(), h.before, `${h.name} never changed`);
  assert.deepEqual(await admins(f), [0, 0, 0], 'every server ready at the balancer');
  const client = await f.hosts[0].box.client();
  try {
    assert.deepEqual((({ version, previous, state }) => ({ version, previous, state }))((await client.request('deploy-state', {})).deploy), { version: 'v1', previous: 'bad-2', state: 'reverted' });
  } finally {
    client.close();
  }
});

test('super deploy --auto-revert: a host whose reload fails gets its previous release back, the rollout stops, the host after it untouched', needHaproxy, async (t) => {
  const f = await fleet(t);
  const [a, b, c] = f.hosts;
  fs.writeFileSync(path.join(b.box.dir, 'broken'), '');
  const r = await f.cli(f.args('--release', 'v2', '--from', 'v1', '--auto-revert'));
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /^super: E_DEPLOY_FAILED: host-b \(127\.0\.0\.1:\d+\): the reload of web failed \(.*\); it was reverted to v1 and set ready again, and the rollout stopped: host-c left untouched/m);
  assert.deepEqual(await releases(f), ['v2', 'v1', 'v1']);
  assert.equal((await a.pids()).filter((p) => a.before.includes(p)).length, 0, 'host-a rolled to v2');
  assert.equal((await b.pids()).filter((p) => b.before.includes(p)).length, 0, 'host-b reloaded again, on v1');
  assert.deepEqual(await c.pids(), c.before, 'host-c never changed');
  assert.deepEqual(f.steps(), ['host-a v2 revert=0', 'host-b v2 revert=0', 'host-b v1 revert=1']);
  assert.deepEqual(await admins(f), [0, 0, 0], 'every server ready at the balancer');
});
