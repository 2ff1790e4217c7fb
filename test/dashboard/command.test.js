// `super dashboard`'s refusals, before it listens or connects to anything: exit 2, E_USAGE,
// one line that says what to do. And the link it prints with TLS on a wildcard address works.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import WebSocket from 'ws';
import { sandbox, freePort } from '../helpers/harness.js';
import { startDashboard } from '../helpers/chromium.js';

function hasOpenssl() {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test('an address other than loopback without TLS, half a TLS pair, a bad --listen or --host are refused', async (t) => {
  const box = await sandbox(t);
  /** @type {[string[], RegExp][]} */
  const cases = [
    [['--listen', '0.0.0.0:9615'], /E_USAGE: --listen 0\.0\.0\.0:9615 is reachable from other machines: give --tls-cert and --tls-key/],
    [['--tls-cert', '/nonexistent.pem'], /E_USAGE: TLS needs both --tls-cert and --tls-key/],
    [['--listen', 'nowhere'], /E_USAGE: --listen nowhere: give host:port/],
    [['--host', 'bad host'], /E_USAGE: --host bad host: give host:port/],
    [['--host', ''], /E_USAGE: --host "": give host:port/],
  ];
  const runs = await Promise.all(cases.map(([args]) => box.cli(['dashboard', ...args])));
  runs.forEach((r, i) => {
    assert.equal(r.code, 2, `${cases[i][0].join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, cases[i][1]);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  });
});

test('the docs\' TLS example (--listen 0.0.0.0:P with a certificate): the link it prints answers, the page and its websocket', { skip: hasOpenssl() ? false : 'openssl is not installed', timeout: 30_000 }, async (t) => {
  const box = await sandbox(t);
  const [cert, key] = [path.join(box.dir, 'cert.pem'), path.join(box.dir, 'key.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  const port = await freePort();
  const dash = await startDashboard(box.home, ['--read-only', '--listen', `0.0.0.0:${port}`, '--tls-cert', cert, '--tls-key', key]);
  t.after(() => dash.stop());
  assert.equal(dash.base, `https://localhost:${port}/`);
  const ca = fs.readFileSync(cert);
  const status = await new Promise((resolve, reject) => https.get(dash.base, { ca }, (res) => {
    res.resume();
    resolve(res.statusCode);
  }).on('error', reject));
  assert.equal(status, 200);
  const hello = await new Promise((resolve, reject) => {
    const ws = new WebSocket(`wss://localhost:${port}/ws`, ['superd', `superd.${dash.token}`], { origin: `https://localhost:${port}`, ca });
    ws.on('message', (d) => {
      resolve(JSON.parse(String(d)));
      ws.close();
    });
    ws.on('unexpected-response', (req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.on('error', reject);
  });
  assert.equal(hello.type, 'hello');
  assert.equal(hello.needToken, false);
  assert.equal(hello.readOnly, true);
});
