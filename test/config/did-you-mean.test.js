import assert from 'node:assert/strict';
import { test } from 'node:test';
import { didYouMean, editDistance } from '../../lib/config/did-you-mean.js';
import { shellQuote, shellSplit } from '../../lib/config/shell-split.js';

const KEYS = ['name', 'script', 'args', 'cwd', 'instances', 'exec_mode', 'env', 'autorestart', 'kill_timeout'];

test('editDistance counts a transposition as one edit', () => {
  assert.equal(editDistance('cwd', 'cwd'), 0);
  assert.equal(editDistance('cdw', 'cwd'), 1);
  assert.equal(editDistance('instnces', 'instances'), 1);
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('', 'abc'), 3);
});

test('didYouMean suggests near typos, case-insensitively', () => {
  assert.equal(didYouMean('instnces', KEYS), 'instances');
  assert.equal(didYouMean('exec-mode', KEYS), 'exec_mode');
  assert.equal(didYouMean('Script', KEYS), 'script');
  assert.equal(didYouMean('cdw', KEYS), 'cwd');
  assert.equal(didYouMean('autorestrat', KEYS), 'autorestart');
});

test('didYouMean stays quiet when nothing is close', () => {
  assert.equal(didYouMean('cron_restart', KEYS), undefined);
  assert.equal(didYouMean('xyz', KEYS), undefined);
  assert.equal(didYouMean('port', KEYS), undefined);
});

test('shellSplit splits like a shell, without expansion', () => {
  assert.deepEqual(shellSplit(''), []);
  assert.deepEqual(shellSplit('  --port 80   -v '), ['--port', '80', '-v']);
  assert.deepEqual(shellSplit(`--name 'my app' --x "a \\"b\\" $HOME"`), ['--name', 'my app', '--x', 'a "b" $HOME']);
  assert.deepEqual(shellSplit(`a\\ b c''d ""`), ['a b', 'cd', '']);
  assert.deepEqual(shellSplit(`"back\\slash"`), ['back\\slash']);
});

test('shellSplit refuses unterminated quotes', () => {
  assert.throws(() => shellSplit("--name 'x"), { name: 'SyntaxError', message: 'unterminated single quote' });
  assert.throws(() => shellSplit('"x'), { message: 'unterminated double quote' });
  assert.throws(() => shellSplit('x\\'), { message: 'trailing backslash' });
});

test('shellQuote gives a word back as a shell (and shellSplit) reads it', () => {
  assert.equal(shellQuote('api-v2.1'), 'api-v2.1');
  assert.equal(shellQuote('Billing API Server'), "'Billing API Server'");
  for (const w of ['Billing API Server', "it's $HOME `x`", 'a"b\\c', 'Ünï cødé']) assert.deepEqual(shellSplit(shellQuote(w)), [w], w);
});
