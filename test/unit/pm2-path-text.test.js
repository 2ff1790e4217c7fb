// What a PM2 user reads on the way over (issue 37): the README's path shows the unit
// `super startup systemd` would write (--print) before the command that writes and enables
// it as root, and `super run --help` names every ecosystem format it takes, not only YAML.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT, SUPER } from '../helpers/harness.js';

test('the README\'s PM2 path prints the systemd unit before it writes one', () => {
  const section = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n## From PM2')[1].split('\n## ')[0];
  const lines = section.split('\n').filter((l) => /super startup systemd/.test(l));
  assert.match(lines[0] ?? '', /super startup systemd --print/, section);
  assert.match(lines[1] ?? '', /as root: writes \/etc\/systemd\/system\/superd-<user>\.service and enables it/);
});

test('super run --help: a .js ecosystem file works, and says so', () => {
  const help = execFileSync(process.execPath, [SUPER, 'run', '--help'], { encoding: 'utf8' });
  assert.doesNotMatch(help, /\(YAML\)/);
  assert.match(help.replace(/\s+/g, ' '), /file an ecosystem file \(superd's or PM2's: \.yml, \.json, \.js, \.cjs, \.mjs, \.ts\)/);
});
