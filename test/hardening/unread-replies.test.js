// A control client that never reads its replies, or never waits for them, must not make
// the daemon hold an unbounded queue for it: 20,000 `describe` requests with reading
// paused grew a daemon to 225 MB-1.2 GB, and other clients' `ls` timed out meanwhile.
// The control server holds at most 4 MB of unread replies and 64 unanswered requests per
// connection, then closes it (1008 and a reason).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { startControlServer } from '../../lib/ipc/server.js';
import { daemonLogPath } from '../../lib/home.js';
import { eventually } from '../helpers/wait.js';
import { sandbox } from '../helpers/harness.js';
import { rawConnect } from './raw-ws.js';

const request = (id, op, args = {}) => JSON.stringify({ id, op, args });

/** A control server on a socket of its own, serving `handlers`; `cuts` receives each cut's reason. */
async function controlServer(t, handlers) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-ur-'));
  const socketPath = path.join(dir, 's.sock');
  const cuts = [];
  const nop = () => {};
  const log = { debug: nop, info: nop, error: nop, fatal: nop, warn: (o, msg) => cuts.push(o.reason ?? msg), flush: (cb) => cb?.() };
  const server = await startControlServer({ socketPath, handlers, hello: {}, log });
  t.after(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { socketPath, cuts };
}

test('requests left unanswered: past 64, the server stops reading the client until one is answered', async (t) => {
  const waiting = [];
  const { socketPath } = await controlServer(t, { ping: () => new Promise((resolve) => waiting.push(resolve)), version: () => ({}) });
  const c = await rawConnect(socketPath);
  let replies = 0;
  c.on('message', (m) => m.id && replies++);
  for (let i = 1; i <= 64; i++) c.text(request(i, 'ping'));
  await eventually(() => waiting.length >= 64, { what: 'the first 64 requests reach the handler', every: 10 });
  const MORE = 2000; // ~100 KB: more than one read
  for (let i = 65; i <= 64 + MORE; i++) c.text(request(i, 'ping'));
  // Two round trips of another client: two turns of the server's loop, in which a server
  // reading the first client would have taken in more of its frames.
  const clock = await rawConnect(socketPath);
  for (let i = 1; i <= 2; i++) {
    clock.text(request(i, 'version'));
    await once(clock, 'message');
  }
  assert.equal(waiting.length, 64, 'no request taken in past the 64 unanswered');
  // Answering lets the rest in; every request is answered, nothing is cut.
  let done = 0;
  await eventually(() => {
    while (done < waiting.length) waiting[done++]();
    return done === 64 + MORE;
  }, { what: 'every request reaches the handler', every: 10 });
  await eventually(() => replies === 64 + MORE, { what: 'every request is answered', every: 10 });
  clock.destroy();
  c.destroy();
});

test('replies left unread: the connection is closed past 4 MB, and what was queued goes with it', async (t) => {
  const reply = { blob: 'r'.repeat(100_000) };
  const { socketPath, cuts } = await controlServer(t, { describe: () => reply });
  const c = await rawConnect(socketPath);
  c.pause();
  const SENT = 400; // 40 MB of replies if nothing bounded them
  for (let i = 1; i <= SENT; i++) c.text(request(i, 'describe', { app: 'x' }));
  await eventually(() => cuts.length > 0, { what: 'the server cuts the connection', every: 10 });
  assert.match(cuts[0], /^replies not read \(more than 4 MB waiting\)$/);
  let replies = 0;
  c.on('message', (m) => m.id && replies++);
  c.resume();
  const end = await c.ended;
  assert.ok(replies > 0 && replies < 60, `${replies} replies reached the client before the cut (4 MB and what the sockets hold)`);
  assert.ok(end.code === 1008 || end.code === null, `closed by the server (${end.code})`);
});

test('a daemon with a client that never reads: that client is cut, the daemon stays small, ls answers meanwhile', async (t) => {
  const box = await sandbox(t);
  box.fixture('idle.js');
  // Each `describe` reply carries the app's env: ~60 KB.
  const eco = box.write('eco.yml', `apps:\n  - name: web\n    script: idle.js\n    ready_on: spawn\n    env: { PAD: ${'p'.repeat(60_000)} }\n`);
  await box.start(eco);
  const pid = box.daemonPid();
  const rssBefore = memoryKb(pid, 'VmRSS');

  const c = await rawConnect(path.join(box.home, 'super.sock'));
  c.pause();
  const SENT = 1500; // ~90 MB of replies if nothing bounded them
  for (let i = 1; i <= SENT; i++) c.text(request(i, 'describe', { app: 'web' }));

  const other = await box.client();
  t.after(() => other.close());
  const { apps } = await other.request('ls', {}, { timeout: 10_000 }); // answered meanwhile
  assert.equal(apps[0].name, 'web');

  const logFile = daemonLogPath(box.home);
  await eventually(() => fs.readFileSync(logFile, 'utf8').includes('control connection cut'), { what: 'the daemon logs the cut', every: 10 });
  const grewMb = (memoryKb(pid, 'VmHWM') - rssBefore) / 1024;

  let replies = 0;
  c.on('message', (m) => m.id && replies++);
  c.resume();
  await c.ended;
  assert.ok(replies < SENT / 10, `${replies} of ${SENT} replies were sent before the cut`);
  assert.ok(grewMb < 48, `the daemon's peak RSS grew by ${grewMb.toFixed(1)} MB`);
});

/** A memory figure of /proc/<pid>/status, in kB (VmRSS now, VmHWM the peak). */
function memoryKb(pid, field) {
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
}
