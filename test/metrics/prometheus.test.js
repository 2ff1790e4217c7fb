// Issues 4 and 16: the optional metrics listener answers with parseable text (exposition
// format 0.0.4, checked by promtool) with Prometheus' conventions (counters, summaries, a
// worker is app + slot), and /healthz, /readyz probes.
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { sandbox, freePort, httpGet, lsJson, FIXTURES, ROOT } from '../helpers/harness.js';
import { watchMetrics } from '../helpers/metrics.js';
import { request, killDaemon, resurrect } from '../helpers/requests.js';
import { renderPrometheus } from '../../lib/master/health/prometheus-text.js';
import { loadEcosystemText } from '../../lib/config/index.js';
import { fdTargets } from '../helpers/proc-fds.js';

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*)\})? (-?(?:\d+(?:\.\d+)?(?:e[+-]?\d+)?|NaN|\+Inf|-Inf))$/;

/** A strict parser of the text format: throws on any line it does not accept. */
function parsePrometheus(text) {
  assert.ok(text.endsWith('\n'), 'ends with a newline');
  const families = new Map();
  /** @type {{name: string, help: string, type: string|null, samples: object[]}} */
  let current = null;
  for (const line of text.slice(0, -1).split('\n')) {
    let m;
    if ((m = /^# HELP (\S+) (.+)$/.exec(line))) {
      assert.match(m[1], NAME);
      assert.ok(!families.has(m[1]), `family ${m[1]} appears once`);
      current = { name: m[1], help: m[2], type: null, samples: [] };
      families.set(m[1], current);
    } else if ((m = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line))) {
      assert.equal(m[1], current?.name, 'TYPE follows its HELP');
      current.type = m[2];
    } else if ((m = SAMPLE.exec(line))) {
      const family = current?.type === 'summary' ? m[1].replace(/_(?:sum|count)$/, '') : m[1];
      assert.equal(family, current?.name, `sample ${m[1]} belongs to the family above it`);
      assert.ok(current.type, `${m[1]} has a TYPE`);
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
      current.samples.push({ name: m[1], labels, value: Number(m[3]) });
    } else {
      assert.fail(`not a valid exposition line: ${JSON.stringify(line)}`);
    }
  }
  return families;
}

const hasPromtool = spawnSync('promtool', ['--version']).status === 0;
// CI installs promtool (.ci/run, Debian package prometheus); elsewhere its check is skipped.
const needPromtool = hasPromtool || process.env.CI ? {} : { skip: 'promtool is not installed (apt-get install prometheus)' };

/** The identity of every series: name and labels, the pid of superd_worker_info left out. */
const seriesKeys = (fam, skip = []) => [...fam].filter(([name]) => !skip.includes(name)).flatMap(([, f]) => f.samples.map((s) => `${s.name}${JSON.stringify({ ...s.labels, pid: undefined })}`)).sort();
const total = (fam, name) => fam.get(name).samples.reduce((sum, s) => sum + s.value, 0);

test('the metrics listener: Prometheus conventions, counters, /healthz and /readyz', async (t) => {
  const box = await sandbox(t);
  const [port, mport] = [await freePort(), await freePort()];
  box.fixture('loop-lab.js');
  const eco = box.write('eco.yml', `metrics:\n  listen: 127.0.0.1:${mport}\n  interval: 300ms\napps:\n  - name: web\n    script: loop-lab.js\n    instances: 2\n    env: { PORT: ${port} }\n`);
  await box.start(eco);
  const m = await watchMetrics(box, t);
  await m.waitFor((w, app) => app.workers.every((x) => x.metrics?.report_age_ms !== null), 30000, 'both workers reported');
  const scrape = async () => {
    const res = await httpGet(mport, '/metrics');
    assert.equal(res.status, 200);
    return { text: res.body, fam: parsePrometheus(res.body) };
  };

  await t.test('series are per app + slot, the pid only in superd_worker_info; no float noise', async () => {
    const { text, fam } = await scrape();
    const pids = (await lsJson(box)).apps[0].workers.map((w) => String(w.pid)).sort();
    assert.deepEqual(fam.get('superd_worker_info').samples.map((s) => s.labels.pid).sort(), pids);
    for (const [name, f] of fam) {
      if (name === 'superd_worker_info') continue;
      assert.ok(f.samples.every((s) => !('pid' in s.labels)), `${name} has no pid label`);
    }
    for (const name of ['superd_worker_resident_memory_bytes', 'superd_worker_heap_used_bytes', 'superd_worker_event_loop_utilization_ratio', 'superd_worker_start_time_seconds']) {
      const f = fam.get(name);
      assert.equal(f?.type, 'gauge', `${name} is a gauge`);
      assert.deepEqual(f.samples.map((s) => s.labels).sort((a, b) => a.slot - b.slot), [{ app: 'web', slot: '0' }, { app: 'web', slot: '1' }]);
    }
    assert.ok(fam.get('superd_worker_resident_memory_bytes').samples.every((s) => s.value > 1e6), 'bytes, not KiB');
    const started = fam.get('superd_worker_start_time_seconds').samples.map((s) => s.value);
    assert.ok(started.every((v) => Math.abs(v - Date.now() / 1000) < 300), `epoch seconds: ${started}`);
    for (const name of ['superd_worker_cpu_seconds_total', 'superd_worker_http_requests_total', 'superd_worker_restarts_total']) assert.equal(fam.get(name)?.type, 'counter', name);
    for (const name of ['superd_worker_cpu_percent', 'superd_worker_http_requests_per_second', 'superd_worker_http_response_time_p99_seconds']) assert.ok(!fam.has(name), `${name} is gone`);
    const loop = fam.get('superd_worker_event_loop_delay_seconds');
    assert.equal(loop.type, 'summary');
    assert.deepEqual([...new Set(loop.samples.map((s) => s.labels.quantile))].sort(), ['0.5', '0.99', '1']);
    assert.equal(fam.get('superd_worker_http_response_time_seconds').type, 'summary');
    assert.deepEqual(fam.get('superd_app_workers').samples, [{ name: 'superd_app_workers', labels: { app: 'web', status: 'online' }, value: 2 }]);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    assert.deepEqual(fam.get('superd_build_info').samples, [{ name: 'superd_build_info', labels: { version: pkg.version, node: process.version }, value: 1 }]);
    assert.equal(fam.get('process_start_time_seconds').samples.length, 1, 'the daemon\'s own process_* series');
    // At most 6 decimals (micro-units), never 0.30000000000000004.
    for (const line of text.split('\n')) if (line && !line.startsWith('#')) assert.match(line, / (?:-?\d+(?:\.\d{1,6})?|NaN)$/, line);
    assert.equal((await httpGet(mport, '/other')).status, 404);
  });

  await t.test('promtool check metrics accepts the text', needPromtool, async () => {
    const { text } = await scrape();
    const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.equal((r.stdout + r.stderr).trim(), '', 'no lint warning');
  });

  await t.test('requests and CPU are counters that grow', async () => {
    const before = (await scrape()).fam;
    const requests = 20;
    for (let i = 0; i < requests; i++) assert.equal((await httpGet(port, '/block?ms=10')).status, 200);
    let fam = before;
    for (let i = 0; i < 100 && total(fam, 'superd_worker_http_requests_total') < total(before, 'superd_worker_http_requests_total') + requests; i++) {
      await m.waitFor(() => true); // the next sample
      fam = (await scrape()).fam;
    }
    assert.equal(total(fam, 'superd_worker_http_requests_total'), total(before, 'superd_worker_http_requests_total') + requests);
    assert.ok(total(fam, 'superd_worker_cpu_seconds_total') > total(before, 'superd_worker_cpu_seconds_total'), 'CPU seconds grew');
    const count = fam.get('superd_worker_http_response_time_seconds').samples.filter((s) => s.name.endsWith('_count'));
    assert.equal(count.reduce((sum, s) => sum + s.value, 0), total(fam, 'superd_worker_http_requests_total'), '_count = requests');
    // _sum: the response times of those requests, each > 0 and well under a second here
    const sum = fam.get('superd_worker_http_response_time_seconds').samples.filter((s) => s.name.endsWith('_sum')).reduce((a, s) => a + s.value, 0);
    const n = count.reduce((a, s) => a + s.value, 0);
    assert.ok(sum > 0 && sum < n, `_sum ${sum} s for ${n} requests`);
  });

  await t.test('a restart creates no new series and resets no counter', async () => {
    const skip = ['superd_worker_active_resources']; // labelled by resource type, which varies
    const before = (await scrape()).fam;
    const [w0] = (await lsJson(box)).apps[0].workers;
    process.kill(w0.pid, 'SIGKILL');
    await m.waitFor((w) => w.slot === 0 && w.pid !== w0.pid && w.status === 'online' && w.metrics?.report_age_ms !== null, 30000, 'slot 0 replaced and reporting');
    const after = (await scrape()).fam;
    assert.deepEqual(seriesKeys(after, skip), seriesKeys(before, skip));
    const slot0 = (fam, name) => fam.get(name).samples.find((s) => s.labels.slot === '0').value;
    assert.ok(slot0(after, 'superd_worker_http_requests_total') >= slot0(before, 'superd_worker_http_requests_total'));
    assert.ok(slot0(after, 'superd_worker_cpu_seconds_total') >= slot0(before, 'superd_worker_cpu_seconds_total'));
    assert.equal(slot0(after, 'superd_worker_restarts_total'), slot0(before, 'superd_worker_restarts_total') + 1);
    assert.notEqual(after.get('superd_worker_info').samples.find((s) => s.labels.slot === '0').labels.pid, String(w0.pid));
  });

  await t.test('/healthz and /readyz answer, during a rolling reload too', async () => {
    const health = await httpGet(mport, '/healthz');
    assert.equal(health.status, 200);
    assert.equal(JSON.parse(health.body).ok, true);
    const ready = await httpGet(mport, '/readyz?app=web');
    assert.equal(ready.status, 200);
    assert.deepEqual(JSON.parse(ready.body), { ok: true, apps: [{ app: 'web', desired: 2, ready: 2, ok: true }] });
    assert.equal((await httpGet(mport, '/readyz')).status, 200, 'every app');
    const unknown = await httpGet(mport, '/readyz?app=nope');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body, /no app named \\"nope\\"/);

    // A rolling reload keeps two ready workers: every probe meanwhile says 200.
    const reloading = request(box, 'reload', { target: ['web'] });
    let done = false;
    reloading.then(() => (done = true));
    const answers = [];
    for (let i = 0; i < 2000 && !done; i++) {
      const [h, r] = await Promise.all([httpGet(mport, '/healthz'), httpGet(mport, '/readyz?app=web')]);
      answers.push(`${h.status}/${r.status}`);
      await new Promise((res) => setTimeout(res, 10)); // a probe's pace, not a load on the daemon it probes
    }
    assert.ok((await reloading).apps.every((a) => a.ok), 'reloaded');
    assert.ok(answers.length > 0, 'probed during the reload');
    assert.deepEqual([...new Set(answers)], ['200/200'], `${answers.length} probes`);

    await request(box, 'stop', { target: ['web'] });
    const stopped = await httpGet(mport, '/readyz?app=web');
    assert.equal(stopped.status, 503);
    assert.deepEqual(JSON.parse(stopped.body).apps, [{ app: 'web', desired: 2, ready: 0, ok: false }]);
    assert.equal((await httpGet(mport, '/readyz')).status, 200, 'an app stopped on purpose does not fail the daemon-wide probe');
    assert.equal((await httpGet(mport, '/healthz')).status, 200);
  });
});

test('label values are escaped (quotes, backslashes, newlines)', () => {
  const text = renderPrometheus({ apps: [{ name: 'a"b\\c', workers: [{ slot: 0, pid: 1, status: 'online', restarts: 0, uptime_ms: 1, metrics: { cpu: 1, resources: { 'x\ny': 1 } } }] }] }, { cpuSeconds: 1, rss: 1, startTime: 1, version: '0.0.0', node: 'v0' });
  const fam = parsePrometheus(text);
  assert.equal(fam.get('superd_worker_up').samples[0].labels.app, 'a\\"b\\\\c');
  assert.equal(fam.get('superd_worker_active_resources').samples[0].labels.type, 'x\\ny');
});

test('save / resurrect keep the metrics settings: the endpoint is back after a daemon restart', async (t) => {
  const box = await sandbox(t);
  const [port, mport] = [await freePort(), await freePort()];
  box.fixture('loop-lab.js');
  const eco = box.write('eco.yml', `metrics:\n  listen: 127.0.0.1:${mport}\n  interval: 400ms\napps:\n  - name: web\n    script: loop-lab.js\n    env: { PORT: ${port} }\n`);
  await box.start(eco);
  await request(box, 'save');
  const dump = JSON.parse(fs.readFileSync(path.join(box.home, 'dump.json'), 'utf8'));
  assert.deepEqual(dump.metrics, { listen: `127.0.0.1:${mport}`, interval: 400 });
  await killDaemon(box);
  await assert.rejects(httpGet(mport, '/metrics'), 'the endpoint went with the daemon');
  await resurrect(box);
  const res = await httpGet(mport, '/metrics');
  assert.equal(res.status, 200);
  assert.match(res.body, /^superd_worker_up\{app="web",slot="0"\} 1$/m);
});

/**
 * TCP sockets `pid` is listening on, as {host, port}: its socket inodes (/proc/pid/fd)
 * matched against the LISTEN rows (state 0A) of /proc/net/tcp and tcp6.
 */
function listeningSockets(pid) {
  const inodes = new Set();
  for (const { target } of fdTargets(pid)) {
    const m = /^socket:\[(\d+)\]$/.exec(target);
    if (m) inodes.add(m[1]);
  }
  const found = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of fs.readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      const cols = row.trim().split(/\s+/);
      if (cols[3] !== '0A' || !inodes.has(cols[9])) continue;
      const [addr, port] = cols[1].split(':');
      // IPv4 is one little-endian word; IPv6 is shown as its hex (all zeros: any address).
      const host = addr.length === 8 ? addr.match(/../g).reverse().map((b) => parseInt(b, 16)).join('.') : `[${addr}]`;
      found.push({ host, port: parseInt(port, 16) });
    }
  }
  return found.sort((a, b) => a.port - b.port);
}

test('metrics.listen as a bare port (9209 or "9209") means 127.0.0.1:9209', () => {
  const file = path.join(FIXTURES, 'good-config', 'eco.yml'); // next to its app.js
  const listenOf = (v) => loadEcosystemText(`metrics: { listen: ${v} }\napps:\n  - { name: a, script: app.js }\n`, file, { cpus: 1 }).daemon.metrics.listen;
  assert.equal(listenOf('9209'), '127.0.0.1:9209');
  assert.equal(listenOf('"9209"'), '127.0.0.1:9209');
  assert.equal(listenOf('"[::1]:9209"'), '[::1]:9209', 'host:port stays as written');
  assert.throws(() => listenOf('70000'), /** @param {any} err */ (err) => /metrics\.listen: port 70000 is out of range/.test(err.details.problems.join('\n')));
});

// One daemon, each step a file with an app of its own: the endpoint opens with the first
// file that asks for it and can have it (lib/master/health/metrics-settings.js).
test('the metrics endpoint on one daemon: none without a metrics section; a port in use is a start warning; a bare port is 127.0.0.1', async (t) => {
  const box = await sandbox(t);
  box.fixture('loop-lab.js');
  const appFile = async (name, metrics) => {
    const port = await freePort();
    return { port, file: box.write(`${name}.yml`, `${metrics ? `metrics: ${metrics}\n` : ''}apps:\n  - name: ${name}\n    script: loop-lab.js\n    env: { PORT: ${port} }\n`) };
  };
  const byPort = (list) => list.sort((a, b) => a.port - b.port);

  // The only TCP socket the daemon listens on is the app's own port (the cluster primary
  // holds it in round-robin mode): found, so the check sees the daemon's sockets.
  const plain = await appFile('plain');
  await box.start(plain.file);
  assert.deepEqual(listeningSockets(box.daemonPid()), [{ host: '127.0.0.1', port: plain.port }], 'without a metrics section the daemon opens no metrics port');

  const net = await import('node:net');
  const blocker = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => blocker.once('listening', r));
  t.after(() => blocker.close());
  const blocked = await appFile('blocked', `{ listen: 127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (blocker.address()).port} }`);
  const r = await box.cli(['start', blocked.file]);
  assert.equal(r.code, 0);
  assert.match(r.stderr + r.stdout, /metrics endpoint could not listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\)/);
  assert.equal((await lsJson(box)).apps.find((a) => a.name === 'blocked').status, 'online', 'apps still start');

  const mport = await freePort();
  const bare = await appFile('bare', `{ listen: ${mport} }`);
  const { warnings = [] } = await box.start(bare.file);
  assert.deepEqual(warnings.filter((w) => /metrics endpoint could not listen/.test(w)), []);
  const res = await httpGet(mport, '/metrics');
  assert.equal(res.status, 200);
  assert.match(res.body, /^superd_worker_up\{app="bare",slot="0"\} 1$/m);
  // Bound to loopback only (not 0.0.0.0 or ::), beside the apps' ports (loop-lab.js listens
  // on 127.0.0.1; the cluster primary holds those sockets).
  const expected = byPort([plain.port, blocked.port, bare.port, mport].map((port) => ({ host: '127.0.0.1', port })));
  assert.deepEqual(listeningSockets(box.daemonPid()), expected);
});
