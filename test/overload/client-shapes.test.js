// Issue 39, overload shedding for every client shape: a request is judged by the wait it
// really sees (from the daemon's accept under round-robin, max_queue_wait), so clients that
// open a new connection per request are shed past capacity (refused, never timed out); a
// host busy with other programs sheds nothing at a low load; slow uploads do not count as
// in flight (GETs beside them are served, /readyz stays ready); pipelined GETs on an idle
// worker are served. One daemon, two one-worker apps of the overload fixture.
import http from 'node:http';
import net from 'node:net';
import { spawn } from 'node:child_process';
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sandbox, freePort, httpGet, describeJson } from '../helpers/harness.js';
import { openLoop } from '../helpers/open-loop-requests.js';

/** Sends `n` pipelined GETs on one connection; resolves with the statuses of the answers (bounded: 10 s). */
function pipelined(port, n) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const statuses = () => [...text.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => Number(m[1]));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`pipelined: ${statuses().length} of ${n} answers in 10 s`));
    }, 10000);
    socket.on('connect', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(n)));
    socket.on('data', (d) => {
      text += d;
      if (statuses().length >= n) {
        clearTimeout(timer);
        socket.destroy();
        resolve(statuses());
      }
    });
    socket.on('error', reject);
  });
}

/**
 * Starts `n` POSTs whose bodies come a byte a second (the app is sent their headers). Returns
 * `ended`: a promise of each upload's end, its answer's status or 'closed' (the server
 * closed it unanswered), and stop(), which ends the ones still going.
 */
function slowUploads(port, n) {
  const reqs = [];
  const timers = [];
  const ends = [];
  for (let i = 0; i < n; i++) {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/upload', agent: false, headers: { 'content-length': 1000 } });
    ends.push(new Promise((resolve) => {
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', () => resolve('closed'));
      req.on('close', () => resolve('closed'));
    }));
    req.flushHeaders();
    timers.push(setInterval(() => req.write('x'), 1000));
    reqs.push(req);
  }
  return {
    ended: Promise.all(ends).finally(() => timers.forEach(clearInterval)),
    stop() {
      timers.forEach(clearInterval);
      reqs.forEach((r) => r.destroy());
    },
  };
}

test('overload by queue wait: every client shape', async (t) => {
  const box = await sandbox(t);
  const [portA, portB, mport] = [await freePort(), await freePort(), await freePort()];
  box.fixture('overload-lab.js');
  const eco = box.write('eco.yml', [
    `metrics: { listen: 127.0.0.1:${mport}, interval: 300ms }`,
    'apps:',
    '  - name: queue',
    '    script: overload-lab.js',
    '    instances: 1',
    `    env: { PORT: ${portA} }`,
    '    overload: { max_queue_wait: 500ms }',
    '  - name: uploads',
    '    script: overload-lab.js',
    '    instances: 1',
    `    env: { PORT: ${portB} }`,
    '    overload: { max_inflight: 16, max_queue_wait: 500ms, request_timeout: 2s }',
  ].join('\n'));
  await box.start(eco);

  await t.test('50 pipelined GETs on an idle worker are all served', async () => {
    const statuses = await pipelined(portB, 50);
    assert.deepEqual(statuses, Array(50).fill(200));
  });

  await t.test('16 slow uploads (1 byte/s): GETs beside them served, /readyz ready, the uploads ended by request_timeout', async () => {
    const uploads = slowUploads(portB, 16);
    try {
      // the uploads' headers reach the app: let their requests be read before the GETs
      await new Promise((r) => setTimeout(r, 300));
      const counts = await openLoop(portB, '/', 20, 20);
      assert.deepEqual(counts, { 200: 20 });
      assert.equal((await httpGet(mport, '/readyz?app=uploads')).status, 200);
      // request_timeout 2s, checked every 0.5 s: each upload gets 408 (or its connection is
      // closed) within a few seconds, never Node's 300 s; bounded here at 10 s.
      let bound;
      const ends = await Promise.race([uploads.ended, new Promise((resolve) => (bound = setTimeout(resolve, 10000, null)))]);
      clearTimeout(bound);
      assert.ok(ends, 'the slow uploads were still open 10 s after they started');
      for (const end of ends) assert.ok(end === 408 || end === 'closed', `an upload ended with ${end}`);
    } finally {
      uploads.stop();
    }
  });

  await t.test('a host busy with other programs: at a low load nothing is refused', async () => {
    // CPU-bound programs, each in its own session (detached: setsid, its own autogroup), that
    // end by themselves after a few seconds (a timer would never fire under a busy loop) and
    // are killed by their group at the end: node is the session leader, so -pid is its group.
    const busy = [1, 2, 3].map(() => spawn(process.execPath, ['-e', 'const end = Date.now() + 4000; while (Date.now() < end);'], { stdio: 'ignore', detached: true }));
    try {
      // Cheap requests: the worker's capacity stays far above the load however starved it is.
      const counts = await openLoop(portA, '/', 20, 40);
      const why = async () => fs.readFileSync((await describeJson(box, 'queue')).logs.err, 'utf8').split('\n').filter((l) => l.includes('overload')).join('\n');
      assert.ok((counts[503] ?? 0) <= 1, `refused on a busy host: ${JSON.stringify(counts)}\n${await why()}`);
      assert.equal(counts[200] + (counts[503] ?? 0), 40, JSON.stringify(counts));
    } finally {
      for (const p of busy) {
        try {
          process.kill(-p.pid, 'SIGKILL');
        } catch {}
      }
    }
  });

  await t.test('a new connection per request at ~4x capacity: refused, none timed out', async () => {
    // 20 ms of CPU a request: at most 50/s on a free core; 200 new connections a second.
    const counts = await openLoop(portA, '/burn?ms=20', 200, 400);
    assert.deepEqual(Object.keys(counts).sort(), ['200', '503'], JSON.stringify(counts));
    assert.ok(counts[503] > 0 && counts[200] > 0, JSON.stringify(counts));
  });

  await t.test('keep-alive clients at ~4x capacity, their pool growing: refused, none timed out', async () => {
    // Each request past the pool's free connections opens one; they queue in the daemon's
    // handoff, one per turn of the worker, and must not wait there past the clients' timeout.
    // A pool of a connection or two at a low load first, then 3 s at ~4x: clients that give up
    // after 3 s (without the fix, the pool's new connections waited up to 4 s).
    await openLoop(portA, '/', 20, 10, { keepAlive: true });
    const counts = await openLoop(portA, '/burn?ms=20', 200, 600, { keepAlive: true, timeout: 3000 });
    assert.deepEqual(Object.keys(counts).sort(), ['200', '503'], JSON.stringify(counts));
  });
});
