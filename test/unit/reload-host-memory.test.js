// The memory guards' sources: MemAvailable of a meminfo-format file (host-memory.js), in
// bytes, null when the file is missing or does not say; and what the daemon's memory cgroup
// leaves (cgroup-memory.js), v1 and v2, from real files laid out as the kernel does.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hostAvailable } from '../../lib/master/apps/host-memory.js';
import { parseProcCgroup, cgroupDirs, leftIn, leastLeft, statValue } from '../../lib/cgroup-memory.js';

test('MemAvailable in bytes; null for a missing file or one without the line', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-mem-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = (name, text) => {
    fs.writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  assert.equal(await hostAvailable(file('ok', 'MemTotal:       8000000 kB\nMemFree:  100 kB\nMemAvailable:    2048 kB\n')), 2048 * 1024);
  assert.equal(await hostAvailable(file('none', 'MemTotal:       8000000 kB\n')), null);
  assert.equal(await hostAvailable(path.join(dir, 'missing')), null);
  assert.ok((await hostAvailable('/proc/meminfo')) > 0, 'the host says');
});

test('/proc/self/cgroup: the v1 memory hierarchy, else the v2 one', () => {
  assert.deepEqual(parseProcCgroup('12:pids:/a\n4:cpu,memory:/x/y\n0::/unified\n'), { version: 1, path: '/x/y' });
  assert.deepEqual(parseProcCgroup('0::/system.slice/superd.service\n'), { version: 2, path: '/system.slice/superd.service' });
  assert.equal(parseProcCgroup('3:cpu:/a\n'), null);
  assert.equal(parseProcCgroup(''), null);
});

test('a cgroup leaves limit - (usage - inactive_file); "max", a huge v1 limit or missing files leave no limit', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-cg-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const group = (rel, files) => {
    const dir = path.join(root, rel);
    fs.mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
    return dir;
  };
  const MB = 1024 * 1024;
  // v1: the service's limit of 500 MB, 400 MB used of which 100 MB inactive page cache.
  const v1 = group('v1/svc', { 'memory.limit_in_bytes': `${500 * MB}\n`, 'memory.usage_in_bytes': `${400 * MB}\n`, 'memory.stat': `cache 1\ninactive_file 7\ntotal_inactive_file ${100 * MB}\n` });
  group('v1', { 'memory.limit_in_bytes': '9223372036854771712\n', 'memory.usage_in_bytes': `${9000 * MB}\n`, 'memory.stat': '' });
  assert.equal(await leftIn(v1, 1), 200 * MB);
  assert.equal(await leftIn(path.join(root, 'v1'), 1), null, 'v1 says no limit with its largest counter');
  assert.deepEqual(cgroupDirs({ version: 1, path: '/svc' }, { v1Root: path.join(root, 'v1') }), [v1, path.join(root, 'v1')]);
  assert.equal(await leastLeft(cgroupDirs({ version: 1, path: '/svc' }, { v1Root: path.join(root, 'v1') }), 1), 200 * MB);
  // Inside a container the path of /proc/self/cgroup is not under the mount: its root is ours.
  assert.deepEqual(cgroupDirs({ version: 1, path: '/docker/abc' }, { v1Root: v1 }), [v1]);

  // v2: a slice limited to 300 MB over a service limited to 1 GB: the slice binds.
  const v2root = group('v2', { 'cgroup.controllers': 'cpu memory\n' });
  group('v2/slice', { 'memory.max': `${300 * MB}\n`, 'memory.current': `${250 * MB}\n`, 'memory.stat': `anon 5\ninactive_file ${50 * MB}\n` });
  const svc = group('v2/slice/svc', { 'memory.max': `${1024 * MB}\n`, 'memory.current': `${1100 * MB}\n`, 'memory.stat': '' });
  group('v2/free', { 'memory.max': 'max\n', 'memory.current': `${10 * MB}\n` });
  group('v2/nostat', { 'memory.max': `${100 * MB}\n`, 'memory.current': `${30 * MB}\n` });
  assert.equal(await leftIn(svc, 2), 0, 'over its limit (a burst): nothing left, never negative');
  assert.equal(await leftIn(path.join(v2root, 'slice'), 2), 100 * MB);
  assert.equal(await leftIn(path.join(v2root, 'free'), 2), null, '"max" is no limit');
  assert.equal(await leftIn(path.join(v2root, 'nostat'), 2), 70 * MB, 'no memory.stat: usage counted whole');
  assert.equal(await leftIn(path.join(root, 'missing'), 2), null);
  const dirs = cgroupDirs({ version: 2, path: '/slice/svc' }, { v2Root: v2root });
  assert.deepEqual(dirs, [svc, path.join(v2root, 'slice'), v2root]);
  assert.equal(await leastLeft(dirs, 2), 0);
  assert.equal(await leastLeft([path.join(v2root, 'free'), v2root], 2), null, 'no limit anywhere');
  assert.deepEqual(cgroupDirs({ version: 2, path: '/x' }, { v2Root: path.join(root, 'v1') }), [], 'not a v2 mount (no cgroup.controllers)');
  assert.equal(statValue('inactive_file 12\ntotal_inactive_file 34\n', 'inactive_file'), 12);
});
