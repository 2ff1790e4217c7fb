// PM2 itself as the oracle for its deploy-script commands: the same PM2 file and the same
// commands (`reload <file> --env` with no daemon yet, startOrReload, stop then
// startOrRestart --only --env, restart <file>, startOrGracefulReload --env) run under the
// real PM2 (a private PM2_HOME, reaped at the end) and under superd, each in a directory of
// its own, each command from a shell whose DEPLOY variable is the step's number. After each
// command, what runs must be the same: each app online or stopped, the STAGE (the file's
// env block) and DEPLOY (the shell's, which neither gives a running app without
// --update-env) its processes see (each writes them at start to a file named by its pid: a
// PM2 cluster worker gets its env from PM2's wrapper, not in /proc/<pid>/environ), and
// whether its processes were replaced or left alone.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, lsJson } from '../helpers/harness.js';
import { privatePm2 } from '../helpers/pm2.js';
import { eventually } from '../helpers/wait.js';

const STEPS = [
  ['reload', 'ecosystem.config.js', '--env', 'production'],
  ['startOrReload', 'ecosystem.config.js'],
  ['stop', 'jobs'],
  ['startOrRestart', 'ecosystem.config.js', '--only', 'jobs', '--env', 'production'],
  ['restart', 'ecosystem.config.js'],
  ['startOrGracefulReload', 'ecosystem.config.js', '--env', 'production'],
];

const APP = `require('node:fs').writeFileSync(require('node:path').join(__dirname, 'stage-' + process.pid), process.env.STAGE + ' deploy ' + process.env.DEPLOY);
require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');
`;
const ecosystem = (portA, portB) => `module.exports = { apps: [
  { name: 'api', script: 'app.js', instances: 2, exec_mode: 'cluster', env: { PORT: ${portA}, STAGE: 'dev' }, env_production: { STAGE: 'prod' } },
  { name: 'jobs', script: 'app.js', env: { PORT: ${portB}, STAGE: 'dev' }, env_production: { STAGE: 'prod' } },
] };\n`;

/**
 * The STAGE and DEPLOY the process `pid` of the app in `dir` saw at its start. Waited for: PM2 says a
 * cluster worker is online when Node's cluster does, before the app's first line has run.
 */
const stageOf = (dir, pid) => eventually(() => fs.readFileSync(path.join(dir, `stage-${pid}`), 'utf8'), { timeout: 15000, what: `the stage file of pid ${pid}` });

/**
 * What runs, per app: online or not, the STAGE of its processes, and (against `before`)
 * whether they were all replaced, all kept, or neither.
 * @param {string} dir  @param {{name: string, online: boolean, pids: number[]}[]} apps  @param {Map<string, number[]>} before
 */
async function outcome(dir, apps, before) {
  const out = {};
  for (const { name, online, pids } of apps.sort((a, b) => a.name.localeCompare(b.name))) {
    const was = before.get(name) ?? [];
    const kept = pids.filter((p) => was.includes(p)).length;
    out[name] = {
      online,
      stage: online ? [...new Set(await Promise.all(pids.map((pid) => stageOf(dir, pid))))].join(',') : null,
      processes: !online ? 'none' : kept === 0 ? 'replaced' : kept === pids.length ? 'kept' : 'some replaced',
    };
    before.set(name, pids);
  }
  return out;
}

test('startOrReload, startOrRestart and reload|restart <file>: superd does what PM2 does', { timeout: 150000 }, async (t) => {
  const pm2 = privatePm2(t);
  const pm2Box = await sandbox(t);
  const box = await sandbox(t);
  for (const b of [pm2Box, box]) b.write('app.js', APP);
  pm2Box.write('ecosystem.config.js', ecosystem(await freePort(), await freePort()));
  box.write('ecosystem.config.js', ecosystem(await freePort(), await freePort()));

  const pm2Seen = new Map();
  const superdSeen = new Map();
  for (const [i, step] of STEPS.entries()) {
    const shell = { DEPLOY: String(i) };
    // The two run side by side: their waits (readiness, drains) overlap.
    const [p, s] = await Promise.all([pm2.cli(step, pm2Box.dir, shell), box.cli(step, { cwd: box.dir, env: shell })]);
    assert.equal(p.code, 0, `pm2 ${step.join(' ')}: ${p.stdout}${p.stderr}`);
    assert.equal(s.code, 0, `super ${step.join(' ')}: ${s.stdout}${s.stderr}`);

    const [jlist, ls] = await Promise.all([pm2.cli(['jlist'], pm2Box.dir), lsJson(box)]);
    const procs = JSON.parse(jlist.stdout.slice(jlist.stdout.indexOf('[')));
    const pm2Apps = [...new Set(procs.map((p) => p.name))].map((name) => {
      const mine = procs.filter((p) => p.name === name);
      return { name, online: mine.every((p) => p.pm2_env.status === 'online'), pids: mine.map((p) => p.pid) };
    });
    const superdApps = ls.apps.map((a) => ({ name: a.name, online: a.status === 'online', pids: a.workers.map((w) => w.pid) }));
    const expected = await outcome(pm2Box.dir, pm2Apps, pm2Seen);
    t.diagnostic(`${step.join(' ')}: ${JSON.stringify(expected)}`);
    assert.deepEqual(await outcome(box.dir, superdApps, superdSeen), expected, `after ${step.join(' ')}`);
  }
});
