// Issue 7: apps cannot take the daemon down. A worker floods the daemon (the cluster
// primary) with IPC messages of every shape, some looking like the agent's own: the
// daemon keeps answering `super ls`, another app keeps serving, its RSS stays bounded,
// and nothing the flood said reaches the daemon's log or the worker's metrics. One daemon for
// the file: each test adds its own apps and deletes them at its end.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { freePort, lsJson, watchEvents } from '../helpers/harness.js';
import { fileSandbox, deleteAtEnd } from '../helpers/file-daemon.js';
import { probeLs, probeHttp } from '../helpers/probes.js';

const FLOOD_MS = 2000; // and at least FLOOD_MIN messages, however long a busy machine takes
const FLOOD_MIN = 100000; // small messages the flood must at least have sent to count as one
const FLOOD_LARGE = 4; // messages of 8 MB
const LS_BOUND_MS = 3000;
const RSS_BOUND_MB = 250;

const box = await fileSandbox();

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

test('an IPC flood from a worker: ls answers, another app serves, daemon RSS bounded', { timeout: 120000 }, async (t) => {
  const port = await freePort();
  box.fixture('http-server.js');
  box.fixture('ipc-flood.js');
  const web = box.write('web.yml', `apps:\n  - name: web\n    script: http-server.js\n    env: { PORT: ${port} }\n`);
  deleteAtEnd(t, box, ['web', 'flood']);
  await box.start(web);
  const daemon = box.daemonPid();
  const rssBefore = rssMb(daemon);
  const logs = await watchEvents(box, t, ['log']);
  const done = logs.waitFor((e) => e.app === 'flood' && /flood done \d+/.test(e.text ?? ''), 100000, 'the flood to end');
  let flooding = true;
  done.finally(() => (flooding = false)).catch(() => {});

  // From before the flood to its end: ls answers in bounded time, the other app never fails.
  let rssMax = rssBefore;
  // Each probe round also samples the daemon's RSS.
  const busy = () => {
    rssMax = Math.max(rssMax, rssMb(daemon));
    return flooding;
  };
  const lsProbe = probeLs(box, t, busy);
  const httpProbe = probeHttp(port, busy);

  const flood = box.write('flood.yml', `apps:\n  - name: flood\n    script: ipc-flood.js\n    ready_on: spawn\n    env: { FLOOD_MS: "${FLOOD_MS}", FLOOD_MIN: "${FLOOD_MIN}", FLOOD_LARGE: "${FLOOD_LARGE}" }\n`);
  const t0 = performance.now();
  await box.start(flood);
  const end = await done;
  const floodMs = Math.round(performance.now() - t0);
  const [{ daemonMs, cliMs }, { served, failures }] = await Promise.all([lsProbe, httpProbe]);
  const sent = Number(/flood done (\d+)/.exec(end.text)[1]);
  t.diagnostic(`flood: ${sent} messages in ${floodMs} ms; ls: ${daemonMs.length} calls, daemon answer max ${Math.max(...daemonMs)} ms, super ls max ${Math.max(...cliMs)} ms; web: ${served} served; daemon RSS ${rssBefore.toFixed(0)} MB before, max ${rssMax.toFixed(0)} MB`);
  assert.ok(sent >= FLOOD_MIN + FLOOD_LARGE, `a flood: ${sent} messages`);
  assert.ok(daemonMs.length >= 2, 'ls was probed during the flood');
  assert.ok(Math.max(...daemonMs) < LS_BOUND_MS, `the daemon answered every ls within ${LS_BOUND_MS} ms: ${daemonMs}`);
  assert.ok(served > 0, 'the other app was probed');
  assert.deepEqual(failures, [], 'the other app never failed');
  assert.ok(rssMax < RSS_BOUND_MB, `daemon RSS stayed under ${RSS_BOUND_MB} MB (max ${rssMax.toFixed(0)} MB)`);

  // The flooding worker is still supervised like any other; the daemon logged no line per message.
  const ls = await lsJson(box);
  const fl = ls.apps.find((a) => a.name === 'flood').workers[0];
  assert.deepEqual([fl.status, fl.restarts], ['online', 0]);
  const daemonLog = fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8').split('\n').length;
  assert.ok(daemonLog < 1000, `daemon.log has ${daemonLog} lines: the flood is not logged message by message`);
  const client = await box.client();
  t.after(() => client.close());
  await client.request('ping', {}, { timeout: 10000 }); // the daemon is fine
});

test('a report shaped like the agent\'s, with wrong types, is not taken as the worker\'s metrics', async (t) => {
  box.fixture('fake-metrics.js');
  // metrics_interval 1h: the real agent does not report over the fake one during the test
  const eco = box.write('fake.yml', 'apps:\n  - name: fake\n    script: fake-metrics.js\n    ready_on: ready\n    metrics_interval: 1h\n');
  deleteAtEnd(t, box, ['fake']);
  await box.start(eco);
  const table = await box.cli(['ls']);
  assert.equal(table.code, 0, `ls renders: ${table.stderr}`);
  assert.match(table.stdout, /fake\s+0\s+\d+\s+online/);
  const [w] = (await lsJson(box)).apps.find((a) => a.name === 'fake').workers;
  const m = w.metrics;
  assert.notEqual(m.report_age_ms, null, 'the report arrived');
  assert.deepEqual([m.loop_delay_ms, m.elu, m.heap_used, m.heap_total, m.rss_self, m.http_rps, m.http_p99_ms], [null, null, null, null, null, null, null]);
  const types = Object.keys(m.resources);
  assert.equal(types.length, 32, 'at most 32 resource types are kept');
  assert.deepEqual(types.slice(0, 2), ['TCPServerWrap', 'Extra0'], 'non-numbers and bad names left out');
  assert.equal((await box.cli(['describe', 'fake'])).code, 0);
});
