// Issue 37: the stderr a failed earlier start left (EADDRINUSE) is not shown as the healthy
// app's: `super logs` prints, after those lines, one line saying when the current workers
// started, and --json marks them `earlier`.
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { sandbox, freePort } from '../helpers/harness.js';
import { request } from '../helpers/requests.js';

const SERVER = `const http = require('node:http');
console.error('up pid ' + process.pid);
http.createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT));
`;

test('super logs: the lines of a failed earlier start come before "workers started", the healthy run\'s after', { timeout: 60000 }, async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.write('server.js', SERVER);
  const eco = box.write('web.yml', `apps:\n  - name: web\n    script: server.js\n    env: { PORT: ${port} }\n`);
  await box.start(eco);
  await request(box, 'stop', { target: ['web'] });

  const squatter = net.createServer().listen(port, '127.0.0.1');
  t.after(() => squatter.close());
  await new Promise((res) => squatter.once('listening', res));
  const failed = await box.cli(['start', 'web']);
  assert.equal(failed.code, 1, failed.stderr);
  await new Promise((res) => squatter.close(res));
  const ok = await box.cli(['start', 'web']);
  assert.equal(ok.code, 0, ok.stderr);

  const r = await box.cli(['logs', 'web', '--err', '--lines', '50'], { env: { NO_COLOR: '1' } });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  const sep = lines.findIndex((l) => /^── web workers started \d\d:\d\d:\d\d \(this run\) ──$/.test(l));
  assert.ok(sep > 0, `a "workers started" line after the old ones:\n${r.stdout}`);
  assert.equal(lines.filter((l) => /workers started/.test(l)).length, 1, r.stdout);
  assert.ok(lines.slice(0, sep).some((l) => /EADDRINUSE/.test(l)), `the failed start's error before it:\n${r.stdout}`);
  const after = lines.slice(sep + 1);
  assert.ok(after.length > 0 && after.every((l) => /^web ! up pid \d+$/.test(l)), `only the healthy run's lines after it:\n${r.stdout}`);

  const j = await box.cli(['logs', 'web', '--err', '--lines', '50', '--json']);
  assert.equal(j.code, 0, j.stderr);
  const rows = j.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
  assert.equal(rows.length, lines.length - 1, 'no separator in --json');
  assert.ok(rows.slice(0, sep).every((o) => o.earlier === true), j.stdout);
  assert.ok(rows.slice(sep).every((o) => o.earlier === undefined), j.stdout);
});
