// A real HAProxy for a test (Debian's package): started on a config the test writes, with
// its runtime API socket (`stats socket ... level admin`), killed when the test ends; and a
// bounded request load through it.
import fs from 'node:fs';
import net from 'node:net';
import http from 'node:http';
import path from 'node:path';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { eventually } from './wait.js';

export const HAPROXY = ['/usr/sbin/haproxy', 'haproxy'].find((p) => spawnSync(p, ['-v']).status === 0);
// CI installs haproxy (.ci/run); elsewhere a missing haproxy skips, never passes.
export const needHaproxy = HAPROXY || process.env.CI ? {} : { skip: 'haproxy is not installed (apt-get install haproxy)' };

/**
 * HAProxy on `lines` (the config after its `global` section, which this adds with the stats
 * socket) in `dir`. Resolves once its runtime API answers.
 * @returns {Promise<{socket: string, api: (cmd: string) => Promise<string>, readonly log: string, kill: () => void}>}
 */
export async function startHaproxy(t, dir, lines) {
  const socket = path.join(dir, `haproxy-${process.pid}.sock`);
  const file = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(file, ['global', `    stats socket ${socket} mode 600 level admin`, ...lines, ''].join('\n'));
  const check = spawnSync(HAPROXY, ['-c', '-f', file], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stdout + check.stderr);
  const child = spawn(HAPROXY, ['-f', file, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const kill = () => child.kill('SIGKILL');
  t.after(kill);
  /** One runtime API command's answer. */
  const api = (cmd) => new Promise((resolve, reject) => {
    const c = net.connect(socket, () => c.end(`${cmd}\n`));
    let out = '';
    c.on('data', (d) => (out += d));
    c.on('end', () => resolve(out));
    c.on('error', reject);
  });
  await eventually(() => fs.existsSync(socket), { timeout: 10000, what: 'haproxy\'s stats socket', last: () => log });
  return { socket, api, get log() { return log; }, kill };
}

/** GET / through `agent` (false: a new connection); {status, pid} of the hello app's answer (and the start of any other's body), or {error}. */
export function get(agent, port) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        const pid = Number(/\(pid (\d+)\)/.exec(body)?.[1]);
        // who refused, when one did: HAProxy's page or the daemon's, in a failing test's message
        resolve(res.statusCode === 200 ? { status: res.statusCode, pid } : { status: res.statusCode, pid, body: body.replace(/\s+/g, ' ').slice(0, 120) });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (/** @type {NodeJS.ErrnoException} */ err) => resolve({ error: err.code ?? err.message }));
  });
}

/**
 * Bounded load on `port`: 3 keep-alive clients and 1 with a new connection per request, each
 * pausing 10 ms after an answer, until stop() (or `max` requests); stopped when `t` ends.
 */
export function load(t, port, max = 20000) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 3 });
  const results = [];
  let stopped = false;
  const client = async (a) => {
    while (!stopped && results.length < max) {
      results.push(await get(a, port));
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const running = Promise.all([client(agent), client(agent), client(agent), client(false)]);
  const stop = async () => {
    stopped = true;
    await running;
    agent.destroy();
    return results;
  };
  t.after(stop);
  return { results, stop };
}

/** server name -> {op, admin, weight} from `show servers state <backend>` (columns named by its header). */
export async function serversState(lb, backend) {
  const lines = (await lb.api(`show servers state ${backend}`)).split('\n');
  const header = lines.find((l) => l.startsWith('# be_id'))?.slice(2).split(' ');
  assert.ok(header, 'show servers state has its header');
  const col = (row, name) => row[header.indexOf(name)];
  const state = {};
  for (const l of lines) {
    const row = l.split(' ');
    if (!/^\d+$/.test(row[0])) continue;
    state[col(row, 'srv_name')] = { op: Number(col(row, 'srv_op_state')), admin: Number(col(row, 'srv_admin_state')), weight: Number(col(row, 'srv_uweight')) };
  }
  return state;
}

/**
 * HAProxy config lines (after `global`) for an HTTP frontend on 127.0.0.1:`front` to the
 * backend `apps`: round-robin, checked on GET /health (a check may take 2 s), no retries nor
 * redispatch (a failed request is counted, not hidden).
 * @param {number} front
 * @param {string} defaultServer  the `default-server` settings (check inter ...)
 * @param {string[]} servers  `server NAME ADDRESS ...` lines
 */
export function balancerConfig(front, defaultServer, servers) {
  return [
    'defaults',
    '    mode http',
    '    timeout connect 2s', '    timeout client 30s', '    timeout server 30s',
    // Without it a check times out after `inter` (300 ms in some tests): on a busy machine a
    // healthy host answers /health later than that, and two such checks took it DOWN while
    // the other host was drained (503 for every request). A dead host still fails at once.
    '    timeout check 2s',
    '    retries 0',
    'frontend web', `    bind 127.0.0.1:${front}`, '    default_backend apps',
    'backend apps',
    '    balance roundrobin',
    '    option httpchk GET /health',
    `    default-server ${defaultServer}`,
    ...servers.map((s) => `    ${s}`),
  ];
}
