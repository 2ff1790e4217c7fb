// The daemon's /proc sampler (lib/master/health/process-sampler.js): the stat line and the
// children list are parsed from the bytes read, and a worker's whole process tree is counted.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { ProcessSampler, parseStat, forEachPid } from '../../lib/master/health/process-sampler.js';

const linux = process.platform === 'linux';

test('parseStat: CPU ticks and RSS pages after a comm that holds spaces and ") "', () => {
  // fields after comm: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
  // utime stime cutime cstime priority nice threads itrealvalue starttime vsize rss ...
  const line = '4242 (evil) (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 12 34 5 6 20 0 7 0 999 123456 789 18446744073709551615 1 1\n';
  const b = Buffer.from(line, 'latin1');
  assert.deepEqual(parseStat(b, b.length), { ticks: 12 + 34 + 5 + 6, rssPages: 789 });
  assert.equal(parseStat(b, 0), null, 'nothing read');
  const cut = Buffer.from('4242 (a) S 1 2 3', 'latin1');
  assert.equal(parseStat(cut, cut.length), null, 'a line cut before rss');
});

test('forEachPid: every pid of a children list, with or without a trailing space', () => {
  for (const text of ['', '12 345 6789 ', '12 345 6789']) {
    const seen = [];
    forEachPid(Buffer.from(text), text.length, (p) => seen.push(p));
    assert.deepEqual(seen, text ? [12, 345, 6789] : []);
  }
});

test('a tree of three processes is counted whole; its files close when it is gone', { skip: !linux && 'reads /proc' }, async (t) => {
  const sh = spawn('sh', ['-c', 'sleep 30 & sleep 30 & echo up; wait'], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
  const killGroup = () => {
    try {
      process.kill(-sh.pid, 'SIGKILL');
    } catch {}
  };
  t.after(killGroup);
  await once(sh.stdout, 'data');
  const sampler = new ProcessSampler();
  t.after(() => sampler.close());
  let tree;
  for (let i = 0; i < 50; i++) { // both sleeps forked (bounded: 50 samples)
    tree = (await sampler.sample([sh.pid])).get(sh.pid);
    if (tree.processes === 3) break;
  }
  assert.equal(tree.processes, 3);
  assert.ok(tree.memory > 0 && tree.cpu >= 0, JSON.stringify(tree));
  assert.equal(sampler.openFiles, 6, 'stat and children of each of the three');
  const gone = once(sh, 'exit');
  killGroup();
  await gone;
  assert.deepEqual((await sampler.sample([sh.pid])).get(sh.pid), { cpu: null, memory: null, processes: 0, cpuTicks: 0 });
  assert.equal(sampler.openFiles, 0);
});
