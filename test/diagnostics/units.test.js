// Issue 15: the pure parts of the live diagnostics: the stall-capture rule, file names and
// pruning, --out per worker, the memory check of heap snapshots, the --duration bound, and
// how ls and monit mark a capture.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { shouldCapture } from '../../lib/master/captures/stall-rule.js';
import { diagnosticName, isDiagnosticName, stallCapturesOf, pruneStallCaptures } from '../../lib/master/captures/profile-files.js';
import { outPath } from '../../lib/profiles/out-path.js';
import { profileDuration } from '../../lib/config/profile-limits.js';
import memory from '../../lib/worker/captures-memory.cjs';
import { renderLs } from '../../lib/ctl/render-ls.js';
import { renderFrame } from '../../lib/ctl/monit/render.js';
import { MonitModel } from '../../lib/ctl/monit/model.js';
import { parseKeys } from '../../lib/ctl/monit/keys.js';

const settings = { loop_delay: 200, cooldown: 1500 };

/** Reports every `every` ms for `span` ms with loop p99 `p99`; captures last `duration` ms. */
function simulate({ p99, span, every = 250, duration = 400 }) {
  const starts = [];
  for (let now = 0; now < span; now += every) {
    const lastAt = starts.at(-1);
    const busy = lastAt !== undefined && now - lastAt < duration;
    if (shouldCapture({ p99, settings, lastAt, busy, now })) starts.push(now);
  }
  return starts;
}

test('stall rule: a stalled worker gets exactly one capture per cooldown, a calm one none', () => {
  // 10 s of stalls: captures at 0, 1.5, 3, ... 9 s
  assert.deepEqual(simulate({ p99: 300, span: 10000 }), [0, 1500, 3000, 4500, 6000, 7500, 9000]);
  assert.deepEqual(simulate({ p99: 199, span: 10000 }), []);
  assert.deepEqual(simulate({ p99: 300, span: 10000, duration: 2000 }), [0, 2000, 4000, 6000, 8000], 'never while one runs');
  assert.equal(shouldCapture({ p99: null, settings, busy: false, now: 0 }), false, 'no loop figure, no capture');
});

test('file names: sortable time, stall prefix, nothing a client could turn into a path', () => {
  const at = Date.UTC(2026, 10, 23, 20, 15, 3, 42);
  assert.equal(diagnosticName({ kind: 'profile', app: 'api', slot: 2, at }), 'api-2-20261123T201503042Z.cpuprofile');
  assert.equal(diagnosticName({ kind: 'heap', app: 'api', slot: 0, at }), 'api-0-20261123T201503042Z.heapsnapshot');
  assert.equal(diagnosticName({ kind: 'profile', app: 'api', slot: 1, at, stall: true }), 'stall-api-1-20261123T201503042Z.cpuprofile');
  assert.ok(isDiagnosticName('api-0-20261123T201503042Z.cpuprofile'));
  // A name with spaces (or any other character) gives a file name a client may fetch, its own.
  const spaced = diagnosticName({ kind: 'profile', app: 'Billing API', slot: 0, at, stall: true });
  assert.match(spaced, /^stall-Billing_API_[0-9a-f]{8}-0-20261123T201503042Z\.cpuprofile$/);
  assert.ok(isDiagnosticName(spaced) && isDiagnosticName(diagnosticName({ kind: 'heap', app: '.x y', slot: 0, at })));
  assert.notEqual(spaced, diagnosticName({ kind: 'profile', app: 'Billing_API', slot: 0, at, stall: true }));
  assert.deepEqual(stallCapturesOf([spaced], 'Billing API'), [spaced]);
  for (const bad of ['../api.cpuprofile', '.hidden.cpuprofile', 'a/b.cpuprofile', 'token', 'dump.json', '', 7]) assert.equal(isDiagnosticName(bad), false, String(bad));
});

test('stall captures beyond keep: the oldest of that app go, other apps\' stay', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-prune-'));
  try {
    const names = [
      'stall-api-1-20261123T200000000Z.cpuprofile', 'stall-api-0-20261123T200001000Z.cpuprofile',
      'stall-api-0-20261123T200002000Z.cpuprofile', 'stall-api-1-20261123T200003000Z.cpuprofile',
      'stall-api-2-0-20261123T195900000Z.cpuprofile', 'api-0-20261123T195800000Z.cpuprofile',
    ];
    for (const n of names) fs.writeFileSync(path.join(dir, n), '{}');
    assert.deepEqual(stallCapturesOf(names, 'api'), names.slice(0, 4), 'oldest first, across slots; not api-2\'s');
    assert.deepEqual(await pruneStallCaptures(dir, 'api', 2), names.slice(0, 2));
    assert.deepEqual(fs.readdirSync(dir).sort(), names.slice(2).sort());
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('--out of several workers: one file each', () => {
  assert.equal(outPath('/tmp/p.cpuprofile', 3, 1), '/tmp/p.cpuprofile');
  assert.equal(outPath('/tmp/p.cpuprofile', 3, 4), '/tmp/p-3.cpuprofile');
  assert.equal(outPath('/tmp/p', 0, 2), '/tmp/p-0');
});

test('heap snapshot memory check: about the heap again must be available', () => {
  const { snapshotFits, memAvailable } = memory;
  assert.equal(snapshotFits(500 * 2 ** 20, 400 * 2 ** 20), false);
  assert.equal(snapshotFits(500 * 2 ** 20, 2 ** 30), true);
  assert.equal(snapshotFits(500 * 2 ** 20, null), true, 'unknown (not Linux): not refused');
  assert.equal(memAvailable('MemTotal:       16000000 kB\nMemAvailable:    1024 kB\n'), 1024 * 1024);
  assert.equal(memAvailable('nothing'), null);
});

test('--duration: a human duration from 100 ms to 5 minutes', () => {
  assert.equal(profileDuration('10s'), 10000);
  assert.equal(profileDuration('5m'), 300000);
  for (const bad of ['5m1s', '6m', '50ms', 'soon', '']) assert.throws(() => profileDuration(bad), /** @param {any} err */ (err) => err.code === 'E_USAGE', bad);
});

test('ls and monit name a worker\'s last stall capture; p is monit\'s profile key', () => {
  const capture = { file: '/h/profiles/stall-api-0-20261123T201503042Z.cpuprofile', at: Date.now(), loop_p99_ms: 312 };
  const worker = { slot: 0, pid: 10, status: 'online', uptime_ms: 1000, restarts: 0, cpu: 1, memory: 1, metrics: { loop_delay_ms: { p99: 312, max: 330 }, report_age_ms: 100 }, stall_capture: capture };
  const apps = [{ id: 0, name: 'api', status: 'online', instances: 1, workers: [worker] }];
  assert.match(renderLs({ apps }), /api#0: stall capture at .* \(loop p99 312ms\): \/h\/profiles\/stall-api-0-/);
  const model = new MonitModel();
  model.setSnapshot({ apps });
  const frame = renderFrame(model, { cols: 200, rows: 30, color: false }).join('\n');
  assert.match(frame, /312ms⚑/);
  assert.match(frame, /⚑ stall capture .*stall-api-0-20261123T201503042Z\.cpuprofile/);
  assert.match(frame, /p profile/);
  assert.deepEqual(parseKeys('p'), ['profile']);
});
