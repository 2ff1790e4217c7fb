// A fleet for `super deploy` tests: N daemons standing in for N hosts (each its own
// SUPER_HOME, app port and TCP control listener on loopback, one token for all) behind a
// real HAProxy with its runtime API and no retries. The app serves the release written in
// its host's `release` file (read at start); a release named bad-* answers 500 (its /health
// stays ok, so only an error-rate gate catches it); a host with a `broken` file crashes at
// start on any release but v1. The step (`--step`) writes $SUPER_DEPLOY_RELEASE into the
// host's file and logs each run to steps.log; `reloadArgs` leave it out (a rolling reload of
// the release each host has).
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { sandbox, freePort, lsJson, httpGet, SUPER, ROOT } from './harness.js';
import { eventually } from './wait.js';
import { startHaproxy, get, serversState, balancerConfig } from './haproxy.js';

const TOKEN = 'cd'.repeat(32);

const APP = `const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const release = fs.readFileSync(path.join(__dirname, 'release'), 'utf8').trim();
if (release !== 'v1' && fs.existsSync(path.join(__dirname, 'broken'))) {
  console.error('broken host: refusing to start ' + release);
  process.exit(3);
}
http.createServer((req, res) => {
  if (req.url === '/health') return res.end('ok\\n');
  res.statusCode = release.startsWith('bad') ? 500 : 200;
  res.end(release + ' (pid ' + process.pid + ')\\n');
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

async function host(t, name, instances) {
  const [port, control] = [await freePort(), await freePort()];
  const box = await sandbox(t);
  fs.mkdirSync(box.home, { mode: 0o700 });
  fs.writeFileSync(path.join(box.home, 'token'), `${TOKEN}\n`, { mode: 0o600 });
  box.write('app.cjs', APP);
  box.write('release', 'v1');
  await box.start(box.write('eco.yml', [
    `control: { listen: "127.0.0.1:${control}" }`,
    'apps:',
    '  - name: web',
    '    script: app.cjs',
    `    instances: ${instances}`,
    '    probation: 200ms',
    '    kill_timeout: 5s',
    `    env: { PORT: ${port} }`,
  ].join('\n')));
  const pids = async () => (await lsJson(box)).apps[0].workers.map((w) => w.pid).sort();
  /** The release its app serves now (straight to the app, not through HAProxy). */
  const release = async () => (await httpGet(port, '/')).body.split(' ')[0];
  return { name, box, port, control, pids, release, before: await pids() };
}

/**
 * @param {number} n  hosts, named host-a, host-b, ...
 * @param {{instances?: number}} [options]  instances: workers of each host's app
 */
export async function fleet(t, n = 3, options = {}) {
  const { instances = 1 } = options;
  const hosts = [];
  for (let i = 0; i < n; i++) hosts.push(await host(t, `host-${String.fromCharCode(97 + i)}`, instances));
  const front = await freePort();
  const dir = hosts[0].box.dir;
  const lb = await startHaproxy(t, dir, balancerConfig(front, 'check inter 300ms fall 2 rise 2 pool-purge-delay 500ms', hosts.map((h) => `server ${h.name} 127.0.0.1:${h.port}`)));
  await eventually(async () => {
    const s = await serversState(lb, 'apps');
    return hosts.every((h) => s[h.name]?.op === 2) && (await get(false, front)).status === 200;
  }, { timeout: 20000, what: 'every server UP through HAProxy', last: () => lb.log });
  const tokenFile = path.join(dir, 'token');
  fs.writeFileSync(tokenFile, `${TOKEN}\n`);
  const stepsLog = path.join(dir, 'steps.log');
  const step = path.join(dir, 'step.sh');
  fs.writeFileSync(step, [
    'case "$SUPER_DEPLOY_SERVER" in',
    ...hosts.map((h) => `  ${h.name}) dir="${h.box.dir}" ;;`),
    '  *) exit 9 ;;',
    'esac',
    `echo "$SUPER_DEPLOY_SERVER $SUPER_DEPLOY_RELEASE revert=$SUPER_DEPLOY_REVERT" >> "${stepsLog}"`,
    'printf %s "$SUPER_DEPLOY_RELEASE" > "$dir/release"',
    '',
  ].join('\n'));
  /** `super deploy` arguments for every host without a step, with `more` after them. */
  const reloadArgs = (...more) => ['deploy', '--token-file', tokenFile, ...hosts.flatMap((h) => ['--host', `127.0.0.1:${h.control}`]),
    '--server', ...hosts.map((h) => h.name), '--haproxy', lb.socket, '--backend', 'apps',
    '--min-healthy-time', '500ms', '--drain-timeout', '5s', ...more];
  /** `super deploy` arguments for every host with the step, with `more` after them. */
  const args = (...more) => reloadArgs('--step', `sh ${step}`, ...more);
  const steps = () => (fs.existsSync(stepsLog) ? fs.readFileSync(stepsLog, 'utf8').trim().split('\n').filter(Boolean) : []);
  return { hosts, lb, front, args, reloadArgs, steps, cli: (a) => hosts[0].box.cli(a) };
}

/** The release each host's app serves now. */
export const releases = (f) => Promise.all(f.hosts.map((h) => h.release()));

/** Each host's admin state at HAProxy (0 ready, 8 drained through the runtime API). */
export async function admins(f) {
  const s = await serversState(f.lb, 'apps');
  return f.hosts.map((h) => s[h.name].admin);
}

/**
 * `super deploy` as a child whose stdout is read line by line; `kill()` SIGKILLs it (a CLI
 * crash). Killed when the test ends.
 */
export function deployChild(t, f, args) {
  const child = spawn(process.execPath, [SUPER, ...args], { cwd: ROOT, env: { ...process.env, SUPER_HOME: f.hosts[0].box.home, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { lines: /** @type {string[]} */ ([]), stderr: '', code: /** @type {number|null} */ (null), signal: /** @type {string|null} */ (null) };
  let partial = '';
  child.stdout.on('data', (d) => {
    const parts = (partial + d).split('\n');
    partial = parts.pop() ?? '';
    out.lines.push(...parts);
  });
  child.stderr.on('data', (d) => (out.stderr += d));
  const closed = new Promise((resolve) => child.on('close', (code, signal) => {
    out.code = code;
    out.signal = signal;
    resolve(out);
  }));
  t.after(() => child.kill('SIGKILL'));
  return { out, closed, kill: () => child.kill('SIGKILL') };
}

/** HAProxy's drained servers (runtime drain, 0x08) every 50 ms until stop(): the most seen at once. */
export function drainWatch(lb, names) {
  let on = true;
  let most = 0;
  const seen = new Set();
  const running = (async () => {
    while (on) {
      const s = await serversState(lb, 'apps');
      const drained = names.filter((n) => s[n].admin & 0x08);
      most = Math.max(most, drained.length);
      for (const n of drained) seen.add(n);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return { stop: async () => { on = false; await running; return { most, seen: [...seen].sort() }; } };
}
