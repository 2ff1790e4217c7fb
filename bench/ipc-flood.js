// What an app flooding the daemon over IPC costs it: for each agent message kind, one
// worker sends it as fast as its channel drains for --seconds; the daemon's CPU, heap and
// RSS (its own `stats`, once a second) and the growth of daemon.log are recorded.
//
//   node bench/ipc-flood.js [--seconds 10] [--kinds ready,metrics,...]
//
// Kinds: ready, drained, metrics, log-error, log-resumed, log-error+resumed (alternating,
// a new errno code each pair: the attack of issue 14), logs-reopened, unknown (a name the
// daemon does not know). Prints one markdown row per kind; the JSON goes to
// bench/results/ipc-flood.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect } from '../lib/ipc/client.js';
import { benchArgs } from './lib/args.js';

const SUPER = fileURLToPath(new URL('../bin/super.js', import.meta.url));
const APP = fileURLToPath(new URL('./ipc-flood-app.cjs', import.meta.url));
const KINDS = ['ready', 'drained', 'metrics', 'log-error', 'log-resumed', 'log-error+resumed', 'logs-reopened', 'unknown'];

const { seconds: SECONDS, kinds } = benchArgs(process.argv.slice(2), {
  defaults: { seconds: 10, kinds: KINDS },
  choices: { kinds: KINDS },
  lists: ['kinds'],
  usage: 'node bench/ipc-flood.js [--seconds 10] [--kinds ready,metrics,...]',
});

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-ipcb-'));
const env = { ...process.env, SUPER_HOME: home };
const cli = (args) => {
  const r = spawnSync(process.execPath, [SUPER, ...args], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`super ${args.join(' ')}: ${r.stderr}`);
  return r;
};
const daemonLogBytes = () => fs.statSync(path.join(home, 'daemon.log')).size;
const mb = (b) => (b / 1048576).toFixed(1);

fs.copyFileSync(APP, path.join(home, 'flood.cjs'));
fs.writeFileSync(path.join(home, 'idle.js'), 'setInterval(() => {}, 1000);\n');
cli(['start', write('idle.yml', 'apps:\n  - name: idle\n    script: idle.js\n    ready_on: spawn\n')]);
const client = await connect(home);
const rows = [];
try {
  await client.request('subscribe', { topics: ['log'] });
  for (const kind of kinds) {
    const done = new Promise((resolve) => client.onEvent((e) => {
      const m = e.event === 'log' && e.data.app === 'flood' && /flood done (\d+)/.exec(e.data.text ?? '');
      if (m) resolve(Number(m[1]));
    }));
    const logBefore = daemonLogBytes();
    const first = await client.request('stats', { reset: true });
    const samples = [];
    cli(['start', write('flood.yml', `apps:\n  - name: flood\n    script: flood.cjs\n    ready_on: spawn\n    env: { FLOOD_KIND: "${kind}", FLOOD_MS: "${SECONDS * 1000}" }\n`)]);
    let sent = null;
    done.then((n) => (sent = n));
    let prev = first;
    for (let i = 0; i < SECONDS + 30 && sent === null; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      const s = await client.request('stats', { reset: true });
      const cpuMs = s.cpu_user_ms + s.cpu_system_ms - prev.cpu_user_ms - prev.cpu_system_ms;
      samples.push({ cpu_pct: cpuMs / 10, heap_used: s.heap_used, rss: s.rss, loop_p99_ms: s.event_loop_delay_ms.p99 });
      prev = s;
    }
    cli(['delete', 'flood']);
    const row = {
      kind,
      sent,
      cpu_pct_mean: samples.reduce((a, s) => a + s.cpu_pct, 0) / samples.length,
      cpu_pct_max: Math.max(...samples.map((s) => s.cpu_pct)),
      heap_first: samples[0].heap_used,
      heap_max: Math.max(...samples.map((s) => s.heap_used)),
      heap_last: samples.at(-1).heap_used,
      rss_max: Math.max(...samples.map((s) => s.rss)),
      loop_p99_max_ms: Math.max(...samples.map((s) => s.loop_p99_ms)),
      daemon_log_growth: daemonLogBytes() - logBefore,
      samples,
    };
    rows.push(row);
    process.stderr.write(`${kind}: ${sent} sent, daemon CPU ${row.cpu_pct_mean.toFixed(0)}% mean, heap ${mb(row.heap_first)} -> ${mb(row.heap_last)} MB\n`);
  }
} finally {
  client.close();
  spawnSync(process.execPath, [SUPER, 'kill'], { env });
  fs.rmSync(home, { recursive: true, force: true });
}

console.log(`## A worker flooding the daemon with one agent message kind for ${SECONDS} s (node ${process.version}, ${os.availableParallelism()} CPUs)\n`);
console.log('| kind | messages | daemon CPU % mean / max | heap MB first / max / last | RSS MB max | loop p99 max ms | daemon.log growth |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  console.log(`| ${r.kind} | ${r.sent} | ${r.cpu_pct_mean.toFixed(0)} / ${r.cpu_pct_max.toFixed(0)} | ${mb(r.heap_first)} / ${mb(r.heap_max)} / ${mb(r.heap_last)} | ${mb(r.rss_max)} | ${r.loop_p99_max_ms} | ${r.daemon_log_growth} B |`);
}
fs.mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
fs.writeFileSync(new URL('./results/ipc-flood.json', import.meta.url), `${JSON.stringify({ seconds: SECONDS, node: process.version, rows }, null, 2)}\n`);

function write(name, text) {
  const p = path.join(home, name);
  fs.writeFileSync(p, text);
  return p;
}
