// One daemon for the tests of a file that only start apps of their own and need no fresh
// daemon: a daemon start costs ~0.45 s of CPU. Each test deletes its apps when it ends, so a
// failed test leaves nothing running for the next; the sandbox goes when the file ends.
import { after } from 'node:test';
import { sandbox } from './harness.js';
import { request } from './requests.js';

/**
 * Call at the top level of a test file. Returns `use(t, names)`: the shared sandbox (the
 * first test to ask creates it), with apps `names` deleted after test `t`.
 */
export function sharedSandbox() {
  let box = null;
  after(async () => (await box)?.cleanup());
  return async function use(t, names) {
    box ??= sandbox({ after: () => {} }); // cleaned up by the hook above, not per test
    const shared = await box;
    t.after(() => request(shared, 'delete', { target: names }).catch(() => {}));
    return shared;
  };
}
