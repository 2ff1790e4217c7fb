// socket.io across cluster workers (docs/realtime.md): the real `socket.io` server (the plain
// app of test/fixtures/apps/socketio.cjs, no sticky code) and `socket.io-client`, each client
// from its own loopback address (127.0.0.10 and up), on socket.io's default transports
// (long-polling, then the upgrade to websocket).
//
// 1. handshake: --clients clients connect at once (no reconnection) to --workers workers
//    under superd without sticky, PM2 (cluster mode), a bare node:cluster primary
//    (bench/raw-cluster.js), and superd with `sticky: ip` and `sticky: sid`. A client counts
//    as failed when it does not connect, or loses its session before its --asks acknowledged
//    'whoami' are answered (a request on a worker that does not know its session: HTTP 400
//    "Session ID unknown"); for the others, how many workers answered it (the app reports
//    its pid).
// 2. reconnect: superd with `sticky: ip`, every client connected and sending acknowledged
//    messages (one at a time, --gap ms apart, socket.io's `retries` so a message not
//    acknowledged is sent again), through `super reload` and through a SIGKILL of one
//    worker: how long each dropped client took to reconnect (from 'disconnect' to 'connect',
//    p50 / p99 / max), and messages never acknowledged. Clients use socket.io's reconnection
//    defaults (first attempt after 1 s +-50 %, doubling to 5 s) unless --delay says otherwise.
//   node bench/socketio.js [--clients 200] [--workers 4] [--asks 3] [--only handshake|reconnect]
//                          [--drain 3000] [--gap 200] [--delay 1000]
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import { benchArgs } from './lib/args.js';
import { ROOT, SUPER_BIN, run, sleep, startPm2, startRaw, startSuperd, stopAllOnExit } from './targets.js';

const { io } = createRequire(import.meta.url)('socket.io-client');
const APP = path.join(ROOT, 'test/fixtures/apps/socketio.cjs');
const opt = benchArgs(process.argv.slice(2), {
  defaults: { clients: 200, workers: 4, asks: 3, only: 'all', drain: 3000, gap: 200, delay: 1000 },
  choices: { only: ['all', 'handshake', 'reconnect'] },
  usage: 'node bench/socketio.js [--clients 200] [--workers 4] [--asks 3] [--only handshake|reconnect] [--drain ms] [--gap ms] [--delay ms]',
});
if (opt.clients > 240) throw new Error('--clients: at most 240 (one loopback address each, 127.0.0.10-249)');
stopAllOnExit();

/** A socket.io client from 127.0.0.<10 + i>. */
function client(port, i, options) {
  const agent = new http.Agent({ localAddress: `127.0.0.${10 + i}` });
  const socket = io(`http://127.0.0.1:${port}`, { agent, forceNew: true, ...options });
  return { socket, close: () => { socket.close(); agent.destroy(); } };
}

const describeError = (err) => {
  const d = err?.description;
  return `${err?.message ?? err}${d === undefined ? '' : ` (${typeof d === 'object' ? d.message ?? d.type ?? 'error' : d})`}`;
};

/** One client through the handshake and `asks` acknowledged messages: {error} or {pids, transport}. */
async function handshakeOne(port, i) {
  const c = client(port, i, { reconnection: false, timeout: 10000 });
  try {
    let lost = null;
    c.socket.on('disconnect', (reason) => (lost ??= `disconnected: ${reason}`));
    const connected = await new Promise((resolve) => {
      c.socket.once('connect', () => resolve(null));
      c.socket.once('connect_error', (err) => resolve(describeError(err)));
    });
    if (connected) return { error: `connect_error: ${connected}` };
    // The upgrade to websocket, if it comes (bounded), then the messages.
    const engine = c.socket.io.engine;
    if (engine.transport.name !== 'websocket') await Promise.race([new Promise((r) => engine.once('upgrade', r)), sleep(2000)]);
    const pids = new Set();
    for (let n = 0; n < opt.asks && !lost; n++) {
      const answer = await c.socket.timeout(5000).emitWithAck('whoami', n).catch(() => null);
      if (answer) pids.add(answer.pid);
      else lost ??= 'no acknowledgement';
    }
    return lost ? { error: lost } : { pids, transport: engine.transport.name };
  } finally {
    c.close();
  }
}

async function handshakeRound(target) {
  const results = await Promise.all(Array.from({ length: opt.clients }, (_, i) => handshakeOne(target.port, i)));
  const errors = results.filter((r) => r.error);
  const ok = results.filter((r) => !r.error);
  const reasons = {};
  for (const e of errors) {
    const key = e.error;
    reasons[key] = (reasons[key] ?? 0) + 1;
  }
  return {
    target: target.name,
    failed: errors.length,
    oneWorker: ok.filter((r) => r.pids.size === 1).length,
    split: ok.filter((r) => r.pids.size > 1).length,
    websocket: ok.filter((r) => r.transport === 'websocket').length,
    workers: new Set(ok.flatMap((r) => [...r.pids])).size,
    reasons,
  };
}

async function handshakes() {
  /** @type {[string, () => Promise<any>][]} */
  const starts = [
    ['superd', () => startSuperd({ instances: opt.workers, script: APP, name: 'superd' })],
    ['pm2 (cluster mode)', () => startPm2({ instances: opt.workers, script: APP, name: 'pm2 (cluster mode)' })],
    ['bare node:cluster', () => startRaw({ instances: opt.workers, script: APP, name: 'bare node:cluster' })],
    ['superd, sticky: ip', () => startSuperd({ instances: opt.workers, script: APP, app: ['sticky: ip'], name: 'superd, sticky: ip', everyWorker: false })],
    ['superd, sticky: sid', () => startSuperd({ instances: opt.workers, script: APP, app: ['sticky: sid'], name: 'superd, sticky: sid' })],
  ];
  const rows = [];
  for (const [name, start] of starts) {
    const target = await start();
    try {
      const r = await handshakeRound(target);
      process.stderr.write(`${name}: ${JSON.stringify(r)}\n`);
      rows.push(r);
    } finally {
      await target.stop();
    }
  }
  console.log(`\n${opt.clients} socket.io clients (default transports), ${opt.workers} workers, ${opt.asks} acknowledged messages each\n`);
  console.log('| target | clients failed | why (count) | connected, all answers from one worker | connected, answered by 2+ workers | on websocket at the end | workers seen |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const why = Object.entries(r.reasons).map(([k, v]) => `${k} (${v})`).join('; ') || '-';
    console.log(`| ${r.target} | ${r.failed} of ${opt.clients} | ${why} | ${r.oneWorker} | ${r.split} | ${r.websocket} | ${r.workers} |`);
  }
}

const pct = (xs, p) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)] : null);

/**
 * Clients connected and talking through `event()` (a reload or a crash): per dropped client
 * its reconnect times, and the messages never acknowledged.
 */
async function throughEvent(target, label, event) {
  const reconnect = { reconnectionDelay: opt.delay, ackTimeout: 3000, retries: 20 };
  const clients = Array.from({ length: opt.clients }, (_, i) => client(target.port, i, reconnect));
  const gaps = []; // ms from a 'disconnect' to the next 'connect'
  const handshakes = []; // ms from the last reconnection attempt to that 'connect'
  let attempts = 0; // the most attempts a reconnection took
  const dropped = new Set();
  let sent = 0;
  let lost = 0;
  let talking = true;
  try {
    await Promise.all(clients.map((c) => new Promise((resolve, reject) => {
      c.socket.once('connect', resolve);
      c.socket.once('connect_error', reject);
    })));
    clients.forEach((c, i) => {
      let down = 0;
      let attemptAt = 0;
      c.socket.on('disconnect', () => {
        down = performance.now();
        dropped.add(i);
      });
      c.socket.io.on('reconnect_attempt', (n) => {
        attemptAt = performance.now();
        attempts = Math.max(attempts, n);
      });
      c.socket.on('connect', () => {
        if (!down) return;
        gaps.push(performance.now() - down);
        handshakes.push(performance.now() - attemptAt);
      });
    });
    const talk = clients.map(async (c) => {
      for (let n = 0; talking; n++) {
        sent++;
        // retries: socket.io queues it, sends it again after each ackTimeout, and across a reconnection.
        if (!(await c.socket.emitWithAck('whoami', n).then(() => true, () => false))) lost++;
        await sleep(opt.gap);
      }
    });
    await sleep(2000);
    const t0 = performance.now();
    await event();
    const eventMs = performance.now() - t0;
    // Until every dropped client is back, bounded.
    for (let i = 0; i < 600 && clients.some((c) => !c.socket.connected); i++) await sleep(50);
    await sleep(1000);
    talking = false;
    await Promise.all(talk);
    const notBack = clients.filter((c) => !c.socket.connected).length;
    return { event: label, dropped: dropped.size, reconnects: gaps.length, p50: pct(gaps, 50), p99: pct(gaps, 99), max: pct(gaps, 100), handshakeP50: pct(handshakes, 50), handshakeMax: pct(handshakes, 100), attempts, notBack, sent, lost, eventMs: Math.round(eventMs) };
  } finally {
    talking = false;
    for (const c of clients) c.close();
  }
}

async function reconnects() {
  const rows = [];
  const target = await startSuperd({ instances: opt.workers, script: APP, app: ['sticky: ip', `drain_timeout: ${opt.drain}`], name: 'superd, sticky: ip', everyWorker: false });
  try {
    rows.push(await throughEvent(target, '`super reload`', () => run(process.execPath, [SUPER_BIN, 'reload', 'bench-hello'], { env: target.env, timeout: 120000 })));
    process.stderr.write(`${JSON.stringify(rows.at(-1))}\n`);
    rows.push(await throughEvent(target, 'SIGKILL of one worker', async () => {
      const ls = JSON.parse(await run(process.execPath, [SUPER_BIN, 'ls', '--json'], { env: target.env }));
      process.kill(ls.apps[0].workers[0].pid, 'SIGKILL');
    }));
    process.stderr.write(`${JSON.stringify(rows.at(-1))}\n`);
  } finally {
    await target.stop();
  }
  const ms = (x) => (x === null ? '-' : `${Math.round(x)} ms`);
  console.log(`\n${opt.clients} socket.io clients, superd with sticky: ip, ${opt.workers} workers, drain_timeout ${opt.drain} ms, reconnectionDelay ${opt.delay} ms (socket.io: x0.5-1.5, doubling to 5 s)\n`);
  console.log('| event | clients dropped | reconnections | away p50 | p99 | max | of which the last attempt, p50 / max | attempts (most) | not back | messages acknowledged / sent | lost | the reload took |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.event} | ${r.dropped} | ${r.reconnects} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ${ms(r.handshakeP50)} / ${ms(r.handshakeMax)} | ${r.attempts} | ${r.notBack} | ${r.sent - r.lost} / ${r.sent} | ${r.lost} | ${r.event.startsWith('SIGKILL') ? '-' : ms(r.eventMs)} |`);
}

if (opt.only !== 'reconnect') await handshakes();
if (opt.only !== 'handshake') await reconnects();
