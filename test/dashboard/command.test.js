// `super dashboard`'s refusals, before it listens or connects to anything: exit 2, E_USAGE,
// one line that says what to do.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox } from '../helpers/harness.js';

test('an address other than loopback without TLS, half a TLS pair, a bad --listen or --host are refused', async (t) => {
  const box = await sandbox(t);
  /** @type {[string[], RegExp][]} */
  const cases = [
    [['--listen', '0.0.0.0:9615'], /E_USAGE: --listen 0\.0\.0\.0:9615 is reachable from other machines: give --tls-cert and --tls-key/],
    [['--tls-cert', '/nonexistent.pem'], /E_USAGE: TLS needs both --tls-cert and --tls-key/],
    [['--listen', 'nowhere'], /E_USAGE: --listen nowhere: give host:port/],
    [['--host', 'bad host'], /E_USAGE: --host bad host: give host:port/],
  ];
  const runs = await Promise.all(cases.map(([args]) => box.cli(['dashboard', ...args])));
  runs.forEach((r, i) => {
    assert.equal(r.code, 2, `${cases[i][0].join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, cases[i][1]);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  });
});
