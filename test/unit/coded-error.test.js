// The CLI's one renderer of coded errors: a daemon error, a failed start and a failed
// reload all print as `super: CODE: message`, indented notes, then `app#slot | line`.
import test from 'node:test';
import assert from 'node:assert/strict';
import { SuperError } from '../../lib/errors.js';
import { renderError } from '../../lib/ctl/coded-error.js';
import { startFailure, reloadFailure } from '../../lib/worker-failure.js';

test('a daemon error with config problems', () => {
  const err = new SuperError('E_CONFIG', '2 problems in eco.yml', { problems: ['eco.yml:3:5: apps[0].x: unknown key', 'eco.yml:4:5: apps[0].y: unknown key'] });
  assert.equal(renderError(err), 'super: E_CONFIG: 2 problems in eco.yml\n  eco.yml:3:5: apps[0].x: unknown key\n  eco.yml:4:5: apps[0].y: unknown key\n');
});

test('a worker that failed to start, with its stderr tail', () => {
  const err = startFailure({ app: 'api', slot: 1, reason: 'exited with code 3', stderr: 'Error: boom\n    at main' }, '; stopping everything');
  assert.equal(err.code, 'E_START_FAILED');
  assert.equal(err.exitStatus, 1);
  assert.equal(renderError(err, 'super run'), 'super run: E_START_FAILED: api#1 exited with code 3 before it became ready; stopping everything\n  api#1 | Error: boom\n  api#1 |     at main\n');
  const shared = startFailure({ app: 'api', slot: 0, reason: 'x', stderr: 'y', stderr_label: 'api' });
  assert.match(renderError(shared), /\n {2}api \| y\n$/);
  assert.equal(renderError(startFailure({ app: 'a', slot: 0, reason: 'r' })), 'super: E_START_FAILED: a#0 r before it became ready\n');
});

test('a reload that stopped at a failed replacement', () => {
  const err = reloadFailure({ app: 'api', ok: false, replaced: [0], kept: [1, 2], failed: { slot: 1, reason: 'exited with code 1', stderr: 'bad' } });
  assert.equal(err.code, 'E_RELOAD_FAILED');
  assert.equal(renderError(err), 'super: E_RELOAD_FAILED: api#1 exited with code 1; the reload stopped and the new worker was killed\n'
    + '  api: slots 1, 2 still run the old version; slot 0 already runs the new one\n  api#1 | bad\n');
});

test('anything else is E_INTERNAL with its stack', () => {
  assert.match(renderError(new TypeError('oops')), /^super: E_INTERNAL: TypeError: oops\n {4}at /);
});
