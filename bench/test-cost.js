#!/usr/bin/env node
// What each test file costs: CPU seconds of every process it starts (the runner, CLIs,
// detached daemons, workers) and wall seconds. Each file runs in its own cgroup v1
// cpuacct group, so a daemon that setsid()s away is still counted; anything left in the
// group when the file ends is reported as leaked and killed; the TAP output of a file that
// failed goes to $TMPDIR/test-cost-<file>.tap. Needs root and cpuacct mounted.
//
//   node bench/test-cost.js [--jobs 2] [--out file] [test files...]   (default: test/*/*.test.js)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { testFiles } from '../test/helpers/test-files.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CGROOT = '/sys/fs/cgroup/cpuacct';

const args = process.argv.slice(2);
let jobs = 2;
let out = null;
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--jobs') jobs = Number(args[++i]);
  else if (args[i] === '--out') out = args[++i];
  else files.push(args[i]);
}
if (!files.length) files.push(...testFiles(ROOT));

const base = path.join(CGROOT, `test-cost-${process.pid}`);
fs.mkdirSync(base);
const read = (group, file) => fs.readFileSync(path.join(group, file), 'utf8');
const tasks = (group) => read(group, 'tasks').split('\n').filter(Boolean).map(Number);

async function runOne(file, n) {
  const group = path.join(base, String(n));
  fs.mkdirSync(group);
  const started = process.hrtime.bigint();
  const script = `echo $$ > ${group}/cgroup.procs && exec "$0" --test --test-reporter=tap --test-timeout=120000 "$1"`;
  const child = spawn('sh', ['-c', script, process.execPath, file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.resume();
  const code = await new Promise((resolve) => child.on('close', resolve));
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const leaked = tasks(group);
  for (const pid of leaked) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  for (let i = 0; i < 100 && tasks(group).length; i++) await new Promise((r) => setTimeout(r, 20));
  const cpu = Number(read(group, 'cpuacct.usage')) / 1e9;
  fs.rmdirSync(group);
  const count = (name) => Number(new RegExp(`^# ${name} (\\d+)`, 'm').exec(stdout)?.[1] ?? NaN);
  const fail = count('fail') + count('cancelled');
  if (fail || code) fs.writeFileSync(path.join(os.tmpdir(), `test-cost-${file.replaceAll('/', '_')}.tap`), stdout);
  return { file, cpu, wall, tests: count('tests'), fail, code, leaked: leaked.length };
}

const queue = files.map((file, n) => ({ file, n }));
const rows = [];
const t0 = Date.now();
await Promise.all(
  Array.from({ length: jobs }, async () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const row = await runOne(job.file, job.n);
      rows.push(row);
      process.stderr.write(`${row.cpu.toFixed(1).padStart(6)} s CPU ${row.wall.toFixed(1).padStart(6)} s wall  ${row.file}${row.fail ? ` (${row.fail} failed or cancelled)` : ''}${row.leaked ? ` (${row.leaked} leaked)` : ''}\n`);
    }
  }),
);
fs.rmdirSync(base);

rows.sort((a, b) => b.cpu - a.cpu);
const sum = (k) => rows.reduce((s, r) => s + (r[k] || 0), 0);
const lines = [
  `# ${new Date().toISOString()}  ${rows.length} files, --jobs ${jobs}, elapsed ${((Date.now() - t0) / 1000).toFixed(0)} s`,
  `# total: ${sum('cpu').toFixed(1)} s CPU, ${sum('wall').toFixed(1)} s wall (summed), ${sum('tests')} tests, ${sum('fail')} failed`,
  `${'cpu_s'.padStart(7)} ${'wall_s'.padStart(7)} ${'tests'.padStart(5)}  file`,
  ...rows.map((r) => `${r.cpu.toFixed(2).padStart(7)} ${r.wall.toFixed(1).padStart(7)} ${String(r.tests).padStart(5)}  ${r.file}${r.fail ? `  FAILED ${r.fail}` : ''}${r.code ? `  exit ${r.code}` : ''}${r.leaked ? `  leaked ${r.leaked}` : ''}`),
];
const text = lines.join('\n') + '\n';
if (out) fs.writeFileSync(out, text);
process.stdout.write(text);
