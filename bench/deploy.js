// node bench/deploy.js: a release rolled across 3 hosts behind HAProxy, three ways, in one
// run, under open-loop load through HAProxy (half the requests on kept-alive connections,
// half on a new connection each; HAProxy without retries or redispatch):
//   - `super deploy`: each host drained at the balancer, reloaded, healthy, ready again;
//   - the PM2 way (`pm2 deploy` runs `pm2 reload` per host): `super reload` per host, no drain;
//   - a stop/start per host: `super stop` then `super start` of the app (on its own host:
//     start is local-only), no drain.
// The hosts are 3 daemons on this machine (own SUPER_HOME, app port and control listener
// on loopback), `examples/hello` with --instances workers each, `shutdown_delay` 0. Reported
// per way: requests, failed (non-2xx, errors, timeouts) with their causes, and the wall time.
//
//   node bench/deploy.js [--rate 200] [--instances 2] [--only deploy,reload,stop-start]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run, freePort, HELLO, SUPER_BIN } from './targets.js';
import { openLoop } from './lib/open-loop.js';
import { fmt, table } from './stats.js';
import { benchArgs } from './lib/args.js';
import { startHaproxy, serversState, balancerConfig } from '../test/helpers/haproxy.js';

const WAYS = ['deploy', 'reload', 'stop-start'];
const USAGE = 'node bench/deploy.js [--rate 200] [--instances 2] [--only deploy,reload,stop-start]';
const opts = benchArgs(process.argv.slice(2), {
  defaults: { rate: 200, instances: 2, only: WAYS },
  choices: { only: WAYS },
  lists: ['only'],
  usage: USAGE,
});
const TOKEN = 'ef'.repeat(32);
const cleanups = [];
const cleanup = async () => {
  for (const fn of cleanups.reverse()) await fn();
};
process.on('SIGINT', () => cleanup().then(() => process.exit(130)));

async function host(i) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'superd-deploy-'));
  fs.writeFileSync(path.join(home, 'token'), `${TOKEN}\n`, { mode: 0o600 });
  const [port, control] = [await freePort(), await freePort()];
  const eco = path.join(home, 'eco.yml');
  fs.writeFileSync(eco, [
    `control: { listen: "127.0.0.1:${control}" }`,
    'apps:',
    '  - name: web',
    `    script: ${JSON.stringify(HELLO)}`,
    `    instances: ${opts.instances}`,
    `    env: { PORT: "${port}" }`,
    '',
  ].join('\n'));
  const env = { ...process.env, SUPER_HOME: home };
  await run(process.execPath, [SUPER_BIN, 'start', eco], { env, timeout: 60000 }); // rejects on a failure
  cleanups.push(() => run(process.execPath, [SUPER_BIN, 'kill'], { env, timeout: 30000 }));
  return { name: `host-${i}`, home, port, control, addr: `127.0.0.1:${control}` };
}

const hosts = [await host(0), await host(1), await host(2)];
const dir = hosts[0].home;
const tokenFile = path.join(dir, 'deploy-token');
fs.writeFileSync(tokenFile, `${TOKEN}\n`);
const front = await freePort();
const lb = await startHaproxy({ after: (fn) => cleanups.push(fn) }, dir, balancerConfig(front, 'check inter 500ms fall 2 rise 2', hosts.map((h) => `server ${h.name} 127.0.0.1:${h.port}`)));
const allUp = async () => {
  for (let i = 0; i < 200; i++) {
    const s = await serversState(lb, 'apps');
    if (hosts.every((h) => s[h.name]?.op === 2 && s[h.name].admin === 0)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the servers did not all come UP');
};
await allUp();

const cli = (args) => run(process.execPath, [SUPER_BIN, ...args], { env: { ...process.env, SUPER_HOME: dir }, timeout: 300000 });
const onHost = (h, ...args) => cli(['--host', h.addr, '--token-file', tokenFile, ...args]);
const must = (p) => p; // run() rejects with the command's output when it fails
const ACTIONS = {
  deploy: { label: '`super deploy` (drain, reload, ready; one host at a time)', run: () => must(cli(['deploy', '--token-file', tokenFile, ...hosts.flatMap((h) => ['--host', h.addr]), '--server', ...hosts.map((h) => h.name), '--haproxy', lb.socket, '--backend', 'apps', '--min-healthy-time', '1s'])) },
  reload: { label: 'the PM2 way: `reload` per host, no drain', run: async () => { for (const h of hosts) await must(onHost(h, 'reload', 'web')); } },
  'stop-start': { label: 'stop/start per host, no drain', run: async () => { for (const h of hosts) { await must(onHost(h, 'stop', 'web')); await must(run(process.execPath, [SUPER_BIN, 'start', 'web'], { env: { ...process.env, SUPER_HOME: h.home } })); } } },
};

/** Load through HAProxy from 1 s before the action to 2 s after it; failed requests by cause. */
async function measure(way) {
  const causes = {};
  const count = (r) => {
    if (typeof r.status === 'number' && r.status >= 200 && r.status < 300) return;
    causes[r.status] = (causes[r.status] ?? 0) + 1;
  };
  let stop = false;
  const loads = [];
  const keep = async (shape) => {
    while (!stop) loads.push(await openLoop({ port: front, rate: opts.rate / 2, seconds: 1, shape, timeout: 5000, onResult: count }));
  };
  const running = [keep('keep-alive'), keep('new-connection')];
  await new Promise((r) => setTimeout(r, 1000));
  const t0 = Date.now();
  await ACTIONS[way].run();
  const ms = Date.now() - t0;
  await allUp();
  await new Promise((r) => setTimeout(r, 2000));
  stop = true;
  await Promise.all(running);
  const sent = loads.reduce((n, l) => n + l.sent, 0);
  const failed = Object.values(causes).reduce((n, c) => n + c, 0);
  return [ACTIONS[way].label, fmt(sent), failed ? `${fmt(failed)} (${Object.entries(causes).map(([k, v]) => `${k}: ${v}`).join(', ')})` : '0', fmt(ms / 1000, 1)];
}

try {
  const rows = [];
  for (const way of opts.only) rows.push(await measure(way));
  console.log(`\n3 hosts x ${opts.instances} workers behind HAProxy (retries 0), open loop ${opts.rate} req/s (half keep-alive, half a new connection each), node ${process.version}\n`);
  console.log(table(['way', 'requests', 'failed (causes)', 'rollout s'], rows));
} finally {
  await cleanup();
}
