// `super deploy`: a rolling reload across hosts through a real HAProxy (its runtime API).
// Two daemons stand in for two hosts, each with its TCP control listener (one token for
// both, as --token-file gives every --host). Under load through HAProxy without retries:
// every host drained, reloaded (new workers), ready again, 0 failed requests. A host whose
// reload fails: exit 1, it is set ready again with its old workers, the next host untouched.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, lsJson } from '../helpers/harness.js';
import { eventually } from '../helpers/wait.js';
import { needHaproxy, startHaproxy, get, load, serversState, balancerConfig } from '../helpers/haproxy.js';

const TOKEN = 'ab'.repeat(32);

// A hello app that refuses to start while FAIL_FILE exists (a bad release).
const APP = `const http = require('node:http');
const fs = require('node:fs');
if (fs.existsSync(process.env.FAIL_FILE)) {
  console.error('bad release: refusing to start');
  process.exit(3);
}
http.createServer((req, res) => res.end(req.url === '/health' ? 'ok\\n' : '(pid ' + process.pid + ')\\n')).listen(Number(process.env.PORT), '127.0.0.1');
`;

/** A host: its own daemon with the token above, the app on `port`, the control listener on `control`. */
async function host(t, { port, control }) {
  const box = await sandbox(t);
  fs.mkdirSync(box.home, { mode: 0o700 });
  fs.writeFileSync(path.join(box.home, 'token'), `${TOKEN}\n`, { mode: 0o600 });
  box.write('app.cjs', APP);
  const failFile = path.join(box.dir, 'bad-release');
  await box.start(box.write('eco.yml', [
    `control: { listen: "127.0.0.1:${control}" }`,
    'apps:',
    '  - name: web',
    '    script: app.cjs',
    '    instances: 2',
    '    probation: 200ms',
    '    kill_timeout: 5s',
    `    env: { PORT: ${port}, FAIL_FILE: "${failFile}" }`,
  ].join('\n')));
  const pids = async () => (await lsJson(box)).apps[0].workers.map((w) => w.pid).sort();
  return { box, control, failFile, pids, before: await pids() };
}

async function fleet(t) {
  const [pa, pb, ca, cb, front] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  const a = await host(t, { port: pa, control: ca });
  const b = await host(t, { port: pb, control: cb });
  const lb = await startHaproxy(t, a.box.dir, balancerConfig(front, 'check inter 300ms fall 2 rise 2 pool-purge-delay 500ms', [`server host-a 127.0.0.1:${pa}`, `server host-b 127.0.0.1:${pb}`]));
  await eventually(async () => {
    const s = await serversState(lb, 'apps');
    return s['host-a']?.op === 2 && s['host-b']?.op === 2 && (await get(false, front)).status === 200;
  }, { timeout: 20000, what: 'both servers UP through HAProxy', last: () => lb.log });
  const tokenFile = a.box.write('token', `${TOKEN}\n`);
  const deployArgs = ['deploy', '--token-file', tokenFile, '--host', `127.0.0.1:${ca}`, '--host', `127.0.0.1:${cb}`,
    '--server', 'host-a', 'host-b', '--haproxy', lb.socket, '--backend', 'apps', '--min-healthy-time', '500ms', '--drain-timeout', '5s'];
  return { a, b, lb, front, deployArgs };
}

test('super deploy: each host drained, reloaded and ready again in turn; 0 failed requests through HAProxy without retries', needHaproxy, async (t) => {
  const { a, b, lb, front, deployArgs } = await fleet(t);
  const traffic = load(t, front);
  await eventually(() => traffic.results.length > 50, { timeout: 20000, what: 'load through HAProxy' });
  // What HAProxy's admin state says during the deploy, every 50 ms: which server was drained.
  const drainedSeen = new Set();
  let deploying = true;
  const watching = (async () => {
    while (deploying) {
      const s = await serversState(lb, 'apps');
      for (const name of ['host-a', 'host-b']) if (s[name].admin & 0x08) drainedSeen.add(`${name} drained, ${name === 'host-a' ? 'host-b' : 'host-a'} ${s[name === 'host-a' ? 'host-b' : 'host-a'].admin ? 'drained' : 'ready'}`);
      await new Promise((res) => setTimeout(res, 50));
    }
  })();
  const r = await a.box.cli(deployArgs);
  deploying = false;
  await watching;
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual([...drainedSeen].sort(), ['host-a drained, host-b ready', 'host-b drained, host-a ready'], 'one host drained at a time (HAProxy\'s forced drain, 0x08)');
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
  assert.deepEqual(failed, [], 'no request failed');
  const replaced = new Set();
  for (const h of [a, b]) {
    const now = await h.pids();
    assert.equal(now.filter((p) => h.before.includes(p)).length, 0, 'every worker of every host replaced');
    for (const p of now) replaced.add(p);
  }
  const state = await serversState(lb, 'apps');
  assert.deepEqual([state['host-a'], state['host-b']].map((s) => [s.op, s.admin]), [[2, 0], [2, 0]], 'both UP and ready at the balancer');
  assert.ok(results.slice(atEnd).every((x) => replaced.has(x.pid)), 'after the deploy, only new workers answer');
});

test('super deploy: a host whose reload fails is set ready again with its old workers, the rollout stops, the next host untouched', needHaproxy, async (t) => {
  const { a, b, lb, deployArgs } = await fleet(t);
  fs.writeFileSync(a.failFile, '');
  const r = await a.box.cli(deployArgs);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /^super: E_DEPLOY_FAILED: host-a \(127\.0\.0\.1:\d+\): the reload of web failed \(.*\); it was set ready again with the workers it kept, and the rollout stopped: host-b left untouched/m);
  assert.deepEqual(await a.pids(), a.before, 'host A kept its workers');
  assert.deepEqual(await b.pids(), b.before, 'host B never changed');
  const state = await serversState(lb, 'apps');
  assert.deepEqual([state['host-a'].admin, state['host-b'].admin], [0, 0], 'no server left drained');
});
