// `super check <file>` and `super start <file> --dry-run`: the apps as superd will run them,
// secrets masked, warnings listed; nothing started, no daemon.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sandbox, describeJson } from '../helpers/harness.js';
import { checkView } from '../../lib/ctl/check-view.js';
import { reusePortSupport } from '../../lib/connection-path-choice.js';

const hasReusePort = reusePortSupport().ok;

const FILE = `apps:
  - name: api
    script: server.js
    instances: max
    exec_mode: cluster
    vizion: false
    env:
      NODE_ENV: production
      DB_PASSWORD: hunter2
      DATABASE_URL: postgres://app:s3cret@db/app
  - name: job
    script: server.js
    exec_mode: fork
    args: [--queue, "fast lane"]
`;

test('check prints what superd will run, masks secrets, lists warnings, starts nothing', async (t) => {
  const box = await sandbox(t);
  box.write('server.js', 'setInterval(() => {}, 1000);\n');
  const file = box.write('ecosystem.yml', FILE);
  const cpus = os.availableParallelism(); // the CPUs of this process, as a new daemon gets them
  const server = path.join(box.dir, 'server.js');

  const r = await box.cli(['check', file]);
  assert.equal(r.code, 0, r.stderr);
  const connections = hasReusePort ? `reusePort, a socket per worker, kernel-balanced (scheduling: auto; Node ${process.version})`
    : `round-robin through the daemon (scheduling: auto; Node ${process.version} has no reusePort (22.12+, 23.1+ or 24 do))`;
  assert.equal(r.stdout, `${file}: 2 apps, as superd will run them (nothing started)

api
  script      ${server}
  interpreter node
  mode        cluster, ${cpus} instance${cpus === 1 ? '' : 's'} (instances: max)
  connections ${connections}
  cwd         ${box.dir}
  env         NODE_ENV=production
              DB_PASSWORD=********
              DATABASE_URL=postgres://app:********@db/app

job
  script      ${server}
  args        --queue "fast lane"
  interpreter node
  mode        fork, 1 instance
  cwd         ${box.dir}
  env         (none of its own: workers get the environment of \`super start\`)

warning: ${file}:6:5: apps[0].vizion: PM2-only key (PM2's versioning metadata): ignored
`);
  assert.doesNotMatch(r.stdout + r.stderr, /hunter2|s3cret/);

  const json = await box.cli(['start', file, '--dry-run', '--json']);
  assert.equal(json.code, 0, json.stderr);
  const view = JSON.parse(json.stdout);
  assert.deepEqual(view.apps.map((a) => [a.name, a.exec_mode, a.instances, a.instances_spec, a.env.DB_PASSWORD ?? null]), [['api', 'cluster', cpus, 'max', '********'], ['job', 'fork', 1, 1, null]]);
  assert.equal(view.warnings.length, 1);

  const bad = box.write('bad.yml', 'apps:\n  - name: a\n    scrip: server.js\n');
  const refused = await box.cli(['check', bad]);
  assert.equal(refused.code, 2);
  assert.equal(refused.stderr, `super: E_CONFIG: 1 problem in ${bad}\n  ${bad}:3:5: apps[0].scrip: unknown key; did you mean "script"?\n`);

  const notFile = await box.cli(['start', 'server.js', '--dry-run'], { cwd: box.dir });
  assert.equal(notFile.code, 2);
  assert.match(notFile.stderr, /^super: E_USAGE: --dry-run shows the apps of an ecosystem file; "server\.js" is not one \(super check <file>\)\n$/);

  assert.ok(!fs.existsSync(box.home), 'no daemon was started: SUPER_HOME was not even made');
});

// The path of each cluster app's connections: the decision `super describe` shows
// (lib/connection-path-choice.js), on this Node and a kernel the test chooses.
const PATHS = `apps:
  - { name: web, script: server.js, instances: 2, autostart: false }
  - { name: chat, script: server.js, exec_mode: cluster, sticky: ip, autostart: false }
  - { name: ready, script: server.js, exec_mode: cluster, wait_ready: true, autostart: false }
  - { name: shed, script: server.js, exec_mode: cluster, overload: { max_queue_wait: 200ms }, autostart: false }
  - { name: job, script: server.js, exec_mode: fork, autostart: false }
`;

test('check says which way each cluster app\'s connections take and why, as describe does', async (t) => {
  const box = await sandbox(t);
  box.write('server.js', 'setInterval(() => {}, 1000);\n');
  const file = box.write('ecosystem.yml', PATHS);
  const connections = async (f) => {
    const r = await box.cli(['check', f]);
    assert.equal(r.code, 0, r.stderr);
    return Object.fromEntries([...r.stdout.matchAll(/^(\w+)\n(?: {2}.*\n)*? {2}connections (.*)$/gm)].map((m) => [m[1], m[2]]));
  };
  const roundRobin = (why) => `round-robin through the daemon (scheduling: auto; ${why})`;
  const needs = {
    chat: roundRobin('sticky: ip needs the daemon to choose the worker'),
    ready: roundRobin('wait_ready (ready_on: ready) needs the daemon to keep connections from a worker until it is ready'),
    shed: roundRobin('overload max_queue_wait needs the daemon\'s accept time'),
  };
  // reusePort where this Node has it, whatever the kernel's tcp_migrate_req; the apps that need the daemon's handoff keep it; no line for a fork app.
  assert.deepEqual(await connections(file), {
    web: hasReusePort ? `reusePort, a socket per worker, kernel-balanced (scheduling: auto; Node ${process.version})`
      : roundRobin(`Node ${process.version} has no reusePort (22.12+, 23.1+ or 24 do)`),
    ...needs,
  });
  // The daemon-wide scheduling the file sets.
  const os = await connections(box.write('os.yml', `scheduling: os\n${PATHS.replace(/ sticky: ip,/, '')}`));
  assert.deepEqual(Object.values(os), Array(4).fill('one shared socket, each worker accepts (SCHED_NONE) (scheduling: os)'));
  const rr = await connections(box.write('rr.yml', `scheduling: round-robin\n${PATHS}`));
  assert.deepEqual(Object.values(rr), Array(4).fill('round-robin through the daemon (scheduling: round-robin)'));
  if (!hasReusePort) {
    const r = await box.cli(['check', box.write('reuseport.yml', `scheduling: reuseport\n${PATHS.replace(/ sticky: ip,/, '')}`)]);
    assert.match(r.stdout, new RegExp(`^warning: scheduling: reuseport: a daemon started on this Node refuses it \\(E_REUSEPORT_UNSUPPORTED\\): Node ${process.version.replace(/\./g, '\\.')} has no reusePort`, 'm'));
  }

  // --json gives the same {path, why}; a daemon given the file (nothing started: autostart
  // false) describes each app with the same.
  const json = JSON.parse((await box.cli(['check', file, '--json'])).stdout);
  await box.start(file);
  for (const app of json.apps) assert.deepEqual((await describeJson(box, app.name)).connections ?? undefined, app.connections, app.name);
  assert.equal(json.apps.find((a) => a.name === 'job').connections, undefined);
});

test('check also lists the start warnings that need no daemon: a cpu_affinity entry beyond the instances', () => {
  const app = { name: 'job', namespace: 'default', script: '/srv/job.js', args: [], interpreter: 'node', node_path: null, node_args: [], exec_mode: 'fork', instances: 1, instances_spec: 1, cwd: '/srv', autostart: true, env: { API_TOKEN: 't0k3n' }, cpu_affinity: { 0: 0, 5: 0 } };
  const view = checkView(/** @type {any} the fields check reads of a loaded file */ ({ file: '/srv/ecosystem.yml', apps: [app], warnings: ['from the file'] }));
  assert.deepEqual(view.apps[0].env, { API_TOKEN: '********' });
  assert.equal(view.warnings.length, 2);
  assert.match(view.warnings[1], /^job: cpu_affinity maps instance 5, but job runs 1 instance \(0\)/);
});
