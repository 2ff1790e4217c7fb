// What `super deploy` last told this daemon about the rollout it runs on this host: the
// release (version) and deploy id, the version before it, and the step it is at. The CLI
// writes it at each step (op `deploy-state`); a re-run of the CLI reads it to continue
// where a crashed one stopped, and `ls` / the "metrics" event carry it to the dashboard;
// each record is also pushed as it is set ("deploy" event), so a page shows every step of a
// host's rollout, however short, not only the ones a once-a-second sample falls on.
// Kept in the daemon's memory: a daemon that restarts forgets it, and the next run rolls
// that host again (safe: a reload of what is on disk).

import { EventEmitter } from 'node:events';

export class DeployRecord extends EventEmitter {
  /** @type {{id: string, version: string, previous: string|null, state: string, step: string, reason: string|null, at: number}|null} */
  current = null;

  /**
   * @param {{id: string, version: string, previous?: string, state: string, step?: string, reason?: string}} rec
   *   (its fields checked by lib/ipc/protocol.js)
   */
  set(rec) {
    this.current = {
      id: rec.id,
      version: rec.version,
      previous: rec.previous ?? null,
      state: rec.state,
      step: rec.step ?? rec.state,
      reason: rec.reason ?? null,
      at: Date.now(),
    };
    this.emit('set', this.current);
    return this.current;
  }
}
