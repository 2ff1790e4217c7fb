#!/usr/bin/env node
// What superd's worker agent costs each worker to boot (issue 20): a bare node:cluster
// primary (bench/agent-primary.js) forks WORKERS copies of the hello app with the agent
// preloaded and without; once all listen, each worker's CPU so far is read from
// /proc/<pid>/schedstat (its first field: ns on the CPU). Runs with and without the agent
// alternate (the order flips each round); medians over every worker of every round.
//   node bench/agent-boot.js [--rounds 5] [--workers 30] [--log raw|none]
//   --log raw: workers get SUPER_LOG as superd gives it by default (raw lines, no
//   formatting), so the agent installs its log writer as it does under superd.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { median, fmt, table } from './stats.js';
import { ROOT, HELLO, freePort } from './targets.js';
import { benchArgs } from './lib/args.js';

const args = benchArgs(process.argv.slice(2), {
  defaults: { rounds: 5, workers: 30, log: 'raw' },
  choices: { log: ['raw', 'none'] },
  usage: 'node bench/agent-boot.js [--rounds N] [--workers N] [--log raw|none]',
});
const log = (s) => process.stderr.write(`${s}\n`);
const READY_TIMEOUT_MS = 120_000;

const cpuNs = (pid) => Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'latin1').split(' ')[0]);
const childrenOf = (pid) => fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').trim().split(/\s+/).filter(Boolean).map(Number);

/** One primary with or without the agent: each worker's CPU (ms) when all listen. */
async function bootRun(agent) {
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, AGENT: agent ? '1' : '0', WORKERS: String(args.workers), APP: HELLO, PORT: String(await freePort()) };
  delete env.SUPER_LOG;
  if (args.log === 'raw') {
    env.SUPER_LOG = JSON.stringify({ out: '/dev/null', err: '/dev/null', type: 'raw', date: null, app: 'bench', slot: 0 });
  }
  const primary = spawn(process.execPath, [path.join(ROOT, 'bench/agent-primary.js')], { env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('workers did not all listen in time')), READY_TIMEOUT_MS);
      primary.once('message', () => resolve(clearTimeout(timer)));
      primary.once('exit', (code) => reject(new Error(`primary exited (${code}) before its workers listened`)));
    });
    return childrenOf(primary.pid).map((pid) => cpuNs(pid) / 1e6);
  } finally {
    const exited = new Promise((resolve) => primary.once('exit', resolve));
    primary.kill('SIGTERM');
    await exited;
  }
}

const ms = { without: [], with: [] };
for (let round = 0; round < args.rounds; round++) {
  for (const agent of round % 2 ? [true, false] : [false, true]) {
    const cpu = await bootRun(agent);
    ms[agent ? 'with' : 'without'].push(...cpu);
    log(`round ${round + 1} ${agent ? 'with' : 'without'} agent: median ${fmt(median(cpu), 1)} ms over ${cpu.length} workers`);
  }
}
const without = median(ms.without);
const withAgent = median(ms.with);
console.log(table(['workers', 'CPU to listening, no agent', 'with agent', 'the agent'], [
  [`${args.workers} x ${args.rounds} rounds (log ${args.log})`, `${fmt(without, 1)} ms`, `${fmt(withAgent, 1)} ms`, `${fmt(withAgent - without, 1)} ms`],
]));
