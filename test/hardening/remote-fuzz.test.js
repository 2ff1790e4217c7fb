// Hostile input on the TCP control listener, before any credential: random bytes, broken
// HTTP, a TLS hello on the plain port, oversized headers, upgrades with no or wrong tokens,
// hang-ups in the middle. Every peer is refused or cut off; the daemon stays up, lets no one
// in, and an app keeps serving. The garbage comes from 127.0.0.2, so its lockout (429)
// does not lock out the operator's own client on 127.0.0.1.
//   FUZZ_SEED=<n> node --test test/hardening/remote-fuzz.test.js   to replay
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { sandbox, freePort, httpGet } from '../helpers/harness.js';
import { mulberry32 } from './fuzz-messages.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const COUNT = 600;
const FROM = '127.0.0.2';

function payload(rand, i) {
  const bytes = (n) => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
  const key = 'dGhlIHNhbXBsZSBub25jZQ==';
  const upgradeReq = (auth) => `GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${key}\r\n${auth}\r\n`;
  switch (i % 8) {
    case 0: return bytes(1 + Math.floor(rand() * 2048));
    case 1: return Buffer.from(upgradeReq('')); // no token
    case 2: return Buffer.from(upgradeReq(`Authorization: Bearer ${bytes(32).toString('hex')}\r\n`)); // wrong token
    case 3: return Buffer.from(upgradeReq(`Authorization: Basic ${bytes(12).toString('base64')}\r\n`));
    case 4: return Buffer.from(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20000 + Math.floor(rand() * 60000))}\r\n\r\n`);
    case 5: return Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03, ...bytes(64)]); // a TLS ClientHello
    case 6: return Buffer.from(upgradeReq('').slice(0, Math.floor(rand() * 120))); // cut short, then hang up
    default: return Buffer.from(`${['POST', 'PUT', 'BREW', '\u0000'][i % 4]} /${bytes(8).toString('hex')} HTTP/1.${i % 3}\r\nContent-Length: -1\r\n\r\n`);
  }
}

/** Sends one payload from FROM; resolves with the first bytes of the answer ('' if none) once the peer is closed. */
function throwAt(port, buf, hangUp) {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port, localAddress: FROM });
    let answer = '';
    const done = () => resolve(answer);
    s.setTimeout(3000, () => s.destroy());
    s.on('data', (d) => {
      if (answer.length < 64) answer += d.toString('latin1');
    });
    s.on('error', () => {});
    s.on('close', done);
    s.on('connect', () => {
      s.write(buf);
      if (hangUp) s.destroy();
      else s.end();
    });
  });
}

test(`${COUNT} hostile peers on the TCP control listener: none gets in, the daemon and its app stay up`, async (t) => {
  const box = await sandbox(t);
  const [control, appPort] = [await freePort(), await freePort()];
  box.fixture('http-server.js');
  const eco = box.write('eco.yml', `control:\n  listen: 127.0.0.1:${control}\napps:\n  - name: web\n    script: http-server.js\n    env: { PORT: ${appPort} }\n`);
  assert.equal((await box.cli(['start', eco])).code, 0);
  const daemon = box.daemonPid();

  const rand = mulberry32(SEED);
  const statuses = {};
  for (let i = 0; i < COUNT; i += 20) {
    const batch = [];
    for (let j = i; j < Math.min(i + 20, COUNT); j++) batch.push(throwAt(control, payload(rand, j), j % 8 === 6));
    for (const answer of await Promise.all(batch)) {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? (answer ? 'other' : 'closed');
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
    assert.equal((await httpGet(appPort)).status, 200, `the app serves (after ${i + 20} peers)`);
  }
  assert.equal(statuses['101'], undefined, `no hostile peer was let in: ${JSON.stringify(statuses)}`);
  assert.ok(statuses['401'] > 0 && statuses['429'] > 0, `wrong tokens were refused, then locked out: ${JSON.stringify(statuses)}`);

  // The operator, from another address, still gets in with the token.
  const tokenFile = path.join(box.home, 'token');
  const ls = await box.cli(['--host', `127.0.0.1:${control}`, '--token-file', tokenFile, 'ls', '--json'], { env: { SUPER_HOME: path.join(box.dir, 'client-home') } });
  assert.equal(ls.code, 0, ls.stderr);
  assert.deepEqual(JSON.parse(ls.stdout).apps.map((a) => [a.name, a.status]), [['web', 'online']]);
  assert.equal(box.daemonPid(), daemon, 'the same daemon');
  assert.doesNotMatch(fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8'), /"level":(50|60)/, 'no error or fatal in daemon.log');
});
