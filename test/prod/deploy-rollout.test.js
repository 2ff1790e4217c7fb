// `super deploy` across 3 hosts (3 daemons behind a real HAProxy, its runtime API, no
// retries), with Nomad's `update` knobs: a canary whose error rate at the balancer fails
// the gate is reverted and the others never change; --auto-revert on a host whose reload
// fails; --max-parallel honoured (never more drained at once) with 0 failed requests under
// load; a rollout resumed after the CLI was killed in the middle of it.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { eventually } from '../helpers/wait.js';
import { needHaproxy, load, serversState } from '../helpers/haproxy.js';
import { fleet, deployChild, drainWatch } from '../helpers/deploy-fleet.js';
import { freePort } from '../helpers/harness.js';
import { startDashboard } from '../helpers/chromium.js';
import { page } from '../helpers/dashboard-page.js';

const releases = (f) => Promise.all(f.hosts.map((h) => h.release()));
const admins = async (f) => {
  const s = await serversState(f.lb, 'apps');
  return f.hosts.map((h) => s[h.name].admin);
};

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

test('super deploy --max-parallel 2: never more than 2 hosts drained at once, every host on the new release, 0 failed requests under load; the dashboard shows it live', needHaproxy, async (t) => {
  const f = await fleet(t);
  const dash = await startDashboard(f.hosts[0].box.home, ['--listen', `127.0.0.1:${await freePort()}`, '--token-file', f.args()[2], ...f.hosts.flatMap((h) => ['--host', `127.0.0.1:${h.control}`])]);
  t.after(() => dash.stop());
  const p = await page(dash.base, ['superd', `superd.${dash.token}`]);
  t.after(() => p.ws.close());
  /** each host's deploy as the page was shown it, in order: "v2 rolling reload", ... */
  const shown = (name) => p.messages.filter((m) => m.type === 'state').map((m) => m.hosts.find((h) => h.name.endsWith(String(f.hosts.find((x) => x.name === name)?.control)))?.deploy)
    .filter(Boolean).map((d) => `${d.version} ${d.state}`);
  await eventually(() => p.messages.some((m) => m.type === 'state' && m.hosts.every((h) => h.state === 'up' && h.apps.length)), { timeout: 10000, what: 'the page shows every host' });
  const traffic = load(t, f.front);
  await eventually(() => traffic.results.length > 30, { timeout: 20000, what: 'load through HAProxy' });
  const watch = drainWatch(f.lb, f.hosts.map((h) => h.name));
  const r = await f.cli(f.args('--release', 'v2', '--max-parallel', '2'));
  const drained = await watch.stop();
  const atEnd = traffic.results.length;
  await eventually(() => traffic.results.length > atEnd + 30, { timeout: 20000, what: '30 more requests' });
  const results = await traffic.stop();
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(drained.most, 2, 'two hosts out of the balancer at once, never three');
  assert.deepEqual(drained.seen, ['host-a', 'host-b', 'host-c']);
  const failed = results.filter((x) => x.error || x.status !== 200);
  t.diagnostic(`${results.length} requests during and after the deploy, ${failed.length} failed`);
  assert.deepEqual(failed, [], 'no request failed');
  assert.deepEqual(await releases(f), ['v2', 'v2', 'v2']);
  assert.deepEqual(await admins(f), [0, 0, 0]);
  // The dashboard showed each host mid-deploy (the daemons' figures come once a second), then done.
  await eventually(() => f.hosts.every((h) => shown(h.name).at(-1) === 'v2 done'), { timeout: 10000, what: 'the page shows every host done' });
  for (const h of f.hosts) assert.ok(shown(h.name).includes('v2 rolling'), `${h.name}: ${shown(h.name)}`);
});

test('super deploy --canary 1: pauses after the canary; --promote goes on, and a run killed mid-rollout is continued by the same command', needHaproxy, async (t) => {
  const f = await fleet(t);
  const [a, b] = f.hosts;
  const paused = await f.cli(f.args('--release', 'v2', '--canary', '1'));
  assert.equal(paused.code, 0, paused.stdout + paused.stderr);
  assert.match(paused.stdout, /host-a \(.*\): canary done; paused, 2 host\(s\) left: run the same command with --promote to go on\n$/);
  assert.deepEqual(await releases(f), ['v2', 'v1', 'v1']);
  const canaryPids = await a.pids();
  // --promote, killed once host-b's step ran (host-b drained, mid-way).
  const first = deployChild(t, f, f.args('--release', 'v2', '--canary', '1', '--promote'));
  await eventually(() => first.out.lines.some((l) => /^host-b .*: step done$/.test(l)) || first.out.code !== null, { timeout: 20000, what: 'host-b\'s step', last: () => first.out });
  first.kill();
  await first.closed;
  assert.equal(first.out.signal, 'SIGKILL', 'killed mid-rollout');
  assert.deepEqual(await admins(f), [0, 8, 0], 'host-b left drained by the killed run');
  const again = await f.cli(f.args('--release', 'v2', '--canary', '1', '--promote'));
  assert.equal(again.code, 0, again.stdout + again.stderr);
  const lines = again.stdout.trim().split('\n').map((l) => l.replace(/\(127\.0\.0\.1:\d+\)/, '(H)').replace(/ \(\d+\.\d s\)$/, ''));
  assert.equal(lines[0], 'host-a (H): already on this release (an earlier run): skipped');
  assert.ok(lines.includes('host-b (H): ready again, UP at the balancer') && lines.includes('host-c (H): ready again, UP at the balancer'), again.stdout);
  assert.deepEqual(await a.pids(), canaryPids, 'the canary was not reloaded again');
  assert.equal((await b.pids()).filter((p) => b.before.includes(p)).length, 0);
  assert.deepEqual(await releases(f), ['v2', 'v2', 'v2']);
  assert.deepEqual(await admins(f), [0, 0, 0]);
  assert.deepEqual(f.steps().filter((l) => l.startsWith('host-b')), ['host-b v2 revert=0', 'host-b v2 revert=0'], 'host-b rolled again from its step');
});
