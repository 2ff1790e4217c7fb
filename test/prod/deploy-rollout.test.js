// `super deploy` across 3 hosts (3 daemons behind a real HAProxy, its runtime API, no
// retries), with Nomad's `update` knobs: --max-parallel honoured (never more drained at
// once) with 0 failed requests under load and the dashboard showing it; a canary pause,
// --promote, and a rollout resumed after the CLI was killed in the middle of it; wrong
// options refused. A failing host: deploy-revert.test.js.
import test from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/wait.js';
import { needHaproxy, load } from '../helpers/haproxy.js';
import { fleet, deployChild, drainWatch, releases, admins } from '../helpers/deploy-fleet.js';
import { freePort, sandbox } from '../helpers/harness.js';
import { startDashboard } from '../helpers/chromium.js';
import { page } from '../helpers/dashboard-page.js';

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
  assert.deepEqual(failed, [], `no request failed; HAProxy said:\n${f.lb.log.slice(-4000)}`);
  assert.deepEqual(await releases(f), ['v2', 'v2', 'v2']);
  assert.deepEqual(await admins(f), [0, 0, 0]);
  // The dashboard showed each host mid-deploy (each record the CLI sets is pushed at once), then done.
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
  await eventually(() => first.out.lines.some((l) => /^host-b .*: step done$/.test(l)) || first.out.code !== null, { timeout: 20000, what: 'host-b\'s step', last: () => JSON.stringify(first.out) });
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

test('super deploy: wrong options are one E_USAGE line each, exit 2, before any host or balancer is touched', async (t) => {
  const box = await sandbox(t);
  const base = ['deploy', '--host', '127.0.0.1:1', '--host', '127.0.0.1:2', '--server', 'a', 'b', '--haproxy', '/nonexistent.sock', '--backend', 'apps'];
  /** @type {[string[], RegExp][]} */
  const cases = [
    [['--auto-revert'], /--auto-revert needs --step/],
    [['--canary', '1'], /--canary without --auto-promote pauses after the canaries: give --release/],
    [['--canary', '2', '--release', 'r'], /--canary 2: give fewer canaries than hosts \(2\)/],
    [['--max-parallel', '0'], /--max-parallel 0: give a whole number from 1/],
    [['--max-error-rate', '200%'], /--max-error-rate 200%: give a share/],
    [['--release', 'a b'], /--release a b: give a release name/],
    [['--min-healthy-time', 'soon'], /--min-healthy-time soon: give a duration/],
    [['--healthy-deadline', '-1s'], /--healthy-deadline -1s: give a duration/],
  ];
  for (const [more, message] of cases) {
    const r = await box.cli([...base, ...more]);
    assert.equal(r.code, 2, `${more}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /^super: E_USAGE: /);
    assert.match(r.stderr, message);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});
