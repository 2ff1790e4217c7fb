// The daemon's CPU per 1,000 new connections, with and without `sticky:` (docs/realtime.md):
// examples/hello with 2 workers under superd (round-robin), one short request per
// connection (`Connection: close`), from 16 client addresses (127.0.0.10-25). Targets, in
// interleaved rounds: plain round-robin, sticky: ip, sticky: sid (its head read in the
// daemon; requests without sid, the handshake path). The figure is the daemon's own CPU time
// (utime + stime from /proc) over the load, less its idle background over the same time, so a
// busy host stretches the wall time more than it. CPU ticks are 10 ms: 2,000 connections
// give the figure to about +-5 ms per 1,000.
//   node bench/sticky.js [--connections 2000] [--rounds 2] [--concurrency 20]
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SUPER = path.join(ROOT, 'bin', 'super.js');
const { values: opt } = parseArgs({ options: { connections: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '2' }, concurrency: { type: 'string', default: '20' } } });
const CONNECTIONS = Number(opt.connections);
const IDLE_MS = 3000;
const HZ = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;

/** utime + stime of `pid`, ms (fields 14 and 15 of /proc/<pid>/stat, after the command's closing parenthesis). */
const cpuMs = (pid) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / HZ;
};

function oneRequest(port, i) {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1', localAddress: `127.0.0.${10 + (i % 16)}` }, () => s.end('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    let ok = false;
    s.on('data', (d) => (ok ||= d.toString('latin1', 0, 12).includes('200')));
    s.on('close', () => resolve(ok));
    s.on('error', () => {});
  });
}

async function load(port) {
  let next = 0;
  let failed = 0;
  const lane = async () => {
    while (next < CONNECTIONS) if (!(await oneRequest(port, next++))) failed++;
  };
  await Promise.all(Array.from({ length: Number(opt.concurrency) }, lane));
  return failed;
}

async function measure(sticky) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-sticky-bench-'));
  const port = 20000 + Math.floor(Math.random() * 10000);
  const file = path.join(home, 'eco.yml');
  fs.writeFileSync(file, `apps:\n  - name: hello\n    script: ${path.join(ROOT, 'examples/hello/server.js')}\n    instances: 2\n${sticky ? `    sticky: ${sticky}\n` : ''}    env:\n      PORT: ${port}\n`);
  const env = { ...process.env, SUPER_HOME: path.join(home, 'h'), NO_COLOR: '1' };
  execFileSync(process.execPath, [SUPER, 'start', file], { env, stdio: 'ignore' });
  try {
    const pid = Number(fs.readFileSync(path.join(home, 'h', 'daemon.pid'), 'utf8'));
    await load(port); // warm-up, same size
    // The daemon's own background (sampling, timers) per ms, over an idle window: taken off
    // the load's figure, as a target whose load lasts longer (a busy host) pays more of it.
    const idle0 = cpuMs(pid);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const background = (cpuMs(pid) - idle0) / IDLE_MS;
    const before = cpuMs(pid);
    const t0 = Date.now();
    const failed = await load(port);
    const wall = Date.now() - t0;
    const net = cpuMs(pid) - before - background * wall;
    return { cpu_ms_per_1000: Math.round((net / CONNECTIONS) * 1000 * 10) / 10, wall_ms: wall, background_ms_per_s: Math.round(background * 1000 * 10) / 10, failed };
  } finally {
    execFileSync(process.execPath, [SUPER, 'kill'], { env, stdio: 'ignore' });
    fs.rmSync(home, { recursive: true, force: true });
  }
}

const targets = [['round-robin', null], ['sticky: ip', 'ip'], ['sticky: sid', 'sid']];
const results = Object.fromEntries(targets.map(([name]) => [name, []]));
for (let r = 0; r < Number(opt.rounds); r++) {
  for (const [name, sticky] of targets) {
    const m = await measure(sticky);
    results[name].push(m);
    process.stderr.write(`round ${r + 1} ${name}: ${JSON.stringify(m)}\n`);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(results['round-robin'].map((m) => m.cpu_ms_per_1000));
console.log(`| target | daemon CPU ms per 1,000 connections (median) | vs round-robin | rounds | failed |`);
console.log('|---|---|---|---|---|');
for (const [name] of targets) {
  const xs = results[name].map((m) => m.cpu_ms_per_1000);
  console.log(`| ${name} | ${median(xs)} | ${(median(xs) / base).toFixed(2)}x | ${xs.join(' / ')} | ${results[name].reduce((a, m) => a + m.failed, 0)} |`);
}
