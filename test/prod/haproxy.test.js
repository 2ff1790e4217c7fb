// One superd per host behind a real HAProxy (examples/haproxy): two daemons stand in for
// two hosts; stopping one host's app moves all traffic to the other, with at most the
// failures HAProxy's check interval allows; a host whose workers shed leaves the rotation
// by its /readyz. The two daemons serve both tests: each test
// starts the app on both with its own ports and deletes it at its end.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { freePort, lsJson, ROOT } from '../helpers/harness.js';
import { fileSandbox, deleteAtEnd } from '../helpers/file-daemon.js';
import { holdRequests } from '../helpers/held-requests.js';
import { get } from '../helpers/haproxy.js';

const EXAMPLE = path.join(ROOT, 'examples', 'haproxy');
const HAPROXY = ['/usr/sbin/haproxy', 'haproxy'].find((p) => spawnSync(p, ['-v']).status === 0);
// CI installs haproxy (.ci/run); elsewhere a missing haproxy skips, never passes.
const needHaproxy = HAPROXY || process.env.CI ? {} : { skip: 'haproxy is not installed (apt-get install haproxy)' };

const hosts = [await fileSandbox(), await fileSandbox()];

/** Host `box` runs the example's app on `port` (PORT from the environment of `super start`) until `t` ends. */
async function host(t, box, port) {
  deleteAtEnd(t, box, ['hello']);
  await box.start(path.join(EXAMPLE, 'ecosystem.yml'), { env: { PORT: String(port) } });
  const pids = new Set((await lsJson(box)).apps[0].workers.map((w) => w.pid));
  assert.equal(pids.size, 2);
  return { box, pids };
}

/** The example's config with our ports, written in `dir`: its path. */
function exampleConfig(dir, { front, a, b, redispatch }) {
  // One pass on whole ports: replacing them one after another once turned a front port of
  // 30014 into '<a>4' (its '127.0.0.1:3001' prefix matched the next replacement).
  const ours = { 8080: front, 3001: a, 3002: b };
  let cfg = fs.readFileSync(path.join(EXAMPLE, 'haproxy.cfg'), 'utf8')
    .replace(/127\.0\.0\.1:(8080|3001|3002)\b/g, (_, p) => `127.0.0.1:${ours[p]}`);
  for (const p of [front, a, b]) assert.match(cfg, new RegExp(`127\\.0\\.0\\.1:${p}\\b`), `port ${p} in the config`);
  if (!redispatch) cfg = cfg.replace(/^\s*retries 2\n/m, '    retries 0\n').replace(/^\s*(option redispatch|retry-on) .*\n/gm, '');
  const file = path.join(dir, `haproxy-${front}.cfg`);
  fs.writeFileSync(file, cfg);
  return file;
}

/** Starts HAProxy on a config (the example's with our ports, or `file`); `waitFor(re)` on its log. */
async function haproxy(t, dir, { front, a, b, redispatch, file = exampleConfig(dir, { front, a, b, redispatch }) }) {
  const check = spawnSync(HAPROXY, ['-c', '-f', file], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stdout + check.stderr);
  const child = spawn(HAPROXY, ['-f', file, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => child.kill('SIGKILL'));
  let log = '';
  const waiters = new Set();
  const onData = (d) => {
    log += d;
    for (const w of waiters) if (w.re.test(log)) w.resolve();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  return {
    kill: () => child.kill('SIGKILL'),
    get log() { return log; },
    waitFor: (re, timeout = 20000) => new Promise((resolve, reject) => {
      if (re.test(log)) return resolve();
      const w = { re, resolve: () => { clearTimeout(timer); waiters.delete(w); resolve(); } };
      const timer = setTimeout(() => { waiters.delete(w); reject(new Error(`haproxy never logged ${re}:\n${log}`)); }, timeout);
      waiters.add(w);
    }),
  };
}

/**
 * Sends requests (4 keep-alive connections, each pausing 10 ms after an answer, as
 * test/helpers/load.js: ~300 requests a second, not every cycle the machine has) until
 * `done()` says stop, or `max` requests.
 * `during(i)` runs after request i (to stop an app mid-loop). Each result is stamped with
 * the loop phase when it was sent (or the stop's, when the stop began while it was in flight).
 */
async function requestLoop(port, { max, during, phase, done }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const results = [];
  let sent = 0;
  const worker = async () => {
    while (sent < max && !done(results)) {
      const i = sent++;
      const sentAt = phase();
      const r = await get(agent, port);
      // A request still in flight when host A's stop began belongs to the stop's window:
      // another connection's answer can start the stop while this one waits.
      const at = sentAt === 'both-up' && phase() !== 'both-up' ? 'a-stopping' : sentAt;
      results.push({ ...r, i, at });
      await during(i, results);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  agent.destroy();
  return results;
}

async function scenario(t, { redispatch }) {
  const [pa, pb, front] = [await freePort(), await freePort(), await freePort()];
  // Registered first, so it runs before the apps are deleted: HAProxy's keep-alive
  // connections would hold their workers' graceful stop for kill_timeout (5 s).
  let lb = null;
  t.after(() => lb?.kill());
  const a = await host(t, hosts[0], pa);
  const b = await host(t, hosts[1], pb);
  lb = await haproxy(t, a.box.dir, { front, a: pa, b: pb, redispatch });
  // HAProxy sends no "listening" signal: retry one request until it answers (bounded).
  for (let i = 0; (await get(false, front)).status !== 200; i++) {
    assert.ok(i < 200, `HAProxy never answered on ${front}:\n${lb.log}`);
    await new Promise((r) => setTimeout(r, 50));
  }

  let phase = 'both-up';
  /** @type {Promise<any> | null} */
  let stopping = null;
  let downAfter = 0;
  lb.waitFor(/host-a is DOWN/, 60000).then(() => { phase = 'a-down'; }, () => {});
  const results = await requestLoop(front, {
    max: 20000,
    phase: () => phase,
    during: async (i, results) => {
      // Both hosts have answered: stop host A's app (graceful stop, as in a deploy gone wrong).
      if (!stopping && results.some((r) => a.pids.has(r.pid)) && results.some((r) => b.pids.has(r.pid)) && i >= 200) {
        phase = 'a-stopping';
        stopping = a.box.client().then(async (client) => {
          try {
            return await client.request('stop', { target: ['hello'] }, { timeout: 0 });
          } finally {
            client.close();
          }
        });
      }
    },
    done: () => phase === 'a-down' && ++downAfter > 500,
  });
  assert.deepEqual((await stopping).apps, ['hello']);
  await lb.waitFor(/host-a is DOWN/);

  const by = (p) => results.filter((r) => r.at === p);
  const failed = (rs) => rs.filter((r) => r.error || r.status !== 200);
  const before = by('both-up');
  const window = by('a-stopping');
  const after = by('a-down');
  assert.ok(before.some((r) => a.pids.has(r.pid)) && before.some((r) => b.pids.has(r.pid)), 'both hosts served before');
  assert.deepEqual(failed(before), [], 'no failure while both hosts are up');
  assert.ok(after.length >= 400, `${after.length} requests after HAProxy took host A out`);
  assert.deepEqual(failed(after), [], 'no failure once HAProxy took host A out');
  assert.ok(after.every((r) => b.pids.has(r.pid)), 'host B answers everything');
  // Between the stop and HAProxy's verdict (at most fall x inter = 2 checks 1 s apart),
  // only the requests sent in that window may fail.
  const lost = failed(window).length;
  assert.deepEqual(results.filter((r) => (r.error || r.status !== 200) && r.at !== 'a-stopping'), []);
  return { total: results.length, window: window.length, lost, errors: [...new Set(failed(window).map((r) => r.error ?? r.status))] };
}

test('HAProxy + two superd hosts: stopping one host\'s app moves all traffic to the other, no request lost (retries + redispatch)', needHaproxy, async (t) => {
  const r = await scenario(t, { redispatch: true });
  t.diagnostic(`example config: ${r.total} requests, ${r.window} sent between the stop and HAProxy's DOWN, ${r.lost} failed`);
  assert.equal(r.lost, 0, `with retries + redispatch no request fails (failed: ${r.errors})`);
});

test('HAProxy without redispatch: failures stay inside the check window', needHaproxy, async (t) => {
  const r = await scenario(t, { redispatch: false });
  t.diagnostic(`no redispatch: ${r.total} requests, ${r.window} sent between the stop and HAProxy's DOWN, ${r.lost} failed (${r.errors})`);
  // Without retries the stopped host's share of that window fails: proof that the loop
  // sees failures when there are some (so the 0 above means something).
  assert.ok(r.lost > 0, 'requests routed to the stopped host before its checks failed');
});

test('HAProxy checking /readyz: a host whose workers all shed (overload:) leaves the rotation, and comes back once they stop', needHaproxy, async (t) => {
  const [pa, pb, ma, mb, front] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  let lb = null;
  t.after(() => lb?.kill());
  for (const { box, port, mport } of [{ box: hosts[0], port: pa, mport: ma }, { box: hosts[1], port: pb, mport: mb }]) {
    deleteAtEnd(t, box, ['shed']);
    box.fixture('overload-lab.js');
    await box.start(box.write('shed.yml', [
      `metrics: { listen: 127.0.0.1:${mport}, interval: 300ms }`,
      'apps:',
      '  - name: shed',
      '    script: overload-lab.js',
      '    instances: 1',
      `    env: { PORT: ${port} }`,
      '    overload: { max_inflight: 2 }',
    ].join('\n')));
  }
  // As docs/overload.md has it: HAProxy checks each host's readiness on its metrics listener.
  const file = path.join(hosts[0].dir, `haproxy-readyz-${front}.cfg`);
  fs.writeFileSync(file, [
    'global', '    log stdout format raw local0 info',
    'defaults', '    mode http', '    log global', '    timeout connect 2s', '    timeout client 30s', '    timeout server 30s',
    '    timeout check 2s', // a slow answer on a busy machine is not a DOWN (helpers/haproxy.js balancerConfig)
    'frontend web', `    bind 127.0.0.1:${front}`, '    default_backend apps',
    'backend apps', '    balance roundrobin',
    '    option httpchk GET /readyz?app=shed', '    http-check expect status 200',
    '    default-server inter 300ms fall 2 rise 2',
    '    http-response set-header x-host %s',
    `    server host-a 127.0.0.1:${pa} check port ${ma}`,
    `    server host-b 127.0.0.1:${pb} check port ${mb}`, '',
  ].join('\n'));
  lb = await haproxy(t, hosts[0].dir, { front, a: pa, b: pb, redispatch: false, file });
  /** {status, host} of one request through HAProxy (a fresh connection: round-robin per request). */
  const viaLb = () => new Promise((resolve) => {
    http.get({ host: '127.0.0.1', port: front, path: '/', agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, host: res.headers['x-host'] }));
    }).on('error', (err) => resolve({ status: err.message }));
  });
  const hostsOf = async (n) => {
    const rs = [];
    for (let i = 0; i < n; i++) rs.push(await viaLb());
    return rs;
  };
  for (let i = 0; (await viaLb()).status !== 200; i++) {
    assert.ok(i < 200, `HAProxy never answered on ${front}:\n${lb.log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(new Set((await hostsOf(6)).map((r) => `${r.status} ${r.host}`)), new Set(['200 host-a', '200 host-b']));

  // Host A at its max_inflight: its next request is shed, and it says it is not ready.
  const held = await holdRequests(pa, 2);
  try {
    const direct = await new Promise((resolve) => http.get({ host: '127.0.0.1', port: pa, path: '/', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }));
    assert.equal(direct, 503);
    await lb.waitFor(/host-a is DOWN/);
    const during = await hostsOf(6);
    assert.deepEqual(during.map((r) => `${r.status} ${r.host}`), Array(6).fill('200 host-b'), 'host B takes everything while A sheds');
  } finally {
    held.release();
  }
  // The episode ends (a second without a shed request, under the bound): A is ready again.
  await lb.waitFor(/host-a is UP/);
  assert.ok((await hostsOf(6)).some((r) => r.host === 'host-a'), 'host A back in the rotation');
});
