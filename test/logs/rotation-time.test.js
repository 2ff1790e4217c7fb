// Issue 16: log_rotate daily rotates at midnight (the daemon's rotation clock set by
// SUPER_LOG_CLOCK to just before it) into a dated file, loses no line written across the
// rotation, and prunes rotated files by age (log_retain_days) and count (log_retain).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet } from '../helpers/harness.js';

test('log_rotate: daily at midnight, dated names, no line lost, pruned by age and count', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('log-writer.js');
  const logs = path.join(box.dir, 'logs');
  fs.mkdirSync(logs);
  // Rotated files left by earlier days: one older than log_retain_days (7), four recent ones.
  const day = 86400 * 1000;
  const earlier = { '2026-10-01': 40, '2026-11-18': 5, '2026-11-20': 3, '2026-11-21': 2, '2026-11-22': 1 };
  for (const [date, age] of Object.entries(earlier)) {
    const f = path.join(logs, `tick-out.${date}.log`);
    fs.writeFileSync(f, 'old\n');
    fs.utimesSync(f, new Date(Date.now() - age * day), new Date(Date.now() - age * day));
  }
  const eco = box.write('eco.yml', `
logs: { dir: logs }
apps:
  - name: tick
    script: log-writer.js
    instances: 1
    log_rotate: daily
    log_retain: 6
    log_retain_days: 7
    env: { PORT: ${port} }
`);
  const r = await box.cli(['start', eco], { env: { SUPER_LOG_CLOCK: '2026-11-23T23:59:58.500Z', TZ: 'UTC' } });
  assert.equal(r.code, 0, r.stderr);

  const dated = path.join(logs, 'tick-out.2026-11-23.log');
  let next = 0;
  // Write until midnight (1.5 s away by the daemon's clock) has rotated the file (bounded:
  // 10 s), then a little more.
  for (let i = 0; i < 500 && !fs.existsSync(dated); i++) {
    next = Number((await httpGet(port, '/write?n=20')).body);
    await new Promise((res) => setTimeout(res, 20));
  }
  assert.ok(fs.existsSync(dated), `rotated at midnight into the dated file: ${fs.readdirSync(logs)} ${fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8').slice(-1500)}`);
  for (let i = 0; i < 5; i++) next = Number((await httpGet(port, '/write?n=20')).body);
  // Wait (bounded) until the current file holds the last line (the worker reopened it).
  const last = `L w0 ${String(next - 1).padStart(7, '0')} `;
  const current = path.join(logs, 'tick-out.log');
  for (let i = 0; i < 100 && !fs.readFileSync(current, 'utf8').includes(last); i++) await new Promise((res) => setTimeout(res, 50));

  const lines = [...fs.readFileSync(dated, 'utf8').trimEnd().split('\n'), ...fs.readFileSync(current, 'utf8').trimEnd().split('\n')];
  const seqs = lines.map((l) => Number(/^L w0 (\d{7}) /.exec(l)?.[1]));
  const missing = Array.from({ length: next }, (_, i) => i).filter((i) => !seqs.includes(i));
  assert.deepEqual({ missing, count: seqs.length }, { missing: [], count: next }, 'every line once across the two files');
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), 'in order');
  assert.ok(fs.readFileSync(dated, 'utf8').length > 0 && fs.readFileSync(current, 'utf8').length > 0, 'lines on both sides of midnight');
  // Each stream's file rotates on its own: stderr's may come a moment after stdout's (bounded: 10 s).
  const datedErr = path.join(logs, 'tick-err.2026-11-23.log');
  for (let i = 0; i < 200 && !fs.existsSync(datedErr); i++) await new Promise((res) => setTimeout(res, 50));
  assert.ok(fs.existsSync(datedErr), 'stderr rotated too');

  // super logs reaches back into the dated file when the current one is short
  const currentCount = fs.readFileSync(current, 'utf8').trimEnd().split('\n').length;
  const shown = await box.cli(['logs', 'tick', '--out', '--lines', String(currentCount + 5)]);
  assert.deepEqual(shown.stdout.trimEnd().split('\n').map((l) => l.replace(/^tick \| /, '')), lines.slice(-(currentCount + 5)));

  // pruned by age: 2026-10-01 is older than 7 days (log_retain 6 keeps every one of the 6 by count)
  const left = fs.readdirSync(logs).filter((n) => n.startsWith('tick-out.')).sort();
  assert.deepEqual(left, ['tick-out.2026-11-18.log', 'tick-out.2026-11-20.log', 'tick-out.2026-11-21.log', 'tick-out.2026-11-22.log', 'tick-out.2026-11-23.log', 'tick-out.log']);
});
