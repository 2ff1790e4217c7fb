// Every example in examples/ starts as shipped and serves (ports moved to free ones). An
// example whose file sets no PORT takes it from the shell that runs `super start`.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { freePort, httpGet, lsJson, sandbox, ROOT } from '../helpers/harness.js';

/**
 * The example's ecosystem with each `PORT: n` replaced by a free port; returns [file, ports,
 * env]: a file without one gets a free port through the environment of `super start`.
 * @param {string} dir
 * @returns {Promise<[string, number[], Record<string, string>]>}
 */
async function withFreePorts(dir) {
  let text = fs.readFileSync(path.join(dir, 'ecosystem.yml'), 'utf8');
  const ports = [];
  for (const m of text.matchAll(/PORT: (\d+)/g)) {
    const port = await freePort();
    ports.push(port);
    text = text.replace(m[0], `PORT: ${port}`);
  }
  // Written beside the example's scripts so that `script:` paths and `superd/worker` resolve as shipped.
  const file = path.join(dir, `.test-${process.pid}-${path.basename(dir)}.yml`);
  fs.writeFileSync(file, text);
  if (ports.length) return [file, ports, {}];
  const port = await freePort();
  return [file, [port], { PORT: String(port) }];
}

for (const name of ['hello', 'multi-app', 'fib', 'wait-ready']) {
  test(`examples/${name} starts and serves`, async (t) => {
    const box = await sandbox(t);
    const [file, ports, env] = await withFreePorts(path.join(ROOT, 'examples', name));
    t.after(() => fs.rmSync(file, { force: true }));
    await box.start(file, { env });
    const ls = await lsJson(box);
    for (const app of ls.apps) assert.ok(app.workers.every((w) => w.status === 'online'), `${app.name}: ${JSON.stringify(app.workers)}`);
    const res = await httpGet(ports[0]);
    assert.equal(res.status, 200, res.body);
  });
}
