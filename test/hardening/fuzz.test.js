// Hostile input never hurts: FUZZ_COUNT (default 3,000: the ~935 messages of the
// deterministic sweep of every op and argument, then ~2,000 random ones; set 10000 or more
// for a longer hunt) generated control messages,
// plus websocket framing violations, oversized frames and abrupt disconnects in the middle
// of frames and of long ops. The daemon answers every message with an error reply (with
// the message's id when it had a usable one) or closes that connection; it stays up,
// restarts nothing, logs no internal error, and an app serves a concurrent keep-alive
// request loop without a single failure.
//   FUZZ_SEED=<n> FUZZ_COUNT=<n> node --test test/hardening/fuzz.test.js   to replay
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import http from 'node:http';
import { sandbox, freePort, lsJson, watchEvents } from '../helpers/harness.js';
import { MAX_FRAME, OPS } from '../../lib/ipc/protocol.js';
import { CODES } from '../../lib/errors.js';
import { mulberry32, makeGenerator, expectedId } from './fuzz-messages.js';
import { rawConnect, frame, OP } from './raw-ws.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const COUNT = Number(process.env.FUZZ_COUNT ?? 3000);
const CONNECTIONS = 3;
const BATCH = 100;
const GHOST = 'ghost-app-that-does-not-exist';

/** A keep-alive GET loop on 2 sockets until stop(); every failure is counted with its cause. */
function requestLoop(port) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  const r = { ok: 0, failed: 0, causes: {}, pids: new Set() };
  let stopped = false;
  const one = (retry = true) => new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent, timeout: 10000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        const m = /pid=(\d+) app=web/.exec(body);
        if (res.statusCode === 200 && m) {
          r.ok++;
          r.pids.add(Number(m[1]));
        } else fail(`status ${res.statusCode}`);
        resolve();
      });
    });
    const fail = (cause) => {
      r.failed++;
      r.causes[cause] = (r.causes[cause] ?? 0) + 1;
    };
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', /** @param {NodeJS.ErrnoException} err */ (err) => {
      // A kept-alive connection the worker closed as idle (5 s) just as the request went out
      // (this process was busy that long with a big frame): sent again once, as HTTP
      // clients do (Node's docs on request.reusedSocket). A fresh connection is not retried.
      if (retry && req.reusedSocket && err.code === 'ECONNRESET') return void one(false).then(resolve);
      fail(err.code ?? err.message);
      resolve();
    });
  });
  const loop = async () => {
    // paced a little: the loop proves service, it is not a benchmark
    while (!stopped) {
      await one();
      await new Promise((res) => setTimeout(res, 10));
    }
  };
  const loops = [loop(), loop()];
  let result = null;
  return async () => {
    if (result) return result;
    stopped = true;
    await Promise.all(loops);
    agent.destroy();
    result = r;
    return r;
  };
}

/**
 * Sends `count` generated messages over one connection, in batches each followed by a
 * ping, and checks that every message was answered. Reconnects if the daemon closes it.
 */
async function fuzzConnection(socketPath, next, count, stats, label) {
  /** @type {any} a raw websocket connection (rawConnect) */
  let conn = null;
  let pending = new Map(); // id -> replies still expected
  let outstanding = 0; // sum of pending
  let nullPending = 0; // replies with id null still expected
  let wake = () => {};
  const texts = new Map(); // id -> message, to name what went unanswered
  const open = async () => {
    conn = await rawConnect(socketPath);
    pending = new Map();
    outstanding = 0;
    nullPending = 0;
    conn.on('message', (m) => {
      if (m.hello || m.event || m.progress) return;
      if (m.ok === false) {
        stats.codes[m.error?.code] = (stats.codes[m.error?.code] ?? 0) + 1;
        if (!(m.error?.code in CODES) || m.error.code === 'E_INTERNAL') stats.bad.push(m);
      }
      if (m.id === null) {
        nullPending--;
        stats.nullReplies++;
      } else if (pending.get(m.id) > 0) {
        pending.set(m.id, pending.get(m.id) - 1);
        outstanding--;
        if (typeof m.id === 'string' && m.id.startsWith('ping-')) stats.pings++;
        else if (m.ok === false) stats.errorReplies++;
        else {
          stats.okReplies++;
          // only a real op can succeed (not "toString", "__proto__", ...)
          if (!Object.hasOwn(OPS, JSON.parse(texts.get(m.id)).op)) stats.bad.push({ ok: m, for: texts.get(m.id) });
        }
      } else stats.unexpected.push(m);
      wake();
    });
    conn.ended.then(() => wake());
  };
  await open();
  let sent = 0;
  for (let batch = 0; sent < count; batch++) {
    const n = Math.min(BATCH, count - sent);
    const ping = `ping-${label}-${batch}`;
    for (let i = 0; i < n; i++) {
      const msg = next();
      stats.kinds[msg.kind] = (stats.kinds[msg.kind] ?? 0) + 1;
      if (msg.binary) {
        nullPending++;
        conn.binary(msg.binary);
      } else {
        const id = expectedId(msg.text);
        if (id === null) nullPending++;
        else {
          pending.set(id, (pending.get(id) ?? 0) + 1);
          outstanding++;
          texts.set(id, msg.text);
        }
        conn.text(msg.text);
      }
    }
    sent += n;
    pending.set(ping, 1);
    outstanding++;
    conn.text(JSON.stringify({ id: ping, op: 'ping' }));
    const unanswered = () => `${nullPending} messages without id and ${JSON.stringify([...pending].filter(([, c]) => c > 0).map(([id]) => texts.get(id)?.slice(0, 200) ?? id))}`;
    const ended = await waitBatch(() => outstanding === 0 && nullPending <= 0, () => conn.ended, (f) => (wake = f), unanswered);
    if (ended) {
      // the daemon closed this connection: what it had not answered counts as closed
      stats.closedByDaemon++;
      stats.closedMessages += outstanding - pending.get(ping) + Math.max(nullPending, 0);
      await open();
    }
    if (nullPending < 0) {
      stats.unexpected.push({ extraNullReplies: -nullPending });
      nullPending = 0;
    }
  }
  conn.destroy();
}

/** Resolves false once done() holds, true if the connection ended first; fails after 60 s of silence. */
function waitBatch(done, ended, setWake, unanswered) {
  return new Promise((resolve, reject) => {
    let timer;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => reject(new Error(`no answer for 60 s: the daemon went silent; unanswered: ${unanswered()}`)), 60000);
    };
    let finished = false;
    const check = () => {
      if (finished) return;
      if (done()) {
        finished = true;
        clearTimeout(timer);
        resolve(false);
      } else arm();
    };
    setWake(check);
    ended().then(() => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      resolve(true);
    });
    check();
  });
}

/** Websocket framing violations: each on its own connection, which the daemon must close. */
const FRAMING = [
  ['reserved bit 1', 1002, (c) => c.write(frame({ op: OP.TEXT, rsv: 4, payload: Buffer.from('{"id":1,"op":"ping"}') }))],
  ['reserved bit 2', 1002, (c) => c.write(frame({ op: OP.TEXT, rsv: 2, payload: Buffer.from('{"id":1,"op":"ping"}') }))],
  ['reserved bit 3', 1002, (c) => c.write(frame({ op: OP.TEXT, rsv: 1, payload: Buffer.from('{"id":1,"op":"ping"}') }))],
  ['unmasked client frame', 1002, (c) => c.write(frame({ op: OP.TEXT, mask: false, payload: Buffer.from('{"id":1,"op":"ping"}') }))],
  ...[3, 4, 5, 6, 7, 11, 12, 13, 14, 15].map((op) => [`opcode ${op}`, 1002, (c) => c.write(frame({ op, payload: Buffer.from('x') }))]),
  ['continuation with nothing to continue', 1002, (c) => c.write(frame({ op: OP.CONT, payload: Buffer.from('{}') }))],
  ['new text frame inside a fragmented one', 1002, (c) => c.write(Buffer.concat([frame({ op: OP.TEXT, fin: false, payload: Buffer.from('{"id":') }), frame({ op: OP.TEXT, payload: Buffer.from('1}') })]))],
  ['ping with a 126-byte payload', 1002, (c) => c.write(frame({ op: OP.PING, payload: Buffer.alloc(126) }))],
  ['fragmented ping', 1002, (c) => c.write(frame({ op: OP.PING, fin: false, payload: Buffer.from('x') }))],
  ['close with a 1-byte payload', 1002, (c) => c.write(frame({ op: OP.CLOSE, payload: Buffer.from([3]) }))],
  ...[0, 999, 1004, 1005, 1006, 1015, 2999, 5000, 65535].map((code) => [`close code ${code}`, 1002, (c) => {
    const p = Buffer.alloc(2);
    p.writeUInt16BE(code);
    c.write(frame({ op: OP.CLOSE, payload: p }));
  }]),
  ['close reason not UTF-8', 1007, (c) => c.write(frame({ op: OP.CLOSE, payload: Buffer.from([0x03, 0xe8, 0xff, 0xfe]) }))],
  ...[[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80]].map((bytes) => [`text not UTF-8 (${Buffer.from(bytes).toString('hex')})`, 1007,
    (c) => c.write(frame({ op: OP.TEXT, payload: Buffer.concat([Buffer.from('{"id":1,"op":"'), Buffer.from(bytes), Buffer.from('"}')]) }))]),
  ['length 2^63 (more than 2^53-1)', 1009, (c) => c.write(frame({ op: OP.TEXT, length: 2n ** 63n }).subarray(0, 14))],
  ['length 2^40 announced, nothing sent', 1009, (c) => c.write(frame({ op: OP.TEXT, length: 2n ** 40n }).subarray(0, 14))],
  ['one frame larger than MAX_FRAME', 1009, (c) => c.write(frame({ op: OP.TEXT, payload: Buffer.alloc(MAX_FRAME + 1, 0x20) }))],
  ['fragments adding up to more than MAX_FRAME', 1009, (c) => c.write(Buffer.concat([
    frame({ op: OP.TEXT, fin: false, payload: Buffer.alloc(MAX_FRAME / 2 + 10, 0x20) }),
    frame({ op: OP.CONT, payload: Buffer.alloc(MAX_FRAME / 2 + 10, 0x20) }),
  ]))],
];

/** Requests cut off mid-frame or mid-operation by a vanishing client. */
function disconnects(rand) {
  const pick = (a) => a[Math.floor(rand() * a.length)];
  const req = (id, op, args) => frame({ op: OP.TEXT, payload: Buffer.from(JSON.stringify({ id, op, args })) });
  const cases = [
    ['length header larger than the data', (c) => c.write(frame({ op: OP.TEXT, length: 500, payload: Buffer.from('{"id":1,"op":"ping"}') }).subarray(0, 30))],
    ['half a frame header', (c) => c.write(Buffer.from([0x81]))],
    ['header without its mask key', (c) => c.write(Buffer.from([0x81, 0x85, 0x01, 0x02]))],
    ['half a fragmented message', (c) => c.write(frame({ op: OP.TEXT, fin: false, payload: Buffer.from('{"id":1,') }))],
    ['during reload of bg', (c) => c.write(req(1, 'reload', { target: 'bg' })), 'progress'],
    ['right after asking for reload of bg', (c) => c.write(req(1, 'reload', { target: 'bg' }))],
    ['while following logs', (c) => c.write(req(1, 'logs', { target: 'all', follow: true, lines: 100000 })), 'reply'],
    ['right after asking to follow logs', (c) => c.write(req(1, 'logs', { target: 'web', follow: true }))],
    ['while subscribed to everything', (c) => c.write(req(1, 'subscribe', { topics: ['worker', 'reload', 'metrics', 'watch', 'log'] })), 'reply'],
    ['right after describe', (c) => c.write(req(1, 'describe', { app: 'web' }))],
    ['in the middle of a 600 KiB frame', (c) => c.write(frame({ op: OP.TEXT, payload: Buffer.alloc(600 * 1024, 0x20) }).subarray(0, 300 * 1024))],
  ];
  return Array.from({ length: 40 }, (_, i) => (i < cases.length ? cases[i] : pick(cases)));
}

/** Raw bytes that are not a websocket handshake at all: the daemon must end the socket. */
const NOT_WEBSOCKET = [
  'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello',
  'GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 7\r\nSec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\n\r\n',
  'GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n',
  `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70000)}\r\n\r\n`,
  '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 tls hello\r\n\r\n',
  'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
  '\r\n\r\nGARBAGE\r\n\r\n',
];

function endsSocket(socketPath, bytes) {
  return new Promise((resolve) => {
    const s = net.connect(socketPath);
    s.on('error', () => {});
    s.on('connect', () => s.write(bytes));
    s.resume();
    s.on('close', () => resolve(true));
    setTimeout(() => resolve(false), 20000).unref();
  });
}

test(`the daemon survives ${COUNT} hostile control messages (seed ${SEED})`, async (t) => {
  const t0 = Date.now();
  t.diagnostic(`FUZZ_SEED=${SEED} FUZZ_COUNT=${COUNT}`);
  console.log(`# fuzz: FUZZ_SEED=${SEED} FUZZ_COUNT=${COUNT}`);
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  box.fixture('idle.js');
  const eco = box.write('eco.yml', `apps:\n  - name: web\n    script: http-server.js\n    instances: 2\n    env: { PORT: ${port} }\n` +
    '  - name: bg\n    script: idle.js\n    ready_on: spawn\n    min_uptime: 100ms\n');
  assert.equal((await box.cli(['start', eco])).code, 0);
  const daemonPid = box.daemonPid();
  const before = await lsJson(box);
  const webPids = before.apps.find((a) => a.name === 'web').workers.map((w) => w.pid);
  assert.equal(webPids.length, 2);
  const socketPath = path.join(box.home, 'super.sock');
  const stopLoad = requestLoop(port);
  t.after(stopLoad);

  // 1. generated messages on parallel connections
  const rand = mulberry32(SEED);
  const next = makeGenerator(rand, { ghost: GHOST });
  const stats = { kinds: {}, codes: {}, errorReplies: 0, okReplies: 0, nullReplies: 0, closedByDaemon: 0, closedMessages: 0, pings: 0, bad: [], unexpected: [] };
  const share = Math.ceil(COUNT / CONNECTIONS);
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => fuzzConnection(socketPath, next, Math.min(share, COUNT - i * share), stats, i)));
  const phase1 = Date.now() - t0;
  const answered = stats.errorReplies + stats.okReplies + stats.nullReplies;
  assert.equal(answered + stats.closedMessages, COUNT, `every message answered or its connection closed: ${JSON.stringify(stats)}`);
  assert.deepEqual(stats.bad, [], 'no E_INTERNAL or unknown error code');
  assert.deepEqual(stats.unexpected, [], 'no reply to a message that was not sent');

  // 2. framing violations and oversized frames: the daemon closes those connections
  const closes = {};
  for (const [what, code, send] of /** @type {[string, number, (c: any) => void][]} */ (FRAMING)) {
    const c = await rawConnect(socketPath);
    send(c);
    const end = await Promise.race([c.ended, new Promise((r) => setTimeout(() => r({ timeout: true }), 20000).unref())]);
    assert.ok(end.byDaemon, `${what}: the daemon closed the connection (${JSON.stringify(end)})`);
    assert.equal(end.code, code, `${what}: close code`);
    closes[code] = (closes[code] ?? 0) + 1;
  }
  // a correct fragmented message whose fragments split a UTF-8 character is fine
  const frag = await rawConnect(socketPath);
  const fragReply = new Promise((r) => frag.on('message', (m) => m.id === 'frag' && r(m)));
  const msg = Buffer.from('{"id":"frag","op":"describe","args":{"app":"wé"}}');
  const cut = msg.indexOf(0xc3) + 1;
  frag.write(Buffer.concat([frame({ op: OP.TEXT, fin: false, payload: msg.subarray(0, cut) }), frame({ op: OP.PING, payload: Buffer.from('p') }), frame({ op: OP.CONT, payload: msg.subarray(cut) })]));
  assert.equal((await fragReply).error.code, 'E_APP_NOT_FOUND');
  frag.destroy();
  for (const bytes of NOT_WEBSOCKET) assert.ok(await endsSocket(socketPath, bytes), `the daemon ends a non-websocket connection: ${JSON.stringify(bytes.slice(0, 40))}`);

  // 3. clients vanishing mid-frame and mid-operation
  const reloads = await watchEvents(box, t, ['reload']);
  const cuts = disconnects(rand);
  for (const [, send, waitFor] of cuts) {
    const c = await rawConnect(socketPath);
    // progress: the op has begun (or was refused as busy); reply: it has answered
    const got = new Promise((r) => c.on('message', (m) => m.id === 1 && (waitFor === 'progress' || !m.progress) && r()));
    send(c);
    if (waitFor) await Promise.race([got, c.ended, new Promise((r) => setTimeout(r, 20000).unref())]);
    c.destroy();
  }
  // the last of those reloads may still run: bg reloads fine once it is done
  const client = await box.client();
  t.after(() => client.close());
  for (let i = 0; ; i++) {
    const r = await client.request('reload', { target: 'bg' }).catch((err) => err);
    if (r.code !== 'E_BUSY') {
      assert.equal(r.apps?.[0]?.ok, true, `bg reloads after the disconnects: ${JSON.stringify(r)}`);
      break;
    }
    assert.ok(i < 20, 'bg stays busy');
    const seen = reloads.seen.length;
    await reloads.waitFor((e, idx = reloads.seen.indexOf(e)) => idx >= seen && e.app === 'bg' && e.step === 'done', 30000, 'a reload of bg to end');
  }

  // the apps served throughout, nothing restarted, the daemon is the same process
  const load = await stopLoad();
  assert.equal(load.failed, 0, `request failures: ${JSON.stringify(load.causes)}`);
  assert.ok(load.ok > 0, 'the request loop ran');
  // (which of the two: the loop's two kept-alive connections may both reach one worker under reuseport)
  assert.deepEqual([...load.pids].filter((pid) => !webPids.includes(pid)), [], 'only the original web workers answered');
  assert.equal(box.daemonPid(), daemonPid);
  process.kill(daemonPid, 0);
  const after = await lsJson(box);
  assert.deepEqual(after.apps.find((a) => a.name === 'web').workers.map((w) => [w.pid, w.restarts, w.status]), webPids.map((p) => [p, 0, 'online']));
  assert.equal(after.apps.find((a) => a.name === 'bg').workers[0].status, 'online');
  const ls = await box.cli(['ls']);
  assert.equal(ls.code, 0, ls.stderr);

  // nothing the fuzz sent made a handler throw something unexpected
  const daemonLog = fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const errors = daemonLog.filter((l) => l.level >= 50 || /E_INTERNAL|uncaught|unhandled|handler failed/i.test(l.msg));
  assert.deepEqual(errors, [], 'no error in daemon.log');

  const disconnectCount = cuts.length + NOT_WEBSOCKET.length;
  const total = COUNT + FRAMING.length + 1 + disconnectCount;
  console.log(`# fuzz: ${total} messages in ${((Date.now() - t0) / 1000).toFixed(1)} s (seed ${SEED}): ${COUNT} generated in ${(phase1 / 1000).toFixed(1)} s ` +
    `(${stats.errorReplies} error replies with id, ${stats.nullReplies} with id null, ${stats.okReplies} ok to valid reads, ` +
    `${stats.closedMessages} on ${stats.closedByDaemon} connections the daemon closed), ${FRAMING.length} framing violations closed ` +
    `(${JSON.stringify(closes)}), ${disconnectCount} abrupt disconnects; ${load.ok} HTTP requests, 0 failed`);
  console.log(`# fuzz: kinds ${JSON.stringify(stats.kinds)}; error codes ${JSON.stringify(stats.codes)}`);
});
