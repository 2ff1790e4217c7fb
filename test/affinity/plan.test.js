// Issue 5, the pure parts: CPU set syntax, each slot's CPUs, the spread and unmapped-instance warnings, the checks.
import test from 'node:test';
import assert from 'node:assert/strict';
import { parseCpuSet, formatCpuList } from '../../lib/config/cpu-set.js';
import { checkAffinity, unmappedWarning } from '../../lib/config/check-affinity.js';
import { slotCpus, workerAffinity, spreadWarning } from '../../lib/master/settings/affinity.js';

test('parseCpuSet: numbers, lists and range strings, sorted and deduplicated', () => {
  assert.deepEqual(parseCpuSet(2), { cpus: [2] });
  assert.deepEqual(parseCpuSet([3, 0, 3]), { cpus: [0, 3] });
  assert.deepEqual(parseCpuSet('0,2,4-6'), { cpus: [0, 2, 4, 5, 6] });
  assert.deepEqual(parseCpuSet(' 6 - 7 , 1 '), { cpus: [1, 6, 7] });
  assert.match(parseCpuSet('3-1').error, /runs backwards; write 1-3/);
  assert.match(parseCpuSet('0-99999').error, /above 4095/);
  assert.match(parseCpuSet('0,,1').error, /"" is not a CPU number/);
  assert.match(parseCpuSet([]).error, /not a CPU set/);
  assert.match(parseCpuSet([-1]).error, /CPU -1 is out of range/);
});

test('formatCpuList writes taskset\'s list form', () => {
  assert.equal(formatCpuList([0]), '0');
  assert.equal(formatCpuList([0, 1, 2, 4, 6, 7]), '0-2,4,6-7');
  assert.equal(parseCpuSet(formatCpuList([1, 3, 4, 5])).cpus.join(), '1,3,4,5');
});

test('slotCpus: spread wraps around the allowed CPUs; a set is every slot\'s; a map names slots', () => {
  const allowed = [2, 3, 5];
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => slotCpus('spread', i, allowed)), [[2], [3], [5], [2], [3]]);
  assert.deepEqual(slotCpus('0-1', 7, allowed), [0, 1]);
  assert.deepEqual(slotCpus([5, 2], 0, allowed), [2, 5]);
  assert.deepEqual(slotCpus({ 0: [2], 1: '3,5' }, 1, allowed), [3, 5]);
  assert.equal(slotCpus({ 0: [2] }, 1, allowed), null);
  assert.equal(slotCpus(null, 0, allowed), null);
});

test('workerAffinity: the same slot gets the same CPUs at every fork; unpinned workers escape a pinned daemon', () => {
  const cfg = { name: 'a', cpu_affinity: 'spread', instances: 2 };
  const aff = { allowed: [0, 1], daemonPinned: false };
  assert.deepEqual(workerAffinity(cfg, 1, aff), { taskset: '1', cpus: '1', pinned: true });
  assert.deepEqual(workerAffinity(cfg, 1, aff), workerAffinity(cfg, 1, aff));
  assert.deepEqual(workerAffinity({ cpu_affinity: null }, 0, aff), { taskset: null, cpus: '0-1', pinned: false });
  assert.deepEqual(workerAffinity({ cpu_affinity: null }, 0, { ...aff, daemonPinned: true }), { taskset: '0-1', cpus: '0-1', pinned: false });
});

test('spreadWarning: only spread with more workers than CPUs', () => {
  assert.equal(spreadWarning({ name: 'a', cpu_affinity: 'spread', instances: 2 }, [0, 1]), null);
  assert.equal(spreadWarning({ name: 'a', cpu_affinity: '0', instances: 9 }, [0, 1]), null);
  assert.match(spreadWarning({ name: 'a', cpu_affinity: 'spread', instances: 3 }, [0, 1]), /^a: cpu_affinity spread puts 3 workers on 2 CPUs \(0-1\), so workers share CPUs \(#2 with #0\);.*use instances: 2 or fewer$/);
  assert.match(spreadWarning({ name: 'a', cpu_affinity: 'spread', instances: 1 }, [0], 6), /#1 with #0, #2 with #0, #3 with #0, \.\.\./);
});

test('unmappedWarning: a per-instance mapping that names instances the app does not run', () => {
  const w = (instances, spec) => unmappedWarning({ name: 'web', instances, cpu_affinity: spec });
  assert.equal(w(2, { 0: '0', 1: '1' }), null);
  assert.equal(w(2, 'spread'), null);
  assert.equal(w(2, [0, 1]), null);
  assert.equal(w(2, null), null);
  assert.equal(w(2, { 1: '0', 2: '1' }), 'web: cpu_affinity maps instance 2, but web runs 2 instances (0 to 1); that entry pins nothing until `super scale web 3` adds it; instance numbers count from 0');
  assert.equal(w(1, { 0: '0', 3: '1', 1: '1', '01': '1' }), 'web: cpu_affinity maps instances 1, 3, but web runs 1 instance (0); those entries pin nothing until `super scale web 4` adds them; instance numbers count from 0');
  assert.match(w(1, Object.fromEntries(Array.from({ length: 9 }, (_, i) => [i, '0']))), /maps instances 1, 2, 3, 4, 5, \.\.\., but .* `super scale web 9`/);
});

test('checkAffinity: what it reports, and where', () => {
  const run = (value, o) => {
    const out = [];
    checkAffinity(value, { allowed: [0, 1], noPinning: null, ...o }, (segs, m) => out.push([segs, m]));
    return out;
  };
  assert.deepEqual(run('spread'), []);
  assert.deepEqual(run(undefined), []);
  assert.deepEqual(run([0, 4]), [[[1], 'CPU 4 is outside the CPUs the daemon may use (0-1); use CPUs from 0-1, or spread']]);
  assert.deepEqual(run('0-3'), [[[], 'CPUs 2-3 are outside the CPUs the daemon may use (0-1); use CPUs from 0-1, or spread']], 'a range names only its CPUs outside');
  assert.deepEqual(run({ 0: '1', 3: [1, 2] }), [[['3', 1], 'CPU 2 is outside the CPUs the daemon may use (0-1); use CPUs from 0-1, or spread']]);
  assert.deepEqual(run('0', { perSlot: false, allowed: [1] }), [[[], 'CPU 0 is outside the CPUs the daemon may use (1); use CPUs from 1']]);
  assert.deepEqual(run({}), [[[], 'an empty mapping pins no instance; map instance numbers (from 0) to CPUs, like {0: [0], 1: "2-3"}, use spread, or remove cpu_affinity']]);
  assert.deepEqual(run({ 7: '1' }), [], 'an instance the app does not run (yet) is not an error: `super scale` adds it (unmappedWarning)');
  assert.deepEqual(run('spread', { noPinning: 'CPU pinning needs Linux (this is darwin)' }), [[[], 'CPU pinning needs Linux (this is darwin); remove cpu_affinity, or run superd on Linux with util-linux installed']]);
  assert.deepEqual(run(null, { noPinning: 'CPU pinning needs Linux (this is darwin)' }), [], 'apps that do not pin: nothing');
});

test('super monit shows each worker\'s CPUs, pinned ones marked', async () => {
  const { MonitModel } = await import('../../lib/ctl/monit/model.js');
  const { renderFrame } = await import('../../lib/ctl/monit/render.js');
  const model = new MonitModel();
  const w = (slot, pid, cpus, pinned) => ({ slot, pid, status: 'online', restarts: 0, uptime_ms: 1000, cpus, pinned, metrics: null });
  model.setSnapshot({ apps: [{ name: 'fib', status: 'online', workers: [w(0, 101, '0', true), w(1, 102, '0-1', false)] }] });
  const lines = renderFrame(model, { cols: 160, rows: 20, color: false });
  assert.match(lines[1], /uptime\s+cpus\s*$/);
  assert.match(lines.find((l) => /^fib\s+0\s+101/.test(l)), /\s0\*\s*$/);
  assert.match(lines.find((l) => /^fib\s+1\s+102/.test(l)), /\s0-1\s*$/);
  // On an 80-column terminal the column is cut, so the selected worker's detail says it.
  const narrow = renderFrame(model, { cols: 80, rows: 20, color: false });
  assert.ok(narrow.some((l) => l.startsWith('── fib#0 pid 101 online cpus 0 (pinned) ──')), narrow.join('\n'));
  model.move(1);
  assert.ok(renderFrame(model, { cols: 80, rows: 20, color: false }).some((l) => l.startsWith('── fib#1 pid 102 online cpus 0-1 ──')));
});
