// The error registry and the error table of docs/cli.md must list the same codes, with the
// same exit statuses: the docs document exactly what the CLI can print.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CODES, SuperError, EXIT, fileErrorCode } from '../../lib/errors.js';
import { ROOT } from '../helpers/harness.js';

const page = fs.readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
const table = new Map([...page.matchAll(/^\| `(E_[A-Z_]+)` \| (\d) \|/gm)].map((m) => [m[1], Number(m[2])]));

test('every registered code is in the error table of docs/cli.md with its exit status', () => {
  for (const [code, [status]] of Object.entries(CODES)) {
    assert.ok(table.has(code), `${code} missing from docs/cli.md`);
    assert.equal(table.get(code), status, `${code} exit status`);
  }
});

test('every code in the table of docs/cli.md is registered', () => {
  for (const code of table.keys()) assert.ok(code in CODES, `${code} is in docs/cli.md but not in lib/errors.js`);
  assert.ok(table.size >= 10);
});

test('SuperError carries code, exit status and wire shape', () => {
  const e = new SuperError('E_CONFIG', 'bad', { problems: ['x'] });
  assert.equal(e.exitStatus, EXIT.BAD_INPUT);
  assert.deepEqual(e.toJSON(), { code: 'E_CONFIG', message: 'bad', details: { problems: ['x'] } });
  assert.equal(SuperError.fromJSON({ code: 'E_NOPE', message: 'm' }).code, 'E_INTERNAL');
  assert.throws(() => new SuperError('E_NOPE', 'x'), /unknown error code/);
});

test('a permission error of the file system has its own code, not E_USAGE', () => {
  for (const code of ['EACCES', 'EPERM', 'EROFS']) assert.equal(fileErrorCode({ code }, 'E_USAGE'), 'E_PERMISSION', code);
  assert.equal(fileErrorCode({ code: 'ENOTDIR' }, 'E_USAGE'), 'E_USAGE');
  assert.equal(fileErrorCode(new Error('x'), 'E_INTERNAL'), 'E_INTERNAL');
  assert.equal(new SuperError('E_PERMISSION', 'cannot write /etc/x (EACCES)').exitStatus, EXIT.FAILED);
});
