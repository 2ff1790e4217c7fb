// Issue 16: the Dockerfile (no docker engine runs in CI, so it is checked by reading it):
// a supported LTS base inside package.json "engines", the OCI labels in step with
// package.json, and only what runs copied into the image.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/harness.js';

const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const instructions = (name) => [...dockerfile.matchAll(new RegExp(`^${name} (.*)$`, 'gm'))].map((m) => m[1]);

test('the Dockerfile: an LTS base in "engines", OCI labels from package.json, only what runs', () => {
  const [from] = instructions('FROM');
  const major = Number(/^node:(\d+)-/.exec(from)?.[1]);
  assert.ok(major >= 22 && major % 2 === 0, `an LTS line past Node 20's end of life: ${from}`);
  assert.ok(pkg.engines.node.split('||').some((r) => r.trim() === `>=${major}` || r.trim().startsWith(`^${major}.`)), `engines (${pkg.engines.node}) covers Node ${major}`);

  const labels = Object.fromEntries([...instructions('LABEL').join(' ').matchAll(/(org\.opencontainers\.image\.\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
  assert.equal(labels['org.opencontainers.image.title'], pkg.name);
  assert.equal(labels['org.opencontainers.image.licenses'], pkg.license);
  assert.equal(labels['org.opencontainers.image.source'], pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, ''));
  assert.equal(labels['org.opencontainers.image.version'], '${VERSION}');
  assert.deepEqual(instructions('ARG'), [`VERSION=${pkg.version}`]);

  const copied = instructions('COPY').map((c) => c.split(/\s+/).slice(0, -1)).flat();
  assert.deepEqual(copied.sort(), ['bin', 'config', 'lib', 'package-lock.json', 'package.json']);
  const ignored = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
  for (const dir of ['examples', 'test', 'bench', 'node_modules', '.git']) assert.ok(ignored.includes(dir), `.dockerignore: ${dir}`);
});
