// `super daemon` parses its own flags without commander (bin/super.js's fast path, so the
// daemon never holds commander); what the fast path does not know goes to commander. Both
// must answer as before: usage, and one-line E_USAGE refusals with exit 2, no daemon left.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sandbox } from '../helpers/harness.js';

test('super daemon: --help and refused flags answer as commander did, and start nothing', async (t) => {
  const box = await sandbox(t);
  const help = await box.cli(['daemon', '--help']);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Usage: super daemon \[options\]/);
  assert.match(help.stdout, /--log-to <where>/);

  /** @type {[string[], RegExp][]} */
  const refusals = [
    [['--bogus'], /^super: E_USAGE: unknown option '--bogus'/],
    [['--listen'], /^super: E_USAGE: option '--listen <host:port>' argument missing/],
    [['--log-to', 'syslog'], /^super: E_USAGE: --log-to syslog: give file \(daemon\.log\) or stderr/],
    [['--foreground', '--tls-cert', 'c.pem'], /^super: E_USAGE: --tls-cert, --tls-key and --origin need --listen host:port/],
    [['--origin', 'https://a.example', 'https://b.example'], /^super: E_USAGE: --tls-cert, --tls-key and --origin need --listen host:port/],
    [['--listen', '1.2.3'], /^super: E_USAGE: --listen 1\.2\.3: give host:port/],
    [['--listen', '127.0.0.1:1', '--tls-cert', 'c.pem'], /^super: E_USAGE: --tls-cert and --tls-key go together/],
  ];
  for (const [flags, message] of refusals) {
    const r = await box.cli(['daemon', ...flags], { timeout: 20000 });
    assert.equal(r.code, 2, `${flags.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message, flags.join(' '));
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
  assert.equal(fs.existsSync(`${box.home}/daemon.pid`), false, 'no daemon started');
});
