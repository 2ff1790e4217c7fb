// The CPU limit of a cgroup (lib/cgroup-cpu.js) from real file contents: /proc/self/cgroup
// and /proc/self/mountinfo texts as the kernel writes them, and a temporary directory
// shaped as a cgroupfs (v1 cpu hierarchy, v2 unified, nested limits, a container's subtree
// mount). The real kernel's files: test/prod/cgroup-cpu.test.js.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cgroupMounts, cpuCgroupDirs, smallestCpuLimit, cpuLimitNote } from '../../lib/cgroup-cpu.js';
import { countsCpus } from '../../lib/config/instances.js';

function cgroupfs(t, files) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cgfs-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), `${text}\n`);
  }
  return root;
}

// A hybrid host (this machine's layout): cpu on v1, an empty unified hierarchy.
const hybridMountinfo = (root) => [
  `25 30 0:23 / /proc rw,nosuid,nodev,noexec,relatime shared:14 - proc proc rw`,
  `31 23 0:28 / ${root}/sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755`,
  `32 31 0:29 / ${root}/sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu`,
  `33 31 0:30 / ${root}/sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct`,
  `35 31 0:32 / ${root}/sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory`,
  `41 31 0:38 / ${root}/sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw`,
].join('\n');

test('v1: the smallest quota/period on the path from the process\'s cgroup to the root, rounded up', (t) => {
  const root = cgroupfs(t, {
    'sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1', 'sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000',
    'sys/fs/cgroup/cpu/pod/cpu.cfs_quota_us': '150000', 'sys/fs/cgroup/cpu/pod/cpu.cfs_period_us': '100000',
    'sys/fs/cgroup/cpu/pod/app/cpu.cfs_quota_us': '-1', 'sys/fs/cgroup/cpu/pod/app/cpu.cfs_period_us': '100000',
    'sys/fs/cgroup/unified/cgroup.controllers': 'hugetlb',
  });
  const cg = '9:name=systemd:/\n4:memory:/x\n2:cpuacct:/\n1:cpu:/pod/app\n0::/\n';
  const dirs = cpuCgroupDirs(cg, hybridMountinfo(root));
  assert.deepEqual(dirs, [
    { version: 1, dirs: [`${root}/sys/fs/cgroup/cpu/pod/app`, `${root}/sys/fs/cgroup/cpu/pod`, `${root}/sys/fs/cgroup/cpu`] },
    { version: 2, dirs: [`${root}/sys/fs/cgroup/unified`] },
  ]);
  // 1.5 CPUs on the parent binds the child without a limit of its own: 2 workers.
  assert.deepEqual(smallestCpuLimit(dirs), { cpus: 2, quota: 150000, period: 100000, file: `${root}/sys/fs/cgroup/cpu/pod/cpu.cfs_quota_us` });
  assert.match(cpuLimitNote(64, smallestCpuLimit(dirs)), /^max = 2: the cgroup's CPU limit \(quota 150000 \/ period 100000 in .*\/pod\/cpu\.cfs_quota_us; the affinity mask has 64 CPUs\)$/);
  assert.equal(cpuLimitNote(2, smallestCpuLimit(dirs)), null, 'a limit no smaller than the mask says nothing');
});

test('v1: -1 everywhere is no limit; a mount whose controllers name cpu,cpuacct together is found', (t) => {
  const root = cgroupfs(t, { 'cg/cpu.cfs_quota_us': '-1', 'cg/cpu.cfs_period_us': '100000', 'cg/a/cpu.cfs_quota_us': '-1', 'cg/a/cpu.cfs_period_us': '100000' });
  const mi = `32 31 0:29 / ${root}/cg rw,relatime - cgroup cgroup rw,cpu,cpuacct`;
  const dirs = cpuCgroupDirs('3:cpu,cpuacct:/a\n', mi);
  assert.deepEqual(dirs, [{ version: 1, dirs: [`${root}/cg/a`, `${root}/cg`] }]);
  assert.equal(smallestCpuLimit(dirs), null);
});

test('v2: cpu.max, "max" is none, nested limits take the smallest; the root has no cpu.max', (t) => {
  const root = cgroupfs(t, {
    'cg/cgroup.controllers': 'cpuset cpu io memory pids',
    'cg/kubepods.slice/cpu.max': 'max 100000',
    'cg/kubepods.slice/pod1/cpu.max': '250000 100000',
    'cg/kubepods.slice/pod1/ctr/cpu.max': '400000 100000',
  });
  const mi = `30 23 0:26 / ${root}/cg rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot`;
  const dirs = cpuCgroupDirs('0::/kubepods.slice/pod1/ctr\n', mi);
  assert.equal(dirs[0].dirs.length, 4);
  assert.deepEqual(smallestCpuLimit(dirs), { cpus: 3, quota: 250000, period: 100000, file: `${root}/cg/kubepods.slice/pod1/cpu.max` });
});

test('a container: its cgroup mounted as the root (a subtree mount, or a namespace), the path outside not visible', (t) => {
  const root = cgroupfs(t, { 'cg/cgroup.controllers': 'cpu', 'cg/cpu.max': '50000 100000' });
  // The mount's root is the container's cgroup: /proc/self/cgroup gives the host's path.
  const sub = `1000 900 0:26 /kubepods/pod1/ctr ${root}/cg ro,nosuid - cgroup2 cgroup2 rw`;
  assert.deepEqual(cpuCgroupDirs('0::/kubepods/pod1/ctr\n', sub), [{ version: 2, dirs: [`${root}/cg`] }]);
  // A cgroup namespace: "/" in both.
  const ns = `1000 900 0:26 / ${root}/cg ro,nosuid - cgroup2 cgroup2 rw`;
  assert.deepEqual(smallestCpuLimit(cpuCgroupDirs('0::/\n', ns)), { cpus: 1, quota: 50000, period: 100000, file: `${root}/cg/cpu.max` });
  // A path the mount does not show falls back to the mount's root.
  assert.deepEqual(cpuCgroupDirs('0::/elsewhere\n', ns), [{ version: 2, dirs: [`${root}/cg`] }]);
});

test('mountinfo escapes (a space in a mount point) and lines that are not cgroups', () => {
  const mounts = cgroupMounts('36 31 0:33 / /sys/fs/my\\040cg rw - cgroup cgroup rw,cpu\n22 1 8:1 / / rw - ext4 /dev/sda1 rw\ngarbage\n');
  assert.deepEqual(mounts, [{ version: 1, root: '/', dir: '/sys/fs/my cg', controllers: ['rw', 'cpu'] }]);
  assert.deepEqual(cpuCgroupDirs('1:cpu:/\n', ''), [], 'no mount: no directory');
});

test('which instances specs count CPUs', () => {
  for (const spec of ['max', 0, -1, { min: 1, max: 'max' }, { min: -1, max: 4 }]) assert.equal(countsCpus(spec), true, JSON.stringify(spec));
  for (const spec of [1, 4, { min: 1, max: 4 }, undefined]) assert.equal(countsCpus(spec), false, JSON.stringify(spec));
});
