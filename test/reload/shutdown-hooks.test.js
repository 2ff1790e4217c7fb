// Apps can clean up on retirement: onShutdown(fn) runs after the last request was answered;
// shutdown_with_message also sends PM2's 'shutdown' message.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet, FIXTURES } from '../helpers/harness.js';
import { waitForLog } from '../helpers/metrics.js';

test('stop: onShutdown runs after the in-flight request is answered; shutdown_with_message sends "shutdown"', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  const markFile = path.join(box.dir, 'marks.txt');
  fs.writeFileSync(markFile, '');
  // shutdown-hooks imports superd/worker, which resolves from inside this package: run it in place.
  const eco = box.write('eco.yml', `
apps:
  - name: hooks
    script: ${path.join(FIXTURES, 'apps', 'shutdown-hooks.js')}
    shutdown_with_message: true
    env: { PORT: ${port}, MARK_FILE: ${JSON.stringify(markFile)}, SLOW_MS: 700 }
`);
  assert.equal((await box.cli(['start', eco])).code, 0);
  const slow = httpGet(port, '/', { timeout: 10000 });
  // stop once the request is in flight (answered 700 ms after it arrives)
  for (let i = 0; i < 400 && !fs.readFileSync(markFile, 'utf8').includes('received'); i++) await new Promise((r) => setTimeout(r, 10));
  const stop = await box.cli(['stop', 'hooks']);
  assert.equal(stop.code, 0, stop.stderr);
  assert.equal((await slow).body, 'done\n');
  const marks = fs.readFileSync(markFile, 'utf8').trim().split('\n').map((l) => l.split(' ')[0]);
  assert.ok(marks.includes('message'), `PM2 shutdown message received: ${marks}`);
  assert.ok(marks.indexOf('answered') < marks.indexOf('hook'), `hook after the answer: ${marks}`);
  assert.ok(marks.includes('hook'));
});

test('a failing onShutdown hook is logged in daemon.log and the stop goes on', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  const eco = box.write('eco.yml', `apps:\n  - name: bad-hook\n    script: ${path.join(FIXTURES, 'apps', 'failing-hook.js')}\n    env: { PORT: ${port} }\n`);
  assert.equal((await box.cli(['start', eco])).code, 0);
  const stop = await box.cli(['stop', 'bad-hook']);
  assert.equal(stop.code, 0, stop.stderr);
  const log = await waitForLog(box, /"msg":"onShutdown hook failed"/);
  assert.match(log, /cleanup exploded/);
});
