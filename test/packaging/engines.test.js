// `npm ci` warns EBADENGINE when a locked package's `engines.node` excludes the Node it
// runs on. Every Node that package.json's own `engines` admits must install without that
// warning, so every locked package must admit the first release of each supported line,
// and the Node this runs on (`npm run test:node -- 24` runs the suite, and npm ci, on 24).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT } from '../helpers/harness.js';

// semver comes with npm's own tree (a dependency of the pm2 devDependency).
const semver = createRequire(import.meta.url)('semver');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));

/** The lowest version of each release line the range admits (20.19.0, 22.12.0, 24.0.0, ...). */
function firstOfEachLine(range) {
  return range.split('||').map((part) => semver.minVersion(part.trim()).version);
}

test('every locked package admits every Node line package.json supports (npm ci without EBADENGINE)', () => {
  const nodes = firstOfEachLine(pkg.engines.node);
  assert.ok(nodes.length >= 3, `supported lines: ${nodes.join(', ')}`);
  assert.ok(semver.satisfies(process.version, pkg.engines.node), `package.json's engines admit the Node this runs on, ${process.version}`);
  nodes.push(process.version.slice(1));
  const refused = [];
  for (const [where, entry] of Object.entries(lock.packages)) {
    const range = entry.engines?.node;
    if (!where || typeof range !== 'string') continue;
    for (const v of nodes) if (!semver.satisfies(v, range)) refused.push(`${where}@${entry.version} wants node ${range}, not ${v}`);
  }
  assert.deepEqual(refused, []);
});
