// A real reverse proxy in front of a target, for the load benches (bench/overload.js): nginx
// or HAProxy (Debian's packages), each started by the bench on a config of its own in a temp
// directory, listening on loopback, run on CPU 0 (beside the driver and the daemon), and
// stopped (its process group SIGKILLed: it holds no state) when the measurement ends.
//   nginx    the default `proxy_pass` upstream: HTTP/1.0 and a new connection per request
//            (no `keepalive` in an upstream block), one worker process
//   haproxy  `mode http` with its defaults: keep-alive on both sides (idle server
//            connections reused: `http-reuse safe`), no `maxconn` on the server
// Install: apt-get install -y nginx-light haproxy (nginx or nginx-light: either gives /usr/sbin/nginx).
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { freePort, markedEnv, reapMarked, sleep } from '../targets.js';
import { ON_CPU0 } from './pinned-worker.js';

const binary = (name) => [`/usr/sbin/${name}`, name].find((p) => spawnSync(p, ['-v']).status === 0);

/** The proxies this host has, by name. */
export const PROXIES = {
  nginx: binary('nginx'),
  haproxy: binary('haproxy'),
};

/** The nginx config: a master and one worker, the default proxy_pass (HTTP/1.0, no upstream keep-alive). */
function nginxConfig(dir, port, upstream) {
  return [
    'daemon off;',
    'worker_processes 1;',
    'worker_rlimit_nofile 16384;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'env SUPERD_BENCH_MARK;', // the bench's marker reaches the worker too (its /proc sweep)
    'events { worker_connections 8192; }',
    'http {',
    '  access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `  ${k}_temp_path ${dir}/${k};`),
    '  server {',
    `    listen 127.0.0.1:${port};`,
    `    location / { proxy_pass http://127.0.0.1:${upstream}; }`,
    '  }',
    '}',
    '',
  ].join('\n');
}

/** The HAProxy config: mode http with its defaults, one server. */
function haproxyConfig(dir, port, upstream) {
  return [
    'global',
    '    maxconn 8192', // two descriptors a connection: within a 20,000 ulimit
    'defaults',
    '    mode http',
    '    timeout connect 5s',
    '    timeout client 30s',
    '    timeout server 30s',
    'frontend bench',
    `    bind 127.0.0.1:${port}`,
    '    default_backend app',
    'backend app',
    `    server app 127.0.0.1:${upstream}`,
    '',
  ].join('\n');
}

/** Resolves once something accepts connections on 127.0.0.1:port (bounded). */
async function listening(port, child, name, dir) {
  const deadline = Date.now() + 10000;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const c = net.connect(port, '127.0.0.1', () => { c.destroy(); resolve(true); }).on('error', () => resolve(false));
    });
    if (ok) return;
    if (child.exitCode !== null || Date.now() > deadline) {
      let errors = '';
      for (const f of ['error.log', 'stderr.log']) {
        try { errors += fs.readFileSync(path.join(dir, f), 'utf8'); } catch { /* none */ }
      }
      throw new Error(`${name} did not listen on ${port}: ${errors.trim().split('\n').slice(-5).join('\n')}`);
    }
    await sleep(50);
  }
}

/**
 * Starts `name` (nginx | haproxy) in front of 127.0.0.1:upstream.
 * @returns {Promise<{name: string, port: number, stop: () => Promise<void>}>}
 */
export async function startProxy(name, upstream) {
  const bin = PROXIES[name];
  if (!bin) throw new Error(`${name} is not installed (apt-get install -y ${name === 'nginx' ? 'nginx-light' : name})`);
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `superd-bench-${name}-`));
  const file = path.join(dir, `${name}.conf`);
  fs.writeFileSync(file, name === 'nginx' ? nginxConfig(dir, port, upstream) : haproxyConfig(dir, port, upstream));
  const args = name === 'nginx' ? ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', file] : ['-f', file, '-db'];
  const { env, mark } = markedEnv(name);
  const err = fs.openSync(path.join(dir, 'stderr.log'), 'a');
  const argv = [...ON_CPU0, bin, ...args];
  // detached: its own process group, so stop() reaches nginx's worker too.
  const child = spawn(argv[0], argv.slice(1), { env, detached: true, stdio: ['ignore', err, err] });
  fs.closeSync(err);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
    await exited;
    await reapMarked(name, mark);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await listening(port, child, name, dir);
  } catch (e) {
    await stop();
    throw e;
  }
  return { name, port, stop };
}
