// The decisions behind a uid app's listen() (lib/master/process/listen-permission.js) and
// the chain of directories above SUPER_HOME (lib/dir-chain.js). The end-to-end checks with
// a real second user are test/hardening/uid-listen.test.js and root-files.test.js.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { portRefusal } from '../../lib/master/process/listen-permission.js';
import { canAccess } from '../../lib/user-access.js';
import { unsafeAncestorReason } from '../../lib/dir-chain.js';

test('canAccess: owner, then group, then others; root may do anything', () => {
  const dir = { uid: 0, gid: 0, mode: 0o40750 };
  assert.equal(canAccess(dir, { uid: 1000, gid: 1000 }, 0o1), false, 'others: no bits');
  assert.equal(canAccess(dir, { uid: 1000, gid: 0 }, 0o1), true, 'group may enter');
  assert.equal(canAccess(dir, { uid: 1000, gid: 0 }, 0o3), false, 'group may not write');
  assert.equal(canAccess({ ...dir, uid: 1000, mode: 0o40077 }, { uid: 1000, gid: 0 }, 0o3), false, 'the owner class decides, not the others');
  assert.equal(canAccess({ uid: 5, gid: 5, mode: 0o41777 }, { uid: 1000, gid: 1000 }, 0o3), true, 'a world-writable directory (/tmp)');
  assert.equal(canAccess(dir, { uid: 0, gid: 0 }, 0o3), true);
});

test('portRefusal: below the first unprivileged port only with allow_privileged_ports', () => {
  const o = { allowPrivileged: false, firstFree: 1024 };
  assert.match(portRefusal(80, o), /port 80 is privileged .*allow_privileged_ports: true/);
  assert.equal(portRefusal(80, { ...o, allowPrivileged: true }), null);
  assert.equal(portRefusal(1024, o), null);
  assert.equal(portRefusal(0, o), null, 'any free port');
  assert.equal(portRefusal(80, { ...o, firstFree: 0 }), null, 'a host where every port is everyone\'s');
});

test('unsafeAncestorReason: a directory above writable by others is refused unless sticky', (t) => {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-chain-'));
  t.after(() => fs.rmSync(top, { recursive: true, force: true }));
  const home = path.join(top, 'parent', 'home');
  fs.mkdirSync(home, { recursive: true });
  const parent = path.dirname(home);
  fs.chmodSync(parent, 0o777);
  assert.match(unsafeAncestorReason(home), /parent is writable by others \(mode 777\) and not sticky.*chmod go-w/);
  assert.match(unsafeAncestorReason(path.join(home, 'not-yet', 'there')), /parent is writable by others/, 'a home not created yet: its existing parents');
  fs.chmodSync(parent, 0o1777);
  assert.equal(unsafeAncestorReason(home), null, 'sticky, as /tmp');
  fs.chmodSync(parent, 0o755);
  assert.equal(unsafeAncestorReason(home), null);
  const link = path.join(top, 'link');
  fs.chmodSync(parent, 0o777);
  fs.symlinkSync(home, link);
  assert.match(unsafeAncestorReason(link), /parent is writable by others/, 'the real place is checked too, not only the path as written');
});
