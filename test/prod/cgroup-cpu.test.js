// `instances: max` inside a cgroup with a CPU quota (a container's CPU limit): the kernel's
// own cgroup files, not copies. A child cgroup of 1 CPU (quota = period) on this 2-CPU
// machine, a cgroup without a limit of its own below it (the limit binds from an
// ancestor); `super check` and a started daemon run inside, as a container's would.
// Needs root and a cgroup mount with the cpu controller; skipped, with the reason, elsewhere.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, describeJson, ROOT } from '../helpers/harness.js';
import { superInCgroup } from '../helpers/cgroup.js';
import { readAllowedCpus } from '../../lib/config/cpu-set.js';

const V1 = '/sys/fs/cgroup/cpu';
const cpus = readAllowedCpus().length;

/** Why a cgroup of `version` cannot be made here, or null. */
function unusable(version) {
  if (process.getuid?.() !== 0) return 'needs root (to make a cgroup)';
  if (cpus < 2) return `needs 2 CPUs in the affinity mask (this process has ${cpus}) to tell a 1-CPU limit from the mask`;
  if (version === 1) return fs.existsSync(path.join(V1, 'cpu.cfs_quota_us')) ? null : `no cgroup v1 cpu hierarchy at ${V1}`;
  const v2 = v2Root();
  if (!v2) return 'no cgroup v2 (unified) hierarchy is mounted';
  return fs.readFileSync(path.join(v2, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu')
    ? null : `the unified hierarchy at ${v2} has no cpu controller (it is bound to cgroup v1 here)`;
}

function v2Root() {
  const line = fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n').find((l) => / - cgroup2 /.test(l));
  return line?.split(' ')[4] ?? null;
}

/** A cgroup `outer` (1 CPU) with `inner` below it (no limit of its own), removed at the end. */
function makeCgroups(t, version) {
  const base = version === 1 ? V1 : v2Root();
  const outer = path.join(base, `superd-test-${process.pid}-${version}`);
  const inner = path.join(outer, 'inner');
  t.after(async () => {
    for (const dir of [inner, outer]) {
      // Its processes were killed by the sandbox's cleanup (registered first, so run first).
      for (let i = 0; i < 100 && fs.existsSync(dir); i++) {
        try {
          fs.rmdirSync(dir);
        } catch {
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    }
  });
  fs.mkdirSync(outer);
  if (version === 1) {
    fs.writeFileSync(path.join(outer, 'cpu.cfs_period_us'), '100000');
    fs.writeFileSync(path.join(outer, 'cpu.cfs_quota_us'), '100000');
  } else {
    fs.writeFileSync(path.join(base, 'cgroup.subtree_control'), '+cpu');
    fs.writeFileSync(path.join(outer, 'cpu.max'), '100000 100000');
  }
  fs.mkdirSync(inner);
  return inner;
}

for (const version of [1, 2]) {
  const why = unusable(version);
  test(`cgroup v${version}: instances: max inside a 1-CPU cgroup (nested) is 1 worker, and check and describe say why`, why ? { skip: why } : {}, async (t) => {
    const box = await sandbox(t);
    const dir = makeCgroups(t, version);
    const file = box.write('eco.yml', [
      'apps:',
      '  - name: api',
      `    script: ${path.join(ROOT, 'examples', 'hello', 'server.js')}`,
      '    instances: max',
      '    env: { PORT: 0 }',
      '  - name: fixed',
      `    script: ${path.join(ROOT, 'examples', 'hello', 'server.js')}`,
      '    instances: 2',
      '    env: { PORT: 0 }',
    ].join('\n'));

    // Outside the cgroup: the mask counts.
    const outside = JSON.parse((await box.cli(['check', file, '--json'])).stdout);
    assert.equal(outside.apps[0].instances, cpus);
    assert.equal(outside.apps[0].cpus_note, undefined);

    const check = await superInCgroup(box, dir, ['check', file, '--json']);
    assert.equal(check.code, 0, check.stderr);
    const [api, fixed] = JSON.parse(check.stdout).apps;
    assert.equal(api.instances, 1, 'max = the 1-CPU limit, not the mask');
    assert.match(api.cpus_note, new RegExp(`^max = 1: the cgroup's CPU limit \\(quota 100000 / period 100000 in ${path.dirname(dir)}/cpu\\.(cfs_quota_us|max); the affinity mask has ${cpus} CPUs\\)$`));
    assert.equal(fixed.instances, 2, 'a count as written is kept');
    assert.equal(fixed.cpus_note, undefined);
    const text = await superInCgroup(box, dir, ['check', file]);
    assert.match(text.stdout, /cpus {8}max = 1: the cgroup's CPU limit/);

    // The daemon started from inside (as a container's entry) runs 1 worker of api.
    const start = await superInCgroup(box, dir, ['start', file]);
    assert.equal(start.code, 0, start.stderr);
    const daemonCgroup = fs.readFileSync(`/proc/${box.daemonPid()}/cgroup`, 'utf8');
    assert.ok(daemonCgroup.includes(`/superd-test-${process.pid}-${version}/inner`), daemonCgroup);
    const described = await describeJson(box, 'api');
    assert.equal(described.workers.length, 1);
    assert.match(described.cpus_note, /^max = 1: the cgroup's CPU limit/);
    assert.equal((await describeJson(box, 'fixed')).cpus_note, undefined);
    const shown = await box.cli(['describe', 'api']);
    assert.match(shown.stdout, /^ {2}instances: max = 1: the cgroup's CPU limit/m);
  });
}
