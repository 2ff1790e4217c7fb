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
  assert.deepEqual(parseStat(b, b.length), { ticks: 12 + 34 + 5 + 6, selfTicks: 12 + 34, rssPages: 789 });
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

test('a childless worker with a fresh report is sampled from its agent\'s figures; a stale report, a child or every 10th sample reads /proc',
  { skip: !linux && 'reads /proc' }, async (t) => {
    const sh = spawn('sh', ['-c', 'echo up; read x; sleep 30 & echo child; wait'], { stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    t.after(() => {
      try {
        process.kill(-sh.pid, 'SIGKILL');
      } catch {}
    });
    await once(sh.stdout, 'data');
    const sampler = new ProcessSampler();
    t.after(() => sampler.close());
    const AGENT_RSS = 12345; // no process has this RSS: it tells the agent's figure from /proc's
    let agent = null;
    const sample = async () => (await sampler.sample([sh.pid], new Map(), () => agent)).get(sh.pid);
    const first = await sample();
    assert.notEqual(first.memory, AGENT_RSS, 'the first sample reads /proc');
    let at = 0; // each report later than the last one and than the last sample
    const report = (micros) => { agent = { user: micros, system: 0, rss: AGENT_RSS, at: (at = Math.max(at, Date.now()) + 1) }; };
    report(0);
    let fromAgent = await sample();
    // The first full read after a worker's first sample falls 1 to 10 samples later (spread
    // by pid over the workers): with 1, this one was it, and the next is the agent's.
    if (fromAgent.memory !== AGENT_RSS && sh.pid % 10 === 0) {
      report(0);
      fromAgent = await sample();
    }
    assert.equal(fromAgent.memory, AGENT_RSS, 'a report newer than the last sample, no child: the agent\'s figures');
    assert.equal(fromAgent.processes, 1);
    assert.notEqual((await sample()).memory, AGENT_RSS, 'no report since the last sample (a blocked loop): /proc');
    // Its own CPU time grows by 2 s between two reports: 200 ticks, whole.
    report(0);
    await sample();
    await new Promise((r) => setTimeout(r, 5));
    report(2_000_000);
    const busy = await sample();
    assert.equal(busy.cpuTicks, 200);
    assert.ok(busy.cpu > 100, `2 s of CPU in a few ms: ${busy.cpu}`);
    // Every 10th sample reads the tree whole (children started and reaped since).
    let full = 0;
    for (let i = 0; i < 20; i++) {
      report(2_000_000);
      if ((await sample()).memory !== AGENT_RSS) full++;
    }
    assert.equal(full, 2, 'two full reads in 20 samples');
    // With a child, the tree is read whole even with a fresh report.
    sh.stdin.write('go\n');
    await once(sh.stdout, 'data');
    for (let i = 0; i < 50; i++) { // the sleep forked (bounded: 50 samples)
      report(2_000_000);
      const s = await sample();
      if (s.processes === 2) {
        assert.notEqual(s.memory, AGENT_RSS);
        return;
      }
    }
    assert.fail('the child was never counted');
  });
