// A second, real user for the tests that run an app as another user (needs root).
// The name is fresh each time: a name made of the pid alone met a user that an earlier run
// left behind (pids repeat), and useradd refused it.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

const ATTEMPTS = 5;

/**
 * Creates a user for this test and deletes it when the test ends, after ending whatever
 * still runs as it (userdel refuses a user with live processes). The cleanup never throws:
 * a hook that throws skips the hooks after it.
 * @param {import('node:test').TestContext} t
 * @param {string} prefix three letters that say which test made the user
 * @param {{ home?: boolean }} [options] home: create /home/<name> (removed with the user)
 * @returns {{ name: string, uid: number, gid: number }}
 */
export function testUser(t, prefix, { home = false } = {}) {
  for (let i = 0; i < ATTEMPTS; i++) {
    const name = `${prefix}${process.pid}x${randomBytes(3).toString('hex')}`;
    const r = spawnSync('useradd', [home ? '-m' : '-M', '-s', '/bin/sh', name], { encoding: 'utf8' });
    if (r.status === 9) continue; // taken (useradd's "username already in use")
    if (r.status !== 0) throw new Error(`useradd ${name}: ${r.stderr.trim() || `exit ${r.status}`}`);
    t.after(() => removeUser(name, home));
    const id = (/** @type {string} */ flag) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }));
    return { name, uid: id('-u'), gid: id('-g') };
  }
  throw new Error(`useradd: ${ATTEMPTS} fresh names were all taken`);
}

/**
 * @param {string} name
 * @param {boolean} home
 */
async function removeUser(name, home) {
  let last = '';
  // A daemon still alive may start the user's worker again: kill and retry, a bounded number of times.
  for (let i = 0; i < 40; i++) {
    spawnSync('pkill', ['-KILL', '-U', name]);
    const r = spawnSync('userdel', home ? ['-r', name] : [name], { encoding: 'utf8' });
    if (spawnSync('id', [name]).status !== 0) return; // gone (a warning about its home is not our concern)
    last = r.stderr.trim();
    await sleep(50);
  }
  process.stderr.write(`userdel ${name}: ${last}\n`);
}
