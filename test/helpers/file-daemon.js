// One sandbox, so one daemon, for every test of a file: a daemon's start-up costs ~0.45 s
// of CPU, most of what a short test costs. For tests that each add their own apps (unique
// names and ports) and need no fresh daemon; each removes its apps at its end, so a failed
// test leaves nothing behind for the next one.
import { after } from 'node:test';
import { sandbox } from './harness.js';

/** A sandbox shared by the tests of the file, cleaned up after the last of them. */
export const fileSandbox = () => sandbox({ after });

/** Deletes `apps` from the box's daemon when test `t` ends, passed or failed. */
export function deleteAtEnd(t, box, apps) {
  t.after(async () => {
    const client = await box.client().catch(() => null);
    if (!client) return; // no daemon (it never started, or the test killed it)
    try {
      await client.request('delete', { target: apps }, { timeout: 60000 }); // bounded: a hung daemon fails the hook, not the run
    } catch {
      // an app that never started
    } finally {
      client.close();
    }
  });
}
