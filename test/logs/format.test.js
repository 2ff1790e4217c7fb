// Issue 3: log_date_format / time lines parse; --since reads them back; a reload changes the
// format (log_type json and pm2-json: pipelines.test.js).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet } from '../helpers/harness.js';
import { compileParser } from '../../lib/logs/date-format.cjs';

test('log_date_format prefixes every line (and wins over time); time: true is ISO; --since reads them', async (t) => {
  const box = await sandbox(t);
  box.fixture('log-writer.js');
  const eco = box.write('eco.yml', `
apps:
  - name: fmt
    script: log-writer.js
    ready_on: ready
    log_date_format: "YYYY-MM-DD HH:mm:ss.SSS ZZ"
    time: true
    env: { LINES: 20 }
  - name: iso
    script: log-writer.js
    ready_on: ready
    time: true
    env: { LINES: 20 }
  - name: plain
    script: log-writer.js
    ready_on: ready
    env: { LINES: 20 }
`);
  const before = Date.now();
  await box.start(eco);
  const read = (name) => fs.readFileSync(path.join(box.home, 'logs', `${name}-out.log`), 'utf8').trimEnd().split('\n');
  const parse = compileParser('YYYY-MM-DD HH:mm:ss.SSS ZZ');
  for (const l of read('fmt')) {
    assert.match(l, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [+-]\d{4}: L w0 \d{7} x+$/);
    const ms = parse(l);
    assert.ok(ms >= before - 1000 && ms <= Date.now(), l);
  }
  for (const l of read('iso')) {
    assert.match(l, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z: L w0 \d{7} x+$/);
    assert.ok(Date.parse(l.slice(0, 24)) >= before - 1000);
  }

  const recent = await box.cli(['logs', 'fmt', '--since', '10m', '--out']);
  assert.equal(recent.code, 0, recent.stderr);
  assert.equal(recent.stdout.trimEnd().split('\n').length, 20, 'all 20 lines are from the last 10 minutes');
  const future = await box.cli(['logs', 'iso', '--since', new Date(Date.now() + 60000).toISOString()]);
  assert.equal(future.stdout, '');
  const undated = await box.cli(['logs', 'plain', '--since', '10m']);
  assert.equal(undated.code, 2);
  assert.match(undated.stderr, /^super: E_USAGE: --since needs dated log lines, and plain writes none/);
});

test('a rolling reload applies a changed log format to the replacement workers', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('log-writer.js');
  const eco = (extra) => box.write('eco.yml', `
apps:
  - name: web
    script: log-writer.js
    probation: 0
    env: { PORT: ${port}, TAG: ${extra ? 'NEW' : 'OLD'} }
${extra}
`);
  eco('');
  assert.equal((await box.cli(['start', path.join(box.dir, 'eco.yml')])).code, 0);
  await httpGet(port, '/write?n=3');
  eco('    log_type: json');
  const r = await box.cli(['reload', 'web']);
  assert.equal(r.code, 0, r.stderr);
  await httpGet(port, '/write?n=3');
  const lines = fs.readFileSync(path.join(box.home, 'logs', 'web-out.log'), 'utf8').trimEnd().split('\n');
  assert.deepEqual(lines.slice(0, 3).map((l) => l.slice(0, 7)), ['OLD w0 ', 'OLD w0 ', 'OLD w0 ']);
  const after = lines.slice(-3).map((l) => JSON.parse(l));
  assert.deepEqual(after.map((o) => [o.name, o.slot, o.stream, o.msg.slice(0, 7)]), [['web', 0, 'out', 'NEW w0 '], ['web', 0, 'out', 'NEW w0 '], ['web', 0, 'out', 'NEW w0 ']]);
});
